"""Links that the notes' Markdown does not write, made in the generated HTML by postprocess.py, so
that they keep working whatever the notes' words become:

  - a mention of a file of the repository, in a code span or in the text ("see
    `docs/experiments/08_memcpy_speed.md`", "tests/plant_bugs.sh", "08_exclusive.sh" in a log
    of docs/experiments/): a page of the site (a Markdown file of the reading order), a source
    file's page, a figure, or else the file itself, published under files/ (site_pages.published:
    scripts, CSVs, logs, the classroom's sources);
  - a cited work (docs/site/citations.py): "Merrill & Garland", "Snir", "PTX ISA §8.9.4" or a
    bare "§8.9.4", "CUDA C++ Programming Guide, *Launch Bounds*", "cub#245", and
    "docs/CONVENTIONS.md §6" (the conventions' section);
  - a link to a page without an anchor whose words name one of its sections ("[primer: the
    memory model](...)", or "By Little's law ([primer](...))"): the section.

Nothing inside an existing link, a code block, a heading, the contents or the previous/next bar
is touched. mentions() is also what tests/check_site.py uses to find a mention left unlinked.
"""
import html as html_text
import os
import re
import subprocess

import citations
import site_pages

TOKEN = re.compile(r"<[^>]*>|[^<]+")
# a path or file name in the text: the extensions of the files the notes name
PATH = re.compile(r"(?<![\w/.@:-])((?:[\w.-]+/)*[\w][\w.-]*\.(?:md|sh|py|csv|log|sass|gp|cu|cuh|c|h|txt|svg|ptx))"
                  r"(?![\w/-])")
SECTION_REF = re.compile(r"§\s?(\d+(?:\.\d+)*)")
BLOCK = re.compile(r"<(?:p|li|td|th|dd|dt|tr|br|table|ul|ol|h[1-6]|div)\b", re.I)
# elements whose insides are left alone
SKIP_DIVS = ("fragment", "toc", "course-nav", "title", "header", "line", "ttc")


class Resolver:
    """Where a mention of a repository file goes in the site, from a page in `page_dir`."""

    def __init__(self, site, members, html_dir):
        self.site = site
        self.html_dir = html_dir
        self.pages = {p.rel: p.label + ".html" for p in site.reading_order() if p.rel}
        self.sources = dict(members.file_pages)  # repository path -> the file's page
        self.tracked = tracked_files(site.root)
        self.by_name = {}
        for rel in self.tracked:
            self.by_name.setdefault(os.path.basename(rel), []).append(rel)

    def find(self, mention, page_dir):
        """The repository path a mention names, or None: the path itself, or relative to the
        page's folder, or a file name that only one tracked file has."""
        mention = mention.strip().rstrip(".,;:")
        if "*" in mention or mention.startswith(("/", "~")):
            return None
        for cand in (os.path.normpath(mention), os.path.normpath(os.path.join(page_dir, mention))):
            if cand in self.tracked:
                return cand
        if "/" not in mention and len(self.by_name.get(mention, [])) == 1:
            return self.by_name[mention][0]
        return None

    def href(self, mention, page_dir):
        """The site's address for a mention, or None."""
        rel = self.find(mention, page_dir)
        if rel is None:
            return None
        if rel in self.pages:
            return self.pages[rel]
        if rel in self.sources:
            return self.sources[rel]
        base = os.path.basename(rel)
        if rel.endswith((".svg", ".png")) and os.path.exists(os.path.join(self.html_dir, base)):
            return base
        return site_pages.published(rel)


