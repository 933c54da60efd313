#!/usr/bin/env python3
"""The last step of `make docs`, after Doxygen: MathJax into the site, links into the right
chapter, links to what the notes cite, the pieces that make the site read well on any screen,
and its full-text search.

    postprocess.py HTML_DIR TAGFILE MATHJAX_DIR

1. MathJax. The part of Debian's MathJax 2 (libjs-mathjax) that the pages use is copied into
   HTML_DIR/mathjax: the TeX input, the HTML-CSS output with its TeX web fonts, the extensions.
   The site then renders its formulas offline, from wherever it is copied to.

2. Links. Chapters define functions of the same name (a carried helper is copied into every
   chapter that uses it; each chapter has its own main(), load_tile(), lookback_scan_kernel()),
   and Doxygen links a name to one of them, whichever it met first. Here, every link to a member
   of a chapter's source goes to the right chapter's definition (and, on a page made from
   Markdown, to the line of that definition in the source listing, not to its documentation:
   link_to_code()):
     - the chapter the sentence names, when it names it just before the name ("chapter 07's
       `look_back()`", "chapter 08's `load_tile_async()` and `prefetch_tile_l2()`") and that
       chapter defines it;
     - else the page's own chapter, if it defines the name (a chapter's notes, a chapter's
       source and file pages; in the experiments' logs, the log's chapter; in the answers, the
       chapter of the section);
     - else a chapter the sentence mentions that defines it (nearest first);
     - else the link stays as Doxygen made it (tests/check_site.py then fails if it crosses
       into another chapter from a chapter's page without the sentence naming that chapter).
   The tag file (GENERATE_TAGFILE) says which file and anchor define what.

3. A chapter file's source listing links its chapter's notes (its file page does already: the
   input filter adds the link to the file's \\file text).

4. Formulas: the space Doxygen writes between a formula and the character before it goes (the
   input filter marks the formulas that had none). Files: the repository files that pages link
   (LICENSE; the input filter points the link at files/) are copied into the site.

5. Layout: a word of code does not break at its hyphens (a long one may after a dot); source
   listings are marked for their own code font (docs/site/course.css).

6. References (docs/site/site_links.py): on every page made from Markdown, a mention of a file of
   the repository links the file (a page, a source file's page, or the file itself, published
   under files/: scripts, CSVs, logs); cited works link their addresses (docs/site/citations.py:
   the paper, Snir, the PTX ISA by section, the CUDA guides by section, NVIDIA's issues); a link
   to a page whose words name one of its sections goes to the section ("primer: the memory
   model"). A CSV downloads.

7. Reading: the previous/next bar also at the top of each page; every figure a link to a page of
   its own that shows it full size (on a tap, on a phone too); the contents titled "Contents";
   doxygen-awesome's scripts (the light/dark toggle, copy buttons, heading links, interactive
   contents) and docs/site/course.js loaded by every page; Doxygen's empty list of all pages
   filled in; the side tree's scripts of files whose names start with a digit renamed
   (fix_digit_scripts()).

8. Search (docs/site/site_search.py): the text of every page for the search box, which then finds
   the notes' words too, not only names.
"""
import html as html_text
import os
import re
import shutil
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import site_links  # noqa: E402
import site_pages  # noqa: E402
import site_search  # noqa: E402

# What of MathJax 2 the site loads (docs/site/mathjax_config.js: TeX in, HTML-CSS out, TeX fonts).
MATHJAX_PARTS = [
    "MathJax.js",
    "extensions",
    "jax/input/TeX",
    "jax/element",
    "jax/output/HTML-CSS/jax.js",
    "jax/output/HTML-CSS/config.js",
    "jax/output/HTML-CSS/autoload",
    "jax/output/HTML-CSS/fonts/TeX",
    "fonts/HTML-CSS/TeX/woff",
    "fonts/HTML-CSS/TeX/otf",
]

