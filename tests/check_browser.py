#!/usr/bin/env python3
"""The site in a real browser (part of `make docs`, through tests/check_docs.sh): headless Chromium
opens every page of the site twice, 1024 px wide and 390 px wide (a phone), and this fails on
  - a resource that does not load (a script, style sheet, image, font, frame; MathJax's too);
  - a JavaScript error (an exception, or console.error);
  - an image that loaded broken, a formula MathJax could not typeset; a page with no text;
  - a page wider than the window, at either width, every page (what does not fit must scroll
    in its own box: code, tables, displayed formulas);
  - at 1024 px, a table of the text wider than its box by more than a few px (it would scroll,
    but a reader does not see its right-hand columns); at 390 px, a table wider than its box
    that does not scroll inside it or lacks the line above it that says so (docs/site/course.js);
    at either width, a code block or a displayed formula wider than its box without that line;
  - at either width, a word of code broken across lines after a hyphen ("kogge-" / "stone",
    "compute-" / "sanitizer", "-" / "arch=sm_90");
  - code smaller than 13 px (listings and the notes' code), or a comment in code under 4.5:1
    contrast against its background, in the light theme and (on a listing and a chapter's notes)
    the dark one;
  - a figure that does not open full size on a tap (it is not inside a link to its own page,
    figure_NAME.html), or a figure's page that does not show it as wide as the window (with a
    viewport, so that a phone does not lay it out 980 px wide);
  - a page of the reading order without its previous/next bar at the top and at the bottom;
  - on a phone, a menu that does not list the course's pages in reading order
    (docs/site/site_pages.py, menu_entries());
  - a search of the notes that finds nothing, or does not list first the lesson that teaches
    the term: "Kogge-Stone" (chapter 02), "Little's law" (the primer), "bank conflict" (03),
    "cp.async" (08), "decoupled look-back" (07), typed into the search box, read in the results
    frame it opens.

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

# The widths the site is read at: a laptop beside the side tree, and a phone (no side tree: the
# menu). (width, height, mobile)
WIDTHS = ((1024, 800, False), (390, 844, True))
WIDTH, HEIGHT = WIDTHS[0][:2]
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
         "--remote-debugging-pipe", "--window-size=%d,%d" % (WIDTH, HEIGHT)]

# A table of the text may be this many px wider than its box (rounding, a border).
TABLE_SLACK = 4
# Code at least this size (px), comments in code at least this contrast (WCAG AA for text).
MIN_CODE_PX = 13
MIN_CONTRAST = 4.5
# The searches of the notes (issue 35): each must list first the lesson that teaches the term
# (where that page is in the site; else any lesson).
QUERIES = (("Kogge-Stone", "ch02_warp_shfl"), ("Little's law", "primer"),
           ("bank conflict", "ch03_block_scan"), ("cp.async", "ch08_memcpy_speed"),
           ("decoupled look-back", "ch07_decoupled_lookback"))

# After the load event: wait for MathJax (if the page has it) and report what the page shows.
INSPECT = """
new Promise(function (done) {
  // the contrast of two CSS colours (WCAG 2 relative luminance)
  function rgb(c) { var m = c.match(/[\\d.]+/g); return m ? m.slice(0, 4).map(Number) : [0, 0, 0, 0]; }
  function lum(c) {
    var v = rgb(c).slice(0, 3).map(function (x) { x /= 255;
      return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
  }
  function background(el) {
    for (; el; el = el.parentElement) {
      var c = getComputedStyle(el).backgroundColor, a = rgb(c);
      if (a.length < 4 || a[3] > 0) return c;
    }
    return 'rgb(255, 255, 255)';
  }
  function contrast(el) {
    var a = lum(getComputedStyle(el).color), b = lum(background(el));
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  }
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
    // a table of the text that is wider than its box: at 1024 px it must not be (its right
    // columns are out of sight); on a phone it must scroll inside its box, with the hint above
    var tables = [], nohint = [], all = document.querySelectorAll('.textblock table');
    for (var t = 0; t < all.length; ++t) {
      // (a row can be wider than the table's scroll width says: Doxygen's tables are inline
      // blocks around their rows)
      var inner = all[t].scrollWidth;
      for (var r = 0; r < all[t].rows.length; ++r)
        inner = Math.max(inner, all[t].rows[r].getBoundingClientRect().width);
      var over = Math.round(inner - all[t].clientWidth);
      var head = (all[t].rows.length ? all[t].rows[0].innerText : '').replace(/\\s+/g, ' ').trim().slice(0, 70);
      if (over > TABLE_SLACK) {
        tables.push({over: over, head: head});
        var hint = all[t].previousElementSibling;
        var body = all[t].tBodies[0];  // (doxygen-awesome scrolls a table's body)
        var scrolls = /auto|scroll/.test(getComputedStyle(all[t]).overflowX) ||
                      (body && /auto|scroll/.test(getComputedStyle(body).overflowX));
        if (!scrolls || !hint || !hint.classList.contains('course-scroll-hint') || !hint.offsetHeight)
          nohint.push(head);
      }
    }
    // a word of code that the browser broke after a hyphen ("kogge-" / "stone", "compute-" /
    // "sanitizer", "-" / "arch=sm_90")
    var split = [], codes = document.querySelectorAll('.contents code');
    var range = document.createRange();
    for (var c = 0; c < codes.length; ++c) {
      var walk = document.createTreeWalker(codes[c], NodeFilter.SHOW_TEXT), node;
      while ((node = walk.nextNode())) {
        for (var k = node.data.indexOf('-'); k >= 0 && k + 1 < node.data.length;
             k = node.data.indexOf('-', k + 1)) {
          range.setStart(node, k); range.setEnd(node, k + 1);
          var here = range.getBoundingClientRect().top;
          range.setStart(node, k + 1); range.setEnd(node, k + 2);
          if (/\\S/.test(node.data[k + 1]) && range.getBoundingClientRect().top > here + 2)
            split.push(codes[c].textContent);
        }
      }
    }
    // a code block or a formula of the text wider than its box: the line above it says so
    var wideBlocks = [], blocks = document.querySelectorAll('.textblock div.fragment, .textblock div.MathJax_Display');
    for (var w = 0; w < blocks.length; ++w) {
      if (blocks[w].scrollWidth <= blocks[w].clientWidth + TABLE_SLACK) continue;
      var above = blocks[w].parentNode.classList.contains('doxygen-awesome-fragment-wrapper')
        ? blocks[w].parentNode : blocks[w];
      var line = above.previousElementSibling;
      if (!line || !line.classList.contains('course-scroll-hint') || !line.offsetHeight)
        wideBlocks.push(blocks[w].textContent.replace(/\\s+/g, ' ').trim().slice(0, 70));
    }
    // code: the smallest font of a listing's or the notes' code; the lowest contrast of a comment
    var small = 0, smallWhat = '', lowest = 99;
    var code = document.querySelectorAll('div.fragment div.line, .textblock code');
    for (var q = 0; q < code.length && q < 400; ++q) {
      var px = parseFloat(getComputedStyle(code[q]).fontSize);
      if (code[q].offsetHeight && (!small || px < small)) {
        small = px; smallWhat = code[q].textContent.trim().slice(0, 40);
      }
    }
    var comments = document.querySelectorAll('div.fragment span.comment');
    for (var n = 0; n < comments.length && n < 50; ++n)
      if (comments[n].textContent.trim()) lowest = Math.min(lowest, contrast(comments[n]));
    // figures: each is inside a link to its own page (a tap opens it full size), which shows the
    // same file
    var figures = [], shown = document.querySelectorAll('.contents div.image object, .contents div.image img');
    for (var f = 0; f < shown.length; ++f) {
      var a = shown[f].closest('a.course-figure');
      var src = shown[f].getAttribute('data') || shown[f].getAttribute('src');
      if (!a || a.getAttribute('data-figure') !== src || !/^figure_[\\w-]+\\.html$/.test(a.getAttribute('href')) ||
          getComputedStyle(a).pointerEvents === 'none')
        figures.push(src + ': it does not open full size on a tap (no link to its figure page ' +
                     'around it: docs/site/postprocess.py, link_figures())');
      else if (shown[f].getBoundingClientRect().width < 2)
        figures.push(src + ': drawn 0 px wide (an SVG that does not say its width?)');
    }
    // a figure's own page (postprocess.py, FIGURE_PAGE): the figure as wide as the window, on a
    // phone too (a viewport, so the phone does not lay the page out 980 px wide)
    var alone = document.querySelector('body > div.figure > img'), figurePage = null;
    if (alone)
      figurePage = {width: Math.round(alone.getBoundingClientRect().width), src: alone.getAttribute('src'),
                    viewport: !!document.querySelector('meta[name="viewport"]')};
    // what the page says: a page with no text of its own is an empty page
    // (a graph and its heading are not text: a directory page with only its graph is empty)
    var contents = document.querySelector('div.contents') || (alone && document.body), said = 0;
    if (contents) {
      var copy = contents.cloneNode(true);
      copy.querySelectorAll('.dynheader, .dyncontent, iframe, script').forEach(function (e) { e.remove(); });
      said = copy.textContent.replace(/\s+/g, ' ').trim().length;
    }
    done(JSON.stringify({
      said: said,
      split: split,
      tables: tables,
      nohint: nohint,
      wideBlocks: wideBlocks,
      broken: broken,
      small: small, smallWhat: smallWhat,
      contrast: lowest,
      figures: figures,
      figurePage: figurePage,
      window: window.innerWidth,
      navTop: document.querySelectorAll('.textblock > div.course-nav.course-nav-top').length,
      navBottom: document.querySelectorAll('div.course-nav:not(.course-nav-top)').length,
      pageDoc: document.querySelectorAll('.PageDoc').length,
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

# On a phone, the main page's menu: its entries, after the menu button is pressed.
MENU = """
(function () {
  var button = document.getElementById('main-menu-state');
  if (button && !button.checked) button.click();
  var items = document.querySelectorAll('#main-menu > li > a');
  return JSON.stringify(Array.prototype.map.call(items, function (a) {
    return {text: a.textContent.trim(), href: a.getAttribute('href'), shown: a.offsetHeight > 0};
  }));
})()
"""

# The search box: type a query, as a reader does (Doxygen's search.js opens the results frame).
TYPE_QUERY = """
new Promise(function (done) {
  function type() {
    if (typeof searchBox === 'undefined' || !searchBox.DOMSearchField()) return setTimeout(type, 50);
    searchBox.OnSearchFieldFocus(true);
    searchBox.DOMSearchField().value = %s;
    searchBox.Search();
    done(document.getElementById('MSearchResultsWindow').style.display);
  }
  type();
})
"""

# In a results frame: the rows it shows, in order.
RESULTS = """
new Promise(function (done) {
  setTimeout(function () {
    var rows = [], all = document.querySelectorAll('div.SRResult');
    for (var i = 0; i < all.length; ++i) {
      if (all[i].style.display !== 'block') continue;
      var a = all[i].querySelector('a.SRSymbol'), scope = all[i].querySelector('.SRScope');
      var href = a.getAttribute('href');
      if (href.indexOf('javascript:') === 0) {
        var child = all[i].querySelector('.SRChildren a');
        href = child ? child.getAttribute('href') : href;
      }
      rows.push({name: a.textContent, href: href, scope: scope ? scope.textContent : ''});
    }
    done(JSON.stringify(rows));
  }, 100);
})
"""


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

    def metrics(self, width, height, mobile):
        """The window's size, and whether it is a phone's (touch, no scroll bars)."""
        self.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height,
                                                          "deviceScaleFactor": 1, "mobile": mobile},
                  session=True)

    def dark(self, on):
        """The reader's colour scheme (prefers-color-scheme)."""
        self.call("Emulation.setEmulatedMedia", {"features": [
            {"name": "prefers-color-scheme", "value": "dark" if on else "light"}]}, session=True)

    def open(self, url):
        """Load a page; False if it did not finish loading in 30 s."""
        self.events = []
        self.call("Page.navigate", {"url": url}, session=True)
        return bool(self.wait_event("Page.loadEventFired", 30))

    def evaluate(self, expression, timeout=60):
        """A script's value (JSON text, as the scripts above return), or an exception's text."""
        result = self.call("Runtime.evaluate", {"expression": expression, "awaitPromise": True,
                                                "returnByValue": True}, session=True,
                           timeout=timeout)
        if "exceptionDetails" in result:
            d = result["exceptionDetails"]
            raise RuntimeError(d.get("exception", {}).get("description") or d.get("text"))
        return result["result"].get("value")

    def drain(self):
        """The events of requests that the last scripts started."""
        time.sleep(0.05)
        while True:
            msg = self.receive(0.05)
            if msg is None:
                break
            if "method" in msg:
                self.events.append(msg)

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


def visit(browser, top, path, width, mobile):
    """Load one page at one width: (problems, what the page showed or None)."""
    rel = os.path.relpath(path, top)
    url = "file://" + path
    if not browser.open(url):
        return ["did not finish loading in 30 s"], None
    try:
        seen = json.loads(browser.evaluate(INSPECT))
    except RuntimeError as e:
        browser.drain()
        return problems_of(browser.events, url) + ["the page's check failed: %s" % e], None
    browser.drain()
    found = problems_of(browser.events, url)
    found += ["broken image: %s" % src for src in seen["broken"]]
    if rel.count(os.sep) == 0 and seen["said"] < 10:
        found.append("an empty page (%d characters of text)" % seen["said"])
    if seen["mathErrors"]:
        found.append("%d formulas MathJax could not typeset" % seen["mathErrors"])
    if seen["wide"] > 1:
        found.append("wider than a %d px window by %d px" % (width, seen["wide"]))
    if seen["small"] and seen["small"] < MIN_CODE_PX:
        found.append("code at %.1f px, under %d px (docs/site/course.css): %s" %
                     (seen["small"], MIN_CODE_PX, seen["smallWhat"]))
    if seen["contrast"] < MIN_CONTRAST:
        found.append("a comment in code at %.2f:1 contrast, under %.1f:1 (docs/site/course.css, "
                     "--fragment-comment)" % (seen["contrast"], MIN_CONTRAST))
    found += ["a figure, %s" % f for f in seen["figures"]]
    if seen["pageDoc"] and rel.count(os.sep) == 0 and ("course-nav" in open(path, encoding="utf-8").read()):
        if not seen["navTop"] or not seen["navBottom"]:
            found.append("previous/next only %s (postprocess.py, nav_on_top())" %
                         ("at the bottom" if seen["navBottom"] else "at the top"))
    found += ["code broken after a hyphen (it reads as two words, or a flag loses its dash; "
              "docs/site/postprocess.py, keep_code_words(), and course.css keep such words "
              "whole): %s" % c for c in sorted(set(seen["split"]))]
    found += ["a code block or a formula wider than its box, without the line above it that says "
              "it scrolls (docs/site/course.js): %s" % head for head in seen["wideBlocks"]]
    page = seen.get("figurePage")
    if page and (not page["viewport"] or page["width"] < seen["window"] - 2):
        found.append("a figure's page that does not show %s as wide as the %d px window (%d px%s; "
                     "docs/site/postprocess.py, FIGURE_PAGE)" %
                     (page["src"], seen["window"], page["width"],
                      "" if page["viewport"] else ", no viewport"))
    if not mobile:
        found += ["a table %d px wider than the text at %d px: its right columns are out "
                  "of sight (shorten or split a wide cell, e.g. a formula at its '='): %s"
                  % (t["over"], width, t["head"]) for t in seen["tables"]]
    else:
        found += ["a table wider than a %d px screen that does not scroll in its box under the "
                  "line that says so (docs/site/course.js): %s" % (width, head)
                  for head in seen["nohint"]]
    return found, seen


def check_menu(browser, top):
    """On a phone, the menu of the main page lists the course's pages in reading order."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "site"))
    import site_pages  # noqa: E402  (what the menu must list)
    want = [(title, label + ".html") for label, title in site_pages.Site().menu_entries()]
    if not browser.open("file://" + os.path.join(top, "index.html")):
        return ["index.html: did not finish loading in 30 s"]
    items = json.loads(browser.evaluate(MENU))
    got = [(i["text"], i["href"]) for i in items if i["shown"]]
    pages = [g for g in got if g[1] in {h for _, h in want}]
    if pages != want:
        return ["index.html at 390 px: the menu lists %s; it should list, in reading order: %s"
                % ("; ".join(t for t, _ in got) or "nothing", "; ".join(t for t, _ in want))]
    return []


def check_dark(browser, top, pages):
    """In the dark theme, comments in a listing and in a chapter's notes keep their contrast."""
    problems, checked = [], 0
    sample = [p for p in pages if p.endswith("_source.html")][:1] + \
             [p for p in pages if os.path.basename(p).startswith("ch02")][:1]
    browser.dark(True)
    try:
        for path in sample:
            found, seen = visit(browser, top, path, WIDTH, False)
            checked += 1
            problems += ["%s (dark theme): %s" % (os.path.relpath(path, top), f) for f in found
                         if "contrast" in f or "code at" in f]
    finally:
        browser.dark(False)
    return problems, checked


def check_search(browser, top):
    """Each query, typed into the search box, lists a lesson (a chapter or the primer) first."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "site"))
    import site_pages  # noqa: E402
    lessons = {"../%s.html" % p.label for p in site_pages.Site().lessons()}
    problems, firsts = [], []
    for query, teacher in QUERIES:
        if not browser.open("file://" + os.path.join(top, "index.html")):
            return ["index.html: did not finish loading in 30 s"], firsts
        try:
            shown = browser.evaluate(TYPE_QUERY % json.dumps(query), timeout=20)
        except RuntimeError as e:
            problems.append("search %r: typing it failed: %s" % (query, e))
            continue
        frame_url = None
        for _ in range(50):
            time.sleep(0.1)
            tree = browser.call("Page.getFrameTree", session=True)["frameTree"]
            for child in tree.get("childFrames", []):
                if child["frame"].get("name") == "MSearchResults" and "search/" in child["frame"]["url"]:
                    frame_url = child["frame"]["url"]
            if frame_url:
                break
        if shown != "block" or not frame_url:
            problems.append("search %r: the results window did not open" % query)
            continue
        if not browser.open(frame_url):
            problems.append("search %r: %s did not load" % (query, frame_url))
            continue
        rows = json.loads(browser.evaluate(RESULTS))
        page_rows = [r for r in rows if r["href"].split("#")[0] in lessons]
        if not rows or not page_rows:
            problems.append("search %r: no chapter or primer among its %d results (%s)" %
                            (query, len(rows), os.path.relpath(frame_url.split("?")[0], "file://" + top)))
            continue
        first = rows[0]["href"].split("#")[0]
        want = "../%s.html" % teacher
        if want in lessons and first != want:
            problems.append("search %r: the first result is %s, not %s, the lesson that teaches "
                            "it (docs/site/course_search.js ranks the results)" %
                            (query, first[3:], want[3:]))
        elif first not in lessons:
            problems.append("search %r: the first result is %s, not a chapter or the primer" %
                            (query, first))
        firsts.append("%s: %s" % (query, first[3:].replace(".html", "")))
    return problems, firsts


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
    whole = pattern == "*.html"
    firsts, dark_pages = [], 0
    browser = Browser(exe, profile)
    try:
        for width, height, mobile in WIDTHS:
            browser.metrics(width, height, mobile)
            for path in pages:
                rel = os.path.relpath(path, top)
                found, seen = visit(browser, top, path, width, mobile)
                if seen and not mobile:
                    formulas += seen["math"]
                problems += ["%s at %d px: %s" % (rel, width, f) for f in found]
                if shots and ("<!-- PageDoc -->" in open(path, encoding="utf-8").read()
                              or rel == "index.html"):
                    png = browser.call("Page.captureScreenshot", {"format": "png"}, session=True)
                    with open(os.path.join(shots, "%s_%d.png" % (rel.replace(os.sep, "_"), width)),
                              "wb") as f:
                        f.write(base64.b64decode(png["data"]))
            if mobile and whole:
                problems += check_menu(browser, top)
        browser.metrics(WIDTH, HEIGHT, False)
        if whole:
            found, dark_pages = check_dark(browser, top, pages)
            problems += found
            found, firsts = check_search(browser, top)
            problems += found
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)
    for p in problems:
        print(p)
    print("browser check (%s): %d pages at %s px, %d formulas typeset, %d pages in the dark "
          "theme, the phone's menu, %d searches (first: %s), %.0f s; %s" %
          (os.path.basename(exe), len(pages), " and ".join(str(w) for w, _, _ in WIDTHS), formulas,
           dark_pages, len(firsts), "; ".join(firsts) or "-", time.time() - started,
           "no problems" if not problems else "%d PROBLEMS above" % len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
