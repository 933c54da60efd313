#!/usr/bin/env python3
"""The expected output of each chapter's notes is its program's (docs/CONVENTIONS.md §8).

    tests/check_expected_output.py CHAPTER_DIR...     (make test passes the chapters that exist)

The "## Run it" section of NN_name/README.md shows what `./run` prints, so its blocks hold the
table's header line (the one that begins "n  variant"). This check fails when that line is not
what the program prints today: a column added, removed or renamed since the block was copied.

Where the header comes from, never from a typed copy:
  - a chapter whose program runs on the host (it does not call gpu_chapter_main(): chapter 01)
    is run for real, `NN_name/run -n 2^12 --reps 1` (build it first: make chapter-N), and its
    header is the line it printed;
  - a GPU chapter cannot run here, so its header is read from the source: the columns that
    sweep() in common/gpu_driver.cu adds, in order, where a column under `if (ch->FIELD)` is
    there when the chapter's gpu_chapter sets .FIELD, and the title `ch->extra_title` is the
    chapter's .extra_title. A mode with a table of its own (a `report_column NAME[] = {…}` in the
    chapter's sources, chapter 09's operators) may be shown too, after the sweep's;
  - a GPU chapter with a driver of its own (a .cu source, no gpu_chapter_main(): chapter 13)
    cannot run here either: its sweep's header is the first `report_column NAME[] = {…}` of its
    sources, and any later one may be shown too.

The first header line of "Run it" must be the default sweep's; every other one must be a header
the chapter prints. Column titles are compared, not the spacing. A block that is a placeholder
(no header line) fails: fill it from a run.
Exit status: 0 every block matches; 1 a block does not; 2 bad usage, or a source this check
cannot read (then it says what to teach it).
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DRIVER = os.path.join("common", "gpu_driver.cu")


class Unreadable(Exception):
    """A source this check cannot read: exit 2, with the message."""


def strip_comments(text):
    """C source without /* */ and // comments (string literals here hold no comment marks)."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def sources(chapter):
    return sorted(os.path.join(chapter, f) for f in os.listdir(chapter)
                  if f.endswith((".c", ".cu", ".h")))


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def sweep_columns():
    """[(title, field or None)] from sweep() in common/gpu_driver.cu: title a literal or
    'ch->extra_title'; field the gpu_chapter member whose presence the column needs."""
    text = strip_comments(read(os.path.join(ROOT, DRIVER)))
    m = re.search(r"static int sweep\(.*?\n\{(.*?)report_header\(", text, re.S)
    if not m:
        raise Unreadable(f"{DRIVER}: no sweep() that calls report_header()")
    body = m.group(1)
    columns = []
    # a column, or an `if (…)` with its statement or its { block } (no nested braces)
    item = re.compile(r"add_column\(&table,\s*([^,]+),"
                      r"|if\s*\(([^)]*)\)\s*(\{[^{}]*\}|[^;{]*;)", re.S)

    def title_of(expr):
        expr = expr.strip()
        if re.fullmatch(r'"[^"]*"', expr):
            return expr[1:-1]
        if expr == "ch->extra_title":
            return expr
        raise Unreadable(f"{DRIVER}: sweep() adds a column titled {expr}: teach "
                         f"tests/check_expected_output.py what that title is")

    for m in item.finditer(body):
        if m.group(1) is not None:
            columns.append((title_of(m.group(1)), None))
            continue
        cond, stmt = m.group(2).strip(), m.group(3)
        inner = re.findall(r"add_column\(&table,\s*([^,]+),", stmt)
        if not inner:
            continue
        field = re.fullmatch(r"ch->(\w+)", cond)
        if not field:
            raise Unreadable(f"{DRIVER}: sweep() adds columns under `if ({cond})`: teach "
                             f"tests/check_expected_output.py that condition")
        columns.extend((title_of(t), field.group(1)) for t in inner)
    if not columns:
        raise Unreadable(f"{DRIVER}: sweep() adds no columns that this check can read")
    return columns


def chapter_fields(chapter):
    """The gpu_chapter members the chapter sets (designated initialisers), with their values."""
    fields = {}
    for path in sources(chapter):
        for m in re.finditer(r"^\s*\.(\w+)\s*=\s*([^,\n]+),?\s*$",
                             strip_comments(read(path)), re.M):
            if m.group(2).strip() not in ("NULL", "0", "nullptr"):
                fields[m.group(1)] = m.group(2).strip()
    return fields


