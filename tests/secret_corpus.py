"""The secret corpus: synthetic secrets of every provider family Baton knows,
and look-alikes that must survive redaction.

SYNTHETIC ONLY. No token sits in this file as one string: each is built at
run time from its published prefix and a random body drawn from a seeded
generator, so the corpus is the same on every run and nothing here is a live
credential (nor looks like one to a scanner reading the source).

Used by ``tests/test_secret_corpus.py`` (100% recall, no look-alike touched)
and by ``benchmarks/secrets.py`` (the same lines beside detect-secrets).
"""

from __future__ import annotations

import base64
import random
import string
from typing import Callable, NamedTuple

ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
HEXL = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"


def _openssh_body(g: "Gen") -> str:
    """base64 of an unencrypted OpenSSH private key: the magic, the cipher and
    KDF names (``none``), one key, random bytes for the rest."""
    raw = b"openssh-key-v1\0" + b"\0\0\0\x04none" * 2 + b"\0\0\0\0\0\0\0\x01" + bytes(
        g.rng.randrange(256) for _ in range(330))
    return base64.b64encode(raw).decode()


def _wrapped(text: str, width: int) -> list[str]:
    """``text`` cut into lines of ``width`` characters, as base64(1) writes it."""
    return [text[i:i + width] for i in range(0, len(text), width)]


