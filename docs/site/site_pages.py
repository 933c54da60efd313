#!/usr/bin/env python3
"""The pages of the course site, in reading order: one place that knows them, for the input
filter (doxy_filter.py), the generated pages, the layout and the checks (tests/check_site.py).

    site_pages.py --gen DIR     write into DIR the group pages (the lab notebook, for instructors),
                                the chapters' folders' documentation (site_dirs.dox) and the
                                layout with the menu (layout.xml, from docs/site/layout.xml)
    site_pages.py --list        print the reading order: label, title, file
    site_pages.py --files       print the Markdown files of the site, one a line

The order comes from the repository, not from a list typed here: the first chapter
(DOXY_CHAPTERS, the Makefile's READY: the folders of CHAPTER_DIRS that exist, in that order),
the primer (what chapter 02 needs first: bandwidth, latency, Little's law), the other chapters,
every results page (docs/results/*.md), the lab notebook (one page that groups the experiments'
logs, docs/experiments/*.md: by chapter, the GPU sessions, the designs of chapters not written),
then the instructors' pages (docs/instructor*.md, docs/answers.md, the conventions) last, and any
other page after them, so that no page is left out of the tree.
"""
import glob
import html
import os
import re
import sys

# Doxygen writes a space before an inline formula that follows a non-space: the input filter
# marks such a formula with this, and postprocess.py takes it and the space away.
FORMULA_JOINER = "\u2060"
# A struct (union, class) defined at the top level of a chapter's source: its first line.
COMPOUND = re.compile(r"^(?:template\s*<[^>]*>\s*)?(?:typedef\s+)?(struct|union|class)\s+(\w+)\s*"
                      r"(?::[^{;]*)?\{")
SOURCE_EXTENSIONS = (".c", ".h", ".cu", ".cuh")
# What Doxygen shows itself (images through IMAGE_PATH, pages, sources): not copied as files/
SITE_EXTENSIONS = (".md", ".dox", ".svg", ".png", ".jpg", ".gif") + SOURCE_EXTENSIONS

ROOT = os.path.abspath(os.environ.get("DOXY_ROOT") or
                       os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
TITLE = re.compile(r"^#\s+(.*?)\s*(?:\{#([\w-]+)\})?\s*$")


class Page:
    """A Markdown page: its file (relative to the root), Doxygen label and title."""

    def __init__(self, rel, label=None, title=None):
        self.rel = rel
        self.label, self.title = label, title
        if label is None:
            self.label, self.title = read_title(rel)

    def __repr__(self):
        return "Page(%s)" % self.rel


def doxygen_id(rel):
    """The label Doxygen gives a Markdown file without {#label}: md_ and its path, non-word
    characters as _ (markdownFileNameToId() in Doxygen's markdown.cpp)."""
    return "md_" + re.sub(r"[^A-Za-z0-9_]", "_", os.path.splitext(rel)[0])


def read_title(rel):
    """(label, title) from a Markdown file's first line, `# Title {#label}`."""
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        first = f.readline()
    m = TITLE.match(first)
    if not m:
        return doxygen_id(rel), os.path.basename(rel)
    return m.group(2) or doxygen_id(rel), m.group(1)


def chapter_dirs():
    """The chapters in order: DOXY_CHAPTERS, or else every NN_* folder with a Makefile (the
    Makefile's READY: a chapter still in the works has none) and a README.md."""
    names = os.environ.get("DOXY_CHAPTERS", "").split()
    if not names:
        names = sorted(os.path.basename(d) for d in glob.glob(os.path.join(ROOT, "[0-9][0-9]_*"))
                       if os.path.isfile(os.path.join(d, "Makefile")))
    return [d for d in names if os.path.isfile(os.path.join(ROOT, d, "README.md"))]


def compound_end(lines, first):
    """The index of the line that closes the braces opened from lines[first] on (comments and
    literals skipped), or None."""
    depth, comment = 0, False
    for i in range(first, len(lines)):
        line = lines[i]
        if comment:
            if "*/" not in line:
                continue
            line, comment = line.split("*/", 1)[1], False
        line = re.sub(r"/\*.*?\*/|//.*$|\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'", "", line)
        if "/*" in line:
            line, comment = line.split("/*", 1)[0], True
        depth += line.count("{") - line.count("}")
        if depth <= 0:  # (the first line has its "{")
            return i
    return None


def chapter_namespace(chapter):
    """The namespace a chapter's carried structs are put in for Doxygen (doxy_filter.py); not the
    chapter's page label (ch10_compaction), which \\ref must find."""
    return "chapter_" + chapter.number


def without_chapter_namespace(name):
    """A struct's name as the chapter's code spells it (chapter_10::sum_i32 -> sum_i32)."""
    return re.sub(r"^chapter_\d\d::", "", name)


# Files the site publishes under files/ whose names a browser would not show as text (it would
# offer to save a script): .txt is added to their names. A CSV keeps its name (a download).
AS_TEXT = ("", ".sh", ".py", ".gp", ".sass", ".log", ".mk", ".ptx", ".md") + SOURCE_EXTENSIONS


def published(rel):
    """Where the site publishes a repository file that it does not show as a page (a script, a
    CSV, a log, LICENSE, a source file Doxygen does not read): files/ and the file's path, .txt
    added to a name a browser would not show as text (AS_TEXT); None for a file outside the
    repository or in build/."""
    path = os.path.normpath(os.path.join(ROOT, rel))
    if not path.startswith(ROOT + os.sep) or not os.path.isfile(path):
        return None
    rel = os.path.relpath(path, ROOT)
    if rel.split(os.sep)[0] in ("build", ".git"):
        return None
    ext = os.path.splitext(rel)[1]
    return "files/" + rel + (".txt" if ext.lower() in AS_TEXT else "")


def site_file(page_dir, target):
    """Where a Markdown link of a page in `page_dir` to a repository file that Doxygen does not
    show (LICENSE, a script, a CSV, a log) goes in the site: its published copy (published());
    None for anything else (a page, a figure, a source file: Doxygen links those itself)."""
    path = os.path.normpath(os.path.join(ROOT, page_dir, target))
    if os.path.splitext(path)[1].lower() in SITE_EXTENSIONS:
        return None
    return published(os.path.relpath(path, ROOT))


def repo_file(site_path):
    """The repository file that published() put at `site_path` (files/...), or None."""
    if not site_path.startswith("files/"):
        return None
    rel = site_path[len("files/"):]
    for cand in (rel, rel[:-4] if rel.endswith(".txt") else None):
        if cand and published(cand) == site_path:
            return os.path.join(ROOT, cand)
    return None


def rel_glob(pattern):
    return sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, pattern)))