def gpu_headers(chapter, columns):
    """The default sweep's titles, and the other tables' (modes with columns of their own)."""
    fields = chapter_fields(chapter)
    titles = []
    for title, field in columns:
        if field and field not in fields:
            continue
        if title == "ch->extra_title":
            value = fields.get("extra_title", "")
            if not re.fullmatch(r'"[^"]*"', value):
                raise Unreadable(f"{chapter}: .extra_title = {value}: a string literal is what "
                                 f"tests/check_expected_output.py can read")
            title = value[1:-1]
        titles.append(title)
    return titles, source_tables(chapter)


def source_tables(chapter):
    """The titles of each `report_column NAME[] = {…}` table in the chapter's sources, in order."""
    tables = []
    for path in sources(chapter):
        for m in re.finditer(r"report_column\s+\w+\s*\[\s*\]\s*=\s*\{(.*?)\};",
                             strip_comments(read(path)), re.S):
            tables.append(re.findall(r'\{\s*"([^"]*)"\s*,', m.group(1)))
    return tables


def host_header(chapter):
    """Run the host program on one small size and return the titles of the header it prints."""
    program = os.path.join(chapter, "run")
    if not os.access(program, os.X_OK):
        return None, f"{program} is not built: make chapter-{int(chapter[:2])}, then run this again"
    try:
        out = subprocess.run([program, "-n", "2^12", "--reps", "1"], capture_output=True,
                             text=True, timeout=120).stdout
    except subprocess.TimeoutExpired:
        return None, f"{program} -n 2^12 --reps 1 ran for 120 s without finishing"
    for line in out.splitlines():
        if line.split()[:2] == ["n", "variant"]:
            return line.split(), None
    return None, f"{program} -n 2^12 --reps 1 printed no header line (\"n  variant …\"):\n{out}"


def run_it_headers(readme):
    """(line number, titles) of each table header in a fenced block of "## Run it"; the text."""
    headers, section, fence, text = [], None, False, []
    for number, line in enumerate(read(readme).splitlines(), 1):
        if line.startswith("```"):
            fence = not fence
            continue
        if not fence and line.startswith("## "):
            section = line[3:].strip()
            continue
        if section != "Run it":
            continue
        text.append(line)
        if not fence:
            continue
        s = line.strip()
        if s.startswith("n,variant,"):
            headers.append((number, s.split(",")))
        elif s.split()[:2] == ["n", "variant"]:
            headers.append((number, s.split()))
    return headers, "\n".join(text)


def main(chapters):
    if not chapters:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    os.chdir(ROOT)
    try:
        columns = sweep_columns()
    except Unreadable as e:
        print(e)
        return 2
    problems, checked = 0, 0
    for chapter in (c.rstrip("/") for c in chapters):
        readme = os.path.join(chapter, "README.md")
        if not os.path.isfile(readme):
            print(f"{readme}: missing")
            problems += 1
            continue
        gpu = any("gpu_chapter_main" in read(p) for p in sources(chapter))
        own_driver = not gpu and any(p.endswith(".cu") for p in sources(chapter))
        try:
            if gpu:
                want, others = gpu_headers(chapter, columns)
                origin = f"sweep() in {DRIVER} with {chapter}'s gpu_chapter"
            elif own_driver:
                tables = source_tables(chapter)
                if not tables:
                    raise Unreadable(f"{chapter}: a GPU program with no gpu_chapter and no "
                                     f"report_column table: teach tests/check_expected_output.py "
                                     f"where its header comes from")
                want, others = tables[0], tables[1:]
                origin = f"the first report_column table in {chapter}'s sources"
            else:
                want, why = host_header(chapter)
                others, origin = [], f"what {chapter}/run printed"
                if want is None:
                    print(f"{readme}: cannot tell the program's header: {why}")
                    problems += 1
                    continue
        except Unreadable as e:
            print(e)
            return 2
        headers, text = run_it_headers(readme)
        checked += 1
        if not headers:
            what = ("holds a placeholder, not a run's output"
                    if "placeholder" in text.lower() else "shows no table header")
            print(f"{readme}: \"Run it\" {what}: paste what `./run` prints, its header "
                  f"included:\n    {'  '.join(want)}")
            problems += 1
            continue
        for k, (number, titles) in enumerate(headers):
            if titles == want or (k > 0 and titles in others):
                continue
            print(f"{readme}:{number}: the header of \"Run it\" is not the program's "
                  f"({origin}):\n  notes:   {'  '.join(titles)}\n  program: {'  '.join(want)}")
            problems += 1
    if problems:
        return 1
    print(f"\"Run it\" blocks show the programs' headers: {checked} chapters")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
