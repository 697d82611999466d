"""The provider secret rules: one row per token family, written from each
provider's published token format.

Pure data, cheap to import (the hook path loads it): nothing is compiled
here. ``baton.domain.redaction`` turns each row into a rule whose regular
expression is compiled the first time its keywords appear in a string, so a
handoff that names no provider pays only for the keyword scan.

A row is ``(name, reason, keywords, regex, min_entropy)``:

- ``keywords``: lower-case substrings one of which every match contains; a
  string none of them occurs in is never searched with ``regex``.
- ``regex``: Python syntax. A named group ``secret`` is the part replaced,
  else the whole match is.
- ``min_entropy``: bits per character the replaced part must reach. Set where
  the shape alone is weak (a provider name followed by 32 hex characters);
  0 where a prefix is distinctive enough (``glpat-``, ``sk-ant-``).

Two kinds of row:

- *prefixed*: a token that carries its own prefix (``npm_``, ``hf_``,
  ``SG.``); built by :func:`_prefixed` with boundaries on both sides, where an
  underscore counts as a boundary so a token joined into an identifier
  (``owner__<token>``) is still found.
- *keyed*: a token with no prefix of its own, recognised only when assigned
  to a name that mentions the provider (``HEROKU_API_KEY=<uuid>``); built by
  :func:`_keyed`, always with an entropy floor.
"""

from __future__ import annotations

ProviderRow = tuple[str, str, tuple[str, ...], str, float]

LEFT_BOUNDARY = r"(?<![A-Za-z0-9])"
"""Left boundary: not glued to a letter or digit (``_`` and ``-`` are fine).
A regex that starts with it has it checked outside the regex engine, which
can then jump straight to the token's literal prefix."""
_R = r"(?![A-Za-z0-9])"
_R_DASH = r"(?![A-Za-z0-9_\-])"
"""Right boundary for bodies that may themselves contain ``_`` and ``-``."""

HEX = "[0-9a-fA-F]"
UUID = f"{HEX}{{8}}-{HEX}{{4}}-{HEX}{{4}}-{HEX}{{4}}-{HEX}{{12}}"
_ASSIGN = r"""[\w.\-]{0,30}?["']?[ \t]*(?::=|=>|[:=])[ \t]*["'`]?"""


def _prefixed(name: str, reason: str, keywords: tuple[str, ...], body: str, *,
              right: str = _R, min_entropy: float = 0.0) -> ProviderRow:
    return (name, reason, keywords, f"{LEFT_BOUNDARY}(?:{body}){right}", min_entropy)


def _keyed(name: str, reason: str, words: tuple[str, ...], value: str, *,
           min_entropy: float = 3.0) -> ProviderRow:
    """``<…word…> = value``: the word (any case) in the assigned name, then
    ``=``, ``:``, ``:=`` or ``=>``, then the value, quoted or bare."""
    alternatives = "|".join(words)
    return (name, reason, words,
            rf"(?i:{alternatives}){_ASSIGN}(?P<secret>{value}){_R_DASH}", min_entropy)


_ARGUMENT = r"""(?:(?P<q>["'])|(?!["']))(?P<secret>(?(q)[^\n"']{3,}|[^\s"'-][^\s"']{2,}))"""
"""A password as a command's argument: quoted, to its closing quote (blanks and all), or a word
that does not start with ``-`` (the next option)."""
_HTPASSWD_OPTIONS = r"""(?:[ \t]+-[A-Za-z]*C[A-Za-z]*[ \t]+[0-9]+|[ \t]+-[A-Za-z]+)+"""
"""htpasswd's options, ``-C COST`` with its number."""


