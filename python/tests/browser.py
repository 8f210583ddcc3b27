"""Render a local HTML file in Debian's headless Chromium through the DevTools protocol.

    render(html_path, screenshot_path) -> Rendered(console errors, figure boxes, images)

Chromium is started with --headless --remote-debugging-port=0 and a fresh profile; the
port is read from DevToolsActivePort, the page's websocket found at /json/list, and the
protocol spoken with websocket-client: Runtime/Log events collect console errors and
exceptions, Runtime.evaluate measures every <figure> and <img>, Page.captureScreenshot
writes a PNG of the whole page.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional

CANDIDATES = ("chromium", "chromium-browser")


def chromium() -> Optional[str]:
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


@dataclass
class Rendered:
    errors: List[str]
    figures: List[Dict[str, Any]]
    images: List[Dict[str, Any]]
    title: str


MEASURE = """JSON.stringify({
  title: document.title,
  figures: [...document.querySelectorAll('figure')].map(f => {
    const r = f.getBoundingClientRect();
    return {w: r.width, h: r.height, caption: (f.querySelector('figcaption')||{}).textContent};
  }),
  images: [...document.querySelectorAll('img')].map(i => ({
    w: i.getBoundingClientRect().width, h: i.getBoundingClientRect().height,
    nw: i.naturalWidth, nh: i.naturalHeight, complete: i.complete})),
})"""


class Session:
    def __init__(self, ws_url: str) -> None:
        import websocket  # websocket-client

        # No Origin header. websocket-client sends Origin: http://127.0.0.1:<port> by default,
        # and what Chromium does with it depends on its version: Debian 12's chromium 156
        # (bookworm-security, what a long-lived machine has) lets that loopback origin in,
        # 150 (bookworm's main archive, what a fresh debootstrap root gets) refuses every
        # origin not named by --remote-allow-origins (403), and the port, hence the origin,
        # is only known after start. A client that sends no Origin is not a web page and is
        # let in by both (checked in a fresh root, make fresh-check).
        self.ws = websocket.create_connection(ws_url, timeout=30, suppress_origin=True)
        self.next_id = 0
        self.events: List[Dict[str, Any]] = []

    def call(self, method: str, **params: Any) -> Dict[str, Any]:
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self.events.append(msg)

    def wait_event(self, method: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while not any(e.get("method") == method for e in self.events):
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {method} within {timeout} s")
            self.events.append(json.loads(self.ws.recv()))

    def close(self) -> None:
        self.ws.close()


def _errors(events: List[Dict[str, Any]]) -> List[str]:
    out = []
    for e in events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            out.append(" ".join(str(a.get("value", a.get("description", ""))) for a in p["args"]))
        elif m == "Runtime.exceptionThrown":
            out.append(p["exceptionDetails"].get("text", "exception"))
        elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
            out.append(p["entry"].get("text", ""))
    return out


def _devtools_port(profile: Path, proc: subprocess.Popen, timeout: float = 30) -> int:
    marker = profile / "DevToolsActivePort"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if marker.is_file():
            lines = marker.read_text().splitlines()
            if lines and lines[0].isdigit():
                return int(lines[0])
        if proc.poll() is not None:
            raise RuntimeError(f"chromium exited with {proc.returncode}")
        time.sleep(0.1)
    raise TimeoutError("chromium did not open its DevTools port")


def _stop(proc: subprocess.Popen) -> None:
    """Terminate chromium's whole process group, and kill what does not go."""
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _remove(profile: Path) -> None:
    """Remove the profile; a helper process still exiting may write into it a moment
    longer (seen once in CI as 'Directory not empty'), so try a few times."""
    for _ in range(20):
        shutil.rmtree(profile, ignore_errors=True)
        if not profile.exists():
            return
        time.sleep(0.1)


def render(html_path: Path, screenshot: Path, width: int = 1200) -> Rendered:
    exe = chromium()
    if not exe:
        raise RuntimeError("chromium is not installed (tools/setup-deps.sh installs it)")
    profile = Path(tempfile.mkdtemp(prefix="hk-chromium-"))
    try:
        # its own process group: the renderer and helper processes go with it
        proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-dev-shm-usage", "--remote-debugging-port=0",
             f"--user-data-dir={profile}", f"--window-size={width},900", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
            # chromium puts its singleton socket directory (org.chromium.Chromium.*) under
            # TMPDIR and leaves it there when killed: keep it inside the profile we remove
            env={**os.environ, "TMPDIR": str(profile)})
        try:
            port = _devtools_port(profile, proc)
            targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
            page = next(t for t in targets if t.get("type") == "page")
            s = Session(page["webSocketDebuggerUrl"])
            try:
                for domain in ("Page", "Runtime", "Log"):
                    s.call(f"{domain}.enable")
                s.events.clear()
                s.call("Page.navigate", url=Path(html_path).resolve().as_uri())
                s.wait_event("Page.loadEventFired")
                data = json.loads(s.call("Runtime.evaluate", expression=MEASURE,
                                         returnByValue=True)["result"]["value"])
                shot = s.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
                screenshot.write_bytes(base64.b64decode(shot["data"]))
                errors = _errors(s.events)
            finally:
                s.close()
        finally:
            _stop(proc)
    finally:
        _remove(profile)
    return Rendered(errors, data["figures"], data["images"], data["title"])
