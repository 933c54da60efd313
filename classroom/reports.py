"""What the grader writes (classroom/grade.py): one submission's results.json (Gradescope's
format) and terminal table, and a class's grades.csv and gradescope_scores.csv.

What a student sees never depends on what the instructor is told: results.json's top-level
output and its tests are the same whether or not there are notes for the instructor (likely
copies, the sandbox, the default seed); those notes go to the table (the terminal, and
Gradescope's stdout, which is hidden from students), to extra_data, and to the class CSV.
Gradescope hides a submission's total from its student while any test is hidden or not yet
due; here those are the hidden vectors and the speed (after_due_date), for every student alike,
and no visible test's score or text depends on them (grade.apply_rules).
"""
import csv
import json
import os
import re
import sys
import time

from runs import log


# Said once to every student (results.json's output), and once per class (not on every row).
WRITE_UP = "The write-up (15 points in the course's rubric) is graded by hand."


def short(it):
    """An item's name in a few words ("self-test battery", "hidden vectors")."""
    return re.split(r" \(| against|:", it["name"])[0]


def result(folder, number, items, gates, notes, instructor, verdict, gpu, start, seed_set,
           similarity, out_dir, phases=None):
    """results.json for one submission, written to out_dir; returns it. `gates` maps the gate
    items (honesty, chapter 01's work sharing) to 'passed', 'failed' or None (not decided).
    extra_data.seconds: the seconds of each phase (`phases`) and of each item's runs, added up
    (they run side by side), for the instructor."""
    for i in items:
        if i["status"] == "graded" and not i["output"]:
            i["output"] = "ok" if i["score"] == i["max_score"] else ""
    partial = any(i["status"] != "graded" for i in items)
    total = sum(i["score"] for i in items)
    most = sum(i["max_score"] for i in items)
    # What a student sees before the due date: the items shown now, never the hidden ones'
    # points (Gradescope hides the total itself while an item is not yet shown).
    later = [i for i in items if i["visibility"] != "visible" and i["max_score"]]
    shown = [i for i in items if i["visibility"] == "visible"]
    lines = [f"{folder}: {sum(i['score'] for i in shown):g} of "
             f"{sum(i['max_score'] for i in shown):g} points in the items shown now"
             + (f"; {', '.join(short(i) for i in later)} "
                f"({sum(i['max_score'] for i in later):g} points) "
                f"{'is' if len(later) == 1 else 'are'} shown after the due date" if later else "")
             + "."]
    if partial:
        lines.append(partial_text(items, gpu))
    lines += [f"not run here: {l[len('not run here: '):]}" for i in items
              for l in i["output"].splitlines() if l.startswith("not run here: ")]
    lines.append(WRITE_UP)
    lines += notes
    if not verdict:
        lost = [short(i) for i in items if i["status"] in ("graded", "partial") and
                i["score"] < i["max_score"]]
        verdict.append(("points lost: " + ", ".join(lost)) if lost else "ok")
    if partial:
        verdict.append(partial_verdict(items))
    tests = []
    for i in items:
        t = {k: i[k] for k in ("name", "score", "max_score", "output", "visibility")}
        if i["name"] in gates and gates[i["name"]]:
            t["status"] = gates[i["name"]]  # a gate, not points: shown passed or failed
        tests.append(t)
    summary = (f"{folder}: {total:g} of {most:g} points"
               + (" (PARTIAL: some items were not graded or not run here; see them below)"
                  if partial else ""))
    out = {"score": total, "execution_time": int(time.time() - start),
           "output": "\n".join(lines), "stdout_visibility": "hidden", "tests": tests,
           "extra_data": {"chapter": str(number), "partial": partial, "max_score": most,
                          "seed_set": seed_set,
                          "honesty": next((v for k, v in gates.items() if k.startswith("honesty")),
                                          None),
                          "gates": gates, "status": {i["name"]: i["status"] for i in items},
                          "verdict": "; ".join(verdict), "summary": summary,
                          "instructor_notes": instructor, "similarity": similarity,
                          "seconds": {"phases": {k: round(v, 1) for k, v in (phases or {}).items()},
                                      "items": {i["name"]: round(i["seconds"], 1)
                                                for i in items if "seconds" in i}}}}
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump(out, f, indent=2)
    return out


def too_slow(i):
    """Is item `i` chapter 01's work sharing, timed by the judge but too slow to tell
    (items.judge_work_sharing())?"""
    return i["status"] == "partial" and i["output"].startswith("not decided: on ")


def beside(i):
    """Is item `i` chapter 01's work sharing, not decided for a thread beside the part's team
    (items.judge_work_sharing())?"""
    return i["status"] == "partial" and i["output"].startswith("not decided: after ")


