#!/usr/bin/env python3
"""Doxygen's input filter for the course site (docs/Doxyfile, FILTER_PATTERNS): Doxygen reads what
this prints instead of the file, which stays as it is in git (and as GitHub shows it).

    doxy_filter.py FILE      (Doxygen calls it so, once per input file)

Environment, set by `make docs`: DOXY_CHAPTERS, the chapter folders in reading order (the
Makefile's READY, from CHAPTER_DIRS), and DOXY_ROOT, the repository.

Markdown (every page of the site):
  - math: $...$ and $$...$$ (what GitHub renders) become Doxygen's \\f$...\\f$ and \\f[...\\f],
    which MathJax renders; code spans and fenced blocks are left alone. Doxygen writes a space
    before an inline formula that follows a character other than a space ("($x$)" reads
    "( x)"): such a formula gets a word joiner (U+2060) in front, and postprocess.py removes the
    joiner and Doxygen's space;
  - links to a file of the repository that is not a page of the site (LICENSE): Doxygen leaves
    "[LICENSE](LICENSE)" as raw text; the link goes to the copy that postprocess.py puts into
    the site (site_pages.site_file(): files/LICENSE.txt);
  - images: a relative path keeps only its file name, which Doxygen finds through IMAGE_PATH
    (docs/figures, docs/results) and copies into the site, so that html/ holds every figure;
  - the README (the main page): its headings become plain HTML headings, so that the side tree
    lists the course's pages and not the README's sections, and a list of the site's pages in
    reading order is appended (\\subpage: this is what builds the side tree);
  - every other page of the reading order (a chapter's README, the primer, the conventions, the
    results, the logs, the instructors' pages, the group pages): a stable label on each section
    heading (the page's label and the heading's words: ch02_warp_shfl_the_idea), a table of
    contents under the title of a page with three sections or more (\\tableofcontents of its
    `## ` sections: doxygen-awesome's
    interactive contents), and previous and next links at the end (postprocess.py copies them
    to the top).
Source files of a chapter: one more \\file paragraph, at the end (no line moves), linking the
file's page to its chapter's notes. A struct (union, class) that an earlier chapter defines too
(a carried helper: chapter 10's sum_i32 is chapter 09's) is put in a namespace of its chapter,
on the lines it has (site_pages.chapter_namespace(): chapter_10): Doxygen then writes one
page for each chapter's struct instead of one page that mixes both (HIDE_SCOPE_NAMES keeps the
title "sum_i32"); postprocess.py links each chapter's mentions to its own.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import site_pages  # noqa: E402  (the pages, their labels and titles, in reading order)

FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
DISPLAY_MATH = re.compile(r"(?<![\\$])\$\$(?=\S)(.+?)(?<=\S)\$\$")
INLINE_MATH = re.compile(r"(?<![\\$\w])\$(?=[^\s$])(.+?)(?<=[^\s\\$])\$(?![\w$])")
LINK = re.compile(r"(?<!!)(\[[^\]]*\]\()([^)\s#]+)((?:#[^)\s]*)?\))")
TITLE_LINE = re.compile(r"^#\s+\S")
IMAGE = re.compile(r"(!\[[^\]]*\]\()(?![a-z]+:|/)([^)\s]*/)?([^)/\s]+)(\s+\"[^\"]*\")?\)")


def inline_math(m):
    """\\f$...\\f$, with a word joiner in front where the formula follows a character other than a
    space (postprocess.py takes the joiner and the space Doxygen writes there away again)."""
    glued = m.start() > 0 and not m.string[m.start() - 1].isspace()
    return (site_pages.FORMULA_JOINER if glued else "") + r"\f$" + m.group(1) + r"\f$"


def convert_text(text, page_dir):
    """Math, image paths and links to repository files, in text outside code spans."""
    text = DISPLAY_MATH.sub(lambda m: r"\f[" + m.group(1) + r"\f]", text)
    text = INLINE_MATH.sub(inline_math, text)
    text = LINK.sub(lambda m: m.group(1) + (site_pages.site_file(page_dir, m.group(2)) or m.group(2))
                    + m.group(3), text)
    return IMAGE.sub(lambda m: m.group(1) + m.group(3) + (m.group(4) or "") + ")", text)


def convert_line(line, page_dir):
    out, pos = [], 0
    for m in CODE_SPAN.finditer(line):
        out.append(convert_text(line[pos:m.start()], page_dir))
        out.append(m.group(0))
        pos = m.end()
    out.append(convert_text(line[pos:], page_dir))
    return "".join(out)


def namespace_carried(text, namespace, names):
    """Each top-level definition of a struct in `names` (with its doc comment) inside `namespace`,
    on the lines it has: "namespace N { " before its first line, " }" after its last."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = site_pages.COMPOUND.match(lines[i])
        if not m or m.group(2) not in names:
            i += 1
            continue
        end = site_pages.compound_end(lines, i)
        if end is None:
            break
        first = i
        if first > 0 and re.match(r"^template\s*<.*>\s*$", lines[first - 1]):
            first -= 1
        if first > 0 and lines[first - 1].rstrip().endswith("*/"):  # its doc comment
            k = first - 1
            while k > 0 and "/*" not in lines[k]:
                k -= 1
            if lines[k].startswith("/**"):
                first = k
        while first > 0 and lines[first - 1].startswith("///"):
            first -= 1
        lines[first] = "namespace %s { %s" % (namespace, lines[first])
        lines[end] = lines[end] + " }"
        i = end + 1
    return "\n".join(lines)


