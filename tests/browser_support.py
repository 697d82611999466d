"""A headless Chromium driven over the Chrome DevTools Protocol, through a pipe.

``--remote-debugging-pipe`` makes Chromium read protocol messages on fd 3 and
write its answers on fd 4, each a JSON object ended by a NUL byte: no
websocket client (and no new dependency) is needed. Tests that use it skip
with a reason when no Chromium is installed (Debian: ``apt-get install
chromium``).
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

IN_A_BROWSER = pytest.mark.slow(reason="a real Chromium started per module and driven page by page: "
                                        "end to end in nature and slow, run by the README's slow command")
"""The page's browser tests run with the crash loops and races (``-m slow``): CI installs a Chromium
before either suite (.ci/run), so each still runs there; the main suite keeps the page's
in-process and HTTP tests (tests/test_status_page*.py without ``browser``)."""

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")


def find_chromium() -> str | None:
    explicit = os.environ.get("BATON_CHROMIUM")
    if explicit:
        return explicit
    return next((found for name in CANDIDATES if (found := shutil.which(name))), None)


class BrowserError(RuntimeError):
    pass


class Browser:
    """One headless Chromium; ``open(url)`` gives a ``Page`` to evaluate script in."""

    def __init__(self, executable: str, *, extra_args: tuple[str, ...] = ()) -> None:
        self._profile = tempfile.mkdtemp(prefix="baton-chromium-")
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def wire() -> None:  # in the child: the protocol's two descriptors at 3 and 4
            import fcntl

            read_end = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)  # above 3 and 4, so neither is overwritten
            write_end = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        self._proc = subprocess.Popen(
            [executable, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-dev-shm-usage",
             f"--user-data-dir={self._profile}", *extra_args, "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=wire, close_fds=False)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._ids = itertools.count(1)
        self._buffer = b""

    # -- the protocol ---------------------------------------------------------
    def send(self, method: str, params: dict[str, Any] | None = None, *, session: str | None = None,
             timeout: float = 30) -> dict[str, Any]:
        ident = next(self._ids)
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            for answer in self._messages(deadline):
                if answer.get("id") == ident:
                    if "error" in answer:
                        raise BrowserError(f"{method}: {answer['error']}")
                    return answer.get("result", {})

    def _messages(self, deadline: float):
        import select

        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("Chromium did not answer in time")
            ready, _, _ = select.select([self._from_chrome], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._from_chrome, 1 << 16)
            if not chunk:
                raise BrowserError("Chromium closed its protocol pipe")
            self._buffer += chunk
        while b"\0" in self._buffer:
            raw, _, self._buffer = self._buffer.partition(b"\0")
            yield json.loads(raw)

    def open(self, url: str, *, width: int = 1280, height: int = 900, bypass_csp: bool = False,
             before: str | None = None) -> "Page":
        """A new tab at ``url``; ``before``: script to run in the page before its own."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, session)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}, session=session)
        # Focus and keyboard work as in a window the user is looking at.
        self.send("Emulation.setFocusEmulationEnabled", {"enabled": True}, session=session)
        self.send("Runtime.enable", session=session)
        self.send("Page.enable", session=session)
        if bypass_csp:  # for a test's own script standing in for another site's
            self.send("Page.setBypassCSP", {"enabled": True}, session=session)
        if before:
            self.send("Page.addScriptToEvaluateOnNewDocument", {"source": before}, session=session)
        self.send("Page.navigate", {"url": url}, session=session)
        page.wait_for("document.readyState === 'complete'")
        return page

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=5)
        except (BrowserError, OSError):
            pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        for fd in (self._to_chrome, self._from_chrome):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self._profile, ignore_errors=True)


class Page:
    def __init__(self, browser: Browser, session: str) -> None:
        self.browser = browser
        self.session = session

    def eval(self, expression: str) -> Any:
        """The JSON value of ``expression`` (promises awaited)."""
        result = self.browser.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True,
                                                        "returnByValue": True}, session=self.session)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result.get("result", {}).get("value")

    def click(self, selector: str) -> None:
        """Click the middle of the element ``selector`` names with the mouse, as a person would
        (real input events, not ``element.click()``)."""
        box = self.eval(f"(function () {{ var e = document.querySelector({json.dumps(selector)});"
                        "if (!e) { return null; } e.scrollIntoView({block: 'center'});"
                        "var r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()")
        if box is None:
            raise BrowserError(f"nothing to click: {selector}")
        x, y = box
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.browser.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left",
                                                           "clickCount": 0 if kind == "mouseMoved" else 1},
                              session=self.session)

    KEYS = {"Enter": ("Enter", 13, "\r"), "Space": (" ", 32, " "), "Tab": ("Tab", 9, ""),
            "Escape": ("Escape", 27, "")}

    def press(self, key: str) -> None:
        """Press and release one key (``Enter``, ``Space``, ``Tab``, ``Escape``) on what has the focus."""
        name, code, text = self.KEYS[key]
        down: dict[str, Any] = {"type": "keyDown" if text else "rawKeyDown", "key": name, "code": key,
                                "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code}
        if text:
            down.update(text=text, unmodifiedText=text)
        self.browser.send("Input.dispatchKeyEvent", down, session=self.session)
        self.browser.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": name, "code": key,
                                                     "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code},
                          session=self.session)

    def screenshot(self, path: str, *, full_page: bool = True) -> None:
        """A PNG of the page (the whole document with ``full_page``), to look at."""
        import base64

        params: dict[str, Any] = {"format": "png", "captureBeyondViewport": full_page}
        shot = self.browser.send("Page.captureScreenshot", params, session=self.session)
        with open(path, "wb") as out:
            out.write(base64.b64decode(shot["data"]))

    def wait_for(self, condition: str, *, timeout: float = 30) -> Any:
        """Poll ``condition`` until it is truthy (a bound on waiting, not a timing assertion)."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.eval(condition)
            if value:
                return value
            if time.monotonic() > deadline:
                raise BrowserError(f"never true: {condition}")
            time.sleep(0.05)


@contextmanager
def status_page_open(root: Path, chromium: str) -> Iterator[Page]:
    """``root``'s status page, served on a free loopback port, open in a headless ``chromium`` until the
    block ends (the browser closed, then the server stopped)."""
    from tests.app_support import status_server

    with status_server(root) as server:
        browser = Browser(chromium)
        try:
            yield browser.open(server.url)
        finally:
            browser.close()


def chromium_or_skip() -> str:
    """The Chromium to drive; the test is skipped, with the reason, when none is installed."""
    chromium = find_chromium()
    if chromium is None:
        pytest.skip("no Chromium installed (apt-get install chromium, or set BATON_CHROMIUM)")
    return chromium


def sharing_line_shown(root: Path, chromium: str) -> str:
    """The text of ``root``'s status page's sharing line (``#sharing-line``), read in a headless
    ``chromium`` once the page shows it."""
    with status_page_open(root, chromium) as page:
        page.wait_for("document.querySelectorAll('#sharing-line p').length > 0")
        return str(page.eval("document.querySelector('#sharing-line p').textContent"))
