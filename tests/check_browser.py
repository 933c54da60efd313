#!/usr/bin/env python3
"""The site in a real browser (part of `make docs`, through tests/check_docs.sh): headless Chromium
opens every page of the site, 1024 px wide, and this fails on
  - a resource that does not load (a script, style sheet, image, font, frame; MathJax's too);
  - a JavaScript error (an exception, or console.error);
  - an image that loaded broken, a formula MathJax could not typeset;
  - a page wider than the window (what does not fit must scroll in its own box: code, tables);
  - a table of the text wider than its box by more than a few px (it would scroll, but a reader
    does not see its right-hand columns, and its scroll bar is at the table's bottom);
  - a word of code in a table cell broken across lines after a hyphen ("kogge-" / "stone");
  - a source listing in which a line of 100 characters does not fit (it would scroll).

    tests/check_browser.py HTML_DIR [--screenshots DIR] [--pages GLOB]

Chromium is driven over its DevTools protocol through a pipe (--remote-debugging-pipe): Python's
standard library only. Exit 0: every page clean; 1: problems (listed); 2: bad arguments; 77: no
Chromium here (the caller reports the check as skipped, with that reason). CHROMIUM=path picks
the browser; otherwise chromium, chromium-browser, google-chrome, in that order.
"""
import base64
import fcntl
import fnmatch
import glob
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

WIDTH, HEIGHT = 1024, 800
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
         "--remote-debugging-pipe", "--window-size=%d,%d" % (WIDTH, HEIGHT)]

# A table of the text may be this many px wider than its box (rounding, a border).
TABLE_SLACK = 4

# After the load event: wait for MathJax (if the page has it) and report what the page shows.
INSPECT = """
new Promise(function (done) {
  function report() {
    var broken = [];
    for (var i = 0; i < document.images.length; ++i) {
      var img = document.images[i];
      if (img.getAttribute('src') && (!img.complete || img.naturalWidth === 0))
        broken.push(img.getAttribute('src'));
    }
    // the page, and the content beside the side tree (it scrolls by itself): neither may be
    // wider than the window; code blocks and tables scroll inside their own boxes
    var root = document.scrollingElement || document.documentElement;
    var content = document.getElementById('doc-content') || root;
    // a table of the text that is wider than its box: it scrolls, but the columns on the right
    // are out of sight, with the scroll bar at the table's bottom
    var tables = [], all = document.querySelectorAll('.textblock table');
    for (var t = 0; t < all.length; ++t) {
      // (a row can be wider than the table's scroll width says: Doxygen's tables are inline
      // blocks around their rows)
      var inner = all[t].scrollWidth;
      for (var r = 0; r < all[t].rows.length; ++r)
        inner = Math.max(inner, all[t].rows[r].getBoundingClientRect().width);
      var over = Math.round(inner - all[t].clientWidth);
      if (over > TABLE_SLACK)
        tables.push({over: over, head: (all[t].rows.length ? all[t].rows[0].innerText : '')
                                        .replace(/\s+/g, ' ').trim().slice(0, 70)});
    }
    // a word of code in a table cell that the browser broke after a hyphen ("kogge-" / "stone")
    var split = [], codes = document.querySelectorAll('.textblock td code, .textblock th code');
    var range = document.createRange();
    for (var c = 0; c < codes.length; ++c) {
      var walk = document.createTreeWalker(codes[c], NodeFilter.SHOW_TEXT), node;
      while ((node = walk.nextNode())) {
        for (var k = node.data.indexOf('-'); k >= 0 && k + 1 < node.data.length;
             k = node.data.indexOf('-', k + 1)) {
          range.setStart(node, k); range.setEnd(node, k + 1);
          var here = range.getBoundingClientRect().top;
          range.setStart(node, k + 1); range.setEnd(node, k + 2);
          if (/\S/.test(node.data[k + 1]) && range.getBoundingClientRect().top > here + 2)
            split.push(codes[c].textContent);
        }
      }
    }
    // a source listing: a line of 100 characters fits beside its line number (the check adds
    // one, last, after everything else is measured)
    var listing = document.querySelector('div.contents > div.fragment'), narrow = 0;
    var first = listing && listing.querySelector('div.line');
    if (first && first.querySelector('span.lineno')) {
      var line = document.createElement('div'), probe = document.createElement('span');
      line.className = 'line';
      line.appendChild(first.querySelector('span.lineno').cloneNode(true));
      probe.textContent = new Array(101).join('x');
      line.appendChild(probe);
      listing.insertBefore(line, first);
      var box = listing.getBoundingClientRect();
      narrow = Math.max(0, Math.round(probe.getBoundingClientRect().right -
                                      (box.right - parseFloat(getComputedStyle(listing).paddingRight))));
      listing.removeChild(line);
    }
    done(JSON.stringify({
      narrow: narrow,
      split: split,
      tables: tables,
      broken: broken,
      mathErrors: document.querySelectorAll('.MathJax_Error, .merror, [data-mjx-error]').length,
      mathPending: document.querySelectorAll('script[type^="math/tex"]').length -
                   document.querySelectorAll('.MathJax, .MathJax_Display, .MathJax_Preview + .MathJax').length,
      math: document.querySelectorAll('.MathJax').length,
      wide: Math.max(root.scrollWidth - window.innerWidth, content.scrollWidth - content.clientWidth)
    }));
  }
  if (window.MathJax && window.MathJax.Hub && window.MathJax.Hub.Queue)
    window.MathJax.Hub.Queue(report);
  else
    report();
})
""".replace("TABLE_SLACK", str(TABLE_SLACK))