LINK = re.compile(r'<a class="(el|code[^"]*)" href="([^"#/]+\.html)(?:#([^"]+))?"([^>]*)>')
CHAPTER_WORD = re.compile(r"\b[Cc]hapters? (\d\d)\b|\b(\d\d)_[a-z]")
POSSESSIVE = re.compile(r"\b[Cc]hapter (\d\d)'s ((?:[\w:<>~]+(?:\(\))?(?:, | and | or |, and ))*)$")
BLOCK_START = re.compile(r"<(?:p|li|td|th|h[1-6]|dd|dt|tr|div|br|table|ul|ol)\b[^>]*>")
HEADING = re.compile(r"<h[1-6]\b[^>]*>(.*?)</h[1-6]>", re.S)
SENTENCE_END = re.compile(r".*(?:[.!?]\s)", re.S)
TAG = re.compile(r"<[^>]*>")
TOOLTIP = re.compile(r'<div class="ttc" id="[^"]*"><div class="ttname"><a href="([^"#]+)["#]')


def copy_mathjax(src, html):
    dst = os.path.join(html, "mathjax")
    shutil.rmtree(dst, ignore_errors=True)
    for part in MATHJAX_PARTS:
        s, d = os.path.join(src, part), os.path.join(dst, part)
        if not os.path.exists(s):
            sys.exit("make docs: %s has no %s: is it MathJax 2 (libjs-mathjax)?" % (src, part))
        os.makedirs(os.path.dirname(d), exist_ok=True)
        if os.path.isdir(s):
            shutil.copytree(s, d, symlinks=False)
        else:
            shutil.copy(s, d)


def chapter_number(path_dir):
    m = re.match(r"(\d\d)_", path_dir)
    return m.group(1) if m else None


class Members:
    """From the tag file: which chapter each file belongs to, and where each chapter defines what.
    A struct is a member too, under the anchor "" of its page, and so is each of its members, as
    "struct::member" (the struct's name without the namespace that doxy_filter.py puts a carried
    struct in)."""

    def __init__(self, tagfile, root):
        self.file_chapter = {}  # page (file page or its source listing) -> chapter number
        self.struct_chapter = {}  # a struct's page -> chapter number
        self.at = {}  # (page, anchor) -> member name
        self.defs = {}  # (chapter, name) -> (page, anchor)
        self.file_pages = {}  # a source file's repository path -> its page
        compounds = ET.parse(tagfile).getroot().findall("compound")
        class_chapter = {}  # a struct's full name -> the chapter of the file that defines it
        for c in compounds:
            if c.get("kind") != "file":
                continue
            rel = os.path.relpath(c.findtext("path"), root)
            chapter = chapter_number(rel.split(os.sep)[0])
            page = c.findtext("filename")
            self.file_pages[os.path.normpath(os.path.join(rel, c.findtext("name")))] = page
            if chapter:
                self.file_chapter[page] = chapter
                self.file_chapter[page.replace(".html", "_source.html")] = chapter
                for k in c.findall("class"):
                    class_chapter.setdefault(k.text, chapter)
            for m in c.findall("member"):
                self.add(chapter, m.findtext("name"), m.findtext("anchorfile"), m.findtext("anchor"))
        for c in compounds:
            if c.get("kind") not in ("struct", "union", "class"):
                continue
            full, page = c.findtext("name"), c.findtext("filename")
            chapter = class_chapter.get(full)
            name = site_pages.without_chapter_namespace(full)
            if chapter:
                self.struct_chapter[page] = chapter
            self.add(chapter, name, page, "")
            for m in c.findall("member"):
                if m.get("kind") in ("function", "variable", "typedef", "enumeration", "enumvalue"):
                    self.add(chapter, name + "::" + m.findtext("name"), m.findtext("anchorfile"),
                             m.findtext("anchor"))

    def add(self, chapter, name, page, anchor):
        self.at[(page, anchor)] = name
        if chapter:
            self.defs.setdefault((chapter, name), (page, anchor))

    def chapter_of(self, page):
        return self.file_chapter.get(page) or self.struct_chapter.get(page)