def heading_label(page_label, title, taken):
    """A section's label, from its page's label and its title ("ch02_warp_shfl" and "The idea":
    ch02_warp_shfl_the_idea), unique on the page (`taken`): its anchor stays the same from one
    build to the next, where Doxygen's own (autotoc_md183) moves whenever any page changes."""
    plain = re.sub(r"`|\*|\$|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", title)
    slug = re.sub(r"[^a-z0-9]+", "_", plain.lower()).strip("_") or "section"
    label, k = "%s_%s" % (page_label, slug), 2
    while label in taken:
        label, k = "%s_%s_%d" % (page_label, slug, k), k + 1
    taken.add(label)
    return label


def markdown(text, is_main, page_dir, page_label=None):
    """The Markdown of a page as Doxygen should read it (see the module's text). A page of the
    reading order (page_label) gets a stable label on each section heading that has none and,
    with three sections or more, a table of contents of its sections under its title."""
    lines, fenced, out, taken = text.split("\n"), False, [], set()
    sections = 0
    for line in lines:
        if FENCE.match(line):
            fenced = not fenced
            out.append(line)
            continue
        if fenced:
            out.append(line)
            continue
        m = re.match(r"^(#{2,6})\s+(.*?)\s*#*\s*$", line)
        if m and is_main:
            out.append("<h%d>%s</h%d>" % (len(m.group(1)), m.group(2), len(m.group(1))))
            continue
        if m and page_label and not re.search(r"\{#[\w-]+\}\s*$", m.group(2)):
            sections += len(m.group(1)) == 2
            line = "%s %s {#%s}" % (m.group(1), convert_line(m.group(2), page_dir),
                                    heading_label(page_label, m.group(2), taken))
            out.append(line)
            continue
        out.append(convert_line(line, page_dir))
    if page_label and sections >= 3 and out and TITLE_LINE.match(out[0]):
        out[1:1] = ["", "\\tableofcontents{html:2}"]
    return "\n".join(out)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: doxy_filter.py FILE (Doxygen's input filter)")
    path = os.path.abspath(sys.argv[1])
    with open(path, encoding="utf-8") as f:
        text = f.read()
    site = site_pages.Site()
    rel = os.path.relpath(path, site.root)
    if path.endswith(".md"):
        page = None if rel == "README.md" else site.page_of_file(rel)
        text = markdown(text, rel == "README.md", os.path.dirname(rel), page.label if page else None)
        if rel == "README.md":
            text = text.rstrip("\n") + "\n\n" + site.contents() + "\n"
        elif page:
            text = text.rstrip("\n") + "\n\n" + site.prev_next(page) + "\n"
    else:
        chapter = site.chapter_of_source(rel)
        if chapter:
            carried = site.carried_compounds(chapter)
            if carried:
                text = namespace_carried(text, site_pages.chapter_namespace(chapter), carried)
            # appended after the last line: every line keeps its number
            text += "%s/** \\file\n * The notes of this code: \\ref %s. */\n" % (
                "" if text.endswith("\n") else "\n", chapter.label)
    sys.stdout.buffer.write(text.encode("utf-8"))  # whatever the locale: the files are UTF-8


if __name__ == "__main__":
    main()
