"""Full-text search for the course site (postprocess.py calls it after every other change).

Doxygen's search box (SEARCHENGINE, offline) finds names: functions, files, page titles; not a
word of the notes. This adds the text of every page of the reading order to it:

  - search/course_text.js: each page's sections (anchor, heading, text, whether it is the
    chapter's question or idea): the lessons (the
    chapters and the primer) in reading order, then the other pages, the main page last;
  - search/course_search.js (docs/site/course_search.js): in the results frame that Doxygen's box
    opens, it finds the query in that text and puts one row per page before Doxygen's own rows:
    the lessons whose title has it, then the lessons in reading order, then the other pages, so
    that the chapter that teaches a term first comes first; each row links the first section
    that has it;
  - search/search.js: a query whose first letter no name starts with opens search/notes.html (a
    results frame without names) instead of Doxygen's "No Matches" page, which cannot search;
  - the results frames (search/all_*.html, pages_*.html) load the two scripts.
Doxygen's rows for pages name the parent page by its label ("index"); they get its title.
"""
import html as html_text
import json
import os
import re
import shutil

# search.js (Doxygen 1.9.4): the branch for a first letter without names
NOMATCH = ("       resultsPage = this.resultsPath + '/nomatches' + this.extension;\n"
           "       resultsPageWithSearch = resultsPage;\n")
NOTES_PAGE = ("       resultsPage = this.resultsPath + '/notes' + this.extension;\n"
              "       resultsPageWithSearch = resultsPage+'?'+escape(searchValue);\n")
# (and a larger type than Doxygen's 8 pt, which a phone shows at 11 px; the words around a hit
# on a line of their own)
SCRIPTS = ('<script type="text/javascript" src="course_text.js"></script>\n'
           '<script type="text/javascript" src="course_search.js"></script>\n'
           '<style>.SRPage .SREntry { font-size: 14px; padding: 3px 5px; line-height: 1.35; }\n'
           '.SRPage .SRScope { font-size: 13px; } .course-hit { display: block; }</style>\n')
HEADING = re.compile(r'<h([1-4])\b[^>]*>(?:<a class="anchor" id="([^"]+)"></a>)?(.*?)</h\1>', re.S)
DROP = re.compile(r'<div class="toc">.*?</div>|<div class="course-nav[^"]*">.*?</div>|'
                  r'<script\b.*?</script>|<doxygen-awesome[^>]*>.*?</doxygen-awesome[^>]*>', re.S)
TAG = re.compile(r"<[^>]*>")
# inline tags (a link, code, emphasis, postprocess.py's breaks and nowrap spans in code:
# "mbarrier.<wbr>try_wait", "(<a ...>bank conflicts</a>)") read as nothing, not as a space
IN_WORD = re.compile(r"</?(?:a|code|span|b|strong|em|i|tt|sub|sup|small|wbr)\b[^>]*>")


def plain(fragment):
    text = html_text.unescape(TAG.sub(" ", IN_WORD.sub("", fragment)))
    return re.sub(r"\s+", " ", text).strip()


# the sections of a chapter that state its own question and idea (and their subsections)
CORE = re.compile(r"^(The question|The idea)$")