def page_contexts(site):
    """Markdown page -> its chapter number (the chapter's notes; the log of a chapter that exists:
    a design for a chapter not yet written, 11_design.md, has no code of its own to link)."""
    ctx = {}
    for p in site.chapters:
        ctx[p.label + ".html"] = p.number
    written = {p.number for p in site.chapters}
    for p in site.experiments:
        number = chapter_number(os.path.basename(p.rel))
        if number in written:
            ctx[p.label + ".html"] = number
    return ctx


def sentence_before(text, pos):
    """The visible text of the sentence that ends at pos (from the block's start)."""
    start = max(0, pos - 4000)
    for m in BLOCK_START.finditer(text, start, pos):
        start = m.end()
    visible = html_text.unescape(TAG.sub("", text[start:pos]))
    m = SENTENCE_END.match(visible)
    return visible[m.end():] if m else visible


def choose(members, name, context, sentence, is_code):
    """The chapter whose definition of `name` the link should reach, or None to leave it."""
    if not is_code:
        m = POSSESSIVE.search(sentence)
        if m and (m.group(1), name) in members.defs:
            return m.group(1)
    if context and (context, name) in members.defs:
        return context
    if not is_code:
        mentioned = [a or b for a, b in CHAPTER_WORD.findall(sentence)]
        for number in reversed(mentioned):
            if (number, name) in members.defs:
                return number
    return None


def relink_page(path, members, context):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    heading_context = None
    headings = [(m.start(), m.group(1)) for m in HEADING.finditer(text)] if not context else []
    out, pos, changed = [], 0, 0
    for m in LINK.finditer(text):
        kind, target, anchor, rest = m.groups()
        name = members.at.get((target, anchor or ""))
        if name is None:
            continue
        ctx = context
        if not ctx:  # a page without a chapter: the chapter of the section ("Chapter 07")
            while headings and headings[0][0] < m.start():
                h = re.match(r"\s*Chapter (\d\d)\b", TAG.sub("", headings.pop(0)[1]).strip())
                heading_context = h.group(1) if h else heading_context
            ctx = heading_context
        is_code = kind.startswith("code")
        sentence = "" if is_code else sentence_before(text, m.start())
        chapter = choose(members, name, ctx, sentence, is_code)
        here = members.chapter_of(target)
        if chapter is None and is_code and ctx and here and here != ctx:
            # code of one chapter never calls another's (each is its own program): a name that
            # Doxygen matched to another chapter's definition is not linked at all
            end = text.index("</a>", m.end())
            out.append(text[pos:m.start()])
            out.append(text[m.end():end])
            pos = end + len("</a>")
            changed += 1
            continue
        if chapter is None or chapter == here:
            continue
        new_target, new_anchor = members.defs[(chapter, name)]
        # the tooltip was the other definition's brief: drop it
        rest = re.sub(r'\s*title="[^"]*"', "", rest)
        out.append(text[pos:m.start()])
        out.append('<a class="%s" href="%s%s"%s>' % (kind, new_target,
                                                     "#" + new_anchor if new_anchor else "", rest))
        pos = m.end()
        changed += 1
    out.append(text[pos:])
    if context:  # the tooltips of listings, one line each, that describe another chapter's code
        kept = []
        for line in "".join(out).split("\n"):
            m = TOOLTIP.match(line)
            if m and members.chapter_of(m.group(1)) not in (None, context):
                changed += 1
                continue
            kept.append(line)
        out = ["\n".join(kept)]
    if changed:
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(out))
    return changed


def struct_chapters(html, members):
    """A struct's page -> the chapter of the file that defines it (from the page's own list)."""
    ctx = {}
    for name in os.listdir(html):
        if not (name.startswith("struct") and name.endswith(".html")):
            continue
        with open(os.path.join(html, name), encoding="utf-8") as f:
            text = f.read()
        tail = text.split("generated from the following file", 1)[-1]
        chapters = {members.chapter_of(m) for m in re.findall(r'href="([^"#]+\.html)"', tail)}
        chapters.discard(None)
        if len(chapters) == 1:
            ctx[name] = chapters.pop()
    return ctx


