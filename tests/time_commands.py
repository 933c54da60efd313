#!/usr/bin/env python3
"""How long the README's commands take, measured: the table of README.md between
`<!-- timings:begin -->` and `<!-- timings:end -->` is written by this script from
docs/results/timings.tsv, one row per command and machine, each from a run of that command.

    python3 tests/time_commands.py measure [--out TSV] NAME...   time the commands here
    python3 tests/time_commands.py merge TSV...   add rows measured elsewhere (a GPU machine's)
    python3 tests/time_commands.py table          rewrite README.md's table from the TSV
    python3 tests/time_commands.py check          exit 1 if README.md's table is not what the
                                                  TSV makes (make test runs this)

NAMEs (each in a copy of the repository of its own, made by `git clone` of this checkout's
HEAD, or, where there is no .git, by copying the tracked tree without build/):
    chapter-1   make chapter-1, from a fresh clone
    run-1       ./run after make chapter-1 (chapter 01's default sweep)
    test        make test, from a fresh clone (the build included)
    check       make check, after a build
    test-all    make test-all, after a build
    sanitize    make sanitize, after a build (a GPU machine's)

Each row keeps what the number depends on: the machine (CPU, cores, memory, GPU), the load
average (1 minute) before and after, the date, the commit, the seconds of wall clock and of CPU
(user + system, of every process the command ran), its exit status and its output's last line.
`measure` writes its rows into TSV (default: docs/results/timings.tsv, merged there: a command
measured again on the same machine replaces its row) and then rewrites the README's table; with
--out elsewhere (e.g. $OUT of a device call), `merge` brings them in later.
"""
import csv
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TSV = os.path.join(ROOT, "docs", "results", "timings.tsv")
README = os.path.join(ROOT, "README.md")
BEGIN, END = "<!-- timings:begin -->", "<!-- timings:end -->"
FIELDS = ["name", "command", "when", "machine", "cores", "memory_gib", "gpu", "load_before",
          "load_after", "date", "commit", "wall_s", "cpu_s", "exit", "last_line"]

# name: (the command as the README shows it, when it runs, setup before the clock starts,
#        the command run)
COMMANDS = {
    "chapter-1": ("make chapter-1", "from a fresh clone", None, "make chapter-1"),
    "run-1": ("./run", "after make chapter-1", "make chapter-1", "./run"),
    "test": ("make test", "from a fresh clone", None, "make test"),
    "check": ("make check", "after a build", "make test-build -j{jobs}", "make check"),
    "test-all": ("make test-all", "after a build", "make test-build -j{jobs}", "make test-all"),
    "sanitize": ("make sanitize", "after a build", "make all -j{jobs}", "make sanitize"),
}


def machine():
    """(CPU model, cores, GiB of memory, GPU name or 'no GPU')."""
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = " ".join(line.split(":", 1)[1].split())
                    break
    except OSError:
        pass
    memory = 0.0
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    memory = int(line.split()[1]) / (1024 * 1024)
    except OSError:
        pass
    gpu = "no GPU"
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
        names = [n.strip() for n in out.stdout.splitlines() if n.strip()]
        if out.returncode == 0 and names:
            gpu = names[0] if len(names) == 1 else "%d x %s" % (len(names), names[0])
    except (OSError, subprocess.SubprocessError):
        pass
    return model, os.cpu_count() or 1, memory, gpu


def load():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def fresh_copy(where):
    """A copy of the repository as a new user gets it: a clone of HEAD, or the tracked tree."""
    if subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True).returncode == 0:
        subprocess.run(["git", "clone", "-q", ROOT, where], check=True)
        commit = subprocess.run(["git", "-C", where, "rev-parse", "--short=12", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
        return commit
    def built(folder, names):  # what .gitignore lists as build outputs
        rel = os.path.relpath(folder, ROOT)
        return [n for n in names if (rel == "." and n in ("build", "run", ".git")) or
                (n == "run" and (rel == os.path.join("classroom", "radix_sort") or
                                 (os.path.dirname(rel) == "" and rel[:2].isdigit())))]
    shutil.copytree(ROOT, where, symlinks=True, ignore=built)
    return "unknown (no .git)"


def measure_one(name, logdir):
    shown, when, setup, command = COMMANDS[name]
    jobs = os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="timings_") as tmp:
        where = os.path.join(tmp, "scan")
        commit = fresh_copy(where)
        log = os.path.join(logdir, name + ".log")
        with open(log, "w") as out:
            if setup:
                status = subprocess.run(setup.format(jobs=jobs), shell=True, cwd=where,
                                        stdout=out, stderr=subprocess.STDOUT).returncode
                if status != 0:
                    sys.exit("time_commands: the setup of %s (%s) failed: %s" % (name, setup, log))
            out.write("==== timed: %s\n" % command)
            out.flush()
            before = load()
            used = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.monotonic()
            status = subprocess.run(command, shell=True, cwd=where, stdout=out,
                                    stderr=subprocess.STDOUT).returncode
            wall = time.monotonic() - start
            now = resource.getrusage(resource.RUSAGE_CHILDREN)
            after = load()
        with open(log, errors="replace") as f:
            lines = [l.strip() for l in f.read().splitlines() if l.strip()]
    cpu = (now.ru_utime - used.ru_utime) + (now.ru_stime - used.ru_stime)
    model, cores, memory, gpu = machine()
    row = dict(name=name, command=shown, when=when, machine=model, cores=str(cores),
               memory_gib="%.0f" % memory, gpu=gpu, load_before=before, load_after=after,
               date=time.strftime("%Y-%m-%d", time.gmtime()), commit=commit,
               wall_s="%.1f" % wall, cpu_s="%.1f" % cpu, exit=str(status),
               last_line=lines[-1][:200] if lines else "")
    print("%s: %s %s: %.1f s (%.1f s of CPU), exit %d, load %s -> %s: %s" %
          (name, shown, when, wall, cpu, status, before, after, row["last_line"]))
    return row


def read_rows(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return [r for r in csv.DictReader(f, delimiter="\t")]


def write_rows(path, rows):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, delimiter="\t", lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in FIELDS})