def page_text(path):
    """(title, [(anchor, heading, text, core)]) of a page: its contents, split at its headings;
    core is 1 in the sections "The question" and "The idea" and below them, else 0."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    title = re.search(r'<div class="title">(.*?)</div>', text, re.S)
    title = plain(title.group(1)) if title else os.path.basename(path)
    body = text.split('<div class="contents">', 1)[-1].split("<!-- contents -->", 1)[0]
    body = DROP.sub(" ", body)
    sections, pos, anchor, heading, core = [], 0, "", "", 0
    for m in HEADING.finditer(body):
        sections.append((anchor, heading, plain(body[pos:m.start()]), core))
        anchor, heading, pos = m.group(2) or anchor, plain(m.group(3)), m.end()
        if m.group(1) == "1":  # (a page's "## " sections are <h1>, their "### " <h2>)
            core = 1 if CORE.match(heading) else 0
    sections.append((anchor, heading, plain(body[pos:]), core))
    return title, [s for s in sections if s[2]]


def build_index(html, site):
    """search/course_text.js from the pages of the reading order; returns (pages, characters)."""
    pages, chars = [], 0
    lessons = site.lessons()
    order = lessons + [p for p in site.reading_order()[1:] if p not in lessons]
    order.append(site.reading_order()[0])  # the main page last: it names every chapter's subject
    for page in order:
        path = os.path.join(html, page.label + ".html")
        if not os.path.exists(path):
            continue
        title, sections = page_text(path)
        pages.append({"u": "../" + page.label + ".html", "t": title, "s": sections,
                      "k": 1 if page in lessons else 0})
        chars += sum(len(s[2]) for s in sections)
    with open(os.path.join(html, "search", "course_text.js"), "w", encoding="utf-8") as f:
        f.write("/* The text of the course's pages, in reading order, for course_search.js "
                "(written by docs/site/site_search.py). */\nvar courseText = ")
        json.dump(pages, f, ensure_ascii=False, separators=(",", ":"))
        f.write(";\n")
    return len(pages), chars


def install(html, site_dir):
    """The search script, the notes-only results frame, search.js's branch and the frames' script
    tags; the number of results frames that load the scripts."""
    search = os.path.join(html, "search")
    shutil.copy(os.path.join(site_dir, "course_search.js"), os.path.join(search, "course_search.js"))
    js = os.path.join(search, "search.js")
    with open(js, encoding="utf-8") as f:
        text = f.read()
    if NOTES_PAGE not in text:
        if NOMATCH not in text:
            raise SystemExit("make docs: search/search.js has no branch for a letter without names "
                             "(another Doxygen than 1.9.4?): docs/site/site_search.py must learn it")
        with open(js, "w", encoding="utf-8") as f:
            f.write(text.replace(NOMATCH, NOTES_PAGE))
    frames = 0
    template = None
    for name in sorted(os.listdir(search)):
        if not re.match(r"(all|pages)_\w+\.html$", name):
            continue
        path = os.path.join(search, name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        anchor = '<script type="text/javascript" src="search.js"></script>\n'
        if anchor not in text:
            raise SystemExit("make docs: %s does not load search.js as Doxygen 1.9.4 writes it" % path)
        if SCRIPTS not in text:
            text = text.replace(anchor, anchor + SCRIPTS)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        template = template or (name, text)
        frames += 1
    if template is None:
        raise SystemExit("make docs: no search/all_*.html: is SEARCHENGINE on?")
    # the frame for a first letter without names: a results frame with no names of its own
    name, text = template
    data = re.search(r'<script type="text/javascript" src="(\w+)\.js"></script>', text).group(1)
    text = text.replace('<script type="text/javascript" src="%s.js"></script>' % data,
                        '<script type="text/javascript">var searchData = [];</script>')
    with open(os.path.join(search, "notes.html"), "w", encoding="utf-8") as f:
        f.write(text)
    return frames + 1


def scope_titles(site):
    """A rewrite of Doxygen's search data (search/*.js): its rows for a page name the parent page
    by label ("index", "site_notebook"); they get its title. Returns (rewrite, fixed): the
    function for each file's text, and the list of the rows it fixed."""
    titles = {p.label: p.title for p in site.reading_order()}
    titles["index"] = "The course"
    fixed = []

    def repl(m):
        if m.group(2) not in titles:
            return m.group(0)
        fixed.append(m.group(2))
        title = html_text.escape(titles[m.group(2)], quote=False)
        return "%s,1,'%s']" % (m.group(1), title.replace("\\", "\\\\").replace("'", "\\'"))

    def rewrite(text):
        return re.sub(r"(\['\.\./[\w-]+\.html(?:#[\w-]+)?'),1,'([\w-]+)'\]", repl, text)
    return rewrite, fixed
