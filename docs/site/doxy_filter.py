#!/usr/bin/env python3
"""Doxygen's input filter for the course site (docs/Doxyfile, FILTER_PATTERNS): Doxygen reads what
this prints instead of the file, which stays as it is in git (and as GitHub shows it).

    doxy_filter.py FILE      (Doxygen calls it so, once per input file)

Environment, set by `make docs`: DOXY_CHAPTERS, the chapter folders in reading order (the
Makefile's READY, from CHAPTER_DIRS), and DOXY_ROOT, the repository.

Markdown (every page of the site):
  - math: $...$ and $$...$$ (what GitHub renders) become Doxygen's \\f$...\\f$ and \\f[...\\f],
    which MathJax renders; code spans and fenced blocks are left alone;
  - images: a relative path keeps only its file name, which Doxygen finds through IMAGE_PATH
    (docs/figures, docs/results) and copies into the site, so that html/ holds every figure;
  - the README (the main page): its headings become plain HTML headings, so that the side tree
    lists the course's pages and not the README's sections, and a list of the site's pages in
    reading order is appended (\\subpage: this is what builds the side tree);
  - a chapter's README: previous and next links at the end.
Source files of a chapter: one more \\file paragraph, at the end (no line moves), linking the
file's page to its chapter's notes.
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
IMAGE = re.compile(r"(!\[[^\]]*\]\()(?![a-z]+:|/)([^)\s]*/)?([^)/\s]+)(\s+\"[^\"]*\")?\)")


def convert_text(text):
    """Math and image paths, in text outside code spans."""
    text = DISPLAY_MATH.sub(lambda m: r"\f[" + m.group(1) + r"\f]", text)
    text = INLINE_MATH.sub(lambda m: r"\f$" + m.group(1) + r"\f$", text)
    return IMAGE.sub(lambda m: m.group(1) + m.group(3) + (m.group(4) or "") + ")", text)


def convert_line(line):
    out, pos = [], 0
    for m in CODE_SPAN.finditer(line):
        out.append(convert_text(line[pos:m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(convert_text(line[pos:]))
    return "".join(out)


def markdown(text, is_main):
    lines, fenced, out = text.split("\n"), False, []
    for line in lines:
        if FENCE.match(line):
            fenced = not fenced
            out.append(line)
            continue
        if fenced:
            out.append(line)
            continue
        if is_main:
            m = re.match(r"^(#{2,6})\s+(.*?)\s*#*\s*$", line)
            if m:
                out.append("<h%d>%s</h%d>" % (len(m.group(1)), m.group(2), len(m.group(1))))
                continue
        out.append(convert_line(line))
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
        text = markdown(text, rel == "README.md")
        if rel == "README.md":
            text = text.rstrip("\n") + "\n\n" + site.contents() + "\n"
        elif site.chapter_of_readme(rel):
            text = text.rstrip("\n") + "\n\n" + site.prev_next(site.chapter_of_readme(rel)) + "\n"
    else:
        chapter = site.chapter_of_source(rel)
        if chapter:
            # appended after the last line: every line keeps its number
            text += "%s/** \\file\n * The notes of this code: \\ref %s. */\n" % (
                "" if text.endswith("\n") else "\n", chapter.label)
    sys.stdout.buffer.write(text.encode("utf-8"))  # whatever the locale: the files are UTF-8


if __name__ == "__main__":
    main()