def tracked_files(root):
    """The repository's files (git's list; without git, every file outside build/ and .git/)."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True, check=True)
        files = [f for f in out.stdout.decode("utf-8").split("\0") if f]
        if files:
            return set(f for f in files if os.path.isfile(os.path.join(root, f)))
    except (OSError, subprocess.CalledProcessError):
        pass
    found = set()
    for d, dirs, names in os.walk(root):
        dirs[:] = [x for x in dirs if x not in (".git", "build")]
        for n in names:
            found.add(os.path.relpath(os.path.join(d, n), root))
    return found


def visible(fragment):
    return html_text.unescape(TAG_ONLY.sub("", fragment))


TAG_ONLY = re.compile(r"<[^>]*>")


def link(href, inner, title=None):
    extra = ' download' if href.endswith(".csv") else ""
    if title:
        extra += ' title="%s"' % html_text.escape(title, quote=True)
    external = href.startswith("http")
    return '<a class="%s" href="%s"%s>%s</a>' % ("course-cite" if external else "el", href, extra,
                                                inner)


class Page:
    """One page's HTML, walked token by token, with what surrounds each text."""

    def __init__(self, text):
        self.tokens = [m.group(0) for m in TOKEN.finditer(text)]

    def walk(self):
        """(index, token, free, in_code): free is False inside a link, a heading, a code block,
        the contents, the navigation bars, a script; in_code is True inside <code>."""
        divs, a_depth, code, heading, script = [], 0, 0, 0, 0
        for i, tok in enumerate(self.tokens):
            if tok.startswith("<"):
                low = tok[:12].lower()
                if low.startswith("<div"):
                    cls = re.search(r'class="([^"]*)"', tok)
                    divs.append(bool(cls and set(cls.group(1).split()) & set(SKIP_DIVS)))
                elif low.startswith("</div"):
                    if divs:
                        divs.pop()
                elif re.match(r"<a[\s>]", low):
                    a_depth += 1
                elif low.startswith("</a>"):
                    a_depth = max(0, a_depth - 1)
                elif low.startswith("<code"):
                    code += 1
                elif low.startswith("</code"):
                    code = max(0, code - 1)
                elif re.match(r"<h[1-6][\s>]", low):
                    heading += 1
                elif re.match(r"</h[1-6]>", low):
                    heading = max(0, heading - 1)
                elif low.startswith(("<script", "<style")):
                    script += 1
                elif low.startswith(("</script", "</style")):
                    script = max(0, script - 1)
                yield i, tok, False, code > 0
                continue
            free = not (a_depth or heading or script or any(divs))
            yield i, tok, free, code > 0

    def text(self):
        return "".join(self.tokens)


def link_page(text, page_dir, resolver, sections_of, stats):
    """The page's HTML with its mentions and citations linked (see the module's text)."""
    page = Page(text)
    linked = set()  # works linked in this section of the page
    block = ""  # the visible text of the block so far (the sentence a § number is in)
    tokens = page.tokens
    for i, tok, free, in_code in list(page.walk()):
        if tok.startswith("<"):
            if re.match(r"<h1[\s>]", tok, re.I):  # a section (Markdown's "## ")
                linked = set()
            if BLOCK.match(tok):
                block = ""
            continue
        if not free:
            block += html_text.unescape(tok)
            continue
        following = visible("".join(tokens[i + 1:i + 12]))[:120]
        new = link_text(tok, page_dir, resolver, sections_of, stats, linked, block, following,
                        in_code)
        block += html_text.unescape(tok)
        tokens[i] = new
    return "".join(tokens)


def link_text(tok, page_dir, resolver, sections_of, stats, linked, before, following, in_code):
    """One text token with its links (an HTML text: entities escaped)."""
    spans = []  # (start, end, html)

    def free_at(s, e):
        return all(e <= a or s >= b for a, b, _ in spans)

    for m in PATH.finditer(tok):
        href = resolver.href(html_text.unescape(m.group(1)), page_dir)
        if href and free_at(m.start(1), m.end(1)):
            spans.append((m.start(1), m.end(1), link(href, m.group(1))))
            stats["mentions"] += 1
    if not in_code:
        for key, pattern, url in citations.WORKS:
            if key in linked:
                continue
            m = re.search(pattern, tok)
            if m and free_at(m.start(), m.end()):
                spans.append((m.start(), m.end(), link(url, m.group(0))))
                linked.add(key)
                stats["works"] += 1
        for key, pattern, base, sections in citations.GUIDES:
            for m in re.finditer(pattern, tok):
                if not free_at(m.start(), m.end()):
                    continue
                after = html_text.unescape(tok[m.end():]) + " " + following
                url = citations.section_url(base, sections, after[:80])
                if url == base and key in linked:
                    continue
                spans.append((m.start(), m.end(), link(url, m.group(0))))
                linked.add(key)
                stats["works"] += 1
        for m in citations.ISSUE.finditer(tok):
            if free_at(m.start(), m.end()):
                spans.append((m.start(), m.end(), link(citations.issue_url(m), m.group(0))))
                stats["works"] += 1
        for m in SECTION_REF.finditer(tok):
            if not free_at(m.start(), m.end()):
                continue
            context = (before + html_text.unescape(tok[:m.start()]))[-160:]
            url = section_ref_url(m.group(1), context, sections_of)
            if url:
                spans.append((m.start(), m.end(), link(url, m.group(0))))
                stats["sections"] += 1
            elif "." in m.group(1) and m.group(1)[0] in "89" and not paper_context(context):
                stats["unlinked"].add("§" + m.group(1))
    if not spans:
        return tok
    out, pos = [], 0
    for s, e, rep in sorted(spans):
        out.append(tok[pos:s])
        out.append(rep)
        pos = e
    out.append(tok[pos:])
    return "".join(out)