PROVIDER_RULES: tuple[ProviderRow, ...] = (
    # -- AI APIs ---------------------------------------------------------------
    _prefixed("anthropic-api-key", "Anthropic API or admin key", ("sk-ant-",),
              r"sk-ant-[a-z]{2,8}\d{2}-[A-Za-z0-9_\-]{40,200}", right=_R_DASH),
    _prefixed("openai-api-key", "OpenAI API key", ("sk-",),
              r"sk-(?:proj|svcacct|service|admin|None)-[A-Za-z0-9_\-]{40,250}"
              r"|sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}"
              r"|sk-[A-Za-z0-9]{48}", right=_R_DASH),
    _prefixed("openrouter-api-key", "OpenRouter API key", ("sk-or-",), r"sk-or-v\d-[a-f0-9]{64}"),
    _prefixed("perplexity-api-key", "Perplexity API key", ("pplx-",), r"pplx-[A-Za-z0-9]{48}"),
    _prefixed("groq-api-key", "Groq API key", ("gsk_",), r"gsk_[A-Za-z0-9]{52}"),
    _prefixed("xai-api-key", "xAI API key", ("xai-",), r"xai-[A-Za-z0-9]{80}"),
    _prefixed("replicate-api-token", "Replicate API token", ("r8_",), r"r8_[A-Za-z0-9]{37}"),
    # 34 letters *and digits* (trufflehog's ``(?:hf_|api_org_)[a-zA-Z0-9]{34}``;
    # gitleaks' letters-only form is the subset of it).
    _prefixed("huggingface-access-token", "Hugging Face access token", ("hf_",), r"hf_[A-Za-z0-9]{34}"),
    _prefixed("huggingface-org-token", "Hugging Face organization API token", ("api_org_",),
              r"api_org_[A-Za-z0-9]{34}"),
    _prefixed("langsmith-api-key", "LangSmith personal or service key", ("lsv2_pt_", "lsv2_sk_"),
              r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}"),
    _prefixed("langfuse-secret-key", "Langfuse secret key", ("sk-lf-",), r"sk-lf-" + UUID),
    _prefixed("pinecone-api-key", "Pinecone API key", ("pcsk_",), r"pcsk_[A-Za-z0-9]{5,6}_[A-Za-z0-9]{63}"),
    _prefixed("nvidia-api-key", "NVIDIA API key", ("nvapi-",), r"nvapi-[A-Za-z0-9_\-]{64}", right=_R_DASH),
    _prefixed("elevenlabs-api-key", "ElevenLabs API key", ("sk_",), r"sk_[a-f0-9]{48}"),
    _keyed("cohere-api-key", "Cohere API key", ("cohere", "co_api_key"), r"[A-Za-z0-9]{40}"),
    _keyed("privateai-api-key", "Private AI API key", ("private_ai", "private-ai", "privateai"),
           r"[A-Za-z0-9]{32}"),

    # -- cloud and hosting platforms ---------------------------------------------
    _prefixed("aws-access-key-id", "AWS access key id", ("akia", "asia", "abia", "acca", "a3t"),
              r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}"),
    _prefixed("aws-bedrock-api-key", "Amazon Bedrock API key", ("absk", "bedrock-api-key-"),
              r"ABSK[A-Za-z0-9+/]{100,270}={0,2}|bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=%&\-]{20,}",
              right=r"(?![A-Za-z0-9+/=])"),
    _prefixed("gcp-api-key", "Google API key", ("aiza",), r"AIza[A-Za-z0-9_\-]{35}", right=_R_DASH),
    _prefixed("google-oauth-client-secret", "Google OAuth client secret", ("gocspx-",), r"GOCSPX-[A-Za-z0-9_\-]{28}",
              right=_R_DASH),
    _prefixed("google-oauth-token", "Google OAuth access or refresh token", ("ya29.", "1//0"),
              r"ya29\.[A-Za-z0-9_\-]{20,2048}|1//0[A-Za-z0-9_\-]{40,512}", right=_R_DASH, min_entropy=3.0),
    ("gcp-service-account-key-id", "Google service account private key id", ("private_key_id",),
     r"""private_key_id["']?\s*[:=]\s*["']?(?P<secret>[a-f0-9]{40})(?![a-f0-9])""", 0.0),
    _prefixed("azure-ad-client-secret", "Microsoft Entra (Azure AD) client secret", ("q~",),
              r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}", right=r"(?![A-Za-z0-9_~.\-])"),
    ("azure-storage-account-key", "Azure storage account or shared access key",
     ("accountkey=", "sharedaccesskey="),
     r"(?i:AccountKey|SharedAccessKey)=(?P<secret>[A-Za-z0-9+/]{40,88}={0,2})", 0.0),
    ("azure-sas-signature", "Azure shared access signature", ("sig=",),
     r"[?&]sv=[0-9-]{10}[^\s\"']*?&sig=(?P<secret>[A-Za-z0-9%+/=]{40,})", 0.0),
    _prefixed("azure-container-registry-password", "Azure Container Registry password", ("+acr",),
              r"[A-Za-z0-9+/]{42}\+ACR[A-Za-z0-9]{6}", right=r"(?![A-Za-z0-9+/=])"),
    _prefixed("azure-devops-pat", "Azure DevOps personal access token", ("azdo",), r"[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}",
              min_entropy=3.5),
    _keyed("azure-devops-pat-legacy", "Azure DevOps personal access token (52 characters)",
           ("azure_devops", "azure-devops", "azuredevops", "azdo", "ado_pat", "ado_token", "devops_pat"),
           r"[a-z2-7]{52}"),
    _keyed("azure-service-key", "Azure service key (Cosmos DB, Cognitive Search, API Management, OpenAI)",
           ("azure", "cosmos"), r"[A-Za-z0-9+/]{86}==|[A-Za-z0-9]{52}|[A-Za-z0-9]{32}"),
    _prefixed("alibaba-access-key-id", "Alibaba Cloud AccessKey id", ("ltai",), r"LTAI[A-Za-z0-9]{17,21}"),
    _keyed("alibaba-secret-key", "Alibaba Cloud AccessKey secret", ("alibaba", "aliyun"), r"[A-Za-z0-9]{30}"),
    _prefixed("digitalocean-token", "DigitalOcean token", ("do_v1_", "dop_v1_", "doo_v1_", "dor_v1_"),
              r"do[opr]_v1_[a-f0-9]{64}"),
    _keyed("heroku-api-key", "Heroku API key", ("heroku",), UUID),
    _prefixed("heroku-api-key-v2", "Heroku API key", ("hrku-",), r"HRKU-AA[A-Za-z0-9_\-]{58}", right=_R_DASH),
    _prefixed("flyio-access-token", "Fly.io access token", ("fo1_", "fm1a_", "fm1r_", "fm2_"),
              r"fo1_[A-Za-z0-9_\-]{43}|fm1[ar]_[A-Za-z0-9+/]{100,}={0,3}|fm2_[A-Za-z0-9+/]{100,}={0,3}",
              right=r"(?![A-Za-z0-9+/=_\-])"),
    _keyed("netlify-access-token", "Netlify access token", ("netlify",), r"[A-Za-z0-9_\-]{40,46}"),
    _keyed("cloudflare-api-token", "Cloudflare API token", ("cloudflare", "cf_api"), r"[A-Za-z0-9_\-]{40}"),
    _keyed("cloudflare-global-api-key", "Cloudflare global API key", ("cloudflare", "cf_api"), r"[a-f0-9]{37}"),
    _prefixed("cloudflare-api-token-v2", "Cloudflare API token or global key (prefixed form)",
              ("cfut_", "cfat_", "cfk_"), r"(?:cf[ua]t|cfk)_[A-Za-z0-9]{40}[a-f0-9]{8}"),
    _prefixed("cloudflare-origin-ca-key", "Cloudflare Origin CA key", ("v1.0-",), r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}"),
    _keyed("fastly-api-token", "Fastly API token", ("fastly",), r"[A-Za-z0-9_\-]{32}"),
    _prefixed("scalingo-api-token", "Scalingo API token", ("tk-us-",), r"tk-us-[A-Za-z0-9_\-]{48}", right=_R_DASH),
    _prefixed("openshift-user-token", "OpenShift user token", ("sha256~",), r"sha256~[A-Za-z0-9_\-]{43}",
              right=_R_DASH),
    _prefixed("yandex-api-key", "Yandex Cloud API key", ("aqvn",), r"AQVN[A-Za-z0-9_\-]{35,38}", right=_R_DASH),
    _prefixed("yandex-aws-access-token", "Yandex Cloud static access key", ("yc",), r"YC[A-Za-z0-9_\-]{38}",
              right=_R_DASH, min_entropy=3.5),
    _prefixed("yandex-access-token", "Yandex Cloud IAM token", ("t1.",),
              r"t1\.[A-Z0-9a-z_\-]+={0,2}\.[A-Z0-9a-z_\-]{86}={0,2}", right=_R_DASH),
    _prefixed("hashicorp-terraform-token", "HashiCorp Terraform Cloud token", ("atlasv1",),
              r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=\-]{60,70}", right=_R_DASH),
    _prefixed("vault-token", "HashiCorp Vault token", ("hvs.", "hvb.", "hvr."),
              r"hv[sbr]\.[A-Za-z0-9_\-]{24,300}", right=_R_DASH),
    _keyed("vault-legacy-token", "HashiCorp Vault token (legacy)", ("vault",), r"s\.[A-Za-z0-9]{24}"),
    _prefixed("tailscale-key", "Tailscale auth, API or OAuth client key", ("tskey-",),
              r"tskey-[a-z]{3,10}-[A-Za-z0-9]{4,32}-[A-Za-z0-9]{16,64}", min_entropy=3.0),
    _prefixed("pulumi-access-token", "Pulumi access token", ("pul-",), r"pul-[a-f0-9]{40}"),
    _prefixed("doppler-token", "Doppler token", ("dp.pt.", "dp.st.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."),
              r"dp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9_.\-]{40,}", right=_R_DASH),
    _prefixed("infracost-api-token", "Infracost API token", ("ico-",), r"ico-[A-Za-z0-9]{32}"),
    _prefixed("prefect-api-key", "Prefect API key", ("pnu_",), r"pnu_[A-Za-z0-9]{36}"),
    _prefixed("harness-api-key", "Harness API key", ("pat.", "sat."),
              r"(?:pat|sat)\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}"),
    _prefixed("defined-networking-api-token", "Defined Networking API token", ("dnkey-",),
              r"dnkey-[A-Za-z0-9=_\-]{26}-[A-Za-z0-9=_\-]{52}", right=_R_DASH),
    _prefixed("octopus-deploy-api-key", "Octopus Deploy API key", ("api-",), r"API-[A-Z0-9]{26}", min_entropy=3.5),
    _prefixed("databricks-api-token", "Databricks API token", ("dapi",), r"dapi[a-f0-9]{32}(?:-\d)?"),
    _prefixed("databricks-oauth-secret", "Databricks OAuth (service principal) secret", ("dose",), r"dose[a-f0-9]{32}",
              min_entropy=3.0),
    _prefixed("deno-deploy-token", "Deno Deploy access token", ("ddp_", "ddw_"), r"dd[pw]_[A-Za-z0-9]{36}"),
    _prefixed("clickhouse-cloud-api-key", "ClickHouse Cloud API secret", ("4b1d",), r"4b1d[A-Za-z0-9]{38}"),
    _prefixed("planetscale-token", "PlanetScale token or password", ("pscale_",),
              r"pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.\-]{32,64}", right=r"(?![A-Za-z0-9_=.\-])"),
    _prefixed("supabase-access-token", "Supabase access token", ("sbp_",), r"sbp_[a-f0-9]{40}"),
    _keyed("confluent-api-key", "Confluent API key", ("confluent",), r"[A-Za-z0-9]{16}"),
    _keyed("confluent-secret", "Confluent API secret", ("confluent",), r"[A-Za-z0-9+/]{64}"),
    _prefixed("1password-secret-key", "1Password account secret key", ("a3-",),
              r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}"),
    _prefixed("1password-service-account-token", "1Password service account token", ("ops_ey",),
              r"ops_eyJ[A-Za-z0-9+/]{200,}={0,3}", right=r"(?![A-Za-z0-9+/=])"),
    _prefixed("age-secret-key", "age secret key", ("age-secret-key-1",),
              r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    ("kubernetes-service-account-token", "Kubernetes secret data",
     ("kind: secret", "kind:secret", 'kind: "secret"', "kind: 'secret'"),
     r"(?is:kind:[ \t]*[\"']?secret[\"']?\s.{0,300}?\bdata:\s+[\w.\-]+:[ \t]*[\"']?)(?P<secret>[A-Za-z0-9+/]{16,}={0,2})",
     3.0),

    # -- code hosting, package registries, CI ------------------------------------------
    _prefixed("gitlab-token", "GitLab token", ("glpat-", "gldt-", "glft-", "glrt-", "glsoat-", "glffct-", "glimt-",
                                              "gloas-", "glagent-", "glcbt-", "glptt-", "glwt-"),
              r"gl(?:pat|dt|ft|rt|soat|ffct|imt|oas|agent|cbt|ptt|wt)-[A-Za-z0-9_\-]{20,300}(?:\.[0-9a-z]{9})?",
              right=_R_DASH),
    _prefixed("gitlab-runner-registration-token", "GitLab runner registration token", ("gr1348941",),
              r"GR1348941[A-Za-z0-9_\-]{20}", right=_R_DASH),
    ("gitlab-session-cookie", "GitLab session cookie", ("_gitlab_session",),
     r"_gitlab_session=(?P<secret>[0-9a-z]{32})", 0.0),
    _keyed("bitbucket-client-secret", "Bitbucket OAuth client id or secret", ("bitbucket",),
           r"[A-Za-z0-9=_\-]{64}|[A-Za-z0-9]{32}"),
    _prefixed("bitbucket-app-password", "Bitbucket app password or API token", ("atbb", "atctt3"),
              r"ATBB[A-Za-z0-9_=.\-]{32}|ATCTT3[A-Za-z0-9_=\-]{180,}", right=_R_DASH),
    _prefixed("atlassian-api-token", "Atlassian API token", ("atatt3",), r"ATATT3[A-Za-z0-9_=\-]{180,200}",
              right=_R_DASH),
    _prefixed("atlassian-data-center-token", "Bitbucket / Jira Data Center HTTP access token", ("bbdc-",),
              r"BBDC-[A-Za-z0-9+/@_\-]{40,50}", right=r"(?![A-Za-z0-9+/@_\-])"),
    _keyed("atlassian-api-token-legacy", "Atlassian (Jira, Confluence) API token", ("atlassian", "jira", "confluence"),
           r"[A-Za-z0-9]{24}"),
    _prefixed("sourcegraph-access-token", "Sourcegraph access token", ("sgp_",),
              r"sgp_(?:[a-f0-9]{16}|local)_[a-f0-9]{40}|sgp_[a-f0-9]{40}"),
    _prefixed("sourcegraph-cody-token", "Sourcegraph Cody gateway token", ("slk_",), r"slk_[a-f0-9]{64}"),
    _prefixed("npm-access-token", "npm access token", ("npm_",), r"npm_[A-Za-z0-9]{36}"),
    _prefixed("pypi-upload-token", "PyPI upload token", ("pypi-ageichlwas5vcmc",),
              r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,1000}", right=_R_DASH),
    _prefixed("testpypi-upload-token", "TestPyPI upload token", ("pypi-agendgvzdc5wexbplm9yzw",),
              r"pypi-AgENdGVzdC5weXBpLm9yZw[A-Za-z0-9_\-]{50,1000}", right=_R_DASH),
    _prefixed("rubygems-api-token", "RubyGems API token", ("rubygems_",), r"rubygems_[a-f0-9]{48}"),
    _prefixed("clojars-api-token", "Clojars deploy token", ("clojars_",), r"CLOJARS_[a-z0-9]{60}"),
    _prefixed("nuget-api-key", "NuGet API key", ("oy2",), r"oy2[a-z0-9]{43}", min_entropy=3.5),
    ("nuget-config-password", "password in a NuGet config", ("<add key=",),
     r"""(?i:<add\s+key=["'](?:ClearText)?Password["']\s+value=["'])(?P<secret>[^"']{8,})""", 0.0),
    _prefixed("artifactory-api-key", "JFrog Artifactory API key or reference token", ("akcp", "cmvmd"),
              r"AKCp[A-Za-z0-9]{69}|cmVmd[A-Za-z0-9]{59}"),
    _keyed("jfrog-api-key", "JFrog API key or identity token", ("jfrog", "artifactory", "bintray", "xray"),
           r"[A-Za-z0-9]{73}|[A-Za-z0-9]{64}"),
    _prefixed("docker-hub-token", "Docker Hub personal access token", ("dckr_pat_", "dckr_oat_"),
              r"dckr_(?:pat|oat)_[A-Za-z0-9_\-]{27,}", right=_R_DASH),
    _keyed("codecov-access-token", "Codecov access token", ("codecov",), r"[A-Za-z0-9\-]{32,36}"),
    _keyed("snyk-api-token", "Snyk API token", ("snyk",), UUID),
    _prefixed("sonar-token", "SonarQube / SonarCloud token", ("squ_", "sqp_", "sqa_"), r"sq[upa]_[a-f0-9]{40}"),
    _prefixed("sonarcloud-token", "SonarQube Cloud scoped organization token", ("sqco_",), r"sqco_[A-Za-z0-9]{59}"),
    _keyed("sonar-api-token", "SonarQube / SonarCloud token", ("sonar",), r"[a-f0-9]{40}"),
    _keyed("travisci-access-token", "Travis CI access token", ("travis",), r"[A-Za-z0-9_\-]{22}"),
    _keyed("droneci-access-token", "Drone CI access token", ("drone",), r"[A-Za-z0-9]{32}"),
    _prefixed("buildkite-api-token", "Buildkite user API token", ("bkua_",), r"bkua_[a-z0-9]{40}"),
    _prefixed("circleci-token", "CircleCI personal API token", ("ccipat_",), r"CCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}"),
    _prefixed("linear-api-key", "Linear API key", ("lin_api_",), r"lin_api_[A-Za-z0-9]{40}"),
    _keyed("linear-client-secret", "Linear OAuth client secret", ("linear",), r"[a-f0-9]{32}"),
    _prefixed("figma-access-token", "Figma personal access token", ("figp_",), r"figp_[A-Za-z0-9_=\-]{40,54}",
              right=r"(?![A-Za-z0-9_=\-])"),
    _prefixed("posthog-personal-api-key", "PostHog personal API key", ("phx_",), r"phx_[A-Za-z0-9_]{43,48}",
              right=r"(?![A-Za-z0-9_])"),
    _prefixed("apify-api-token", "Apify API token", ("apify_api_",), r"apify_api_[A-Za-z0-9]{36}"),
    _prefixed("rootly-api-key", "Rootly API key", ("rootly_",), r"rootly_[a-f0-9]{64}"),
    _prefixed("voiceflow-api-key", "Voiceflow API key", ("vf.",),
              r"VF\.(?:(?:DM|WS)\.)?[a-fA-F0-9]{24}\.[A-Za-z0-9]{16}"),
    _prefixed("postman-api-token", "Postman API key", ("pmak-",), r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    _prefixed("readme-api-token", "ReadMe API key", ("rdme_",), r"rdme_[a-z0-9]{70}"),
    _keyed("launchdarkly-access-token", "LaunchDarkly access token", ("launchdarkly", "launch_darkly"),
           r"(?:api|sdk|mob)-" + UUID + r"|[A-Za-z0-9=_\-]{40}"),
    _prefixed("frameio-api-token", "Frame.io API token", ("fio-u-",), r"fio-u-[A-Za-z0-9_=\-]{64}", right=_R_DASH),
    _prefixed("authress-access-key", "Authress service client access key", ("sc_", "ext_", "scauth_", "authress_"),
              r"(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_\-][A-Za-z0-9\-]{10,32}"
              r"\.[A-Za-z0-9+/_=\-]{30,120}", right=r"(?![A-Za-z0-9+/_=\-])"),
    _prefixed("settlemint-access-token", "SettleMint access token", ("sm_aat_", "sm_pat_", "sm_sat_"),
              r"sm_(?:aat|pat|sat)_[A-Za-z0-9]{16}"),
    _prefixed("intra42-client-secret", "42 intranet client secret", ("s-s4t2", "u-s4t2"),
              r"[su]-s4t2(?:ud|af)-[a-f0-9]{64}"),
    ("curl-user-password", "password given to curl as user:password", ("curl",),
     r"""\bcurl\b[^\n]*?\s(?:-u|-{2}user)(?:[ \t]+|=)(?:(?P<q>["'])|(?!["']))[^\s:"']{1,64}:"""
     r"""(?P<secret>(?(q)[^\n"']{3,}|[^\s"']{3,}))""", 0.0),
    # -p glued to the password, as the MySQL and MariaDB clients take it (-P is the port). A quoted
    # password (here and curl's) is taken to its closing quote, blanks and all.
    ("mysql-cli-password", "password given to a MySQL or MariaDB client on its command line", ("mysql", "mariadb"),
     r"""\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlsh|mariadb|mariadb-dump)\b[^\n]*?"""
     r"""\s-p(?:(?P<q>["'])|(?!["']))(?P<secret>(?(q)[^\n"']{3,}|[^\s"'-][^\s"']{2,}))""", 0.0),
    # A password as the argument after a flag: sshpass's -p (glued or apart), a registry login's
    # -p / --password (docker, podman, buildah, skopeo, helm registry, oras), a .netrc line's
    # `password` (`machine host login user password X`, or `default login user password X`).
    ("sshpass-password", "password given to sshpass on its command line", ("sshpass",),
     r"""\bsshpass\b[^\n]*?\s-p[ \t]*(?:(?P<q>["'])|(?!["']))(?P<secret>(?(q)[^\n"']{3,}|[^\s"'-][^\s"']{2,}))""", 0.0),
    ("registry-login-password", "password given to a container registry login on its command line", ("login",),
     r"""\b(?:docker|podman|buildah|skopeo|nerdctl|oras|helm[ \t]+registry)[ \t]+login\b[^\n]*?\s(?:-p|-{2}password)"""
     r"""(?:[ \t]+|=)(?:(?P<q>["'])|(?!["']))(?P<secret>(?(q)[^\n"']{3,}|[^\s"'-][^\s"']{2,}))""", 0.0),
    ("netrc-password", "password in a .netrc line", ("machine", "default"),
     r"""\b(?:machine[ \t]+\S+|default)[ \t]+(?:login[ \t]+\S+[ \t]+)?password[ \t]+"""
     r"""(?:(?P<q>["'])|(?!["']))(?P<secret>(?(q)[^\n"']{3,}|[^\s"']{3,}))""", 0.0),
    # More clients that take a password as an argument: redis-cli's -a / --pass, htpasswd's batch
    # mode (-b: file, user, password; with -n no file), openssl's -k, -K (a raw key) and
    # -pass/-passin/-passout pass:PASSWORD, rabbitmqctl's add_user / change_password USER PASSWORD.
    ("redis-cli-password", "password given to redis-cli on its command line", ("redis-cli",),
     r"""\bredis-cli\b[^\n]*?\s(?:-a|-{2}pass)(?:[ \t]+|=)""" + _ARGUMENT, 0.0),
    ("htpasswd-password", "password given to htpasswd in batch mode (-b)", ("htpasswd",),
     r"""\bhtpasswd(?=[^\n]*?[ \t]-[A-Za-z]*b)(?:(?=[^\n]*?[ \t]-[A-Za-z]*n)""" + _HTPASSWD_OPTIONS
     + r"""[ \t]+[^\s-]\S*|(?![^\n]*?[ \t]-[A-Za-z]*n)""" + _HTPASSWD_OPTIONS
     + r"""[ \t]+[^\s-]\S*[ \t]+[^\s-]\S*)[ \t]+""" + _ARGUMENT, 0.0),
    ("openssl-password", "password or raw key given to openssl on its command line", ("openssl",),
     r"""\bopenssl\b[^\n]*?\s(?:-[kK][ \t]+|-pass(?:in|out|word)?[ \t]+["']?pass:"""
     r"""|passwd(?:[ \t]+-(?:salt[ \t]+\S+|[A-Za-z0-9]+))*[ \t]+)""" + _ARGUMENT, 0.0),
    ("rabbitmqctl-password", "password given to rabbitmqctl on its command line",
     ("rabbitmqctl",),
     r"""\brabbitmqctl\b[^\n]*?\s(?:add_user|change_password|authenticate_user)(?:[ \t]+-{2}[a-z\-]+)*"""
     r"""[ \t]+(?:"[^\n"]+"|'[^\n']+'|[^\s"'-]\S*)[ \t]+""" + _ARGUMENT, 0.0),
    # PHP's define('NAME', 'value'), as every wp-config.php holds WordPress's keys and salts and
    # the database password: a name that ends in a secret's word, a value that looks like one.
    ("php-define-secret", "secret defined with PHP's define()", ("define",),
     r"""(?i:\bdefine[ \t]*\([ \t]*(["'])[A-Za-z0-9_]*(?:key|salt|password|passwd|pass|pwd|secret|token)\1"""
     r"""[ \t]*,[ \t]*)(["'])(?P<secret>(?:(?!\2)[^\n\\]|\\.){8,})\2""", 3.0),
    _prefixed("grafana-token", "Grafana token", ("eyjrijoi", "glc_", "glsa_"),
              r"eyJrIjoi[A-Za-z0-9]{70,400}={0,3}|glc_[A-Za-z0-9+/]{32,400}={0,3}|glsa_[A-Za-z0-9]{32}_[a-fA-F0-9]{8}",
              right=r"(?![A-Za-z0-9+/=])"),

    # -- observability -----------------------------------------------------------------
    _prefixed("sentry-token", "Sentry auth token", ("sntrys_", "sntryu_"),
              r"sntrys_eyJ[A-Za-z0-9+/=_]{40,600}|sntryu_[a-f0-9]{64}", right=r"(?![A-Za-z0-9+/=_])"),
    _keyed("sentry-access-token", "Sentry access token", ("sentry",), r"[a-f0-9]{64}"),
    _prefixed("new-relic-key", "New Relic API key", ("nrak-", "nrjs-", "nrbr-", "nrii-", "nriq-"),
              r"NRAK-[A-Z0-9]{27}|NR(?:JS|BR)-[a-f0-9]{19}|NRI[IQ]-[A-Za-z0-9_\-]{25}(?:[A-Za-z0-9_\-]{7})?",
              right=_R_DASH),
    _prefixed("new-relic-license-key", "New Relic license (ingest) or mobile app key", ("ffffnral", "-nrma"),
              r"(?:[a-f0-9]{32}|eu01xx[a-f0-9]{26})FFFFNRAL|(?:AA[a-f0-9]{40}|eu01xx[a-f0-9]{36})-NRMA"),
    _keyed("new-relic-user-api-id", "New Relic user API id", ("newrelic", "new_relic", "new-relic"),
           r"[A-Za-z0-9]{64}"),
    _keyed("datadog-access-token", "Datadog API or application key", ("datadog", "dd_api", "dd_app"),
           r"[a-f0-9]{40}|[a-f0-9]{32}"),
    _prefixed("dynatrace-api-token", "Dynatrace API token", ("dt0c01.",), r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}"),
    _keyed("sumologic-access-id", "Sumo Logic access id or key", ("sumo",), r"su[A-Za-z0-9]{12}|[A-Za-z0-9]{64}"),

    # -- messaging and communication -------------------------------------------------------
    _prefixed("slack-app-token", "Slack app-level or configuration token", ("xapp-", "xoxe"),
              r"xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+|xoxe(?:\.xox[bp])?-\d-[A-Za-z0-9]{140,170}", right=_R_DASH),
    ("slack-webhook-url", "Slack incoming webhook URL", ("hooks.slack.com",),
     r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9+/]{20,80})", 0.0),
    ("zapier-webhook-url", "Zapier catch hook URL", ("hooks.zapier.com",),
     r"hooks\.zapier\.com/hooks/catch/(?P<secret>\d{3,12}/[A-Za-z0-9]{5,12})(?![A-Za-z0-9])", 0.0),
    ("discord-webhook-url", "Discord webhook URL", ("discord",),
     r"discord(?:app)?\.com/api/webhooks/\d{5,20}/(?P<secret>[A-Za-z0-9_\-]{60,70})", 0.0),
    _prefixed("discord-bot-token", "Discord bot token", (".",),
              r"[MNO][A-Za-z0-9]{23,25}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}", right=_R_DASH, min_entropy=4.0),
    _keyed("discord-client-secret", "Discord API token or client secret", ("discord",),
           r"[a-f0-9]{64}|[A-Za-z0-9=_\-]{32}"),
    ("microsoft-teams-webhook", "Microsoft Teams incoming webhook URL", ("webhook.office.com", "webhookb2"),
     r"webhook\.office\.com/webhookb2/(?P<secret>[A-Za-z0-9\-]{36}@[A-Za-z0-9\-]{36}/IncomingWebhook/"
     r"[A-Za-z0-9]{32}/[A-Za-z0-9\-]{36})", 0.0),
    _prefixed("telegram-bot-token", "Telegram bot token", (":aa",), r"\d{8,10}:AA[A-Za-z0-9_\-]{33}", right=_R_DASH),
    _prefixed("twilio-api-key", "Twilio API key", ("sk",), r"SK[0-9a-fA-F]{32}", min_entropy=3.0),
    _keyed("twilio-auth-token", "Twilio auth token", ("twilio",), r"[a-f0-9]{32}"),
    _prefixed("sendgrid-api-key", "SendGrid API key", ("sg.",), r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}",
              right=_R_DASH),
    _prefixed("brevo-api-key", "Brevo (Sendinblue) API or SMTP key", ("xkeysib-", "xsmtpsib-"),
              r"x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    _prefixed("mailchimp-api-key", "Mailchimp API key", ("-us",), r"[a-f0-9]{32}-us\d{1,2}"),
    _prefixed("mailgun-api-key", "Mailgun API or public validation key", ("key-", "pubkey-"),
              r"(?:pub)?key-[a-f0-9]{32}", min_entropy=3.0),
    _keyed("mailgun-signing-key", "Mailgun webhook signing key", ("mailgun",),
           r"[a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8}"),
    _keyed("postmark-server-token", "Postmark server or account token", ("postmark",), UUID),
    _keyed("messagebird-api-token", "MessageBird API token", ("messagebird", "message-bird", "message_bird"),
           r"[A-Za-z0-9]{25}|" + UUID),
    _keyed("sendbird-access-token", "Sendbird access token", ("sendbird",), r"[a-f0-9]{40}|" + UUID),
    _keyed("mattermost-access-token", "Mattermost access token", ("mattermost",), r"[a-z0-9]{26}"),
    _keyed("gitter-access-token", "Gitter access token", ("gitter",), r"[A-Za-z0-9_\-]{40}"),
    _keyed("intercom-api-key", "Intercom API key", ("intercom",), r"[A-Za-z0-9=_\-]{60}"),
    _keyed("zendesk-secret-key", "Zendesk API token", ("zendesk",), r"[A-Za-z0-9]{40}"),
    _keyed("hubspot-api-key", "HubSpot API key", ("hubspot",), UUID),
    _prefixed("hubspot-private-app-token", "HubSpot private app token", ("pat-na1-", "pat-eu1-"),
              r"pat-(?:na|eu)1-" + UUID),
    _prefixed("typeform-api-token", "Typeform personal token", ("tfp_",), r"tfp_[A-Za-z0-9_\-.=]{59}",
              right=_R_DASH),

    # -- social and content platforms --------------------------------------------------------
    _prefixed("twitter-bearer-token", "X (Twitter) bearer token", ("aaaaaaaaaaaaaaaaaaaaa",),
              r"A{22}[A-Za-z0-9%]{30,200}"),
    _keyed("twitter-api-secret", "X (Twitter) API key, secret or access token", ("twitter",),
           r"[0-9]{15,25}-[A-Za-z0-9]{20,40}|[A-Za-z0-9]{45,50}|[A-Za-z0-9]{25}"),
    _prefixed("facebook-page-access-token", "Facebook (Meta) access token", ("eaam", "eaac"),
              r"EAA[MC][A-Za-z0-9]{100,}"),
    _prefixed("facebook-app-token", "Facebook (Meta) app access token", ("|", "%7c"),
              r"\d{15,16}(?:\||%7[Cc])[A-Za-z0-9_\-]{27,40}", right=_R_DASH, min_entropy=3.5),
    _keyed("facebook-secret", "Facebook (Meta) app secret", ("facebook",), r"[a-f0-9]{32}"),
    _keyed("linkedin-client-secret", "LinkedIn client id or secret", ("linkedin", "linked_in", "linked-in"),
           r"[A-Za-z0-9]{16}|[A-Za-z0-9]{14}"),
    _keyed("twitch-api-token", "Twitch API token", ("twitch",), r"[a-z0-9]{30}"),
    _keyed("etsy-access-token", "Etsy access token", ("etsy",), r"[A-Za-z0-9]{24}"),
    _keyed("flickr-access-token", "Flickr access token", ("flickr",), r"[A-Za-z0-9]{32}"),
    _keyed("nytimes-access-token", "New York Times API key", ("nytimes", "new-york-times", "newyorktimes"),
           r"[A-Za-z0-9=_\-]{32}"),
    _prefixed("dropbox-short-lived-token", "Dropbox short-lived access token", ("sl.",),
              r"sl\.[A-Za-z0-9_=\-]{130,160}", right=_R_DASH),
    _keyed("dropbox-api-token", "Dropbox API token", ("dropbox",),
           r"[A-Za-z0-9]{11}AAAAAAAAAA[A-Za-z0-9_=\-]{43}|[A-Za-z0-9]{15}"),
    _prefixed("notion-api-token", "Notion integration token", ("ntn_", "secret_"),
              r"ntn_\d{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43}"),
    _prefixed("airtable-personal-access-token", "Airtable personal access token", ("pat",),
              r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}"),
    _keyed("airtable-api-key", "Airtable API key", ("airtable",), r"key[A-Za-z0-9]{14}|[A-Za-z0-9]{17}"),
    _prefixed("asana-personal-access-token", "Asana personal access token", ("1/", "2/"),
              r"[12]/\d{13,19}(?::|/)[a-f0-9]{32}"),
    _keyed("asana-client-secret", "Asana client id or secret", ("asana",), r"[A-Za-z0-9]{32}|[0-9]{16}",
           min_entropy=2.5),
    _keyed("trello-api-key", "Trello API key or token", ("trello",), r"[A-Za-z0-9]{64}|[A-Za-z0-9]{32}"),
    _keyed("contentful-delivery-token", "Contentful delivery API token", ("contentful",), r"[A-Za-z0-9=_\-]{43}"),
    _prefixed("contentful-personal-token", "Contentful personal access token", ("cfpat-",),
              r"CFPAT-[A-Za-z0-9_\-]{43}", right=_R_DASH),
    _keyed("algolia-api-key", "Algolia API key", ("algolia",), r"[A-Za-z0-9]{32}"),
    _keyed("adafruit-api-key", "Adafruit IO key", ("adafruit",), r"(?:aio_)?[A-Za-z0-9_\-]{28,32}"),
    _keyed("adobe-client-id", "Adobe client id", ("adobe",), r"[a-f0-9]{32}"),
    _prefixed("adobe-client-secret", "Adobe client secret", ("p8e-",), r"p8e-[A-Za-z0-9]{32}"),
    _keyed("beamer-api-token", "Beamer API key", ("beamer",), r"b_[A-Za-z0-9=_\-]{44}"),
    _keyed("mapbox-api-token", "Mapbox token", ("mapbox",), r"pk\.[A-Za-z0-9]{60,}\.[A-Za-z0-9_\-]{22}"),
    _prefixed("mapbox-secret-token", "Mapbox secret token", ("sk.eyj",), r"sk\.eyJ[A-Za-z0-9_\-]{40,}\.[A-Za-z0-9_\-]{22}",
              right=_R_DASH),
    _keyed("rapidapi-access-token", "RapidAPI key", ("rapidapi", "rapid_api", "x-rapidapi-key"),
           r"[A-Za-z0-9_\-]{50}"),
    _prefixed("maxmind-license-key", "MaxMind license key", ("_mmk",), r"[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk"),
    _prefixed("salesforce-token", "Salesforce access or refresh token", ("00d", "5aep861"),
              r"00D[A-Za-z0-9]{12}![A-Za-z0-9_.]{96}|5Aep861[A-Za-z0-9._]{80,200}", right=r"(?![A-Za-z0-9_.])",
              min_entropy=3.5),
    _prefixed("tableau-access-token", "Tableau personal access token secret", ("==:",),
              r"[A-Za-z0-9+/]{22}==:[A-Za-z0-9]{32}", right=_R),
    _prefixed("klaviyo-private-key", "Klaviyo private API key", ("pk_",), r"pk_(?:[A-Za-z0-9]{6}_)?[a-f0-9]{34}",
              min_entropy=3.0),
    _prefixed("zoho-token", "Zoho OAuth access or refresh token", ("1000.",), r"1000\.[a-f0-9]{32}\.[a-f0-9]{32}"),
    _keyed("meraki-api-key", "Cisco Meraki API key", ("meraki",), r"[0-9a-f]{40}"),
    _keyed("okta-access-token", "Okta API token", ("okta",), r"00[A-Za-z0-9=_\-]{40}"),
    _keyed("looker-client-secret", "Looker client id or secret", ("looker",), r"[A-Za-z0-9]{20}|[A-Za-z0-9]{24}"),
    _keyed("kucoin-secret-key", "KuCoin API key or secret", ("kucoin",), r"[a-f0-9]{24}|" + UUID),
    _keyed("kraken-access-token", "Kraken API secret", ("kraken",), r"[A-Za-z0-9/=_+\-]{80,90}"),
    _keyed("bittrex-access-key", "Bittrex API key or secret", ("bittrex",), r"[A-Za-z0-9]{32}"),
    _keyed("coinbase-access-token", "Coinbase access token", ("coinbase",), r"[A-Za-z0-9_\-]{64}"),
    _keyed("freshbooks-access-token", "FreshBooks access token", ("freshbooks",), r"[A-Za-z0-9]{64}"),
    _keyed("finicity-client-secret", "Finicity API token or client secret", ("finicity",),
           r"[a-f0-9]{32}|[A-Za-z0-9]{20}"),
    _keyed("finnhub-access-token", "Finnhub API key", ("finnhub",), r"[A-Za-z0-9]{20}"),
    _keyed("sidekiq-secret", "Sidekiq Enterprise credentials", ("bundle_enterprise__contribsys__com",
                                                                  "bundle_gems__contribsys__com"),
           r"[a-f0-9]{8}:[a-f0-9]{8}", min_entropy=2.5),
    ("sidekiq-sensitive-url", "Sidekiq Enterprise credentials in a URL", ("contribsys.com",),
     r"(?i:https?://)(?P<secret>[a-f0-9]{8}:[a-f0-9]{8})@(?:gems|enterprise)\.contribsys\.com", 0.0),
    _keyed("squarespace-access-token", "Squarespace API key", ("squarespace",), UUID),
    _keyed("gocardless-api-token", "GoCardless access token", ("gocardless",), r"live_[A-Za-z0-9_=\-]{40}"),

    # -- payments and commerce ---------------------------------------------------------------
    _prefixed("stripe-secret-key", "Stripe secret or restricted key", ("sk_live_", "sk_test_", "sk_prod_",
                                                                      "rk_live_", "rk_test_", "rk_prod_"),
              r"(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,247}"),
    _prefixed("stripe-intent-client-secret", "Stripe payment or setup intent client secret", ("_secret_",),
              r"(?:pi|seti)_[A-Za-z0-9]{24}_secret_[A-Za-z0-9]{25}"),
    _prefixed("robinhood-crypto-api-key", "Robinhood Crypto API key", ("rh-api-",), r"rh-api-" + UUID),
    _prefixed("ramp-api-secret", "Ramp API client secret", ("ramp_sec_",), r"ramp_sec_[A-Za-z0-9]{48}"),
    _prefixed("stripe-webhook-secret", "Stripe webhook signing secret", ("whsec_",), r"whsec_[A-Za-z0-9+/]{32,}={0,2}"),
    _prefixed("square-access-token", "Square access token or OAuth secret", ("eaaa", "sq0atp-", "sq0csp-"),
              r"EAAA[A-Za-z0-9_\-]{22,60}|sq0atp-[A-Za-z0-9_\-]{22}|sq0csp-[A-Za-z0-9_\-]{43}", right=_R_DASH),
    _prefixed("shopify-token", "Shopify access token or shared secret", ("shpat_", "shpca_", "shppa_", "shpss_"),
              r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    _prefixed("paypal-braintree-token", "PayPal Braintree access token", ("access_token$production$",),
              r"access_token\$production\$[a-z0-9]{16}\$[a-f0-9]{32}"),
    _prefixed("plaid-access-token", "Plaid access token", ("access-sandbox-", "access-development-",
                                                          "access-production-"),
              r"access-(?:sandbox|development|production)-" + UUID),
    _keyed("plaid-secret-key", "Plaid client id or secret", ("plaid",), r"[a-f0-9]{30}|[a-f0-9]{24}"),
    _prefixed("flutterwave-key", "Flutterwave secret, public or encryption key", ("flwseck", "flwpubk"),
              r"FLW(?:SEC|PUB)K(?:_TEST)?-[a-h0-9]{32}-X|FLWSECK_TEST[a-h0-9]{12}"),
    _prefixed("duffel-api-token", "Duffel API token", ("duffel_",), r"duffel_(?:test|live)_[A-Za-z0-9_=\-]{43}",
              right=_R_DASH),
    _prefixed("easypost-api-token", "EasyPost API key", ("ezak", "eztk"), r"EZ[AT]K[A-Za-z0-9]{54}"),
    _prefixed("shippo-api-token", "Shippo API token", ("shippo_",), r"shippo_(?:live|test)_[a-fA-F0-9]{40}"),
    _keyed("lob-api-key", "Lob API key", ("lob",), r"(?:live|test)_(?:pub_)?[a-f0-9]{31,35}"),
    ("freemius-secret-key", "Freemius secret key", ("secret_key",),
     r"""["']secret_key["']\s*=>\s*["'](?P<secret>sk_[^\s"']{29})["']""", 0.0),
)
"""Every provider family, in the order they are tried."""

DOCUMENTED_EXAMPLES: frozenset[str] = frozenset({
    # jwt.io's example token signature: shown on every JWT tutorial page.
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
})
"""Published example values that are never secrets. Besides these, any match
holding the word ``EXAMPLE`` (AWS documents ``AKIAIOSFODNN7EXAMPLE`` and
``wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY``) is an example."""

PLACEHOLDER_WORDS: tuple[str, ...] = ("example", "xxxxx", "placeholder", "your_", "your-", "yourkey", "yourtoken")
"""A value containing one of these (any case) stands in for a secret in
documentation rather than being one."""

PLACEHOLDER_MARKS: tuple[str, ...] = ("<", ">", "...", "${", "{{")
"""Template marks: a token-shaped match holding one is a template, not a
token (never applied to free-form values such as passwords)."""