def partial_verdict(items):
    """grades.csv's word on a partial grade: which items wait, and why (a part too slow to tell
    was timed: regraded on a quiet machine, and read if it stays so; instructor review 0412h,
    I-8)."""
    waiting = [i for i in items if i["status"] != "graded"]
    slow = [i for i in waiting if too_slow(i)]
    odd = [i for i in waiting if beside(i)]
    rest = [i for i in waiting if i not in slow and i not in odd]
    said = []
    if rest:
        said.append(", ".join(short(i) for i in rest) + " " +
                    ("not run here" if all(i["status"] == "partial" for i in rest)
                     else "not graded"))
    if slow:
        said.append(", ".join(short(i) for i in slow) + " too slow to tell (read the part)")
    if odd:
        said.append(", ".join(short(i) for i in odd) + " a thread beside the team (read the part)")
    return "partial: " + "; ".join(said)


def partial_text(items, gpu):
    """The partial grade's line, in plain words: what was graded here and what was not."""
    missing = [i for i in items if i["status"] not in ("graded", "partial")]
    build = items[0]
    if any(i["status"] == "interrupted" for i in items):
        return ("PARTIAL: interrupted: the grader was stopped while it ran your code, so it is "
                "not graded yet; it will be graded again (your total is not final).")
    if build["status"] != "graded":
        return ("PARTIAL: nothing of your code could be built or run on this grading machine "
                "(it has no CUDA compiler), so no item was graded here. Your parts are graded on "
                "a machine with the CUDA Toolkit and a GPU; until then this grade says nothing "
                "about them, and your total is not final.")
    if any(i["name"].startswith("self-test") for i in missing):
        return (f"PARTIAL: only the build and the honesty check were graded here (no GPU: "
                f"{gpu[1]}). Correctness, the sanitizers and the speed need a GPU, so this grade "
                f"does not tell working parts from wrong ones: they are graded on a machine with "
                f"a GPU, and your total is not final.")
    if missing:
        return ("PARTIAL: " + ", ".join(short(i) for i in missing) +
                " not graded here (see each); your total is not final.")
    partial = [i for i in items if i["status"] == "partial"]
    capped = [i for i in partial if re.search(r"GRADE_MAX_N=\d+", i["output"])]
    here = [i for i in partial if i not in capped]
    said = []
    if capped:
        cap = re.search(r"GRADE_MAX_N=\d+", capped[0]["output"]).group(0)
        said.append(f"a case of {', '.join(short(i) for i in capped)} was not run: the "
                    f"instructor capped the sizes ({cap}) for this pass")
    # the work sharing ran, but could not be decided here (instructor review 3, #1 (d))
    undecided = [i for i in here if i["name"].startswith("threads")]
    here = [i for i in here if i not in undecided]
    if any(beside(i) for i in undecided):
        said.append("the grader saw what looked like a thread in your program that OpenMP did "
                    "not start; your instructor reads it")
    elif any(too_slow(i) for i in undecided):
        said.append("your threaded variant was timed, but gained too little beside the course's "
                    "own to call the work shared; your instructor reads it")
    elif undecided:
        said.append("the work sharing could not be decided on this grading machine")
    if here:
        said.append(f"a case of {', '.join(short(i) for i in here)} could not run on this "
                    f"grading machine")
    return "PARTIAL: " + "; ".join(said) + " (below); your total is not final."


def print_table(result):
    """The instructor's view (the terminal, and Gradescope's stdout, which students do not see):
    every item with its output, hidden ones included, the notes for the instructor, the total."""
    extra = result["extra_data"]
    log(f"{'item':<60} {'score':>7} {'max':>5}  status")
    log("-" * 86)
    for t in result["tests"]:
        status = extra["status"][t["name"]]
        if t["max_score"] == 0 and t["name"] in extra.get("gates", {}):
            gate = extra["gates"][t["name"]]
            log(f"{t['name']:<60} {'-':>7} {'-':>5}  "
                + (gate.upper() if gate == "failed" else gate or status))
        else:
            log(f"{t['name']:<60} {t['score']:>7g} {t['max_score']:>5g}  {status}"
                + ("" if t["visibility"] == "visible" else f" ({t['visibility']})"))
    log("-" * 86)
    for t in result["tests"]:
        log(f"== {t['name']}\n{t['output']}")
    if extra.get("instructor_notes"):
        log("== notes for the instructor (not shown to the student)\n" +
            "\n".join(extra["instructor_notes"]))
    log("")
    log(extra["summary"] + (f"\nstatus: {extra['verdict']}" if extra.get("verdict") else ""))
    log("what the student sees:\n  " + result["output"].replace("\n", "\n  "))


# ---------------------------------------------------------------------------------------------
# A class
# ---------------------------------------------------------------------------------------------

