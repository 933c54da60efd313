#!/usr/bin/env python3
"""The links of the generated site (part of `make docs`, through tests/check_docs.sh).

    tests/check_site.py HTML_DIR TAGFILE

Fails (exit 1, each problem on a line) when:
  - an internal href or src of any page (HTML, the side tree's and the search's JavaScript, the
    style sheets' url()) names a file that is not in HTML_DIR, or an #anchor the page lacks, or
    leaves HTML_DIR (an absolute path, a file:// URL, a ../ above the site);
  - a file of the site names the repository's or the build's absolute path;
  - after the whole site is copied to another folder, any of the above fails there (the site must
    work from a zip, a web host, anywhere);
  - a chapter's page (its notes, its experiments' log, its source and file pages, a section
    "Chapter NN" of the answers) links to a member of another chapter's source (its
    documentation, or the line of its definition in the listing) without the
    sentence naming that chapter (a carried helper that links to its first chapter must say so);
    and code of one chapter links to another chapter's code at all (a struct and its members
    count as code of the chapter whose file defines them);
  - a struct's page is made from the files of two chapters (Doxygen merges structs of one name);
  - the main page does not link the first chapter before its first section;
  - a page of the reading order (docs/site/site_pages.py) lacks its previous/next links at the
    top or at the bottom, or links one page twice there; a page other than a chapter's notes is
    titled "Chapter NN"; a chapter's file page or source listing lacks the link to its notes;
  - a page of the reading order names a file that the site has (a page, a source file, a
    published script, CSV or log: docs/site/site_links.py) without linking it.
Exit 2 on bad arguments.
"""
import glob
import os
import re
import shutil
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "docs", "site"))
import postprocess  # noqa: E402  (the tag file's model and the sentence rule, shared)
import site_links  # noqa: E402  (where a mention of a file goes)
import site_pages  # noqa: E402

REF = re.compile(r'(?:href|src)="([^"]*)"')
JS_REF = re.compile(r'"((?:\.\./)?[\w.-]+\.html(?:#[\w.-]*)?)"|\'((?:\.\./)?[\w.-]+\.html(?:#[\w.-]*)?)\'')
CSS_URL = re.compile(r'url\(\s*[\'"]?([^\'")]+)[\'"]?\s*\)')
IDS = re.compile(r'\b(?:id|name)="([^"]+)"')
EXTERNAL = re.compile(r"^(?:https?:|mailto:|javascript:|data:|#$)")


class Resolver:
    def __init__(self, top):
        self.top = os.path.realpath(top)
        self.ids = {}

    def anchors(self, path):
        if path not in self.ids:
            with open(path, encoding="utf-8", errors="replace") as f:
                self.ids[path] = set(IDS.findall(f.read()))
        return self.ids[path]

    def check(self, page, ref):
        """None if `ref`, written in `page`, resolves inside the site; else why not."""
        if EXTERNAL.match(ref) or ref.startswith("$"):
            return None
        if ref.startswith("/") or ref.startswith("file:"):
            return "an absolute path"
        target, _, anchor = ref.partition("#")
        target = target.split("?")[0]
        path = os.path.realpath(os.path.join(os.path.dirname(page), target) if target else page)
        if not (path == self.top or path.startswith(self.top + os.sep)):
            return "outside the site"
        if not os.path.exists(path):
            return "no such file"
        if anchor and path.endswith(".html") and anchor not in self.anchors(path):
            return "no anchor #%s there" % anchor
        return None


def site_files(top):
    for d, _, files in os.walk(top):
        for f in files:
            yield os.path.join(d, f)


