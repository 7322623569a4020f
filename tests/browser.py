"""Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON messages
ended by NUL on file descriptors 3 and 4), so no websocket package and no open port is needed.

`Browser().load(path)` opens a page in a fresh tab, waits for its chart (the page's `tracedbChart`
promise), and returns a `Page` with every request the page made, every console message and uncaught
exception, and `evaluate(js)` to read the rendered DOM."""
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def chromium() -> str | None:
    """The Chromium (or Chrome) executable: $TRACEDB_CHROMIUM, else the first of CANDIDATES on PATH."""
    exe = os.environ.get("TRACEDB_CHROMIUM")
    if exe:
        return exe
    return next((found for found in map(shutil.which, CANDIDATES) if found), None)


@dataclass
class Page:
    browser: "Browser"
    session: str
    url: str
    requests: list = field(default_factory=list)    # URLs the page asked for (its own file included)
    problems: list = field(default_factory=list)    # console errors and warnings, uncaught exceptions, log errors

    def evaluate(self, js: str):
        r = self.browser.send("Runtime.evaluate", {"expression": js, "returnByValue": True, "awaitPromise": True},
                              self.session)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{js}: {r['exceptionDetails']}")
        return r["result"].get("value")


class Browser:
    def __init__(self, exe: str, timeout: float = 60):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="tracedb-chromium-")
        to_browser, from_browser = os.pipe(), os.pipe()

        def fds():   # the browser reads commands on fd 3 and writes answers and events on fd 4
            os.dup2(to_browser[0], 3)
            os.dup2(from_browser[1], 4)

        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe", "--no-first-run",
             "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", f"--user-data-dir={self.profile}", "about:blank"],
            pass_fds=(3, 4), preexec_fn=fds, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(to_browser[0])
        os.close(from_browser[1])
        self.write, self.read = to_browser[1], from_browser[0]
        self.buffer, self.next_id, self.events = b"", 0, []

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._receive(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m["result"]
            self.events.append(m)

    def _receive(self, deadline: float) -> dict:
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.read], [], [], left)[0]:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self.read, 1 << 20)
            if not chunk:
                raise EOFError("chromium closed its pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def _wait_for(self, method: str, session: str) -> dict:
        deadline = time.monotonic() + self.timeout
        for i, m in enumerate(self.events):
            if m.get("method") == method and m.get("sessionId") == session:
                return self.events.pop(i)
        while True:
            m = self._receive(deadline)
            if m.get("method") == method and m.get("sessionId") == session:
                return m
            self.events.append(m)

    def load(self, path: str) -> Page:
        """Open `path` in a new tab, wait for its load event and its chart, collect what it did."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Network", "Page"):
            self.send(f"{domain}.enable", session=session)
        self.events = [m for m in self.events if m.get("sessionId") != session]
        url = "file://" + os.path.abspath(path)
        self.send("Page.navigate", {"url": url}, session)
        self._wait_for("Page.loadEventFired", session)
        page = Page(self, session, url)
        page.evaluate("window.tracedbChart ? window.tracedbChart.then(function () { return true; }) : false")
        page.evaluate("new Promise(function (r) { setTimeout(r, 50); })")   # let late console messages arrive
        for m in [m for m in self.events if m.get("sessionId") == session]:
            method, p = m.get("method"), m.get("params", {})
            if method == "Network.requestWillBeSent":
                page.requests.append(p["request"]["url"])
            elif method == "Runtime.consoleAPICalled" and p["type"] in ("error", "warning", "assert"):
                page.problems.append(f"console.{p['type']}: " + " ".join(str(a.get("value", a.get("description")))
                                                                          for a in p["args"]))
            elif method == "Runtime.exceptionThrown":
                details = p["exceptionDetails"]
                page.problems.append("exception: " + details.get("exception", {}).get("description", details["text"]))
            elif method == "Log.entryAdded" and p["entry"]["level"] in ("error", "warning"):
                page.problems.append(f"log: {p['entry']['text']} ({p['entry'].get('url', '')})")
        return page

    def close(self):
        try:
            self.send("Browser.close")
        except (OSError, RuntimeError, TimeoutError, EOFError):
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.write)
        os.close(self.read)
        shutil.rmtree(self.profile, ignore_errors=True)