def gradescope_metadata(folder):
    """Gradescope's export (Review Grades, Export Submissions) has a submission_metadata.yml
    beside its submission_N/ folders: submission id -> {"members": [{name, sid, email}],
    "created_at"}, a group's members each on their own. Read with a few patterns (the file is
    YAML written by Ruby, with :symbols as keys; the standard library has no YAML reader): {}
    when there is none."""
    path = os.path.join(folder, "submission_metadata.yml")
    if not os.path.isfile(path):
        return {}
    # Members are read only inside a submission's :submitters: list, by indentation (a nested
    # :results: -> :tests: -> - :name: is a test, not a member); created_at only beside it.
    out, current = {}, None
    for line in open(path, encoding="utf-8", errors="replace"):
        top = re.match(r"^([A-Za-z0-9_.-]+):\s*$", line)
        if top:
            current = out.setdefault(top.group(1), {"members": [], "created_at": ""})
            level, block, item, key_col = None, None, None, None
            continue
        m = re.match(r"^( *)(- +)?:(\w+):\s*(.*?)\s*$", line.rstrip("\n"))
        if current is None or not m:
            continue
        indent, dash, key = len(m.group(1)), m.group(2), m.group(3)
        value = m.group(4).strip().strip("'\"")
        level = indent if level is None and not dash else level
        if block is not None and not (indent > block or (indent == block and dash)):
            block = None  # the :submitters: list has ended
        if block is None:
            if indent == level and not dash and key == "submitters":
                block, item = indent, None
            elif indent == level and not dash and key == "created_at":
                current["created_at"] = current["created_at"] or value
        elif dash and indent == (indent if item is None else item):
            item = indent  # the list's items: at the indentation of its first
            key_col = indent + len(dash)  # a member: its keys line up after the dash
            current["members"].append({})
            if key in ("name", "sid", "email"):
                current["members"][-1][key] = value
        elif indent == key_col and key in ("name", "sid", "email") and current["members"]:
            current["members"][-1][key] = value
    return out


# What a class folder may hold besides the submissions: Gradescope's export's metadata, notes.
NOT_SUBMISSIONS = re.compile(r"(^submission_metadata\.ya?ml$|\.(ya?ml|json|csv|txt|md|pdf)$)")

CSV_HEAD = ["student", "score", "max_score", "partial"]
CSV_TAIL = ["status", "notes", "instructor_notes", "similarity", "name", "sid", "email",
            "submitted_at"]


def class_row(e, r, meta):
    """One submission's row of grades.csv: its totals, each item, and why points were lost
    (a group's names, SIDs and emails joined by '; '; gradescope_scores.csv has one row each)."""
    extra = r["extra_data"]
    cells = []
    for t in r["tests"]:
        status = extra["status"][t["name"]]
        gate = extra.get("gates", {}).get(t["name"])
        if t["name"] in extra.get("gates", {}):
            cells.append(gate or (status if status != "graded" else "not written" if
                                  extra.get("verdict", "").startswith("not written") else
                                  "not checked"))
        elif status == "graded":
            cells.append(f"{t['score']:g}")
        elif status == "partial":
            cells.append(f"{t['score']:g} (partial)")
        else:
            cells.append(status)
    m = meta.get(e, {"members": [], "created_at": ""})
    joined = lambda k: "; ".join(x.get(k, "") for x in m["members"])
    return ([e, f"{r['score']:g}", f"{extra['max_score']:g}", "yes" if extra["partial"] else "no"] +
            cells + [extra.get("verdict", ""), " | ".join(l for l in r["output"].splitlines()[1:]
                                                          if l != WRITE_UP),
                     " | ".join(extra.get("instructor_notes", [])),
                     " ".join(f"{k}={v:.0%}" for k, v in extra.get("similarity", {}).items()),
                     joined("name"), joined("sid"), joined("email"), m["created_at"]])


def write_class(out, rows, head, meta):
    """grades.csv (one row per submission) and gradescope_scores.csv (one row per student, a
    group's members each on their own, as Gradescope's score upload matches them by email or
    SID)."""
    ordered = [rows[k] for k in sorted(rows)]
    csv_path = os.path.join(out, "grades.csv")
    with open(csv_path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(head)
        w.writerows(ordered)
    at = {c: i for i, c in enumerate(head)}
    with open(os.path.join(out, "gradescope_scores.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["Name", "SID", "Email", "Score"])
        for row in ordered:
            score = row[at["score"]] if "score" in at and at["score"] < len(row) else ""
            members = meta.get(row[0], {}).get("members") or [{"name": row[0]}]
            for m in members:
                w.writerow([m.get("name", "") or row[0], m.get("sid", ""), m.get("email", ""),
                            score])
    return csv_path, len(ordered)


def class_entries(path):
    """The submissions in a class folder (one folder or file each), in order."""
    return sorted(e for e in os.listdir(path) if not e.startswith(".") and not
                  (os.path.isfile(os.path.join(path, e)) and NOT_SUBMISSIONS.search(e)))


def read_old(csv_path):
    """(header, rows by student) of a grades.csv already there, or (None, {})."""
    if not os.path.isfile(csv_path):
        return None, {}
    with open(csv_path, newline="") as f:
        table = list(csv.reader(f))
    return (table[0] if table else None), {row[0]: row for row in table[1:] if row}


def fail(message):
    print(f"grade: {message}", file=sys.stderr)
    return 2