def find_chromium():
    for name in [os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"]:
        if name and shutil.which(name):
            return shutil.which(name)
    return None


class Browser:
    """One headless Chromium and one tab, spoken to over the DevTools pipe (fds 3 and 4)."""

    def __init__(self, exe, profile):
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()
        # the child's ends above 4 first, so that moving them to 3 and 4 overwrites neither
        high_r = fcntl.fcntl(to_child_r, fcntl.F_DUPFD_CLOEXEC, 10)
        high_w = fcntl.fcntl(from_child_w, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(to_child_r)
        os.close(from_child_w)

        def fds():  # in the child: dup2 clears close-on-exec, so only 3 and 4 reach Chromium
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)
        self.proc = subprocess.Popen([exe] + FLAGS + ["--user-data-dir=" + profile, "about:blank"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, preexec_fn=fds, close_fds=False)
        os.close(high_r)
        os.close(high_w)
        self.buf, self.next_id, self.events = b"", 0, []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Network", "Log"):
            self.call(domain + ".enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride", {"width": WIDTH, "height": HEIGHT,
                                                          "deviceScaleFactor": 1, "mobile": False},
                  session=True)

    def send(self, method, params=None, session=False):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self.session
        os.write(self.to_child, json.dumps(msg).encode() + b"\0")
        return self.next_id

    def receive(self, timeout):
        """The next message, or None after `timeout` seconds."""
        deadline = time.time() + timeout
        while b"\0" not in self.buf:
            left = deadline - time.time()
            if left <= 0 or not select.select([self.from_child], [], [], left)[0]:
                return None
            chunk = os.read(self.from_child, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed its DevTools pipe (exit %s)" % self.proc.poll())
            self.buf += chunk
        raw, self.buf = self.buf.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method, params=None, session=False, timeout=30):
        wanted = self.send(method, params, session)
        deadline = time.time() + timeout
        while time.time() < deadline:
            msg = self.receive(deadline - time.time())
            if msg is None:
                break
            if msg.get("id") == wanted:
                if "error" in msg:
                    raise RuntimeError("%s: %s" % (method, msg["error"].get("message")))
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)
        raise RuntimeError("%s: no answer from Chromium in %d s" % (method, timeout))

    def wait_event(self, method, timeout):
        deadline = time.time() + timeout
        for i, e in enumerate(self.events):
            if e["method"] == method:
                del self.events[i]
                return e
        while time.time() < deadline:
            msg = self.receive(deadline - time.time())
            if msg is None:
                break
            if msg.get("method") == method:
                return msg
            if "method" in msg:
                self.events.append(msg)
        return None

    def close(self):
        try:
            self.send("Browser.close")
            self.proc.wait(timeout=10)
        except Exception:  # noqa: BLE001  (it is going away either way)
            self.proc.kill()
            self.proc.wait()


def problems_of(events, page_url):
    """What went wrong on one page, from the events Chromium sent while it loaded."""
    urls, out = {}, []
    for e in events:
        p = e.get("params", {})
        m = e["method"]
        if m == "Network.requestWillBeSent":
            urls[p["requestId"]] = p["request"]["url"]
        elif m == "Network.loadingFailed" and not p.get("canceled"):
            out.append("does not load: %s (%s)" % (urls.get(p["requestId"], "?"), p.get("errorText")))
        elif m == "Network.responseReceived" and p["response"].get("status", 0) >= 400:
            out.append("HTTP %s: %s" % (p["response"]["status"], p["response"]["url"]))
        elif m == "Runtime.exceptionThrown":
            d = p["exceptionDetails"]
            text = d.get("exception", {}).get("description") or d.get("text")
            out.append("JavaScript error: %s (%s:%s)" % (text, d.get("url", page_url),
                                                          d.get("lineNumber")))
        elif m == "Runtime.consoleAPICalled" and p.get("type") == "error":
            out.append("console.error: %s" % " ".join(str(a.get("value", a.get("description")))
                                                       for a in p.get("args", [])))
        elif m == "Log.entryAdded" and p["entry"]["level"] == "error":
            # "Failed to load resource" duplicates Network.loadingFailed; the rest is new
            if "Failed to load resource" not in p["entry"]["text"]:
                out.append("browser error: %s (%s)" % (p["entry"]["text"], p["entry"].get("url")))
    return out


def main(argv):
    args = argv[1:]
    shots, pattern = None, "*.html"
    if "--screenshots" in args:
        i = args.index("--screenshots")
        shots = args[i + 1]
        del args[i:i + 2]
    if "--pages" in args:
        i = args.index("--pages")
        pattern = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1 or not os.path.isfile(os.path.join(args[0], "index.html")):
        print("usage: tests/check_browser.py HTML_DIR [--screenshots DIR] [--pages GLOB]"
              " (HTML_DIR: make docs's build/docs/html)", file=sys.stderr)
        return 2
    exe = find_chromium()
    if not exe:
        print("no Chromium (chromium, chromium-browser or google-chrome; apt-get install chromium)")
        return 77
    top = os.path.realpath(args[0])
    pages = sorted(p for p in glob.glob(os.path.join(top, "**", "*.html"), recursive=True)
                   if fnmatch.fnmatch(os.path.relpath(p, top), pattern)
                   and os.sep + "mathjax" + os.sep not in p)
    if shots:
        os.makedirs(shots, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="check_browser.")
    problems, formulas, started = [], 0, time.time()
    browser = Browser(exe, profile)
    try:
        for path in pages:
            rel = os.path.relpath(path, top)
            url = "file://" + path
            browser.events = []
            browser.call("Page.navigate", {"url": url}, session=True)
            if not browser.wait_event("Page.loadEventFired", 30):
                problems.append("%s: did not finish loading in 30 s" % rel)
                continue
            result = browser.call("Runtime.evaluate", {"expression": INSPECT, "awaitPromise": True,
                                                       "returnByValue": True}, session=True,
                                  timeout=60)
            time.sleep(0.05)  # events of requests that the last scripts started
            while True:
                msg = browser.receive(0.05)
                if msg is None:
                    break
                if "method" in msg:
                    browser.events.append(msg)
            found = problems_of(browser.events, url)
            if "exceptionDetails" in result:
                found.append("the page's check failed: %s" % result["exceptionDetails"].get("text"))
            else:
                seen = json.loads(result["result"]["value"])
                formulas += seen["math"]
                found += ["broken image: %s" % src for src in seen["broken"]]
                if seen["mathErrors"]:
                    found.append("%d formulas MathJax could not typeset" % seen["mathErrors"])
                if seen["wide"] > 1:
                    found.append("wider than a %d px window by %d px" % (WIDTH, seen["wide"]))
                if seen["narrow"] > 0:
                    found.append("a source line of 100 characters does not fit at %d px (by %d px): "
                                 "docs/site/course.css sets the listings' code font" %
                                 (WIDTH, seen["narrow"]))
                found += ["code in a table broken after a hyphen (it reads as two words; "
                          "docs/site/course.css keeps such words whole): %s" % c
                          for c in sorted(set(seen["split"]))]
                found += ["a table %d px wider than the text at %d px: its right columns are out "
                          "of sight (shorten or split a wide cell, e.g. a formula at its '='): %s"
                          % (t["over"], WIDTH, t["head"]) for t in seen["tables"]]
            problems += ["%s: %s" % (rel, f) for f in found]
            if shots and ("<!-- PageDoc -->" in open(path, encoding="utf-8").read()
                          or rel == "index.html"):
                png = browser.call("Page.captureScreenshot", {"format": "png"}, session=True)
                with open(os.path.join(shots, rel.replace(os.sep, "_") + ".png"), "wb") as f:
                    f.write(base64.b64decode(png["data"]))
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)
    for p in problems:
        print(p)
    print("browser check (%s): %d pages at %d px, %d formulas typeset, %.0f s; %s" %
          (os.path.basename(exe), len(pages), WIDTH, formulas, time.time() - started,
           "no problems" if not problems else "%d PROBLEMS above" % len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