def check_resolves(top, label):
    """Every reference of every page, tree and style sheet resolves inside `top`."""
    problems, refs = [], 0
    res = Resolver(top)
    for path in site_files(top):
        rel = os.path.relpath(path, top)
        if path.endswith(".html"):
            pattern = [REF]
        elif path.endswith(".css"):
            pattern = [CSS_URL]
        elif path.endswith(".js") and (os.path.basename(path).startswith("navtree")
                                       or rel.startswith("search" + os.sep)
                                       or re.match(r"[\w-]+_8\w+\.js$|dir_\w+\.js$|\w+_dup\.js$",
                                                   os.path.basename(path))):
            pattern = [JS_REF]
        else:
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        for rx in pattern:
            for m in rx.finditer(text):
                ref = next(g for g in m.groups() if g is not None) if rx is JS_REF else m.group(1)
                refs += 1
                why = res.check(path, ref)
                if why:
                    problems.append("%s: %s: %s does not resolve (%s)" % (label, rel, ref, why))
    return problems, refs


def check_no_local_paths(top, label):
    problems = []
    needles = {os.path.realpath(ROOT), os.path.realpath(top)}
    for path in site_files(top):
        if path.endswith((".html", ".js", ".css", ".svg", ".map")):
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            for needle in needles:
                if needle in text:
                    problems.append("%s: %s names the local path %s" %
                                    (label, os.path.relpath(path, top), needle))
    return problems