class Site:
    def __init__(self):
        self.root = ROOT
        self.chapters = [Page(d + "/README.md") for d in chapter_dirs()]
        for page in self.chapters:
            page.dir = os.path.dirname(page.rel)
            page.number = page.dir.split("_")[0]
        self.primer = [Page(p) for p in ("docs/primer.md",) if os.path.isfile(os.path.join(ROOT, p))]
        self.results = [Page(p) for p in rel_glob("docs/results/*.md")]
        self.experiments = self.notebook_order([Page(p) for p in rel_glob("docs/experiments/*.md")])
        instructors = (rel_glob("docs/instructor*.md") + rel_glob("docs/answers.md") +
                       rel_glob("docs/CONVENTIONS.md"))
        self.instructors = [Page(p) for p in instructors]
        self.groups = [
            Page("", "site_notebook", "Lab notebook: the experiments behind the notes"),
            Page("", "site_instructors", "For instructors"),
        ]
        placed = {p.rel for p in self.chapters + self.primer + self.results +
                  self.experiments + self.instructors} | {"README.md"}
        others = []
        for top in os.environ.get("DOXY_INPUT", "docs").split():
            top = os.path.relpath(os.path.abspath(top), ROOT)
            if top.endswith(".md"):
                candidates = [top]
            else:
                candidates = [os.path.relpath(os.path.join(d, f), ROOT)
                              for d, _, files in os.walk(os.path.join(ROOT, top))
                              for f in files if f.endswith(".md")]
            others += [c for c in candidates if c not in placed and not c.startswith("build/")]
        self.others = [Page(p) for p in sorted(set(others))]

    def notebook_kind(self, page):
        """Where a log of docs/experiments/ stands in the lab notebook: "chapter" (NN_*.md of a
        chapter that is written), "design" (NN_*.md of a chapter not written yet), "session"
        (a dated log of a GPU session: h200_*, plants_*, any other)."""
        number = re.match(r"(\d\d)_", os.path.basename(page.rel))
        if not number:
            return "session"
        written = {p.number for p in self.chapters}
        return "chapter" if number.group(1) in written else "design"

    def notebook_order(self, pages):
        """The logs in the lab notebook's order: by chapter (a chapter's own log, 08_memcpy_speed.md,
        before its dated ones), then the GPU sessions by date, then the designs of chapters not
        written."""
        rank = {"chapter": 0, "session": 1, "design": 2}
        own = {p.dir + ".md" for p in self.chapters}  # a chapter's own log before its dated ones
        return sorted(pages, key=lambda p: (rank[self.notebook_kind(p)], os.path.basename(p.rel)[:3],
                                            os.path.basename(p.rel) not in own, p.rel))

    def compounds(self, chapter):
        """The names of the structs (unions, classes) a chapter's sources define at the top level."""
        names = set()
        for d, _, files in os.walk(os.path.join(ROOT, chapter.dir)):
            for f in files:
                if f.endswith(SOURCE_EXTENSIONS):
                    with open(os.path.join(d, f), encoding="utf-8") as src:
                        names |= {m.group(2) for m in map(COMPOUND.match, src) if m}
        return names

    def carried_compounds(self, chapter):
        """The structs of a chapter that an earlier chapter defines too (carried helpers)."""
        i = self.chapters.index(chapter)
        earlier = set()
        for page in self.chapters[:i]:
            earlier |= self.compounds(page)
        return self.compounds(chapter) & earlier

    def chapter_of_source(self, rel):
        top = rel.split(os.sep)[0]
        for page in self.chapters:
            if page.dir == top:
                return page
        return None

    def contents(self):
        """The end of the main page: every page in reading order, as \\subpage (the side tree)."""
        first, rest = self.chapters[:1], self.chapters[1:]
        out = ["<h2>This site, in reading order</h2>", "",
               "The chapters, one idea each, in order, with the primer where chapter 02 first "
               "needs it:", ""]
        out += ["- \\subpage %s" % p.label for p in first + self.primer + rest]
        out += ["", "What was measured, and how the notes came to be:", ""]
        out += ["- \\subpage %s" % p.label for p in self.results]
        out += ["- \\subpage %s" % self.groups[0].label]
        out += ["", "For instructors (the guide, the answers, the course's rules):", "",
                "- \\subpage %s" % self.groups[1].label]
        if self.others:
            out += ["", "Other pages:", ""] + ["- \\subpage %s" % p.label for p in self.others]
        # (a phone has no side tree: the list of files is linked, Doxygen's files.html)
        out += ["", 'Every source file, with its comments: the <a href="files.html">list of source '
                'files</a> (on a laptop, also under *Source files* in the side tree).']
        return "\n".join(out)

    def page_of_file(self, rel):
        """The page of the reading order that a Markdown file makes (a generated group page by
        its label), or None."""
        order = self.reading_order()
        for page in order:
            if page.rel and page.rel == rel:
                return page
        label = read_title(rel)[0] if os.path.isfile(os.path.join(ROOT, rel)) else None
        for page in order:
            if not page.rel and page.label == label:
                return page
        return None

    def neighbours(self, page):
        """(previous, next) labels of a page in the reading order (next None for the last); the
        main page has none."""
        labels = [p.label for p in self.reading_order()]
        i = labels.index(page.label)
        return (labels[i - 1] if i > 0 else None), (labels[i + 1] if i + 1 < len(labels) else None)

    def prev_next(self, page):
        """The last lines of every page but the main one: the page before, the course, the page
        after, in the reading order (the course only where neither is the main page already)."""
        prev, nxt = self.neighbours(page)
        parts = ["<div class=\"course-nav\">",
                 "<span class=\"course-prev\">Previous: \\ref %s</span>" % prev]
        parts.append("<span class=\"course-up\">%s</span>" %
                     ("" if "index" in (prev, nxt) else "\\ref index \"The course\""))
        parts.append("<span class=\"course-next\">%s</span>" % ("Next: \\ref %s" % nxt if nxt else ""))
        return "\n".join(parts + ["</div>"])

    def group_pages(self):
        """(file name, Markdown) of the pages that group the experiments and the instructors'."""
        notebook = self.groups[0]
        exp = ["# %s {#%s}" % (notebook.title, notebook.label), "",
               "What was tried, measured and lost while the chapters were written, kept apart "
               "from the notes, which are the lesson. Each log names its GPU, CUDA version, dates "
               "and runs.", ""]
        sections = [("chapter", "Side studies, by chapter",
                     "What each chapter's notes left out: the variants tried, the runs behind a "
                     "choice, the hypotheses and how they were tested."),
                    ("session", "GPU sessions",
                     "What ran on the GPU on a given day, and what came out: the logs that the "
                     "notes' numbers and the planted bugs' results are quoted from."),
                    ("design", "Designs of chapters not written yet",
                     "Plans, not lessons: nothing in them was built or measured unless it says "
                     "so.")]
        for kind, heading, intro in sections:
            pages = [p for p in self.experiments if self.notebook_kind(p) == kind]
            if pages:
                exp += ["## %s" % heading, "", intro, ""]
                exp += ["- \\subpage %s" % p.label for p in pages] + [""]
        data = [f for f in rel_glob("docs/experiments/*") if site_file("", f)]
        if data:
            exp += ["## Scripts and raw data", "",
                    "The scripts that ran the experiments and what they wrote, as they are in the "
                    "repository (run them from its top folder):", ""]
            exp += ["- <a href=\"%s\">%s</a>" % (site_file("", f), f) for f in data] + [""]
        ins = ["# %s {#%s}" % (self.groups[1].title, self.groups[1].label), "",
               "Pages for those who teach the course: how to hand it out and grade it, the "
               "answers to the chapters' exercises, and the rules the course is written to. "
               "Students can read them too; the exercises are meant to be tried first.", ""]
        ins += ["- \\subpage %s" % p.label for p in self.instructors]
        dirs = ["/* The chapters' folders, each linking its notes, and the folders of pages, each "
                "linking its pages (generated by docs/site/site_pages.py for make docs). */"]
        for p in self.chapters:
            dirs += ["/** \\dir %s" % p.dir, " * The code of \\ref %s. */" % p.label]
        for folder, what, pages in (("docs/results", "The measured results", self.results),
                                    ("docs/experiments", "The lab notebook's logs, and the "
                                     "scripts and data of the experiments (\\ref %s)" %
                                     self.groups[0].label, self.experiments)):
            if pages:
                dirs += ["/** \\dir %s" % folder, " * %s: %s. */" % (
                    what, ", ".join("\\ref %s" % p.label for p in pages))]
        # a folder below those with a page of its own (docs/experiments/runs_2026-12-03/README.md):
        # its directory page links it (else it would be an empty page, only a graph)
        below = {}
        for p in self.results + self.experiments + self.others:
            folder = os.path.dirname(p.rel)
            if folder.startswith(("docs/results/", "docs/experiments/")):
                below.setdefault(folder, []).append(p)
        for folder in sorted(below):
            dirs += ["/** \\dir %s" % folder, " * The pages of this folder: %s. */" %
                     ", ".join("\\ref %s" % p.label for p in below[folder])]
        return [("site_notebook.md", "\n".join(exp) + "\n"),
                ("site_instructors.md", "\n".join(ins) + "\n"),
                ("site_dirs.dox", "\n".join(dirs) + "\n"),
                ("layout.xml", self.layout())]

    def menu_entries(self):
        """(label, title) of the menu's entries (the top menu: what a phone shows), in reading
        order: the chapters and the primer, the results, the lab notebook, for instructors."""
        first, rest = self.chapters[:1], self.chapters[1:]
        pages = first + self.primer + rest + self.results + self.groups
        return [(p.label, p.title) for p in pages]

    def layout(self):
        """docs/site/layout.xml with its menu marker replaced by the pages' entries."""
        with open(os.path.join(ROOT, "docs", "site", "layout.xml"), encoding="utf-8") as f:
            text = f.read()
        marker = "<!-- site_pages.py: the pages in reading order -->"
        if marker not in text:
            sys.exit("site_pages.py: docs/site/layout.xml lacks the line %s" % marker)
        # XML's own entities only: Doxygen's layout parser refuses &#x27; (an apostrophe in a
        # title, "chapter 07's"), which needs no escape inside double quotes
        tabs = ['<tab type="user" visible="yes" url="@ref %s" title="%s"/>' %
                (label, html.escape(title, quote=False).replace('"', "&quot;"))
                for label, title in self.menu_entries()]
        return text.replace(marker, "\n    ".join(tabs))

    def lessons(self):
        """The pages that teach: the chapters and the primer, in reading order."""
        return self.chapters[:1] + self.primer + self.chapters[1:]

    def reading_order(self):
        """Every page of the tree, in order (the groups where they stand)."""
        first, rest = self.chapters[:1], self.chapters[1:]
        return ([Page("README.md", "index", read_title("README.md")[1])] + first + self.primer +
                rest + self.results + [self.groups[0]] + self.experiments +
                [self.groups[1]] + self.instructors + self.others)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--gen":
        os.makedirs(sys.argv[2], exist_ok=True)
        for name, text in Site().group_pages():
            with open(os.path.join(sys.argv[2], name), "w", encoding="utf-8") as f:
                f.write(text)
    elif len(sys.argv) == 2 and sys.argv[1] == "--list":
        for p in Site().reading_order():
            print("%-32s %-60s %s" % (p.label, p.title, p.rel))
    elif len(sys.argv) == 2 and sys.argv[1] == "--files":
        for p in Site().reading_order():
            if p.rel:
                print(p.rel)
    else:
        sys.exit("usage: site_pages.py --gen DIR | --list | --files")


if __name__ == "__main__":
    main()
