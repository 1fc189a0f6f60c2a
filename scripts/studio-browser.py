#!/usr/bin/env python3
"""Opens a page in headless Chromium at a true width (the DevTools protocol's device metrics, so a
390 px phone is 390 px, where a headless window is at least 500 px wide), runs a script in it,
presses Tab to follow the keyboard's order, and takes a screenshot of the whole page.

    studio-browser.py --chromium PATH --url URL --width 390 --height 844 \
        [--steps FILE.js] [--tabs N] [--screenshot FILE.png] [--timeout SECONDS]

The steps file is a JavaScript expression whose value (a promise, say of an async function called
at once) is the result. Prints one JSON object: the steps' `result`, the document's `scrollWidth`
and `innerWidth`, the `tabs` (for each Tab: the focused element's id, tag, whether it has a label,
and whether it lies inside the window's width), the `console` messages and the `exceptions`.
Talks to Chromium over --remote-debugging-pipe (file descriptors 3 and 4): no port, no library.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, chromium, profile):
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()

        def fds():
            # Through fds above 4 first, so neither end is overwritten by the other's move.
            r, w = os.dup(to_browser_r), os.dup(from_browser_w)
            r, w = os.dup2(r, 100), os.dup2(w, 101)
            os.dup2(r, 3)
            os.dup2(w, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        self.proc = subprocess.Popen(
            [chromium, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", "--no-default-browser-check", "--hide-scrollbars", "--mute-audio",
             "--autoplay-policy=no-user-gesture-required", f"--user-data-dir={profile}", "about:blank"],
            close_fds=False, preexec_fn=fds, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None, timeout=60):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            reply = self.read(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def read(self, deadline):
        while b"\0" not in self.buffer:
            if time.time() > deadline:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed its pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def wait_event(self, method, timeout):
        deadline = time.time() + timeout
        while True:
            for event in self.events:
                if event.get("method") == method:
                    self.events.remove(event)
                    return event
            self.events.append(self.read(deadline))

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


TAB_PROBE = """(() => {
  const el = document.activeElement;
  if (!el || el === document.body) return { id: '', tag: 'BODY', labelled: false, inside: true };
  const box = el.getBoundingClientRect();
  const labelled = !!(el.labels && el.labels.length) || el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby')
    || (el.tagName === 'BUTTON' && el.textContent.trim().length > 0);
  return { id: el.id, tag: el.tagName, labelled, inside: box.left >= -1 && box.right <= window.innerWidth + 1 && box.width > 0 };
})()"""


def evaluate(browser, session, expression, timeout):
    answer = browser.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True},
                          session=session, timeout=timeout)
    if "exceptionDetails" in answer:
        details = answer["exceptionDetails"]
        raise RuntimeError("the script failed: " + json.dumps(details.get("exception", {}).get("description") or details.get("text")))
    return answer.get("result", {}).get("value")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chromium", required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("--width", type=int, required=True)
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument("--steps")
    parser.add_argument("--tabs", type=int, default=0)
    parser.add_argument("--screenshot")
    parser.add_argument("--timeout", type=float, default=120)
    args = parser.parse_args()
    profile = tempfile.mkdtemp(prefix="studio-browser-")
    browser = Browser(args.chromium, profile)
    out = {}
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        browser.send("Emulation.setDeviceMetricsOverride",
                     {"width": args.width, "height": args.height, "deviceScaleFactor": 1, "mobile": args.width < 600}, session=session)
        browser.send("Runtime.enable", session=session)
        browser.send("Page.enable", session=session)
        browser.send("Page.navigate", {"url": args.url}, session=session)
        browser.wait_event("Page.loadEventFired", args.timeout)
        if args.steps:
            with open(args.steps, encoding="utf-8") as f:
                out["result"] = evaluate(browser, session, f.read(), args.timeout)
        metrics = evaluate(browser, session,
                           "({ scrollWidth: document.scrollingElement.scrollWidth, innerWidth: window.innerWidth })", 30)
        out.update(metrics)
        if args.tabs:
            evaluate(browser, session, "document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0); true", 30)
            tabs = []
            for _ in range(args.tabs):
                for kind in ("rawKeyDown", "keyUp"):
                    browser.send("Input.dispatchKeyEvent", {"type": kind, "key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9,
                                                             "nativeVirtualKeyCode": 9}, session=session)
                tabs.append(evaluate(browser, session, TAB_PROBE, 30))
            out["tabs"] = tabs
        if args.screenshot:
            size = browser.send("Page.getLayoutMetrics", session=session)["cssContentSize"]
            shot = browser.send("Page.captureScreenshot", {
                "format": "png", "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": args.width, "height": min(size["height"], 6000), "scale": 1}}, session=session)
            import base64
            with open(args.screenshot, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
        out["console"] = [" ".join(str(a.get("value", a.get("description", ""))) for a in e["params"].get("args", []))
                          for e in browser.events if e.get("method") == "Runtime.consoleAPICalled"]
        out["exceptions"] = [e["params"]["exceptionDetails"].get("exception", {}).get("description", e["params"]["exceptionDetails"].get("text"))
                             for e in browser.events if e.get("method") == "Runtime.exceptionThrown"]
    except Exception as error:
        out["error"] = str(error)
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)
    print(json.dumps(out))
    return 0 if "error" not in out else 1


if __name__ == "__main__":
    sys.exit(main())