def paper_context(context):
    """Whether a § number is the paper's or the conventions' (by the words just before it)."""
    last = re.split(r"[.;!?]\s", context)[-1]
    return bool(re.search(r"Merrill|Garland|paper|CONVENTIONS", last))


def section_ref_url(number, context, sections_of):
    """The address of "§N" from the words before it: the conventions' section, the PTX ISA's
    (its chapters 8 and 9, or after "PTX ISA"), or None (the paper's sections, which its PDF does
    not anchor, and anything not known)."""
    last = re.split(r"[.;!?]\s", context)[-1]
    if re.search(r"CONVENTIONS(?:\.md)?\s*$", context.rstrip()):
        return sections_of.get(("conventions", number))
    if re.search(r"Merrill|Garland|paper", last):
        return None
    if re.search(r"PTX ISA\s*$", context) or ("." in number and number[0] in "89"):
        return citations.ptx_url(number)
    return None


def page_sections(html_dir, label):
    """(anchor, title) of a page's headings, in order."""
    path = os.path.join(html_dir, label + ".html")
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return [(m.group(1), visible(m.group(2)).strip())
            for m in re.finditer(r'<h[1-4]><a class="anchor" id="([^"]+)"></a>(.*?)</h[1-4]>', text, re.S)]


def conventions_sections(html_dir):
    """("conventions", "6") -> conventions.html#... for each "§N." heading of the conventions."""
    found = {}
    for anchor, title in page_sections(html_dir, "conventions"):
        m = re.match(r"§(\d+)\.", title)
        if m:
            found[("conventions", m.group(1))] = "conventions.html#" + anchor
    return found


PAGE_LINK = re.compile(r'<a class="el" href="([\w-]+)\.html">(.*?)</a>', re.S)


def anchor_section_links(text, html_dir, cache, stats):
    """A link to a page without an anchor, whose words or sentence name one of the page's
    sections, goes to that section: "primer: the memory model", "By Little's law ([primer](…))"."""
    def phrases(label):
        if label not in cache:
            found = []
            for anchor, title in page_sections(html_dir, label):
                for part in re.split(r",? and |, ", re.sub(r"^§\d+\.\s*|^the\s+|^The\s+", "", title)):
                    part = re.sub(r"^(the|and)\s+", "", part.strip(), flags=re.I)
                    if len(part) >= 6:
                        found.append((part.lower(), anchor))
            cache[label] = found
        return cache[label]

    def repl(m):
        label, inner = m.group(1), m.group(2)
        words = visible(inner).lower()
        candidates = phrases(label)
        if not candidates:
            return m.group(0)
        named = re.match(r"[\w ]+:\s*(.+)", words)
        if named:
            for phrase, anchor in candidates:
                if phrase in named.group(1) or named.group(1) in phrase:
                    stats["sections"] += 1
                    return '<a class="el" href="%s.html#%s">%s</a>' % (label, anchor, inner)
        before = visible(text[max(0, m.start() - 300):m.start()]).lower()
        before = re.split(r"[.!?]\s", before)[-1]
        best = None
        for phrase, anchor in candidates:
            k = before.rfind(phrase)
            if k >= 0 and (best is None or k > best[0]):
                best = (k, anchor)
        if best:
            stats["sections"] += 1
            return '<a class="el" href="%s.html#%s">%s</a>' % (label, best[1], inner)
        return m.group(0)
    return PAGE_LINK.sub(repl, text)


def mentions(text, page_dir, resolver):
    """The mentions of repository files on a page that the site could link and that are not
    linked (for tests/check_site.py)."""
    page = Page(text)
    left = []
    for _, tok, free, _ in page.walk():
        if tok.startswith("<") or not free:
            continue
        for m in PATH.finditer(tok):
            rel = resolver.find(html_text.unescape(m.group(1)), page_dir)
            if rel and resolver.href(m.group(1), page_dir):
                left.append(m.group(1))
    return left