class Gen:
    """Random pieces from one seeded generator."""

    def __init__(self, seed: str) -> None:
        self.rng = random.Random(seed)

    def of(self, alphabet: str, n: int) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def alnum(self, n: int) -> str:
        return self.of(ALNUM, n)

    def lower(self, n: int) -> str:
        return self.of(LOWER_ALNUM, n)

    def upper(self, n: int) -> str:
        return self.of(UPPER_ALNUM, n)

    def hex(self, n: int) -> str:
        return self.of(HEXL, n)

    def letters(self, n: int) -> str:
        return self.of(string.ascii_letters, n)

    def digits(self, n: int) -> str:
        return self.of("123456789", 1) + self.of(string.digits, n - 1)

    def urlsafe(self, n: int) -> str:
        return self.of(ALNUM, 1) + self.of(URLSAFE, n - 2) + self.of(ALNUM, 1)

    def b64(self, n: int) -> str:
        return self.of(B64, n)

    def uuid(self) -> str:
        h = self.hex(32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


class Secret(NamedTuple):
    provider: str
    rule: str
    line: str
    value: str


class LookAlike(NamedTuple):
    kind: str
    line: str


Builder = Callable[[Gen], tuple[str, str]]
"""Returns (line, secret value)."""


def _in(template: str, value: str) -> tuple[str, str]:
    return template.format(s=value), value


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


# Issue 25: parity with gitleaks and trufflehog. Token formats learned from
# their rule tables (prefix, length, alphabet); every body is ours and random.
_PARITY_SECRETS: list[tuple[str, str, Builder]] = [
    ("OpenAI", "openai-api-key", lambda g: _in("key {s}", "sk-" + "service-" + g.urlsafe(58) + "T3Blbk" + "FJ"
                                               + g.urlsafe(58))),
    ("LangSmith", "langsmith-api-key", lambda g: _in("LANGSMITH_API_KEY={s}", "lsv2" + "_pt_" + g.hex(32) + "_"
                                                     + g.hex(10))),
    ("Langfuse", "langfuse-secret-key", lambda g: _in("LANGFUSE_SECRET_KEY={s}", "sk-" + "lf-" + g.uuid())),
    ("Pinecone", "pinecone-api-key", lambda g: _in("PINECONE_API_KEY={s}", "pc" + "sk_" + g.alnum(5) + "_"
                                                   + g.alnum(63))),
    ("NVIDIA", "nvidia-api-key", lambda g: _in("NVIDIA_API_KEY={s}", "nv" + "api-" + g.urlsafe(64))),
    ("Google OAuth", "google-oauth-client-secret", lambda g: _in('"client_secret": "{s}"', "GOC" + "SPX-"
                                                                 + g.urlsafe(28))),
    ("Google OAuth", "google-oauth-token", lambda g: _in("Authorization header token {s}", "ya" + "29."
                                                         + g.urlsafe(150))),
    ("Google OAuth", "google-oauth-token", lambda g: _in("refresh_token {s}", "1/" + "/0" + g.urlsafe(100))),
    ("Azure", "azure-container-registry-password", lambda g: _in("docker login x.azurecr.io -p {s}",
                                                                  g.alnum(42) + "+A" + "CR" + g.alnum(6))),
    ("Azure DevOps", "azure-devops-pat", lambda g: _in("pat {s}", g.alnum(76) + "AZ" + "DO" + g.alnum(4))),
    ("Azure DevOps", "azure-devops-pat-legacy", lambda g: _in("AZURE_DEVOPS_EXT_PAT={s}",
                                                               g.of("abcdefghijklmnopqrstuvwxyz234567", 52))),
    ("Azure", "azure-service-key", lambda g: _in("AZURE_COSMOS_KEY={s}", g.alnum(86) + "==")),
    ("Azure", "azure-service-key", lambda g: _in("AZURE_OPENAI_API_KEY={s}", g.hex(32))),
    ("Alibaba Cloud", "alibaba-access-key-id", lambda g: _in("id {s}", "LT" + "AI" + g.alnum(17))),
    ("Cloudflare", "cloudflare-api-token-v2", lambda g: _in("CF token {s}", "cf" + "ut_" + g.alnum(40) + g.hex(8))),
    ("Cloudflare", "cloudflare-api-token-v2", lambda g: _in("global key {s}", "cf" + "k_" + g.alnum(40) + g.hex(8))),
    ("Tailscale", "tailscale-key", lambda g: _in("TS_AUTHKEY={s}", "ts" + "key-auth-" + g.alnum(12) + "-"
                                                 + g.alnum(33))),
    ("Databricks", "databricks-oauth-secret", lambda g: _in("DATABRICKS_CLIENT_SECRET={s}", "do" + "se" + g.hex(32))),
    ("Deno Deploy", "deno-deploy-token", lambda g: _in("DENO_DEPLOY_TOKEN={s}", "dd" + "p_" + g.alnum(36))),
    ("Atlassian Data Center", "atlassian-data-center-token", lambda g: _in("Bearer token {s}", "BB" + "DC-"
                                                                          + g.urlsafe(44))),
    ("Sourcegraph", "sourcegraph-cody-token", lambda g: _in("cody token {s}", "sl" + "k_" + g.hex(64))),
    ("TestPyPI", "testpypi-upload-token", lambda g: _in("password = {s}", "pypi" + "-AgENdGVzdC5weXBpLm9yZw"
                                                        + g.urlsafe(70))),
    ("SonarQube Cloud", "sonarcloud-token", lambda g: _in("SONAR_TOKEN={s}", "sq" + "co_" + g.alnum(59))),
    ("Buildkite", "buildkite-api-token", lambda g: _in("BUILDKITE_API_TOKEN={s}", "bk" + "ua_" + g.lower(40))),
    ("Figma", "figma-access-token", lambda g: _in("X-Figma-Token: {s}", "fi" + "gp_" + g.urlsafe(44))),
    ("PostHog", "posthog-personal-api-key", lambda g: _in("POSTHOG_PERSONAL_API_KEY={s}", "ph" + "x_" + g.alnum(45))),
    ("Apify", "apify-api-token", lambda g: _in("APIFY_TOKEN={s}", "apify" + "_api_" + g.alnum(36))),
    ("Rootly", "rootly-api-key", lambda g: _in("ROOTLY_API_TOKEN={s}", "root" + "ly_" + g.hex(64))),
    ("Voiceflow", "voiceflow-api-key", lambda g: _in("Authorization: {s}", "V" + "F.DM." + g.hex(24) + "."
                                                     + g.alnum(16))),
    ("42 Intranet", "intra42-client-secret", lambda g: _in("FT_UID={s}", "u-s4" + "t2ud-" + g.hex(64))),
    ("New Relic", "new-relic-key", lambda g: _in("browser key {s}", "NR" + "BR-" + g.hex(19))),
    ("New Relic", "new-relic-key", lambda g: _in("query key {s}", "NR" + "IQ-" + g.urlsafe(25))),
    ("New Relic", "new-relic-license-key", lambda g: _in("NEW_RELIC_LICENSE_KEY={s}", g.hex(32) + "FFFF" + "NRAL")),
    ("New Relic", "new-relic-license-key", lambda g: _in("mobile token {s}", "AA" + g.hex(40) + "-NR" + "MA")),
    ("Zapier", "zapier-webhook-url", lambda g: _in("POST https://hooks.zapier.com/hooks/catch/{s}/",
                                                   g.digits(7) + "/" + g.lower(7))),
    ("Salesforce", "salesforce-token", lambda g: _in("SF_ACCESS_TOKEN={s}", "00D" + g.alnum(12) + "!"
                                                     + g.of(ALNUM + "._", 96))),
    ("Salesforce", "salesforce-token", lambda g: _in("refresh {s}", "5Aep" + "861" + g.of(ALNUM + "._", 80))),
    ("Zoho", "zoho-token", lambda g: _in("Zoho-oauthtoken {s}", "10" + "00." + g.hex(32) + "." + g.hex(32))),
    ("Stripe", "stripe-intent-client-secret", lambda g: _in("clientSecret: '{s}'", "pi" + "_" + g.alnum(24)
                                                            + "_sec" + "ret_" + g.alnum(25))),
    ("ElevenLabs", "elevenlabs-api-key", lambda g: _in("ELEVENLABS_API_KEY={s}", "sk" + "_" + g.hex(48))),
    ("Tableau", "tableau-access-token", lambda g: _in("personalAccessTokenSecret: {s}", g.b64(22) + "==:"
                                                      + g.alnum(32))),
    ("Klaviyo", "klaviyo-private-key", lambda g: _in("KLAVIYO_PRIVATE_KEY={s}", "p" + "k_" + g.hex(34))),
    ("Robinhood", "robinhood-crypto-api-key", lambda g: _in("x-api-key: {s}", "rh" + "-api-" + g.uuid())),
    ("Redis URL", "url-credentials", lambda g: _in("REDIS_URL=redis://:{s}@cache:6379/0", g.alnum(20))),
    # A password pasted unescaped, "/" and all (an AWS secret key as the password).
    ("Git remote", "url-credentials", lambda g: _in("git remote add origin https://ci:{s}@git.example.com/app.git",
                                                    g.alnum(12) + "/" + g.b64(27))),
    ("Ramp", "ramp-api-secret", lambda g: _in("RAMP_CLIENT_SECRET={s}", "ramp" + "_sec_" + g.alnum(48))),
    ("Docker", "registry-auth", lambda g: _in('{{"auths": {{"ghcr.io": {{"auth": "{s}"}}}}}}',
                                              base64.b64encode(b"bot:" + g.alnum(20).encode()).decode())),
    ("npm", "registry-auth", lambda g: _in("_auth={s}", base64.b64encode(b"ci:" + g.alnum(16).encode()).decode())),
    ("JWT", "jwt", lambda g: _in("token {s}", _b64url(b'{\n  "alg": "RS256",\n  "typ": "JWT"\n}') + "."
                                 + _b64url(b'{"sub":"' + g.alnum(12).encode() + b'"}') + "." + g.urlsafe(86))),
    # A token a terminal or an editor wrapped: the break falls inside it.
    ("GitHub", "line-wrapped-secret", lambda g: _in("token: {s}\n", (lambda t: t[:20] + "\n" + t[20:])(
        "gh" + "p_" + g.alnum(36)))),
    ("Slack", "line-wrapped-secret", lambda g: _in("SLACK={s} (rotated)", (lambda t: t[:30] + "\n    " + t[30:])(
        "xo" + "xb-" + g.of("0123456789", 12) + "-" + g.of("0123456789", 12) + "-" + g.alnum(24)))),
    # A token or a KEY=value line wrapped in base64 (``base64 <<< "$GITHUB_TOKEN"``, a CI variable).
    ("GitHub", "base64-wrapped-secret", lambda g: _in("GH_B64={s}", base64.b64encode(
        ("gh" + "p_" + g.alnum(36) + "\n").encode()).decode())),
    ("Stripe", "base64-wrapped-secret", lambda g: _in("  secret: {s}", base64.urlsafe_b64encode(
        ("STRIPE_KEY=sk" + "_live_" + g.alnum(24)).encode()).decode())),
    ("Anthropic", "base64-wrapped-secret", lambda g: _in("$ base64 key.txt\n{s}\n", "\n".join(_wrapped(
        base64.b64encode(("sk" + "-ant-api03-" + g.urlsafe(93) + "AA").encode()).decode(), 76)))),
    ("AWS", "base64-wrapped-secret", lambda g: _in("creds {s}", base64.b64encode(
        ("[default]\naws_access_key_id = AK" + "IA" + g.upper(16) + "\naws_secret_access_key = "
         + g.b64(40) + "\n").encode()).decode())),
    ("JWT", "jwt-base64", lambda g: _in("data:\n  token: {s}", base64.b64encode((
        _b64url(b'{"alg":"HS256","typ":"JWT"}') + "." + _b64url(b'{"sub":"' + g.alnum(12).encode() + b'"}')
        + "." + g.urlsafe(43)).encode()).decode())),
]

# (provider, rule, builder). Prefixes are split so that no token-like word
# is spelled whole in the source.
_SECRETS: list[tuple[str, str, Builder]] = [
    # AI APIs
    ("Anthropic", "anthropic-api-key", lambda g: _in("export ANTHROPIC_API_KEY={s}",
                                                      "sk-" + "ant-api03-" + g.urlsafe(93) + "AA")),
    ("Anthropic", "anthropic-api-key", lambda g: _in("the admin key {s} was pasted in chat",
                                                      "sk-" + "ant-admin01-" + g.urlsafe(93) + "AA")),
    ("OpenAI", "openai-api-key", lambda g: _in("OPENAI_API_KEY={s}",
                                                "sk-" + "proj-" + g.urlsafe(74) + "T3Blbk" + "FJ" + g.urlsafe(74))),
    ("OpenAI", "openai-api-key", lambda g: _in("client = OpenAI(api_key='{s}')",
                                                "sk-" + g.alnum(20) + "T3Blbk" + "FJ" + g.alnum(20))),
    ("OpenAI", "openai-api-key", lambda g: _in("service account {s} rotated",
                                                "sk-" + "svcacct-" + g.urlsafe(58) + "T3Blbk" + "FJ" + g.urlsafe(58))),
    ("OpenRouter", "openrouter-api-key", lambda g: _in("Authorization key {s}", "sk-" + "or-v1-" + g.hex(64))),
    ("Perplexity", "perplexity-api-key", lambda g: _in("pplx key: {s}", "pplx" + "-" + g.alnum(48))),
    ("Groq", "groq-api-key", lambda g: _in("GROQ_API_KEY={s}", "gsk" + "_" + g.alnum(52))),
    ("xAI", "xai-api-key", lambda g: _in("XAI key {s}", "xai" + "-" + g.alnum(80))),
    ("Replicate", "replicate-api-token", lambda g: _in("REPLICATE_API_TOKEN={s}", "r8" + "_" + g.alnum(37))),
    ("Hugging Face", "huggingface-access-token", lambda g: _in("huggingface-cli login --token {s}",
                                                                "hf" + "_" + g.letters(34))),
    ("Hugging Face", "huggingface-org-token", lambda g: _in("org token {s}", "api" + "_org_" + g.letters(34))),
    # With digits too (issue 25: 34 letters *and* digits were kept everywhere).
    ("Hugging Face", "huggingface-access-token", lambda g: _in("HF_TOKEN={s}", "hf" + "_" + g.alnum(30) + "7" + g.alnum(3))),
    ("Hugging Face", "huggingface-access-token", lambda g: _in("token {s} in the notebook",
                                                                "hf" + "_" + g.of("0123456789", 4) + g.alnum(30))),
    ("Hugging Face", "huggingface-org-token", lambda g: _in("org token {s}", "api" + "_org_" + g.alnum(31) + "42x")),
    ("Cohere", "cohere-api-key", lambda g: _in("COHERE_API_KEY = '{s}'", g.alnum(40))),
    ("Private AI", "privateai-api-key", lambda g: _in("private_ai_key: {s}", g.alnum(32))),
    # cloud and hosting
    ("AWS", "aws-access-key-id", lambda g: _in("aws_access_key_id = {s}", "AK" + "IA" + g.upper(16))),
    ("AWS", "aws-access-key-id", lambda g: _in("temporary creds {s} expired", "AS" + "IA" + g.upper(16))),
    ("AWS", "aws-secret-access-key", lambda g: _in("aws_secret_access_key = {s}", g.b64(40))),
    ("AWS", "aws-bedrock-api-key", lambda g: _in("AWS_BEARER_TOKEN_BEDROCK={s}", "AB" + "SK" + g.b64(130))),
    ("Google Cloud", "gcp-api-key", lambda g: _in("maps key {s} in index.html", "AI" + "za" + g.urlsafe(35))),
    ("Google Cloud", "gcp-service-account-key-id", lambda g: _in('"private_key_id": "{s}",', g.hex(40))),
    ("Google Cloud", "private-key", lambda g: _in('"private_key": "{s}\\n"',
                                                   "-----BEGIN " + "PRIVATE KEY-----\\nMIIEvQ" + g.b64(60)
                                                   + "\\n-----END " + "PRIVATE KEY-----")),
    ("Azure", "azure-ad-client-secret", lambda g: _in("client_secret {s}",
                                                       g.alnum(3) + "8Q" + "~" + g.urlsafe(34))),
    ("Azure", "azure-storage-account-key", lambda g: _in(
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={s};EndpointSuffix=core.windows.net",
        g.b64(86) + "==")),
    ("Azure", "azure-sas-signature", lambda g: _in(
        "https://acct.blob.core.windows.net/c/b?sv=2022-11-02&ss=b&sig={s}", g.b64(43) + "%3D")),
    ("Alibaba Cloud", "alibaba-access-key-id", lambda g: _in("AccessKeyId: {s}", "LT" + "AI" + g.alnum(20))),
    ("Alibaba Cloud", "alibaba-secret-key", lambda g: _in("alibaba_secret = {s}", g.alnum(30))),
    ("DigitalOcean", "digitalocean-token", lambda g: _in("doctl auth init -t {s}", "dop" + "_v1_" + g.hex(64))),
    ("DigitalOcean", "digitalocean-token", lambda g: _in("refresh {s}", "dor" + "_v1_" + g.hex(64))),
    ("Heroku", "heroku-api-key", lambda g: _in("HEROKU_API_KEY={s}", g.uuid())),
    ("Heroku", "heroku-api-key-v2", lambda g: _in("heroku token {s}", "HRKU" + "-AA" + g.urlsafe(58))),
    ("Fly.io", "flyio-access-token", lambda g: _in("FLY_API_TOKEN={s}", "fo1" + "_" + g.urlsafe(43))),
    ("Fly.io", "flyio-access-token", lambda g: _in("fly deploy --access-token {s}", "fm2" + "_" + g.b64(120))),
    ("Netlify", "netlify-access-token", lambda g: _in("NETLIFY_AUTH_TOKEN: {s}", g.urlsafe(43))),
    ("Cloudflare", "cloudflare-api-token", lambda g: _in("CLOUDFLARE_API_TOKEN={s}", g.urlsafe(40))),
    ("Cloudflare", "cloudflare-global-api-key", lambda g: _in("cloudflare_global_key: {s}", g.hex(37))),
    ("Cloudflare", "cloudflare-origin-ca-key", lambda g: _in("origin ca {s}",
                                                              "v1" + ".0-" + g.hex(24) + "-" + g.hex(146))),
    ("Fastly", "fastly-api-token", lambda g: _in("FASTLY_API_TOKEN={s}", g.urlsafe(32))),
    ("Scalingo", "scalingo-api-token", lambda g: _in("scalingo login --api-token {s}", "tk" + "-us-" + g.urlsafe(48))),
    ("OpenShift", "openshift-user-token", lambda g: _in("oc login --token={s}", "sha256" + "~" + g.urlsafe(43))),
    ("Yandex Cloud", "yandex-api-key", lambda g: _in("yc api key {s}", "AQ" + "VN" + g.urlsafe(37))),
    ("Yandex Cloud", "yandex-aws-access-token", lambda g: _in("static key {s}", "Y" + "C" + g.urlsafe(38))),
    ("Yandex Cloud", "yandex-access-token", lambda g: _in("iam {s}", "t1" + "." + g.urlsafe(40) + "." + g.urlsafe(86))),
    ("Terraform Cloud", "hashicorp-terraform-token", lambda g: _in('token = "{s}"',
                                                                    g.alnum(14) + ".atlas" + "v1." + g.urlsafe(67))),
    ("HashiCorp Vault", "vault-token", lambda g: _in("VAULT_TOKEN={s}", "hv" + "s." + g.urlsafe(95))),
    ("HashiCorp Vault", "vault-token", lambda g: _in("batch token {s}", "hv" + "b." + g.urlsafe(140))),
    ("HashiCorp Vault", "vault-legacy-token", lambda g: _in("vault_token: {s}", "s" + "." + g.alnum(24))),
    ("Pulumi", "pulumi-access-token", lambda g: _in("PULUMI_ACCESS_TOKEN={s}", "pul" + "-" + g.hex(40))),
    ("Doppler", "doppler-token", lambda g: _in("DOPPLER_TOKEN={s}", "dp" + ".pt." + g.alnum(43))),
    ("Infracost", "infracost-api-token", lambda g: _in("INFRACOST_API_KEY={s}", "ico" + "-" + g.alnum(32))),
    ("Prefect", "prefect-api-key", lambda g: _in("prefect cloud login -k {s}", "pnu" + "_" + g.alnum(36))),
    ("Harness", "harness-api-key", lambda g: _in("x-api-key: {s}", "pat" + "." + g.urlsafe(22) + "."
                                                  + g.alnum(24) + "." + g.alnum(20))),
    ("Defined Networking", "defined-networking-api-token", lambda g: _in(
        "DN_API_KEY={s}", "dn" + "key-" + g.urlsafe(26) + "-" + g.urlsafe(52))),
    ("Octopus Deploy", "octopus-deploy-api-key", lambda g: _in("octo push --apiKey {s}", "API" + "-" + g.upper(26))),
    ("Databricks", "databricks-api-token", lambda g: _in("DATABRICKS_TOKEN={s}", "da" + "pi" + g.hex(32))),
    ("ClickHouse Cloud", "clickhouse-cloud-api-key", lambda g: _in("key secret {s}", "4b" + "1d" + g.alnum(38))),
    ("PlanetScale", "planetscale-token", lambda g: _in("pscale password {s}", "pscale" + "_pw_" + g.urlsafe(43))),
    ("PlanetScale", "planetscale-token", lambda g: _in("PLANETSCALE_SERVICE_TOKEN={s}",
                                                        "pscale" + "_tkn_" + g.urlsafe(43))),
    ("Supabase", "supabase-access-token", lambda g: _in("supabase login --token {s}", "sb" + "p_" + g.hex(40))),
    ("Confluent", "confluent-api-key", lambda g: _in("confluent_api_key: {s}", g.upper(16))),
    ("Confluent", "confluent-secret", lambda g: _in("confluent_secret = {s}", g.b64(64))),
    ("1Password", "1password-secret-key", lambda g: _in("secret key {s}", "A3" + "-" + g.upper(6) + "-" + g.upper(11)
                                                         + "-" + g.upper(5) + "-" + g.upper(5) + "-" + g.upper(5))),
    ("1Password", "1password-service-account-token", lambda g: _in("OP_SERVICE_ACCOUNT_TOKEN={s}",
                                                                    "ops" + "_eyJ" + g.b64(260))),
    ("age", "age-secret-key", lambda g: _in("{s}", "AGE-SECRET" + "-KEY-1" + g.of("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58))),
    ("Kubernetes", "kubernetes-service-account-token", lambda g: _in(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  password: {s}\n", g.b64(32) + "==")),
    # private keys
    ("OpenSSH", "private-key", lambda g: _in("{s}", "-----BEGIN OPENSSH " + "PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA"
                                              + g.b64(64) + "\n-----END OPENSSH " + "PRIVATE KEY-----")),
    ("RSA", "private-key", lambda g: _in("key:\n{s}", "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEow" + g.b64(64)
                                          + "\n-----END RSA " + "PRIVATE KEY-----")),
    ("PGP", "private-key", lambda g: _in("{s}", "-----BEGIN PGP " + "PRIVATE KEY BLOCK-----\n\nlQOYBF" + g.b64(64)
                                          + "\n-----END PGP " + "PRIVATE KEY BLOCK-----")),
    ("PuTTY", "private-key", lambda g: _in("{s}", "PuTTY-User-Key" + "-File-3: ssh-ed25519\nEncryption: none\n"
                                            "Public-Lines: 2\nAAAAC3" + g.b64(40) + "\nPrivate-Lines: 1\n"
                                            + g.b64(44) + "\nPrivate-MAC: " + g.hex(64))),
    ("Kubernetes", "private-key-base64", lambda g: _in("data:\n  tls.key: {s}\n", base64.b64encode((
        "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEow" + g.b64(128) + "\n-----END RSA " + "PRIVATE KEY-----\n"
    ).encode()).decode())),
    ("OpenSSH", "private-key-base64", lambda g: _in("$ base64 deploy_key\n{s}\n", "\n".join(_wrapped(
        base64.b64encode(("-----BEGIN OPENSSH " + "PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA" + g.b64(200)
                          + "\n-----END OPENSSH " + "PRIVATE KEY-----\n").encode()).decode(), 76)))),
    # code hosting, registries, CI
    ("GitHub", "github-token", lambda g: _in("git push https://x:{s}@github.com/o/r", "gh" + "p_" + g.alnum(36))),
    ("GitHub", "github-token", lambda g: _in("GH_TOKEN={s}", "gh" + "s_" + g.alnum(36))),
    ("GitHub", "github-token", lambda g: _in("oauth {s}", "gh" + "o_" + g.alnum(36))),
    ("GitHub", "github-fine-grained-token", lambda g: _in("token: {s}", "github" + "_pat_" + g.alnum(22) + "_"
                                                           + g.alnum(59))),
    ("GitLab", "gitlab-token", lambda g: _in("GITLAB_TOKEN={s}", "gl" + "pat-" + g.urlsafe(20))),
    ("GitLab", "gitlab-token", lambda g: _in("deploy token {s}", "gl" + "dt-" + g.urlsafe(20))),
    ("GitLab", "gitlab-token", lambda g: _in("runner {s}", "gl" + "rt-" + g.urlsafe(20))),
    ("GitLab", "gitlab-runner-registration-token", lambda g: _in("--registration-token {s}",
                                                                  "GR134" + "8941" + g.urlsafe(20))),
    ("GitLab", "gitlab-session-cookie", lambda g: _in("Cookie: _gitlab_session={s}", g.lower(32))),
    ("Bitbucket", "bitbucket-client-secret", lambda g: _in("BITBUCKET_CLIENT_SECRET={s}", g.alnum(32))),
    ("Bitbucket", "bitbucket-app-password", lambda g: _in("app password {s}", "AT" + "BB" + g.alnum(32))),
    ("Atlassian", "atlassian-api-token", lambda g: _in("JIRA_API_TOKEN={s}", "ATA" + "TT3" + g.urlsafe(186))),
    ("Atlassian", "atlassian-api-token-legacy", lambda g: _in("confluence_token: {s}", g.alnum(24))),
    ("Sourcegraph", "sourcegraph-access-token", lambda g: _in("SRC_ACCESS_TOKEN={s}", "sg" + "p_" + g.hex(16) + "_"
                                                               + g.hex(40))),
    ("npm", "npm-access-token", lambda g: _in("//registry.npmjs.org/:_authToken={s}", "np" + "m_" + g.alnum(36))),
    ("PyPI", "pypi-upload-token", lambda g: _in("password = {s}", "pypi" + "-AgEIcHlwaS5vcmc" + g.urlsafe(70))),
    ("RubyGems", "rubygems-api-token", lambda g: _in(":rubygems_api_key: {s}", "rubygems" + "_" + g.hex(48))),
    ("Clojars", "clojars-api-token", lambda g: _in("deploy token {s}", "CLOJARS" + "_" + g.lower(60))),
    ("NuGet", "nuget-api-key", lambda g: _in("dotnet nuget push -k {s}", "oy" + "2" + g.lower(43))),
    ("NuGet", "nuget-config-password", lambda g: _in('<add key="ClearTextPassword" value="{s}" />', g.alnum(16))),
    ("JFrog", "artifactory-api-key", lambda g: _in("X-JFrog-Art-Api: {s}", "AK" + "Cp" + g.alnum(69))),
    ("JFrog", "jfrog-api-key", lambda g: _in("JFROG_ACCESS_TOKEN={s}", g.alnum(64))),
    ("Docker Hub", "docker-hub-token", lambda g: _in("docker login -u me -p {s}", "dckr" + "_pat_" + g.urlsafe(27))),
    ("Codecov", "codecov-access-token", lambda g: _in("CODECOV_TOKEN={s}", g.uuid())),
    ("Snyk", "snyk-api-token", lambda g: _in("SNYK_TOKEN={s}", g.uuid())),
    ("SonarQube", "sonar-token", lambda g: _in("-Dsonar.login={s}", "sq" + "p_" + g.hex(40))),
    ("SonarQube", "sonar-api-token", lambda g: _in("SONAR_TOKEN={s}", g.hex(40))),
    ("Travis CI", "travisci-access-token", lambda g: _in("travis_token: {s}", g.urlsafe(22))),
    ("Drone CI", "droneci-access-token", lambda g: _in("DRONE_TOKEN={s}", g.alnum(32))),
    ("CircleCI", "circleci-token", lambda g: _in("CIRCLE_TOKEN={s}", "CCI" + "PAT_" + g.alnum(22) + "_" + g.hex(40))),
    ("Linear", "linear-api-key", lambda g: _in("LINEAR_API_KEY={s}", "lin" + "_api_" + g.alnum(40))),
    ("Linear", "linear-client-secret", lambda g: _in("linear_client_secret = {s}", g.hex(32))),
    ("Postman", "postman-api-token", lambda g: _in("x-api-key: {s}", "PM" + "AK-" + g.hex(24) + "-" + g.hex(34))),
    ("ReadMe", "readme-api-token", lambda g: _in("README_API_KEY={s}", "rd" + "me_" + g.lower(70))),
    ("LaunchDarkly", "launchdarkly-access-token", lambda g: _in("LAUNCHDARKLY_ACCESS_TOKEN={s}", "api-" + g.uuid())),
    ("Frame.io", "frameio-api-token", lambda g: _in("FRAMEIO_TOKEN={s}", "fio" + "-u-" + g.urlsafe(64))),
    ("Authress", "authress-access-key", lambda g: _in("AUTHRESS_KEY={s}", "sc" + "_" + g.alnum(20) + "." + g.alnum(5)
                                                       + ".acc_" + g.alnum(20) + "." + g.b64(60))),
    ("SettleMint", "settlemint-access-token", lambda g: _in("SETTLEMINT_TOKEN={s}", "sm" + "_pat_" + g.alnum(16))),
    ("42 Intranet", "intra42-client-secret", lambda g: _in("FT_SECRET={s}", "s-s4" + "t2ud-" + g.hex(64))),
    ("curl", "curl-user-password", lambda g: _in("curl -u deploy:{s} https://example.org/api",
                                                  g.alnum(6) + "!" + g.alnum(8))),
    ("MySQL", "mysql-cli-password", lambda g: _in("mysql -uroot -p{s} -h db app < dump.sql", g.alnum(14))),
    ("sshpass", "sshpass-password", lambda g: _in("sshpass -p {s} ssh deploy@db", g.alnum(14))),
    ("docker login", "registry-login-password", lambda g: _in("docker login -u ci -p {s} registry.example.org",
                                                                g.alnum(16))),
    (".netrc", "netrc-password", lambda g: _in("machine api.example.org login ci password {s}", g.alnum(16))),
    ("redis-cli", "redis-cli-password", lambda g: _in("redis-cli -h cache -a {s} ping", g.alnum(16))),
    ("htpasswd", "htpasswd-password", lambda g: _in("htpasswd -b -c .htpasswd admin {s}", g.alnum(14))),
    ("openssl", "openssl-password", lambda g: _in("openssl pkcs12 -export -passout pass:{s} -out c.p12",
                                                  g.alnum(16))),
    ("RabbitMQ", "rabbitmqctl-password", lambda g: _in("rabbitmqctl add_user deploy {s}", g.alnum(16))),
    ("WordPress", "php-define-secret", lambda g: _in("define( 'NONCE_SALT', '{s}' );", g.alnum(40))),
    ("session cookie", "cookie-header", lambda g: _in('curl -H "Cookie: theme=dark; sessionid={s}" https://app.example.org',
                                                      g.alnum(24))),
    ("session cookie", "curl-cookie", lambda g: _in('curl -b "connect.sid={s}" https://app.example.org', g.alnum(24))),
    ("Grafana", "grafana-token", lambda g: _in("GRAFANA_TOKEN={s}", "gl" + "sa_" + g.alnum(32) + "_" + g.hex(8))),
    ("Grafana", "grafana-token", lambda g: _in("cloud token {s}", "gl" + "c_" + g.b64(60))),
    ("Grafana", "grafana-token", lambda g: _in("api key {s}", "eyJrIj" + "oi" + g.alnum(80))),
    # observability
    ("Sentry", "sentry-token", lambda g: _in("SENTRY_AUTH_TOKEN={s}", "sntry" + "u_" + g.hex(64))),
    ("Sentry", "sentry-token", lambda g: _in("org token {s}", "sntry" + "s_eyJ" + g.b64(80) + "_" + g.b64(43))),
    ("Sentry", "sentry-access-token", lambda g: _in("sentry_token: {s}", g.hex(64))),
    ("New Relic", "new-relic-key", lambda g: _in("NEW_RELIC_API_KEY={s}", "NR" + "AK-" + g.upper(27))),
    ("New Relic", "new-relic-key", lambda g: _in("insert key {s}", "NR" + "II-" + g.urlsafe(32))),
    ("New Relic", "new-relic-user-api-id", lambda g: _in("newrelic_user_id = {s}", g.alnum(64))),
    ("Datadog", "datadog-access-token", lambda g: _in("DATADOG_APP_KEY={s}", g.hex(40))),
    ("Datadog", "datadog-access-token", lambda g: _in("DD_API_KEY={s}", g.hex(32))),
    ("Dynatrace", "dynatrace-api-token", lambda g: _in("Api-Token {s}", "dt0" + "c01." + g.upper(24) + "."
                                                        + g.alnum(64))),
    ("Sumo Logic", "sumologic-access-id", lambda g: _in("SUMO_ACCESS_ID={s}", "su" + g.alnum(12))),
    # messaging
    ("Slack", "slack-token", lambda g: _in("SLACK_BOT_TOKEN={s}", "xo" + "xb-" + g.digits(12) + "-" + g.digits(13)
                                           + "-" + g.alnum(24))),
    ("Slack", "slack-token", lambda g: _in("user token {s}", "xo" + "xp-" + g.digits(12) + "-" + g.digits(12) + "-"
                                           + g.digits(13) + "-" + g.hex(32))),
    ("Slack", "slack-app-token", lambda g: _in("SLACK_APP_TOKEN={s}", "xa" + "pp-1-A" + g.upper(10) + "-"
                                               + g.digits(13) + "-" + g.hex(64))),
    ("Slack", "slack-webhook-url", lambda g: _in("curl -X POST {s}", "https://hooks.slack.com/services/T" + g.upper(8)
                                                 + "/B" + g.upper(8) + "/" + g.alnum(24))),
    ("Discord", "discord-webhook-url", lambda g: _in("webhook: {s}", "https://discord.com/api/webhooks/" + g.digits(18)
                                                     + "/" + g.urlsafe(68))),
    ("Discord", "discord-bot-token", lambda g: _in("bot.run('{s}')", "M" + g.alnum(23) + "." + g.urlsafe(6) + "."
                                                   + g.urlsafe(27))),
    ("Discord", "discord-client-secret", lambda g: _in("DISCORD_CLIENT_SECRET={s}", g.urlsafe(32))),
    ("Microsoft Teams", "microsoft-teams-webhook", lambda g: _in(
        "{s}", f"https://acme.webhook.office.com/webhookb2/{g.uuid()}@{g.uuid()}/IncomingWebhook/{g.hex(32)}/{g.uuid()}")),
    ("Telegram", "telegram-bot-token", lambda g: _in("TELEGRAM_BOT_TOKEN={s}", g.digits(10) + ":AA" + g.urlsafe(33))),
    ("Twilio", "twilio-api-key", lambda g: _in("twilio api key {s}", "S" + "K" + g.hex(32))),
    ("Twilio", "twilio-auth-token", lambda g: _in("TWILIO_AUTH_TOKEN={s}", g.hex(32))),
    ("SendGrid", "sendgrid-api-key", lambda g: _in("SENDGRID_API_KEY={s}", "S" + "G." + g.urlsafe(22) + "."
                                                   + g.urlsafe(43))),
    ("Brevo", "brevo-api-key", lambda g: _in("api-key: {s}", "xkey" + "sib-" + g.hex(64) + "-" + g.alnum(16))),
    ("Mailchimp", "mailchimp-api-key", lambda g: _in("MAILCHIMP_KEY={s}", g.hex(32) + "-us" + "14")),
    ("Mailgun", "mailgun-api-key", lambda g: _in("api:{s}", "ke" + "y-" + g.hex(32))),
    ("Mailgun", "mailgun-signing-key", lambda g: _in("mailgun_signing_key: {s}", g.of("abcdefgh0123456789", 32) + "-"
                                                     + g.of("abcdefgh0123456789", 8) + "-"
                                                     + g.of("abcdefgh0123456789", 8))),
    ("Postmark", "postmark-server-token", lambda g: _in("POSTMARK_SERVER_TOKEN={s}", g.uuid())),
    ("MessageBird", "messagebird-api-token", lambda g: _in("messagebird_key = {s}", g.alnum(25))),
    ("Sendbird", "sendbird-access-token", lambda g: _in("SENDBIRD_API_TOKEN={s}", g.hex(40))),
    ("Mattermost", "mattermost-access-token", lambda g: _in("MATTERMOST_TOKEN={s}", g.lower(26))),
    ("Gitter", "gitter-access-token", lambda g: _in("GITTER_TOKEN={s}", g.urlsafe(40))),
    ("Intercom", "intercom-api-key", lambda g: _in("INTERCOM_ACCESS_TOKEN={s}", g.urlsafe(60))),
    ("Zendesk", "zendesk-secret-key", lambda g: _in("ZENDESK_API_TOKEN={s}", g.alnum(40))),
    ("HubSpot", "hubspot-api-key", lambda g: _in("hubspot_api_key: {s}", g.uuid().upper())),
    ("HubSpot", "hubspot-private-app-token", lambda g: _in("Bearer-less {s}", "pat" + "-na1-" + g.uuid())),
    ("Typeform", "typeform-api-token", lambda g: _in("TYPEFORM_TOKEN={s}", "tf" + "p_" + g.urlsafe(59))),
    # social and content
    ("X (Twitter)", "twitter-bearer-token", lambda g: _in("TWITTER_BEARER={s}", "A" * 22 + g.alnum(70))),
    ("X (Twitter)", "twitter-api-secret", lambda g: _in("twitter_api_secret = {s}", g.alnum(50))),
    ("Facebook", "facebook-page-access-token", lambda g: _in("page token {s}", "EA" + "AC" + g.alnum(120))),
    ("Facebook", "facebook-app-token", lambda g: _in("app token {s}", g.digits(15) + "|" + g.urlsafe(30))),
    ("Facebook", "facebook-secret", lambda g: _in("FACEBOOK_APP_SECRET={s}", g.hex(32))),
    ("LinkedIn", "linkedin-client-secret", lambda g: _in("LINKEDIN_CLIENT_SECRET={s}", g.alnum(16))),
    ("Twitch", "twitch-api-token", lambda g: _in("TWITCH_TOKEN={s}", g.lower(30))),
    ("Etsy", "etsy-access-token", lambda g: _in("ETSY_KEY={s}", g.lower(24))),
    ("Flickr", "flickr-access-token", lambda g: _in("flickr_key: {s}", g.alnum(32))),
    ("New York Times", "nytimes-access-token", lambda g: _in("NYTIMES_KEY={s}", g.alnum(32))),
    ("Dropbox", "dropbox-short-lived-token", lambda g: _in("dropbox token {s}", "s" + "l." + g.urlsafe(138))),
    ("Dropbox", "dropbox-api-token", lambda g: _in("DROPBOX_TOKEN={s}", g.alnum(11) + "A" * 10 + g.urlsafe(43))),
    ("Notion", "notion-api-token", lambda g: _in("NOTION_TOKEN={s}", "nt" + "n_" + g.digits(11) + g.alnum(35))),
    ("Notion", "notion-api-token", lambda g: _in("notion secret {s}", "sec" + "ret_" + g.alnum(43))),
    ("Airtable", "airtable-personal-access-token", lambda g: _in("AIRTABLE_PAT={s}", "pa" + "t" + g.alnum(14) + "."
                                                                  + g.hex(64))),
    ("Airtable", "airtable-api-key", lambda g: _in("airtable_api_key: {s}", "key" + g.alnum(14))),
    ("Asana", "asana-personal-access-token", lambda g: _in("ASANA_PAT={s}", "1/" + g.digits(16) + ":" + g.hex(32))),
    ("Asana", "asana-client-secret", lambda g: _in("asana_client_secret = {s}", g.alnum(32))),
    ("Trello", "trello-api-key", lambda g: _in("TRELLO_TOKEN={s}", g.alnum(64))),
    ("Contentful", "contentful-delivery-token", lambda g: _in("CONTENTFUL_DELIVERY_TOKEN={s}", g.urlsafe(43))),
    ("Contentful", "contentful-personal-token", lambda g: _in("cma token {s}", "CFP" + "AT-" + g.urlsafe(43))),
    ("Algolia", "algolia-api-key", lambda g: _in("ALGOLIA_ADMIN_KEY={s}", g.alnum(32))),
    ("Adafruit", "adafruit-api-key", lambda g: _in("ADAFRUIT_IO_KEY={s}", "aio" + "_" + g.alnum(28))),
    ("Adobe", "adobe-client-id", lambda g: _in("adobe_client_id = {s}", g.hex(32))),
    ("Adobe", "adobe-client-secret", lambda g: _in("client secret {s}", "p8" + "e-" + g.alnum(32))),
    ("Beamer", "beamer-api-token", lambda g: _in("BEAMER_API_KEY={s}", "b" + "_" + g.urlsafe(44))),
    ("Mapbox", "mapbox-secret-token", lambda g: _in("MAPBOX_TOKEN={s}", "sk" + ".eyJ" + g.urlsafe(60) + "."
                                                    + g.urlsafe(22))),
    ("Mapbox", "mapbox-api-token", lambda g: _in("mapbox_token: {s}", "pk" + "." + g.alnum(60) + "."
                                                 + g.urlsafe(22))),
    ("RapidAPI", "rapidapi-access-token", lambda g: _in("X-RapidAPI-Key: {s}", g.urlsafe(50))),
    ("MaxMind", "maxmind-license-key", lambda g: _in("license {s}", g.alnum(6) + "_" + g.alnum(29) + "_m" + "mk")),
    ("Cisco Meraki", "meraki-api-key", lambda g: _in("MERAKI_DASHBOARD_API_KEY={s}", g.hex(40))),
    ("Okta", "okta-access-token", lambda g: _in("OKTA_API_TOKEN={s}", "00" + g.urlsafe(40))),
    ("Looker", "looker-client-secret", lambda g: _in("LOOKER_CLIENT_SECRET={s}", g.alnum(24))),
    ("KuCoin", "kucoin-secret-key", lambda g: _in("kucoin_secret: {s}", g.uuid())),
    ("Kraken", "kraken-access-token", lambda g: _in("KRAKEN_PRIVATE_KEY={s}", g.b64(86) + "==")),
    ("Bittrex", "bittrex-access-key", lambda g: _in("bittrex_key = {s}", g.alnum(32))),
    ("Coinbase", "coinbase-access-token", lambda g: _in("COINBASE_TOKEN={s}", g.urlsafe(64))),
    ("FreshBooks", "freshbooks-access-token", lambda g: _in("FRESHBOOKS_TOKEN={s}", g.alnum(64))),
    ("Finicity", "finicity-client-secret", lambda g: _in("finicity_secret: {s}", g.alnum(20))),
    ("Finnhub", "finnhub-access-token", lambda g: _in("FINNHUB_API_KEY={s}", g.alnum(20))),
    ("Sidekiq", "sidekiq-secret", lambda g: _in("BUNDLE_ENTERPRISE__CONTRIBSYS__COM={s}", g.hex(8) + ":" + g.hex(8))),
    ("Sidekiq", "sidekiq-sensitive-url", lambda g: _in("source 'https://{s}@enterprise.contribsys.com/'",
                                                       g.hex(8) + ":" + g.hex(8))),
    ("Squarespace", "squarespace-access-token", lambda g: _in("SQUARESPACE_API_KEY={s}", g.uuid())),
    ("GoCardless", "gocardless-api-token", lambda g: _in("GOCARDLESS_ACCESS_TOKEN={s}", "live" + "_" + g.urlsafe(40))),
    # payments
    ("Stripe", "stripe-secret-key", lambda g: _in("STRIPE_SECRET_KEY={s}", "sk" + "_live_" + g.alnum(24))),
    ("Stripe", "stripe-secret-key", lambda g: _in("restricted {s}", "rk" + "_live_" + g.alnum(99))),
    ("Stripe", "stripe-webhook-secret", lambda g: _in("STRIPE_WEBHOOK_SECRET={s}", "wh" + "sec_" + g.alnum(32))),
    ("Square", "square-access-token", lambda g: _in("SQUARE_ACCESS_TOKEN={s}", "EA" + "AA" + g.urlsafe(60))),
    ("Square", "square-access-token", lambda g: _in("oauth secret {s}", "sq0" + "csp-" + g.urlsafe(43))),
    ("Shopify", "shopify-token", lambda g: _in("X-Shopify-Access-Token: {s}", "shp" + "at_" + g.hex(32))),
    ("Shopify", "shopify-token", lambda g: _in("shared secret {s}", "shp" + "ss_" + g.hex(32))),
    ("Braintree", "paypal-braintree-token", lambda g: _in("BRAINTREE_TOKEN={s}", "access_token$" + "production$"
                                                          + g.lower(16) + "$" + g.hex(32))),
    ("Plaid", "plaid-access-token", lambda g: _in("access token {s}", "access-" + "production-" + g.uuid())),
    ("Plaid", "plaid-secret-key", lambda g: _in("PLAID_SECRET={s}", g.hex(30))),
    ("Flutterwave", "flutterwave-key", lambda g: _in("FLW_SECRET_KEY={s}", "FLWSEC" + "K-" + g.of("abcdefgh0123456789", 32)
                                                     + "-X")),
    ("Duffel", "duffel-api-token", lambda g: _in("DUFFEL_TOKEN={s}", "duffel" + "_live_" + g.urlsafe(43))),
    ("EasyPost", "easypost-api-token", lambda g: _in("EASYPOST_API_KEY={s}", "EZ" + "AK" + g.alnum(54))),
    ("Shippo", "shippo-api-token", lambda g: _in("SHIPPO_TOKEN={s}", "shippo" + "_live_" + g.hex(40))),
    ("Lob", "lob-api-key", lambda g: _in("LOB_API_KEY={s}", "live" + "_" + g.hex(35))),
    ("Freemius", "freemius-secret-key", lambda g: _in("'secret_key' => '{s}',", "sk" + "_" + g.alnum(29))),
    # issue 25: parity with gitleaks and trufflehog (see _PARITY_SECRETS)
    *_PARITY_SECRETS,
    # generic shapes
    ("JWT", "jwt", lambda g: _in("Cookie: session={s}",
                                 base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=") + "."
                                 + base64.urlsafe_b64encode(b'{"sub":"' + g.alnum(12).encode() + b'"}').decode()
                                 .rstrip("=") + "." + g.urlsafe(43))),
    ("HTTP", "authorization-header", lambda g: _in("Authorization: Bearer {s}", g.urlsafe(40))),
    ("HTTP", "authorization-header", lambda g: _in('-H "Authorization: Basic {s}"', g.b64(32) + "==")),
    ("Database URL", "url-credentials", lambda g: _in("DATABASE_URL=postgres://app:{s}@db.internal:5432/app",
                                                      g.alnum(18))),
    ("Database URL", "url-credentials", lambda g: _in("mongodb+srv://admin:{s}@cluster0.mongodb.net/",
                                                      g.alnum(16))),
    ("Generic", "generic-secret-assignment", lambda g: _in("DB_PASSWORD={s}", g.alnum(14))),
    ("PostgreSQL", "generic-secret-assignment", lambda g: _in("PGPASSWORD={s} psql -h db -U app", g.alnum(16))),
    ("Generic", "generic-secret-assignment", lambda g: _in('{{"CLIENTSECRET": "{s}"}}', g.urlsafe(30))),
    ("Generic", "generic-secret-assignment", lambda g: _in('{{"client_secret": "{s}"}}', g.urlsafe(30))),
    ("Generic", "generic-secret-assignment", lambda g: _in("signing_key: '{s}'", g.b64(44))),
    # An OpenSSH private key's body pasted without its BEGIN line, as ssh-keygen
    # writes it (70 a line) or whole; and .pgpass lines.
    ("OpenSSH", "openssh-private-key-body", lambda g: _in("deploy key body:\n{s}\n", "\n".join(_wrapped(
        _openssh_body(g), 70)))),
    ("OpenSSH", "openssh-private-key-body", lambda g: _in("SSH_KEY_BODY: {s}", _openssh_body(g))),
    ("PostgreSQL", "pgpass-password", lambda g: _in("$ cat ~/.pgpass\ndb.internal:5432:app:app_user:{s}\n",
                                                    g.alnum(20))),
    ("PostgreSQL", "pgpass-password", lambda g: _in("*:*:*:replicator:{s}", g.alnum(6) + "!" + g.alnum(9))),
    # A secret with no prefix, assigned to nothing, named by the word before it (tester-team24 T6).
    ("AWS", "named-secret-in-prose", lambda g: _in("aws secret {s}", g.b64(40))),
    ("prose", "named-secret-in-prose", lambda g: _in("because the deploy token is {s}, rotate it", g.alnum(24))),
]


def secrets() -> list[Secret]:
    """Every synthetic secret, the same on every run."""
    out = []
    for i, (provider, rule, build) in enumerate(_SECRETS):
        line, value = build(Gen(f"{i}:{rule}"))
        out.append(Secret(provider, rule, line, value))
    return out


LOOK_ALIKES: tuple[LookAlike, ...] = (
    LookAlike("commit id after a secret word", "the secret was removed in 1f2e3d4c5b6a79880f1e2d3c4b5a69788f0e1d2c"),
    LookAlike("path after a secret word", "the token is read in src/baton/domain/redaction/secret_rules.py"),
    LookAlike("identifier after a secret word", "password hashing moved to RedactionPolicyThresholds2"),
    LookAlike("openssh magic named", "an OpenSSH key body starts with b3BlbnNzaC1rZXktdjE (openssh-key-v1)"),
    LookAlike("clock", "started 07:30:49, done 07:31:02:118"),
    LookAlike("colon log", "INFO:root:worker:job:started"),
    LookAlike("colon log with a port", "ERROR:8080:server:started:ok"),
    LookAlike("ipv6", "2001:db8:85a3::8a2e:370:7334"),
    LookAlike("ipv6 full", "fe80:0:0:0:0:0:0:1"),
    LookAlike("mac address", "00:11:22:33:44:55"),
    LookAlike("database url", "https://db.example.com:5432/app"),
    LookAlike("passwd line", "root:x:0:0:root:/root:/bin/bash"),
    LookAlike("compiler output", "src/main.c:12:5: error: expected ';'"),
    LookAlike("pgpass format", "host:port:database:username:password"),
    LookAlike("pgpass placeholder", "localhost:5432:app:app:${PGPASSWORD}"),
    LookAlike("mysql prompt", "mysql -u root -p -h db -P 3306 app"),
    LookAlike("sshpass from the environment", "sshpass -e ssh deploy@db"),
    LookAlike("docker login from stdin", "docker login --password-stdin -u ci registry.example.org"),
    LookAlike("netrc without a password", "machine api.example.org login ci"),
    LookAlike("a cookie file", "curl -b cookies.txt -c cookies.txt https://app.example.org"),
    LookAlike("cookies that are settings", "Cookie: theme=dark; lang=en-GB; tz=Europe/Paris"),
    LookAlike("a cookie from the environment", 'curl -H "Cookie: sessionid=$SESSION_ID" https://app.example.org'),
    LookAlike("redis-cli from the environment", "REDISCLI_AUTH is set, so: redis-cli -h cache ping"),
    LookAlike("htpasswd asking for the password", "htpasswd -c .htpasswd admin"),
    LookAlike("openssl reading a password file", "openssl enc -aes-256-cbc -kfile key.txt -passin env:PASS"),
    LookAlike("rabbitmqctl asking for the password", "rabbitmqctl add_user deploy"),
    LookAlike("base64 certificate", "tls.crt: " + base64.b64encode(
        b"-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n"
        b"-----END CERTIFICATE-----\n").decode()),
    LookAlike("uuid", "request id 3f2b8c1e-9a4d-4e6f-b2a1-7c9d0e1f2a3b failed"),
    LookAlike("uuid", "trace_id=8d0c7c54-2d0e-4c52-9f58-55c2c1a7e0b1"),
    LookAlike("ulid", "event 01HZX3K7Q9V2M8N4P6R0T5W1YB appended"),
    LookAlike("ulid", "id: 01J8F0E5G7H9K2M4N6P8R0S2TV"),
    LookAlike("git sha", "commit 9fceb02d0ae598e95dc970b74767f19372d61af8"),
    LookAlike("git sha", "merged a3f5c9e into main (short sha a3f5c9e)"),
    LookAlike("git sha", "HEAD is now at 4b825dc642cb6eb9a060e54bf8d69288fbee4904 initial"),
    LookAlike("sha256", "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    LookAlike("image digest", "image: ghcr.io/acme/api@sha256:0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c"),
    LookAlike("integrity hash", '"integrity": "sha512-7IvE3dBr8RSOHqQj0cY6rUoSPgZd8n1zqkP5Bw9rGd2lQvWxz4aRhHb3KLnM0s1e3Fv2cJw8pYtU6oZ9xA5iQ=="'),
    LookAlike("base64 words", "payload aGVsbG8gd29ybGQsIHRoaXMgaXMgcGxhaW4gdGV4dA=="),
    LookAlike("base64 words", "data: dGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcw=="),
    LookAlike("version", "upgraded numpy 1.26.4 -> 2.0.0rc1, python 3.11.9"),
    LookAlike("version", "v2024.10.15-beta.3+build.20241015"),
    LookAlike("css class", '<div class="flex items-center justify-between px-4 py-2 md:px-8">'),
    LookAlike("css colour", "color: #1f2937; background: #f3f4f6; border-color: #3b82f6ff"),
    LookAlike("css", "grid-template-columns: repeat(auto-fill, minmax(12rem, 1fr))"),
    LookAlike("documented example", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE"),
    LookAlike("documented example", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    LookAlike("documented example", "export GITHUB_TOKEN=ghp_" + "x" * 36),
    LookAlike("documented example", "STRIPE_SECRET_KEY=sk_live_" + "0" * 24),
    LookAlike("documented example", "Authorization: Bearer <token>"),
    LookAlike("placeholder", "OPENAI_API_KEY=<your key here>"),
    LookAlike("placeholder", "api_key: ${API_KEY}"),
    LookAlike("placeholder", "token: {{ secrets.DEPLOY_TOKEN }}"),
    LookAlike("placeholder", "password = process.env.DB_PASSWORD"),
    LookAlike("placeholder", "SLACK_WEBHOOK=https://hooks.slack.com/services/XXX/YYY/ZZZ"),
    LookAlike("placeholder", "password: changeme"),
    LookAlike("placeholder", "ANTHROPIC_API_KEY=sk-ant-api03-your-key-here"),
    LookAlike("placeholder", "HF_TOKEN=hf_" + "x" * 34),
    LookAlike("key name", "primary_key = 'user_id_and_created_at'"),
    LookAlike("key name", "cache_key: user:42:profile:v3:7f3a9c2b1d"),
    LookAlike("key name", "max_tokens = 4096"),
    LookAlike("url", "see https://docs.stripe.com/keys#obtain-api-keys for details"),
    LookAlike("url", "clone git@github.com:acme/widgets.git and run make"),
    LookAlike("url", "https://user@example.com/path?q=1&sort=desc"),
    LookAlike("email", "ping alice.smith+baton@example.co.uk about the release"),
    LookAlike("path", "edited src/components/TokenInput.tsx and tests/test_tokens.py"),
    LookAlike("path", "node_modules/.pnpm/@babel+core@7.24.0/node_modules/@babel/core/lib/index.js"),
    LookAlike("identifier", "class SecretKeyRotationScheduler(BaseScheduler): pass"),
    LookAlike("identifier", "def get_api_key_from_vault(path: str) -> str:"),
    LookAlike("number", "timestamp 1718035200123, port 5432, pid 48213"),
    LookAlike("ip", "connected to 10.24.3.17:8443 and 2001:db8::8a2e:370:7334"),
    LookAlike("prose", "the key insight: retries must back off exponentially"),
    LookAlike("prose", "Rotate the token monthly; never commit it."),
    LookAlike("hex colour list", "palette: ['#ff6b6b', '#4ecdc4', '#45b7d1', '#96ceb4']"),
    LookAlike("npm package", "added @aws-sdk/client-s3@3.600.0 and @sentry/node@8.9.2"),
    LookAlike("test id", "tests/test_redaction.py::test_jwt_in_url_is_redacted[hs256-bearer]"),
    LookAlike("k8s", "kind: ConfigMap\ndata:\n  LOG_LEVEL: debug"),
    LookAlike("markdown", "| Rule | Catches |\n| --- | --- |\n| `github-token` | classic tokens |"),
)


# -- secrets given as identifiers (issue 25) -------------------------------------------
# An owner, branch, session id, harness id or label is refused when it looks
# like a secret (``secret_in_identifier``). These are the kinds that used to
# be kept in the baton key, stream and file name, where ``/`` becomes ``_``
# (a URL loses ``://``) and ``__<branch>`` removes the boundary after a token.

class IdentifierSecret(NamedTuple):
    kind: str
    rule: str
    value: str


_IDENTIFIER_SECRETS: list[tuple[str, str, Callable[[Gen], str]]] = [
    ("database URL", "url-credentials", lambda g: "postgres://app:" + g.alnum(18) + "@db.internal:5432/app"),
    ("database URL", "url-credentials", lambda g: "mongodb+srv://admin:" + g.alnum(16) + "@cluster0.mongodb.net/"),
    ("Slack webhook path", "slack-webhook-url", lambda g: "hooks.slack.com/services/T" + g.upper(8) + "/B"
     + g.upper(8) + "/" + g.alnum(24)),
    ("Slack webhook URL", "slack-webhook-url", lambda g: "https://hooks.slack.com/services/T" + g.upper(8) + "/B"
     + g.upper(8) + "/" + g.alnum(24)),
    ("Google API key", "gcp-api-key", lambda g: "AI" + "za" + g.urlsafe(35)),
    ("SendGrid key", "sendgrid-api-key", lambda g: "S" + "G." + g.urlsafe(22) + "." + g.urlsafe(43)),
    ("JWT", "jwt", lambda g: base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=") + "."
     + base64.urlsafe_b64encode(b'{"sub":"' + g.alnum(12).encode() + b'"}').decode().rstrip("=") + "."
     + g.urlsafe(43)),
    ("Hugging Face token with digits", "huggingface-access-token", lambda g: "hf" + "_" + g.alnum(30) + "9" + g.alnum(3)),
    ("GitHub token", "github-token", lambda g: "gh" + "p_" + g.alnum(36)),
    ("AWS access key id", "aws-access-key-id", lambda g: "AK" + "IA" + g.upper(16)),
    ("Stripe key", "stripe-secret-key", lambda g: "sk" + "_live_" + g.alnum(24)),
    ("npm token", "npm-access-token", lambda g: "np" + "m_" + g.alnum(36)),
]


def identifier_secrets() -> list[IdentifierSecret]:
    """Secret-shaped identifiers, the same on every run."""
    return [IdentifierSecret(kind, rule, build(Gen(f"id{i}:{rule}")))
            for i, (kind, rule, build) in enumerate(_IDENTIFIER_SECRETS)]


IDENTIFIER_LOOK_ALIKES: tuple[str, ...] = (
    "alice@example.com", "Alice Smith", "ci-bot", "local", "main", "feature/login-form", "release/2024.10",
    "fix/hf_hub_download-timeout", "dependabot/npm_and_yarn/sk-lib-1.2.3", "3f2b8c1e-9a4d-4e6f-b2a1-7c9d0e1f2a3b",
    "01HZX3K7Q9V2M8N4P6R0T5W1YB", "9fceb02d0ae598e95dc970b74767f19372d61af8", "claude-code", "gemini-cli",
    "codex", "cursor", "rollout-2025-01-01T10-00-00-0193a3c4", "user/feature__double_underscore",
    "wip/https-redirect", "s-1",
)
"""Owners, branches, session ids and harness ids that must pass the screen."""


# -- near misses of the parity rules (issue 25) ------------------------------------------
# For every rule the parity pass added or widened: lines one step away from
# the token shape (too short, wrong alphabet, a placeholder, the public half
# of a key pair, prose naming the format) that no rule may touch.

PARITY_NEAR_MISSES: dict[str, tuple[str, ...]] = {
    "openai-api-key": ("the key starts with sk-" + "service- and is shown once",),
    "langsmith-api-key": ("lsv2" + "_pt_" + "0123456789abcdef" + "_short",),
    "langfuse-secret-key": ("LANGFUSE_PUBLIC_KEY=pk-" + "lf-3f2b8c1e-9a4d-4e6f-b2a1-7c9d0e1f2a3b",),
    "pinecone-api-key": ("pc" + "sk_ is the prefix of a Pinecone key",),
    "nvidia-api-key": ("nv" + "api-" + "x" * 64,),
    "google-oauth-client-secret": ("client_secret prefix GOC" + "SPX-<your-secret>",),
    "google-oauth-token": ("path a/1" + "/0/b and ya" + "29.short",),
    "azure-container-registry-password": ("the password ends in +A" + "CR followed by six characters",),
    "azure-devops-pat": ("AZ" + "DO is Azure DevOps' token signature",),
    "azure-devops-pat-legacy": ("AZURE_DEVOPS_ORG=contoso-engineering-platform-team",),
    "azure-service-key": ("azure_region = westeurope", "AZURE_SUBSCRIPTION_ID=3f2b8c1e-9a4d-4e6f-b2a1-7c9d0e1f2a3b"),
    "alibaba-access-key-id": ("LT" + "AI" + "SHORT12345",),
    "cloudflare-api-token-v2": ("cf" + "ut_" + "tooShort0123",),
    "tailscale-key": ("tailscale up --auth-key=ts" + "key-auth-XXXX-XXXXXXXXXXXXXXXXXXXX",),
    "databricks-oauth-secret": ("the dose" + "0123456789 units were logged",),
    "deno-deploy-token": ("dd" + "p_ and dd" + "w_ are Deno Deploy prefixes",),
    "atlassian-data-center-token": ("ticket BB" + "DC-1234 fixed",),
    "sourcegraph-cody-token": ("sl" + "k_" + "0123abcd",),
    "testpypi-upload-token": ("pypi" + "-AgENdGVzdC5weXBpLm9yZw...",),
    "sonarcloud-token": ("sq" + "co_ prefix documented in the SonarQube Cloud guide",),
    "buildkite-api-token": ("bk" + "ua_" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcd",),
    "figma-access-token": ("fi" + "gp_short_value",),
    "posthog-personal-api-key": ("the public project token ph" + "c_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0u1V2w",),
    "apify-api-token": ("apify" + "_api_" + "<token>",),
    "rootly-api-key": ("root" + "ly_" + "abc123",),
    "voiceflow-api-key": ("V" + "F.DM.version.2",),
    "intra42-client-secret": ("u-s4" + "t2ud-" + "short",),
    "new-relic-key": ("NR" + "BR-" + "0123456789abcdef",  # 16, not 19
                      "NR" + "IQ-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4"),  # 28: neither 25 nor 32
    "new-relic-license-key": ("0123456789abcdef" + "FFFF" + "NRAL",),
    "zapier-webhook-url": ("see https://hooks.zapier.com/hooks/catch/ for the endpoint",),
    "salesforce-token": ("org id 00D" + "5e000000abcD! alone is no session",  # no token after the "!"
                         "5Aep" + "861 is a refresh token prefix"),
    "zoho-token": ("version 10" + "00.1.2 released",),
    "stripe-intent-client-secret": ("pi" + "_" + "3MtwBwLkdIwHu7ix28a3tqPa" + "_sec" + "ret_<redacted>",),
    "ramp-api-secret": ("RAMP_CLIENT_ID=ramp" + "_id_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0",),
    "url-credentials": ("http://[::1]:8080/health", "REDIS_URL=redis://cache:6379/0", "redis://:${REDIS_PASSWORD}@cache",
                        "https://discord.com:443/users/@me",  # a port and a path, no password
                        "https://registry.example.com:8080/@scope/pkg"),
    "elevenlabs-api-key": ("sk" + "_" + "0123abcd" * 5,  # 40 hex, not 48
                           "stripe test key sk" + "_test_ is a prefix"),
    "tableau-access-token": ("ratio ==: 3/4 of the runs",),
    "klaviyo-private-key": ("publishable pk" + "_test_" + "a1B2c3D4e5F6g7H8i9J0k1L2",),
    "robinhood-crypto-api-key": ("rh" + "-api-" + "docs page",),
    "registry-auth": ('{"auths": {"ghcr.io": {"auth": "bm90LWEtcGFpcg=="}}}',  # base64 of "not-a-pair"
                      '{"auth": "oauth2", "scopes": ["read"]}'),
    "jwt": ("ewoi" + "is the start of base64 for a pretty-printed object",),
    "jwt-base64": ("ZX" + "lK" + "aGVsbG8gd29ybGQsIHRoaXMgaXMgbm90IGEgdG9rZW4gYXQgYWxs",),
    "line-wrapped-secret": (
        "the token starts with gh" + "p_\nand goes on for 36 characters",  # the prefix in prose
        "AK" + "IA\nIOSFODNN7EXAMPLE",  # AWS's documented example, wrapped
        "max_tokens\nsk" + "_live_ is Stripe's prefix",
    ),
    "base64-wrapped-secret": (
        base64.b64encode(b"gh" + b"p_ is the prefix of a GitHub token").decode(),  # the prefix in prose
        base64.b64encode(b"AK" + b"IAIOSFODNN7EXAMPLE").decode(),  # AWS's documented example key
        base64.b64encode(b"https://user:${PASSWORD}@db.example.com").decode(),  # a placeholder password
        base64.b64encode(b"sk" + b"_live_" + b"0" * 24).decode(),  # one character, over and over
    ),
}
"""Rule name -> lines that must come out of redaction unchanged."""