def merged(rows, new):
    """rows with new ones added; a new row replaces the one of the same command and machine."""
    key = lambda r: (r["name"], r["machine"], r["cores"], r["gpu"])
    fresh = {key(r) for r in new}
    return [r for r in rows if key(r) not in fresh] + new


def duration(seconds):
    s = float(seconds)
    if s < 60:
        return "%.0f s" % s if s >= 10 else "%.1f s" % s
    return "%d min %02d s" % (int(s) // 60, int(round(s)) % 60)


def table(rows):
    """The README's table: one row per measured command, machines in the order first measured."""
    order = list(COMMANDS)
    out = ["Measured by `python3 tests/time_commands.py measure` (docs/results/timings.tsv; "
           "written by the script, not typed). Load average: of the last minute, before and "
           "after.", "",
           "| command | machine | load average | date | time (CPU time) | its last line |",
           "|---|---|---|---|---|---|"]
    machines = []
    for r in rows:
        m = (r["machine"], r["cores"], r["gpu"])
        if m not in machines:
            machines.append(m)
    for m in machines:
        for r in sorted([r for r in rows if (r["machine"], r["cores"], r["gpu"]) == m],
                        key=lambda r: order.index(r["name"]) if r["name"] in order else 99):
            where = "%s, %s cores, %s GiB, %s" % (r["machine"], r["cores"], r["memory_gib"],
                                                  r["gpu"])
            status = "" if r["exit"] == "0" else " (exit %s)" % r["exit"]
            out.append("| `%s` %s | %s | %s → %s | %s | %s (%s)%s | %s |" % (
                r["command"], r["when"], where, r["load_before"], r["load_after"], r["date"],
                duration(r["wall_s"]), duration(r["cpu_s"]), status,
                r["last_line"].replace("|", "\\|")))
    return "\n".join(out) + "\n"


def readme_with(text, rows):
    if BEGIN not in text or END not in text:
        sys.exit("time_commands: README.md has no %s ... %s markers" % (BEGIN, END))
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + BEGIN + "\n" + table(rows) + END + tail


def main(argv):
    if len(argv) < 1 or argv[0] not in ("measure", "merge", "table", "check"):
        sys.exit(__doc__)
    verb, args = argv[0], argv[1:]
    if verb == "measure":
        out = TSV
        if args[:1] == ["--out"]:
            out, args = os.path.abspath(args[1]), args[2:]
        unknown = [a for a in args if a not in COMMANDS]
        if unknown or not args:
            sys.exit("time_commands: measure which? one or more of %s (not %s)" %
                     (", ".join(COMMANDS), ", ".join(unknown) or "none"))
        logdir = os.path.join(os.path.dirname(out) if out != TSV else
                              os.path.join(ROOT, "build"), "timings")
        os.makedirs(logdir, exist_ok=True)
        new = [measure_one(name, logdir) for name in args]
        write_rows(out, merged(read_rows(out), new))
        print("time_commands: %d row(s) in %s; logs in %s" % (len(new), out, logdir))
        if out != TSV:
            return 0
    elif verb == "merge":
        rows = read_rows(TSV)
        for path in args:
            rows = merged(rows, read_rows(path))
        write_rows(TSV, rows)
    with open(README) as f:
        text = f.read()
    want = readme_with(text, read_rows(TSV))
    if verb == "check":
        if want != text:
            print("README.md's table of command times differs from what docs/results/timings.tsv "
                  "makes: run python3 tests/time_commands.py table and commit")
            return 1
        print("README's command times match docs/results/timings.tsv: %d rows" %
              len(read_rows(TSV)))
        return 0
    with open(README, "w") as f:
        f.write(want)
    print("time_commands: README.md's table rewritten from %s" % os.path.relpath(TSV, ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
