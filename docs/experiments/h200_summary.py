"""What the chapters' H200 scripts (11_chapter_h200.sh, 12_chapter_h200.sh) read back from their
logs for their summaries: the sweep's CSV rows, the last lines of a log, ptxas's report of one
kernel. Imported by the scripts' summaries, which run from the repository root."""
import os


def csv_rows(path):
    """The table rows of a file of the sweep's CSV runs (`./run --csv`, appended run after run),
    each as its list of fields: n, variant, time_us, GB/s, traffic, moved_GB/s, pct_memcpy,
    spread_pct, memcpy_spread_pct, noise, check. Notes (`# ...`), headers and short lines are
    skipped; a missing file has none."""
    if not os.path.exists(path):
        return []
    got = []
    for line in open(path):
        f = line.strip().split(",")
        if len(f) < 11 or line.startswith("#") or f[0] == "n":
            continue
        got.append(f)
    return got


def tail(path, n=1):
    """The last n lines of a log that are not blank, joined by " | "; "(missing)" or "(empty)"."""
    if not os.path.exists(path):
        return "(missing)"
    lines = [l.rstrip() for l in open(path) if l.strip()]
    return " | ".join(lines[-n:]) if lines else "(empty)"


def ptxas_report(path, kernel):
    """ptxas's two lines after `Compiling entry function` of each kernel whose mangled name holds
    `kernel` (stack frame and spills; registers), each pair joined by a space."""
    if not os.path.exists(path):
        return []
    lines = open(path).read().splitlines()
    return [" ".join(x.strip() for x in lines[i + 2:i + 4]) for i, l in enumerate(lines)
            if "Compiling entry function" in l and kernel in l]