def check_chapters(top, tagfile):
    """Links from a chapter's pages into another chapter's code say which chapter they mean."""
    site = site_pages.Site()
    members = postprocess.Members(tagfile, site.root)
    contexts = postprocess.page_contexts(site)
    contexts.update(postprocess.struct_chapters(top, members))
    problems, crossing = [], 0
    # a name in the notes links the line of its definition (postprocess.py, link_to_code()):
    # that line is the member, for this check
    at_line = {line: member for member, line in postprocess.definition_lines(top, members).items()}
    for path in sorted(glob.glob(os.path.join(top, "*.html"))):
        name = os.path.basename(path)
        context = contexts.get(name) or members.chapter_of(name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        headings = [] if context else [(m.start(), m.group(1))
                                       for m in postprocess.HEADING.finditer(text)]
        section = None
        for m in re.finditer(r'<a (?:class="([^"]*)" )?href="([^"#/]+\.html)(?:#([^"]*))?"', text):
            kind, target, anchor = m.groups()
            anchor = anchor or ""  # a struct's page: the struct itself
            target, anchor = at_line.get((target, anchor), (target, anchor))
            there = members.chapter_of(target)
            if (target, anchor) not in members.at:
                continue
            ctx = context
            if not ctx:
                while headings and headings[0][0] < m.start():
                    h = re.match(r"\s*Chapter (\d\d)\b",
                                 postprocess.TAG.sub("", headings.pop(0)[1]).strip())
                    section = h.group(1) if h else section
                ctx = section
            if not ctx or there == ctx:
                continue
            what = members.at[(target, anchor)]
            if there is None:  # common/, tests/, docs/: wrong only if the chapter has its own
                if (ctx, what) in members.defs:
                    problems.append("%s (chapter %s): %s links to %s, not to the chapter's own" %
                                    (name, ctx, what, target))
                continue
            if kind is None or kind.startswith("code"):
                problems.append("%s (chapter %s): code links to chapter %s's %s" %
                                (name, ctx, there, what))
                continue
            sentence = postprocess.sentence_before(text, m.start())
            named = {a or b for a, b in postprocess.CHAPTER_WORD.findall(sentence)}
            crossing += 1
            if there not in named:
                problems.append("%s (chapter %s): %s links to chapter %s's code, and the sentence "
                                "does not name chapter %s: name it (\"chapter %s's %s()\") or "
                                "link this chapter's own: ...%s" %
                                (name, ctx, what, there, there, there, what, sentence[-80:]))
    # a struct's page shows one chapter's struct: Doxygen merges structs of one name into one page
    # (members twice, half of them in another chapter) unless doxy_filter.py keeps them apart
    for path in sorted(glob.glob(os.path.join(top, "*.html"))):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if "generated from the following file" not in text:
            continue
        tail = text.split("generated from the following file", 1)[1]
        files = sorted(set(re.findall(r'href="([^"#]+\.html)"', tail)) & set(members.file_chapter))
        chapters = sorted({members.file_chapter[f] for f in files})
        if len(chapters) > 1:
            problems.append("%s: one page for the structs of chapters %s (from %s): a struct carried "
                            "into a later chapter must get its own page (docs/site/doxy_filter.py)" %
                            (os.path.basename(path), " and ".join(chapters), ", ".join(files)))
    # the main page says where to begin before its first section: a link to the first chapter
    with open(os.path.join(top, "index.html"), encoding="utf-8") as f:
        intro = f.read().split('<div class="contents">', 1)[-1].split("<h2", 1)[0]
    if site.chapters and not re.search(r'href="%s\.html[#"]' % site.chapters[0].label, intro):
        problems.append("index.html: no link to %s.html before the first section: the start page "
                        "says where to begin near its top (README.md)" % site.chapters[0].label)
    # every page of the reading order but the main one ends with previous/next, as the order
    # says, and names no page twice there (chapter 01's previous is the course itself); only a
    # chapter's notes are titled "Chapter NN" (a log is "Experiments: chapter NN, ...")
    resolver = site_links.Resolver(site, members, top)
    for page in site.reading_order()[1:]:
        path = os.path.join(top, page.label + ".html")
        if not os.path.exists(path):
            problems.append("no page %s.html for %s" % (page.label, page.rel or "a group page"))
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        prev, nxt = site.neighbours(page)
        want = [prev + ".html"] + ([nxt + ".html"] if nxt else [])
        for where, cls in (("bottom", "course-nav"), ("top", "course-nav course-nav-top")):
            nav = re.search(r'<div class="%s">(.*?)</div>' % cls, text, re.S)
            hrefs = re.findall(r'href="([^"#]+)', nav.group(1)) if nav else []
            if not nav or any(w not in hrefs for w in want):
                problems.append("%s.html: no previous/next links at the %s (%s)" %
                                (page.label, where, " and ".join(want)))
            elif len(set(hrefs)) != len(hrefs):
                problems.append("%s.html: its previous/next bar links one page twice: %s" %
                                (page.label, ", ".join(hrefs)))
        # every mention of a file the site has (a page, a source, a published script, CSV or log)
        # is a link (docs/site/site_links.py makes them)
        left = site_links.mentions(text, os.path.dirname(page.rel) if page.rel else "", resolver)
        if left:
            problems.append("%s.html: mentions of files the site has, not linked: %s" %
                            (page.label, ", ".join(sorted(set(left)))))
        if re.match(r"Chapter \d\d\b", page.title) and page not in site.chapters:
            problems.append("%s (%s): titled like a chapter's notes, \"%s\"; a log is titled "
                            "\"Experiments: chapter NN, ...\"" % (page.rel, page.label, page.title))
    for target, chapter in members.file_chapter.items():
        notes = [p.label for p in site.chapters if p.number == chapter]
        with open(os.path.join(top, target), encoding="utf-8") as f:
            if notes and 'href="%s.html"' % notes[0] not in f.read():
                problems.append("%s: a chapter %s file's page or listing that does not link its notes (%s)" %
                                (target, chapter, notes[0]))
    return problems, crossing


def main():
    if len(sys.argv) != 3 or not os.path.isdir(sys.argv[1]) or not os.path.isfile(sys.argv[2]):
        print("usage: tests/check_site.py HTML_DIR TAGFILE (make docs writes both)", file=sys.stderr)
        return 2
    top, tagfile = sys.argv[1], sys.argv[2]
    problems, refs = check_resolves(top, "site")
    problems += check_no_local_paths(top, "site")
    chapter_problems, crossing = check_chapters(top, tagfile)
    problems += chapter_problems
    with tempfile.TemporaryDirectory() as tmp:
        moved = os.path.join(tmp, "elsewhere", "course")
        shutil.copytree(top, moved)
        moved_problems, moved_refs = check_resolves(moved, "copy")
        problems += moved_problems
    for p in problems:
        print(p)
    files = sum(1 for _ in site_files(top))
    print("site links: %d files, %d references checked, and again in a copy elsewhere (%d); "
          "%d links into another chapter's code from a chapter's page; %s" %
          (files, refs, moved_refs, crossing,
           "no problems" if not problems else "%d PROBLEMS above" % len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