def rewrite_pages(html, suffixes, rewrite):
    """rewrite(text) -> new text, applied to every file of HTML_DIR whose name ends with one of
    `suffixes`; the number of files changed."""
    changed = 0
    for name in os.listdir(html):
        if not name.endswith(suffixes):
            continue
        path = os.path.join(html, name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        new = rewrite(text)
        if new != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
            changed += 1
    return changed


def join_formulas(html):
    """Doxygen's space between a formula and the character before it, where the Markdown had none
    (doxy_filter.py marks each such formula with site_pages.FORMULA_JOINER): "( \\(x\\))" becomes
    "(\\(x\\))"; every marker goes."""
    joined = 0

    def join(text):
        nonlocal joined
        joined += text.count(site_pages.FORMULA_JOINER)
        text = re.sub(site_pages.FORMULA_JOINER + r" ?(?=\\\()", "", text)
        return text.replace(site_pages.FORMULA_JOINER, "")
    rewrite_pages(html, (".html", ".js"), join)
    return joined


def copy_linked_files(html):
    """The repository files that pages link under files/ (doxy_filter.py: LICENSE), into the site."""
    copied = set()
    for name in os.listdir(html):
        if not name.endswith(".html"):
            continue
        with open(os.path.join(html, name), encoding="utf-8") as f:
            for target in re.findall(r'href="(files/[^"#]+)', f.read()):
                src = site_pages.repo_file(target)
                if src and target not in copied:
                    os.makedirs(os.path.dirname(os.path.join(html, target)), exist_ok=True)
                    shutil.copy(src, os.path.join(html, target))
                    copied.add(target)
    return len(copied)


CODE = re.compile(r"<code>(.*?)</code>", re.S)
LONG_CODE_WORD = 20  # characters: a longer word of code may break after a "." "::" "/" or ","


def code_word(word):
    """A word of code as HTML that breaks where course.css and the browser allow: never at a
    hyphen (each part with one is a nowrap span: "compute-sanitizer", "-arch=sm_90"), and, in a
    long word (mbarrier.try_wait.parity.acquire.cta, -Wall,-Wextra), after a "." "::" "/" or ","
    (<wbr>). The text is unchanged: a copy gives the hyphen-minus that was written."""
    parts = re.split(r"(?<=[.:/,])(?=[^.:/,])", word) if len(word) >= LONG_CODE_WORD else [word]
    parts = ['<span class="course-word">%s</span>' % p if "-" in p else p for p in parts]
    return "<wbr>".join(parts)


def keep_code_words(html):
    """Inline code never breaks at its hyphens ("compute-" / "sanitizer", "--recurrence-" /
    "f32", "-" / "arch=sm_90"), and a long word may break after a "." (see code_word()); a code
    span with spaces still wraps between its words ("compute-sanitizer --tool racecheck" at its
    two spaces)."""
    kept = 0

    def in_code(m):
        nonlocal kept
        parts = re.split(r"(<[^>]*>)", m.group(1))
        for i in range(0, len(parts), 2):  # the text between tags
            parts[i], n = re.subn(r"[^\s<]*-[^\s<]*|[^\s<]{%d,}" % LONG_CODE_WORD,
                                  lambda w: code_word(w.group(0)), parts[i])
            kept += n
        return "<code>" + "".join(parts) + "</code>"

    rewrite_pages(html, (".html",), lambda text: CODE.sub(in_code, text) if "<code>" in text else text)
    return kept


CELL = re.compile(r"<(td|th)\b[^>]*>.*?</\1>", re.S)
PATH_LINK = re.compile(r"(<a\b[^>]*>)([^<]*/[^<]*)(</a>)")


def break_paths_in_cells(html):
    """In a table cell, a path that is a link's text ("docs/experiments/06_chained_h200.sh") may
    break after its slashes (<wbr>): unbroken, it widened the start page's table of chapters past
    the text at 1024 px. Returns the number of paths."""
    count = 0

    def in_link(m):
        nonlocal count
        count += 1
        return m.group(1) + m.group(2).replace("/", "/<wbr>") + m.group(3)

    def in_cells(text):
        if "<td" not in text:
            return text
        return CELL.sub(lambda c: PATH_LINK.sub(in_link, c.group(0)), text)
    rewrite_pages(html, (".html",), in_cells)
    return count


def mark_listings(html):
    """Every source listing's contents get the class course-listing (course.css: a smaller code
    font, so that a line of 100 characters fits at 1024 px)."""
    return rewrite_pages(html, ("_source.html",), lambda text: text.replace(
        '<div class="contents">', '<div class="contents course-listing">', 1))


def fix_tree_anchors(html):
    """The side tree lists undocumented enum values under anchors that Doxygen 1.9.4 does not write
    into the page; each such entry points at its enum's anchor (the first 33 characters of the
    value's) instead."""
    ids, fixed = {}, 0
    for name in os.listdir(html):
        if not name.endswith(".js"):
            continue
        path = os.path.join(html, name)
        with open(path, encoding="utf-8") as f:
            text = f.read()

        def repl(m):
            nonlocal fixed
            page, anchor = m.group(1), m.group(2)
            if page not in ids:
                target = os.path.join(html, page)
                ids[page] = set(re.findall(r'\bid="([^"]+)"', open(target, encoding="utf-8").read())
                                ) if os.path.exists(target) else None
            if ids[page] is None or anchor in ids[page] or anchor[:33] not in ids[page]:
                return m.group(0)
            fixed += 1
            return '"%s#%s"' % (page, anchor[:33])
        new = re.sub(r'"([\w.-]+\.html)#(a[0-9a-f]{32}a[0-9a-f]{32})"', repl, text)
        if new != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
    return fixed


def fix_digit_scripts(html):
    """The side tree's script of a file whose name starts with a digit (docs/experiments/
    11_ceiling.cu: 11__ceiling_8cu.js) declares "var 11__ceiling_8cu", which is not JavaScript
    (Doxygen 1.9.4 names the variable after the page), so the tree fails on that file's pages.
    Such a script, its variable and the tree's references to it get an "n" in front. Returns the
    number of scripts renamed."""
    renamed = {}
    for name in sorted(os.listdir(html)):
        m = re.match(r"(\d\w*)\.js$", name)
        if not m:
            continue
        path = os.path.join(html, name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        var = m.group(1)
        if not text.startswith("var %s =" % var):
            continue
        with open(os.path.join(html, "n" + name), "w", encoding="utf-8") as f:
            f.write("var n%s =" % var + text[len("var %s =" % var):])
        os.remove(path)
        renamed[var] = "n" + var
    if renamed:
        rx = re.compile(r'"(%s)" \]' % "|".join(re.escape(v) for v in renamed))
        rewrite_pages(html, (".js",), lambda text: rx.sub(lambda m: '"%s" ]' % renamed[m.group(1)], text))
    return len(renamed)


def link_listings(html, members, site):
    """A chapter file's source listing links its chapter's notes, beside Doxygen's link to the
    file's page."""
    notes = {p.number: p for p in site.chapters}
    linked = 0
    for page, chapter in members.file_chapter.items():
        if not page.endswith("_source.html") or chapter not in notes:
            continue
        path = os.path.join(html, page)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        anchor = re.search(r'<a href="[^"]+">Go to the documentation of this file\.</a>', text)
        if not anchor:
            continue
        note = notes[chapter]
        link = ' <span class="course-notes">The notes of this code: <a class="el" href="%s.html">' \
               '%s</a>.</span>' % (note.label, html_text.escape(note.title))
        text = text[:anchor.end()] + link + text[anchor.end():]
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        linked += 1
    return linked


AWESOME_SCRIPTS = ("doxygen-awesome-darkmode-toggle.js", "doxygen-awesome-fragment-copy-button.js",
                   "doxygen-awesome-paragraph-link.js", "doxygen-awesome-interactive-toc.js")


def add_scripts(html):
    """Every page loads doxygen-awesome's scripts (the light/dark toggle beside the search box,
    copy buttons on code, links on headings, the interactive contents) and the course's (course.js), last in its head: they are
    HTML_EXTRA_FILES, which Doxygen copies but does not load."""
    tags = "".join('<script type="text/javascript" src="%s"></script>\n' % s for s in AWESOME_SCRIPTS)
    tags += ('<script type="text/javascript">DoxygenAwesomeDarkModeToggle.init(); '
             'DoxygenAwesomeFragmentCopyButton.init(); '
             'DoxygenAwesomeParagraphLink.init(); DoxygenAwesomeInteractiveToc.init();</script>\n'
             '<script type="text/javascript" src="course.js"></script>\n')
    for name in AWESOME_SCRIPTS + ("course.js",):
        if not os.path.exists(os.path.join(html, name)):
            sys.exit("make docs: %s is not in the site (docs/Doxyfile, HTML_EXTRA_FILES)" % name)
    return rewrite_pages(html, (".html",), lambda text: text if "course.js" in text
                         else text.replace("</head>", tags + "</head>", 1))


NAV = re.compile(r'<div class="course-nav">.*?</div>', re.S)


def nav_on_top(html):
    """The previous/next bar that the input filter puts at the end of a page, also at its top
    (first in its text, under the title and the contents)."""
    def top(text):
        m = NAV.search(text)
        if not m or "course-nav-top" in text or '<div class="textblock">' not in text:
            return text
        bar = m.group(0).replace('class="course-nav"', 'class="course-nav course-nav-top"', 1)
        return text.replace('<div class="textblock">', '<div class="textblock">' + bar, 1)
    return rewrite_pages(html, (".html",), top)


FIGURE = re.compile(r'(<div class="image">\s*)(<object type="image/svg\+xml" data="([^"]+)"[^>]*>'
                    r'</object>|<img src="([^"]+)"[^>]*/?>)(\s*<div class="caption">(.*?)</div>)?', re.S)
PAGE_TITLE = re.compile(r'<div class="title">(.*?)</div>', re.S)

# The page a figure opens on (figure_NAME.html): the figure alone, as wide as the window (on a
# laptop wider than in the text; on a phone the whole screen, pinch to zoom), a tap on it
# enlarges it (it scrolls then), its caption below, a way back above.
FIGURE_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%(alt)s</title>
<style>
body { margin: 0; font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       background: #fff; color: #1f2328; }
nav { display: flex; flex-wrap: wrap; gap: 4px 16px; align-items: baseline; padding: 10px 12px;
      font-size: 15px; border-bottom: 1px solid #d0d7de; }
nav a { color: #2f63b8; }
nav span { color: #4d5b69; font-size: 14px; }
div.figure { overflow: auto; }
div.figure img { display: block; width: 100%%; height: auto; cursor: zoom-in; }
div.figure.big img { max-width: none; cursor: zoom-out; }
p { margin: 8px 12px 16px; max-width: 60em; font-size: 15px; }
</style>
</head>
<body>
<nav><a class="back" href="%(page)s">&larr; %(title)s</a>
<span id="how">Tap the figure to enlarge it; pinch to zoom.</span></nav>
<div class="figure" id="figure"><img src="%(src)s" alt="%(alt)s"></div>
<p>%(caption)s</p>
<script>
(function () {
  var box = document.getElementById("figure"), how = document.getElementById("how");
  var img = box.querySelector("img");
  // enlarged: twice the window's width (its text readable on a phone), at most twice the
  // figure's own size, at least its own size; it scrolls then
  box.addEventListener("click", function () {
    var big = !box.classList.contains("big"), own = img.naturalWidth || box.clientWidth;
    box.classList.toggle("big", big);
    img.style.width = big ? Math.max(own, Math.min(2 * box.clientWidth, 2 * own)) + "px" : "";
    how.textContent = big ? "Enlarged: scroll around it; tap it to fit the window."
                          : "Tap the figure to enlarge it; pinch to zoom.";
  });
  // back to the place in the page the figure was opened from, where there is one
  document.querySelector("a.back").addEventListener("click", function (e) {
    if (document.referrer && history.length > 1) { e.preventDefault(); history.back(); }
  });
})();
</script>
</body>
</html>
"""


def figure_page_name(src):
    return "figure_%s.html" % re.sub(r"[^\w-]", "_", os.path.splitext(os.path.basename(src))[0])


def link_figures(html):
    """A figure (an SVG Doxygen shows as an <object>, or an image) opens full size on a click or a
    tap: it is wrapped in a link (the object ignores the pointer, so the tap reaches the link) to
    a page of its own, figure_NAME.html (FIGURE_PAGE: a bare SVG has no viewport, so a phone
    would lay it out 980 px wide and show it as small as in the text). Returns (figures linked,
    figure pages written)."""
    count, pages = 0, {}
    for name in sorted(os.listdir(html)):
        if not name.endswith(".html") or name.startswith("figure_"):
            continue
        path = os.path.join(html, name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if '<div class="image">' not in text:
            continue
        title = PAGE_TITLE.search(text)
        title = re.sub(r"\s+", " ", TAG.sub("", title.group(1))).strip() if title else name

        def wrap(m):
            nonlocal count
            count += 1
            src = m.group(3) or m.group(4)
            caption = (m.group(6) or "").strip()
            target = figure_page_name(src)
            if target not in pages:
                alt = html_text.escape(re.sub(r"\s+", " ", html_text.unescape(TAG.sub("", caption))).strip()
                                       or os.path.basename(src))
                pages[target] = FIGURE_PAGE % {"src": html_text.escape(src), "alt": alt,
                                               "caption": caption or alt, "page": name,
                                               "title": html_text.escape(title)}
            return ('%s<a class="course-figure" href="%s" data-figure="%s" title="Open the figure '
                    'full size">%s</a>%s' % (m.group(1), target, html_text.escape(src), m.group(2),
                                             m.group(5) or ""))
        new = FIGURE.sub(wrap, text)
        if new != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
    for target, page in pages.items():
        with open(os.path.join(html, target), "w", encoding="utf-8") as f:
            f.write(page)
    return count, len(pages)


def fill_pages_list(html, site):
    """Doxygen's list of all pages (pages.html) is empty when every page is under the main page;
    it lists the pages in reading order instead (nothing links it, but it must not be empty)."""
    path = os.path.join(html, "pages.html")
    if not os.path.exists(path):
        return 0
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r'<div class="textblock">[^<]*</div><div class="directory">\s*</div><!-- directory -->',
                  text)
    if not m:
        return 0
    items = "".join('<li><a class="el" href="%s.html">%s</a></li>\n' %
                    (p.label, html_text.escape(p.title)) for p in site.reading_order())
    text = text[:m.start()] + ('<div class="textblock"><p>Every page of the course, in reading '
                               'order:</p>\n<ul>\n%s</ul></div>' % items) + text[m.end():]
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return 1


def markdown_pages(html, site):
    """(file name, the page's folder in the repository) of every page made from Markdown."""
    pages = []
    for page in site.reading_order():
        name = page.label + ".html"
        if os.path.exists(os.path.join(html, name)):
            pages.append((name, os.path.dirname(page.rel) if page.rel else ""))
    return pages


MEMBER_DOC = re.compile(r'<a id="(a[0-9a-f]+)"(?: name="a[0-9a-f]+")?></a>|<p class="definition">'
                        r'Definition at line <a class="el" href="([^"#/]+_source\.html)#(l\d+)">')


def definition_lines(html, members):
    """(file page, member anchor) -> (source listing, line anchor) of the member's definition,
    from the file pages ("Definition at line 37 of file ...")."""
    lines = {}
    for page in sorted(set(members.file_pages.values())):
        path = os.path.join(html, page)
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        anchor = None
        for m in MEMBER_DOC.finditer(text):
            if m.group(1):
                anchor = m.group(1)
            elif anchor:
                lines[(page, anchor)] = (m.group(2), m.group(3))
                anchor = None
    return lines


def link_to_code(html, site, lines):
    """On every page made from Markdown, a name of the code that links its documentation on a
    file page (Doxygen's link for `warp_inclusive_scan()`) links the line of its definition in
    the source listing instead (course.js shows that line highlighted): the notes explain code,
    and the code, with its comments, is what a reader wants next. The tooltip (the brief) stays.
    Returns the number of links moved."""
    moved = 0

    def repl(m):
        nonlocal moved
        line = lines.get((m.group(2), m.group(3)))
        if not line:
            return m.group(0)
        moved += 1
        return '<a class="%s" href="%s#%s"' % (m.group(1), line[0], line[1])
    rx = re.compile(r'<a class="(el|code[^"]*)" href="([^"#/]+\.html)#(a[0-9a-f]+)"')
    for name, _ in markdown_pages(html, site):
        path = os.path.join(html, name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        new = rx.sub(repl, text)
        if new != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
    return moved


def link_references(html, site, members):
    """site_links.py on every page made from Markdown: mentions of files, cited works, sections
    of pages named in a link's words."""
    resolver = site_links.Resolver(site, members, html)
    stats = {"mentions": 0, "works": 0, "sections": 0, "unlinked": set()}
    sections_of = site_links.conventions_sections(html)
    cache = {}
    for name, page_dir in markdown_pages(html, site):
        path = os.path.join(html, name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        new = site_links.link_page(text, page_dir, resolver, sections_of, stats)
        new = site_links.anchor_section_links(new, html, cache, stats)
        if new != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
    return stats


def csv_downloads(html):
    """A link to a CSV file of the site downloads it (the results' data)."""
    return rewrite_pages(html, (".html",), lambda text: re.sub(
        r'(<a [^>]*href="files/[^"]+\.csv")(?![^>]*\bdownload\b)', r"\1 download", text))


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: postprocess.py HTML_DIR TAGFILE MATHJAX_DIR")
    html, tagfile, mathjax = sys.argv[1:]
    copy_mathjax(mathjax, html)
    site = site_pages.Site()
    members = Members(tagfile, site.root)
    contexts = page_contexts(site)
    contexts.update(struct_chapters(html, members))
    changed = pages = 0
    for name in sorted(os.listdir(html)):
        if not name.endswith(".html"):
            continue
        context = contexts.get(name) or members.chapter_of(name)
        n = relink_page(os.path.join(html, name), members, context)
        changed += n
        pages += n > 0
    fixed = fix_tree_anchors(html)
    fix_digit_scripts(html)
    listings = link_listings(html, members, site)
    joined = join_formulas(html)
    refs = link_references(html, site, members)
    to_code = link_to_code(html, site, definition_lines(html, members))
    copied = copy_linked_files(html)
    csv_downloads(html)
    words = keep_code_words(html)
    words += break_paths_in_cells(html)
    marked = mark_listings(html)
    tops = nav_on_top(html)
    rewrite_pages(html, (".html",), lambda text: text.replace(
        '<div class="toc"><h3>Table of Contents</h3>', '<div class="toc"><h3>Contents</h3>'))
    fill_pages_list(html, site)
    scripted = add_scripts(html)
    figures, figure_pages = link_figures(html)  # (its pages load no script of the site's)
    indexed, chars = site_search.build_index(html, site)
    frames = site_search.install(html, os.path.dirname(os.path.abspath(__file__)))
    rename, renamed = site_search.scope_titles(site)
    rewrite_pages(os.path.join(html, "search"), (".js",), rename)
    scopes = len(renamed)
    print("docs: %d links moved to the chapter they belong to (or unlinked), on %d pages; %d "
          "names of code in the notes linked to their definitions' lines; %d tree "
          "entries of enum values pointed at their enum; %d source listings link their notes; %d "
          "formulas joined to the character before them; %d mentions of files, %d cited works and "
          "%d sections linked; %d repository files copied into files/; %d words of code kept "
          "whole or given breaks after dots; %d source listings in the listing font; %d "
          "previous/next bars copied to the top; %d figures open full size (%d figure pages); %d "
          "pages load the scripts; full-text search over %d pages (%d characters) in %d results "
          "frames, %d parents named by title" %
          (changed, pages, to_code, fixed, listings, joined, refs["mentions"], refs["works"],
           refs["sections"], copied, words, marked, tops, figures, figure_pages, scripted,
           indexed, chars, frames, scopes))
    if refs["unlinked"]:
        print("docs: citations not linked (no address in docs/site/citations.py): %s" %
              ", ".join(sorted(refs["unlinked"])))


if __name__ == "__main__":
    main()
