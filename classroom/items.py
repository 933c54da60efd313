"""The items of a grade, and the rule that scores each (classroom/grade.py; the rubric is in
docs/instructor.md). Read top to bottom: the chapters as the grader sees them, the hidden
sizes, each item's run and rule (the speed item's: classroom/speed.py); classroom/grade.py puts
them together.

The rules, in one place:
  - honesty (a gate, classroom/gate.py): failed, every item scores 0;
  - build 5: it builds with the course's flags, warnings as errors, and no part holds its stub;
  - self-test, stress, in place, hidden vectors: all or nothing. An item scores 0 when any run
    in it produced a wrong output (on any thread count, any size, any variant): no credit from
    the runs that could not reach the bug, or that a race let pass;
  - chapter 01, threads share the work (a gate on correctness): a threaded variant in which one
    thread wrote first or last to 90 % or more of the output, or that the harness's judge timed
    no faster than its serial scan where the course's own scan ran 2x faster in its median
    round (harness_cpu.c), scores 0 in the self-test, in place and hidden vectors (45 of 60
    points), and is flagged for the instructor;
  - the self-test scores only when the harness's judge (classroom/grader/verdict.h) found the
    same battery right (chapter 01: run out of place; a GPU chapter: its in-place battery): the
    self-test's last line is the program's word;
  - sanitizers 10: each tool scores only when it found nothing and its run's outputs were
    right, and the item only when the correctness items shown before the due date (self-test,
    stress, in place) are full: never from the hidden vectors, which the student sees later (a
    GPU chapter's tools are then not run: item_runs.py);
  - speed 25: 0 when any correctness item lost points, the hidden vectors included (then it is
    not measured), so it is shown after the due date too;
  - chapter 01's work sharing passes only by the judge's own timing: where the judge cannot time
    the part (fewer than 3 CPUs, a busy machine) it is "not decided here", not run here and
    partial (no deduction), never passed on the program's own witnesses; it is "not checked"
    (no deduction) when a part with wrong outputs wrote too little to tell who did the work, and
    a part that still holds its stub is not run;
  - a case this machine could not run (the n > 2^31 vector without the memory) is shown to the
    student and the instructor as "not run here", and its item is marked partial, never ok;
    an item that needs a GPU where there is none is "not graded here", out of 0.
"""
import os
import random
import re

import runs
from runs import ROOT, log, max_n, run, tail  # noqa: F401 (log: for grade.py)
from sandbox import judge_env
from speed import speed, speed_draw  # noqa: F401 (the speed item: classroom/speed.py)

# The chapters as the grader sees them: the variant its speed item times, the tile near whose
# multiples the hidden sizes sit, whether it is a single-pass chapter (--stress), the segment
# length of the segmented scans of chapters 02 and 03 (each segment scanned on its own), and the
# variants the n > 2^31 case runs where not all (those that run the student's parts).
CHAPTERS = {
    1: {"cpu": True, "tile": None},
    2: {"speed": "shfl", "tile": 512, "segment": 32, "extra": [31, 33, 32 * 1000 + 7],
        "big_variants": "shfl"},
    3: {"speed": "sklansky", "tile": 1024, "segment": 1024, "big_variants": "sklansky,coarsened"},
    4: {"speed": "scan-then-fan", "tile": 1024, "extra": [(1 << 20) - 1, (1 << 20) + 1,
                                                         (1 << 20) + 1025, 1024 * 1025 * 3]},
    5: {"speed": "reduce-then-scan", "tile": 1024, "extra": [(1 << 21) + 1, (1 << 22) - 3,
                                                            29999999]},
    6: {"speed": "held-max", "tile": 1024, "stress": True,  # chunks of 4, 16, 56 (H200), 256 tiles
        "big_variants": "held-max",
        "extra": [4096 + 1, 16384 - 1, 16384 + 1, 57344 - 1, 57344 + 1, 262144 * 5 + 7]},
    7: {"speed": "decoupled-lookback", "tile": 1024, "stress": True,
        "extra": [32 * 1024, 32 * 1024 + 1, 33 * 1024 + 5, 64 * 1024 + 1]},
    8: {"speed": "decoupled-lookback", "tile": 4096, "stress": True, "contest": True,
        "sanitize_variant": "decoupled-lookback", "file_variant": "decoupled-lookback",
        "extra": [32 * 4096 + 1, 256 * 4096 + 3, 257 * 4096 - 1]},
    "radix": {"radix": True, "speed": "radix-sort", "tile": 2048, "sanitize_variant": "radix-sort",
              "file_variant": "radix-sort", "extra": [255, 257, 2048 * 33 + 1]},
}

# Chapter 01's thread counts: its slices come from omp_get_max_threads(), so the grader sets
# OMP_NUM_THREADS itself, whatever the grading machine's CPU count: a part that ignores the
# slices' prefixes passes with one thread, and a one-CPU container must not grade it right.
CPU_THREADS = (1, 3, 4, 7)
# The n > 2^31 case: one array of this many int32 (8 GiB), in place.
BIG_N = (1 << 31) + (1 << 17) + 7
# The largest size of the self-test battery below the n > 2^31 case, which the grader runs
# itself (the hidden vectors' item, in place) rather than the self-test's (three arrays).
BATTERY_MAX = (1 << 24) + 1


def item(name, max_score, visibility="visible"):
    return {"name": name, "max_score": max_score, "score": 0.0, "output": "",
            "visibility": visibility, "status": "graded"}


def not_here(it, why):
    it.update(status="not graded here", max_score=0, score=0.0,
              output=f"not graded here: {why}. This item counts when graded on a machine that has "
                     f"what it needs; the grade below is partial.")
    return it


def default_env():
    """A chapter 01 run as a student runs it (the fourth gaming review, S01: a part right only
    when OMP_NUM_THREADS was set by hand scored 60/60): no OpenMP variable at all, so the
    program takes the machine's default thread count (its CPUs)."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_"))}


def self_test_envs(cfg, envs):
    """The self-test item's runs: chapter 01's thread counts, and once as a student runs it
    (default_env()); all-or-nothing like the others."""
    return envs + ([("OMP_NUM_THREADS unset (the default, as you run it)", default_env())]
                   if cfg.get("cpu") else [])


# Thread binding the grading machine's environment may ask for: the judge's threads would start
# pinned, which its timing reads as fewer CPUs, or, where each thread is pinned apart, as a
# change made by the part (harness_cpu.c, guard_team()): a chapter 01 run never gets it.
OMP_BINDING = ("OMP_PROC_BIND", "OMP_PLACES", "GOMP_CPU_AFFINITY")


def omp_env(threads, **more):
    """The environment of a chapter 01 run on `threads` OpenMP threads (never fewer: not
    dynamic; a thread that waits sleeps, so that its CPU time is its work: harness_cpu.c;
    unbound: OMP_BINDING)."""
    env = {k: v for k, v in os.environ.items() if k not in OMP_BINDING}
    return dict(env, OMP_NUM_THREADS=str(threads), OMP_DYNAMIC="false",
                OMP_WAIT_POLICY="passive", **more)


# ---------------------------------------------------------------------------------------------
# The hidden vectors
# ---------------------------------------------------------------------------------------------

def hidden_sizes(cfg, seed, threads=None):
    """Sizes near the places where the chapter's structure changes: tile and grid boundaries
    (for chapter 01, given `threads`, the slices of that many threads), whose offsets beyond
    ±1 come from the seed, so that the sizes a student may read in this file are not all the
    sizes graded."""
    rng = random.Random(f"{seed}/{threads or cfg['tile']}")
    if threads:
        sizes = [threads - 1, threads + 1, 7 * threads + rng.randrange(1, threads + 1),
                 (1 << 20) + rng.randrange(1, 4096)]
    else:
        tile = cfg["tile"]
        sizes = [tile - 1, tile + 1, 2 * tile - 1, 3 * tile + 1,
                 rng.randrange(900, 1100) * tile + rng.randrange(1, tile),
                 (1 << 24) + rng.randrange(1, 4096), 50000000 + rng.randrange(1, 100000)]
        sizes += cfg.get("extra", [])
    cap = max_n()
    return sorted({s for s in sizes if s > 0 and (cap is None or s <= cap)})


def shared_cpu_sizes(seed):
    """Chapter 01's larger sizes, run with every thread count of CPU_THREADS."""
    rng = random.Random(f"{seed}/cpu")
    cap = max_n()
    return [s for s in ((1 << 24) + rng.randrange(1, 4096), 3000000 + rng.randrange(1, 100000))
            if cap is None or s <= cap]


class HiddenRuns:
    """The hidden runs of a chapter for a seed: `files`, as (n, exclusive, in place, threads),
    each a run of the chapter's own program on a vector file (--input, --output), and `big`,
    the n > 2^31 case that the grader's harness runs in place (None for the radix sort, whose
    sizes stop at 50 million), with `big_why` when GRADE_MAX_N leaves it out."""

    def __init__(self, cfg, seed):
        self.seed, self.files = seed, []
        modes = [False] if cfg.get("radix") else [False, True]
        if cfg.get("cpu"):
            for k in CPU_THREADS:
                self.files += [(n, e, False, k) for n in hidden_sizes(cfg, seed, k) for e in modes]
            for n in shared_cpu_sizes(seed):
                self.files += [(n, e, False, k) for k in CPU_THREADS for e in modes]
            small = hidden_sizes(cfg, seed, CPU_THREADS[-1])
            if small:
                self.files.append((small[-1], False, True, CPU_THREADS[-1]))
        else:
            sizes = hidden_sizes(cfg, seed)
            self.files += [(n, e, False, None) for n in sizes for e in modes]
            if sizes and not cfg.get("radix"):
                self.files.append((sizes[len(sizes) // 2], False, True, None))
        self.big = None if cfg.get("radix") else BIG_N
        self.big_why = None
        if self.big and max_n() is not None and max_n() < BIG_N:
            self.big, self.big_why = None, f"GRADE_MAX_N={max_n()} limits the sizes"


# ---------------------------------------------------------------------------------------------
# Running the student's programs
# ---------------------------------------------------------------------------------------------

def last_line_is(out, pattern):
    lines = [l for l in out.strip().splitlines() if l.strip()]
    return bool(lines) and re.match(pattern, lines[-1]) is not None


MACHINE_NOTE = re.compile(r"note: more OpenMP threads than logical CPUs")
FAILURE = re.compile(r"^\s*(FAIL|WRONG)\b|\bwrong\b|FAILED|WRONG|^TODO ")


def excerpt(out, n=14):
    """What a failed run printed, for the student: its first lines (what ran), the first
    failure with the lines under it (its header: size, pattern, variant, first wrong element),
    and its last lines (the count); not a tail that starts mid-stream. Notes about the grading
    machine (chapter 01's "more OpenMP threads than logical CPUs") are left out: the grader
    chooses the thread counts, and the note says nothing about the student's code."""
    lines = [runs.clip(l) for l in out.rstrip().splitlines()
             if l.strip() and not MACHINE_NOTE.search(l)]
    if len(lines) <= n:
        return "\n".join(lines)
    first = next((i for i, l in enumerate(lines) if FAILURE.search(l)), None)
    keep = list(range(3)) + (list(range(first, min(first + 6, len(lines)))) if first is not None
                             else []) + list(range(len(lines) - 3, len(lines)))
    out_lines, last = [], -1
    for i in sorted(set(keep)):
        if i > last + 1:
            out_lines.append("  ...")
        out_lines.append(lines[i])
        last = i
    return "\n".join(out_lines)


def runs_of(cmd, envs, pattern, sb, outputs=None):
    """Run the student's cmd (through the Sandbox sb) once per (label, environment); (all
    passed?, output). The output has one line per labelled run and the first failure's excerpt
    (or, with one unlabelled run, its own lines). Each run's whole output is added to `outputs`
    when given."""
    lines, failure = [], None
    for label, e in envs:
        status, out = sb.run(cmd, env=e)
        if outputs is not None:
            outputs.append(out)
        ok = status == 0 and last_line_is(out, pattern)
        last = runs.clip(([l for l in out.strip().splitlines() if l.strip()] or
                          ["(no output)"])[-1])
        if label:
            lines.append(f"{label}: {'passed' if ok else 'FAILED'}: {last}")
        if not ok and failure is None:
            failure = (label, status, out)
    if failure is None:
        return True, "\n".join(lines) if lines else tail(out, 14)
    label, status, out = failure
    return False, "\n".join(lines + ([f"the first failure ({label}):"] if label else []) +
                            [excerpt(out), f"(exit status {status})"])


def battery_args():
    """-n for the self-test and the in-place battery: GRADE_MAX_N, or the battery's sizes below
    the n > 2^31 case (the hidden vectors' item runs that one, in place)."""
    return ["-n", str(min(max_n() or BATTERY_MAX, BATTERY_MAX))]


SHARE_VERDICTS = ("ONE THREAD:", "threads shared the work", "work sharing not checked",
                  "work sharing not decided here")
# the judge's count of void rounds (harness_cpu.c, timing_finding()): for the instructor only, as
# it would tell a part that loads the machine whether the judge saw it (review 0412h)
VOID = re.compile(r"; \d+ other round\(s\) void: the program's processes ran while the judge "
                  r"timed its own scans")
# the judge's "too slow to tell" (harness_cpu.c, timing_finding()): its numbers, for the texts
SLOW = re.compile(r"too slow to tell: on (?P<threads>\d+) threads the threaded variant ran "
                  r"(?P<part>[\d.]+)x .*?the course's own scan [\d.]+x \((?P<course>[\d.]+)x in "
                  r"its median round\).*?; 'shared' needs (?P<needs>[\d.]+)x "
                  r"\((?P<share>[\d.]+) of")

# the judge's turns in which it could not see where the threads waited: the instructor's only
UNLOOKED = re.compile(r"; the judge could not see where the program's threads waited in \d+ "
                      r"turn\(s\)")


def student_words(verdict):
    """A verdict on the work sharing without what only the instructor reads (VOID, UNLOOKED)."""
    return UNLOOKED.sub("", VOID.sub("", verdict))


# the judge's "a thread beside the team" (harness_cpu.c, timing_finding()): its count
BESIDE = re.compile(r"the judge does not call it shared: the program had (?P<threads>\d+) "
                    r"thread\(s\) beside its main thread and its idle OpenMP workers")


def in_place(cfg, it, h, envs, sb, seed, work_sharing):
    """The in-place item, through the harness; chapter 01's harness also says whether the
    threads shared the work (work_sharing: the item of that gate). Only the harness's verdicts
    count (the lines with the run's token: sandbox.Sandbox.harness()): each run must say exactly
    one final verdict, and chapter 01's each one verdict on the work sharing; a missing or a
    repeated verdict is a failure, never a pass."""
    it["out_of_place"] = False
    if h is None:
        it["output"] = "the in-place harness did not build"
        return
    if not sb.intact(h):
        it["output"] = "not run: the grader's harness changed while your code ran"
        return
    cmd = [h] + (["--self-test"] if cfg.get("cpu") else ["--in-place"]) + battery_args()
    lines, failure, shares = [], None, []
    it["out_of_place"] = True  # chapter 01: the judged out-of-place battery (the self-test's)
    for label, e in envs:
        status, out, said = sb.harness(cmd, seed, "in-place/" + label, env=judge_env(cfg, e))
        final = [v for v in said if v.startswith("in place ")]
        oop = [v for v in said if v.startswith("out of place ")]
        it["out_of_place"] &= len(oop) == 1 and oop[0].startswith("out of place passed")
        share = [v for v in said if v.startswith(SHARE_VERDICTS)]
        shares.append(share)
        ok = status == 0 and len(final) == 1 and \
            re.match(r"^in place passed: \d+ passed, 0 failed$", final[0]) is not None
        last = final[0] if len(final) == 1 else (
            "the harness gave no verdict" if not final else "the harness's verdict came "
            f"{len(final)} times (only one is the harness's)")
        if label:
            lines.append(f"{label}: {'passed' if ok else 'FAILED'}: {last}")
        if not ok and failure is None:
            failure = (label, status, out if final else out.rstrip() + "\n" + last)
    if failure is None:
        it["score"] = it["max_score"]
        it["output"] = "\n".join(lines) if lines else tail(out, 14)
    else:
        label, status, out = failure
        it["output"] = "\n".join(lines + ([f"the first failure ({label}):"] if label else []) +
                                 [excerpt(out), f"(exit status {status})"])
    if work_sharing is not None:
        judge_work_sharing(shares, envs, work_sharing)


def judge_work_sharing(shares, envs, work_sharing):
    """Chapter 01's work-sharing gate into `work_sharing` (its item) from the harness's verdicts
    on the work sharing, one list per run of `envs` (label, environment): failed where a run
    says one thread did the scan or a verdict is missing or repeated, passed where the judge's
    timing says shared, else partial (not decided here: the student and the instructor told
    why) or not checked."""
    one = [v for share in shares for v in share if v.startswith("ONE THREAD:")]
    odd = [k for k, share in enumerate(shares) if len(share) != 1]
    if any("tampering with the grader's timing" in v for v in one):
        # the judge's CPUs, nice value or limits changed (S02, S08 of the fourth gaming
        # review), a process the part started outlived it (harness_cpu.c, started_process()),
        # or one started in the judge's turn moved the run's last PID (last_pid()): only the
        # program's own processes can do that
        work_sharing["instructor"] = (
            "tampering: " + next(v for v in one if "tampering" in v)[len("ONE THREAD: "):] +
            "; the work-sharing gate failed: read the part")
    if one:
        said = one[0][len("ONE THREAD: "):]
        why = "The threaded variant must share the scan among its threads"
        if "tampering with the grader's timing" in said:
            # what the student reads of tampering: not which look saw it (the instructor's
            # note above has that)
            said = ("your program changed the grader's settings, or started a process or thread "
                    "of its own, while it was graded, which the rules forbid (tampering with the "
                    "grader's timing)")
            why = "The rules forbid it"
        work_sharing.update(status_gate="failed",
                            output=student_words(said) + f"\n{why}: the "
                            "self-test, in place and hidden vectors score 0 (45 of 60 points).")
    elif odd:
        work_sharing.update(status_gate="failed", output=(
            f"the harness's verdict on the work sharing is missing or repeated in the run "
            f"{envs[odd[0]][0]}: a run must end as the harness ends it, without the output "
            f"of its verdicts lost or added to (scored as threads that do not share the work)"))
    elif not any(v.startswith("threads shared") for share in shares for v in share) and \
            any(v.startswith("work sharing not decided here") for s in shares for v in s):
        # the judge could not time the part here, and the program's own witnesses cannot
        # say "shared" (review 3, #2): not run here, the item partial, no deduction
        # (instructor review 3, #1: the student reads what happens, the judge's reasons and
        # the advice go to the instructor)
        undecided = [v[len("work sharing not decided here: "):] for s in shares for v in s
                     if v.startswith("work sharing not decided here")]
        # a run the judge timed, where the part gained too little beside the course's scan
        # to call it shared (share_rule.h), says more than a run it could not time
        slow = [v for v in undecided if SLOW.match(v)]
        beside = [v for v in undecided if BESIDE.search(v)]
        if beside:
            work_sharing.update(status_gate=None, partial=True, output=(
                "not decided: after your threaded variant returned, the grader saw what looked "
                "like a thread that OpenMP did not start. If your variant starts no threads of "
                "its own (OpenMP only), nothing is wrong: your instructor reads your code. You "
                "lose no points for it now."), instructor=(
                "work sharing not decided here: " + UNLOOKED.sub("", beside[-1]) + ". A part "
                "may start threads only through OpenMP: look for one reached around the gate "
                "(address arithmetic on a library's symbol or on stdout) and take the 45 points "
                "if you find one; if you find none, decide it as any undecided part (a regrade "
                "usually finds the thread again: docs/instructor.md, \"What an undecided work "
                "sharing asks of you\")."))
        elif slow:
            m = SLOW.match(slow[-1])  # the run of the most threads
            work_sharing.update(status_gate=None, partial=True, output=(
                f"not decided: on {m['threads']} threads your threaded variant ran about "
                f"{float(m['part']):.1f}x as fast as a serial scan (its best of several "
                f"timings); the grader calls the work shared from about "
                f"{float(m['needs']):.1f}x, {m['share']} of what the course's own threaded scan "
                f"reached there. You lose no "
                f"points for it now: your instructor reads your code, and a variant in which "
                f"each thread scans its own part of the array keeps them (ASSIGNMENT.md says "
                f"how to time it yourself)."), instructor=(
                "work sharing not decided here: " + UNLOOKED.sub("", slow[-1]) +
                ". Regrade it on a quiet machine if this one was busy (docs/instructor.md, "
                "\"What an undecided work sharing asks of you\"); if it stays there, read the "
                "part: an honest but slow "
                "threaded scan lands here (it keeps its points), and so would a serial scan "
                "timed against a slow serial reference (take the 45 points by hand)."))
        else:
            work_sharing.update(status_gate=None, partial=True, output=(
                "not run here: the work sharing could not be decided on this machine (its "
                "timing needs idle cores); your instructor decides it later, and no points "
                "are taken for it now."), instructor=(
                "work sharing not decided here: " + UNLOOKED.sub("", undecided[-1]) +
                ". Regrade it on a quiet machine (docs/instructor.md, \"What an undecided "
                "work sharing asks of you\"), or read the part."))
    elif not any(v.startswith("threads shared") for share in shares for v in share):
        # not a pass, not a failure: the output was not written (a stub); it scores 0 anyway
        said = next((v for share in shares for v in share if "wrote too little" in v),
                    "work sharing not checked: no run had threads to share the work")
        work_sharing.update(status_gate=None, output="not checked: " +
                            said[len("work sharing not checked: "):])
    else:
        said = [v for share in shares for v in share if v.startswith("threads shared")]
        work_sharing.update(status_gate="passed", output="passed: " + "\n".join(
            student_words(v[len("threads shared the work: "):]) for v in said))
    voided = [v for share in shares for v in share if VOID.search(v)]
    if voided:  # the count the student's text leaves out
        work_sharing["instructor"] = (work_sharing.get("instructor", "") + " The judge voided "
                                      "timing rounds: " + voided[0]).lstrip()
    unlooked = [v for share in shares for v in share if UNLOOKED.search(v)]
    if unlooked:
        work_sharing["instructor"] = (work_sharing.get("instructor", "") + " " +
                                      UNLOOKED.search(unlooked[0]).group(0)[2:] +
                                      " (the kernel refused the read, or the program had more "
                                      "than 1024 threads): only its CPU-time checks watched "
                                      "them.").lstrip()


def hidden_file_run(b, cfg, made, sb, k, n, exclusive, in_place_, threads):
    """One hidden run of the chapter's program on a vector file: (ok, what, why)."""
    path = made.vector[n]
    target = sb.output_file(f"hidden_{k}.bin", path if in_place_ else None)
    # a chapter that runs CUB beside the student's code writes the last variant's output:
    # the student's variant alone, so that the file checked is theirs
    cmd = [b.run, "--input", target if in_place_ else path, "--output", target] + \
          (["--exclusive"] if exclusive else []) + \
          (["--variant", cfg["file_variant"]] if cfg.get("file_variant") else [])
    status, out = sb.run(cmd, env=omp_env(threads) if threads else None)
    what = (f"hidden vector {k}, n = {n}" + (", exclusive" if exclusive else "") +
            (", in place" if in_place_ else "") + (f", OMP_NUM_THREADS={threads}" if threads else ""))
    if status != 0:
        said = [l.strip() for l in out.splitlines() if FAILURE.search(l)]
        first = [l.strip() for l in out.splitlines() if "elements wrong; first at" in l]
        ok, why = False, f"the program exited {status}: " + " ".join(
            ((said[0] if said else tail(out, 2)) + (f"; {first[0]}" if first else "")).split())
    elif not sb.intact(made.check):
        ok, why = False, "the grader's checker changed while your program ran"
    elif os.path.islink(target) or not os.path.isfile(target):
        ok, why = False, "the output is not a plain file"
    else:
        c, said = run([made.check, "sort-seed" if cfg.get("radix") else "scan-seed",
                       str(runs.c_seed(made.runs.seed)), str(n), target] +
                      ([] if cfg.get("radix") else ["exclusive" if exclusive else "inclusive"] +
                       ([str(cfg["segment"])] if cfg.get("segment") else [])))
        ok, why = c == 0, said.strip() + ("" if c == 0 else
                                          " (the program said it was right; the grader's check "
                                          "says it is not)")
    if os.path.exists(target):
        os.remove(target)
    return ok, what, unnamed(why, {target: "the output file", path: f"hidden vector {k}"})


def unnamed(text, names):
    """A text shown to the student without the grading machine's paths: each of `names` said
    in words, any other hidden vector's file name (its hash) and the course's folder left out."""
    for path, words in names.items():
        text = text.replace(path, words)
    text = re.sub(r"\S*vector_[0-9a-f]{8,}_\d+\.bin", "a hidden vector", text)
    return text.replace(ROOT + os.sep, "")


def big_run(b, cfg, made, sb):
    """The n > 2^31 case through the harness: (ok or None when not run here, lines)."""
    h, n = made.harness, made.runs.big
    if h is None:
        return False, ["WRONG n > 2^31: the harness did not build"]
    if not sb.intact(h):
        return False, ["WRONG n > 2^31: the grader's harness changed while your code ran"]
    if cfg.get("cpu"):
        threads = CPU_THREADS[-1]
        status, out, said = sb.harness([h, "--self-test"], made.runs.seed, "big",
                                       env=omp_env(threads, GRADE_BIG=str(n)))
    else:
        variants = cfg.get("big_variants") or cfg.get("file_variant")
        status, out, said = sb.harness([h, "--big", str(n)] +
                                       (["--variant", variants] if variants else []),
                                       made.runs.seed, "big", env=judge_env(cfg))
    said = [v[len("big: "):] for v in said if v.startswith("big: ")]
    if status == 0 and said and all(l.startswith("not run here") for l in said):
        return None, said[:1]
    if status == 0 and said and all(l.endswith("right") for l in said):
        return True, [f"ok    {l}" for l in said]
    return False, [f"WRONG {l}" for l in said if not l.endswith("right")] or \
        [f"WRONG n = {n}, in place: exit status {status}: {tail(out, 3)}"]


def hidden(b, cfg, it, made, sb, pool):
    """The hidden runs, each output checked, every element, by the grader's own checker
    against the vector made again; all must be right. The runs go to `pool`; the returned
    function waits for them and scores the item."""
    rs = made.runs
    # the n > 2^31 case first: the longest run, so that it does not end the item alone
    big = pool.submit(big_run, b, cfg, made, sb) if rs.big else None
    futures = [pool.submit(hidden_file_run, b, cfg, made, sb, k, *r)
               for k, r in enumerate(rs.files)]

    def collect():
        results = [f.result() for f in futures]
        passed = sum(ok for ok, _, _ in results)
        lines = [f"WRONG {what}: {why}" for ok, what, why in results if not ok]
        if len(results) <= 24:
            lines += [f"ok    {what}" for ok, what, _ in results if ok]
        else:
            lines.append(f"ok    the other {passed} runs")
        total, right = len(results), passed
        if big:
            ok, said = big.result()
            if ok is None:
                lines.append(f"not run here: the n > 2^31 case ({said[0][len('not run here: '):]})")
                it["status"] = "partial"
            else:
                total, right = total + 1, right + ok
                lines += said
        elif rs.big_why:
            lines.append(f"not run here: the n > 2^31 case ({rs.big_why})")
            it["status"] = "partial"
        it["score"] = it["max_score"] if total and right == total else 0.0
        it["output"] = f"{right} of {total} right" + (
            "" if right == total else ": every run must be right for this item's points") + \
            "\n" + "\n".join(lines)
    return collect


def sanitizers(b, cfg, it, env, made, sb, pool, wrong_first=None):
    """Chapter 01: AddressSanitizer and UBSan on --self-test -n 70000 (7 threads); the GPU
    chapters: compute-sanitizer memcheck 4, racecheck 3, synccheck 3 on --self-test -n 1100.
    A tool scores when it found nothing and the self-test it ran passed. The runs go to `pool`;
    the returned function waits for them and scores the item. wrong_first (a GPU chapter): called
    in each tool's task before it runs, it names the items shown before the due date that had a
    wrong output (it waits for their runs); then no tool runs, and the item scores 0, as it would
    anyway."""
    if cfg.get("cpu"):
        binary = made.asan
        if not binary:
            it["output"] = "the ASan/UBSan build failed:\n" + tail(made.asan_log, 20)
            return lambda: None
        if not sb.intact(binary):
            it["output"] = "not run: the grader's sanitizer build changed while your code ran"
            return lambda: None
        cap = min(70000, max_n() or 70000)
        threads = CPU_THREADS[-1]
        future = pool.submit(sb.run, [binary, "--self-test", "-n", str(cap)],
                             env=omp_env(threads, ASAN_OPTIONS="detect_leaks=0:exitcode=99",
                                         UBSAN_OPTIONS="print_stacktrace=1:exitcode=99"))

        def collect_cpu():
            status, out = future.result()
            found = status not in (0, 1) or "ERROR: AddressSanitizer" in out or \
                "runtime error:" in out
            right = status == 0 and last_line_is(out, r"^self-test passed")
            it["score"] = 10 if right and not found else 0
            it["output"] = (f"AddressSanitizer and UBSan, --self-test -n {cap}, OMP_NUM_THREADS="
                            f"{threads}: ") + ("FOUND ERRORS (exit %d)\n" % status + tail(out, 20)
                                               if found else "clean" if right else
                                               "clean, but its self-test FAILED (no points: the "
                                               "outputs must be right)")
        return collect_cpu
    tool = runs.sanitizer_path(env)
    if not tool:
        not_here(it, "compute-sanitizer is not installed here")
        return lambda: None
    points = {"memcheck": 4, "racecheck": 3, "synccheck": 3}
    args = ["--self-test", "-n", "1100"]
    if cfg.get("sanitize_variant"):
        args += ["--variant", cfg["sanitize_variant"]]

    def one(name):
        wrong = wrong_first() if wrong_first else ""
        if wrong:
            return None, wrong
        return sb.run([tool, "--tool", name, "--error-exitcode", "99", b.run] + args)
    futures = {name: pool.submit(one, name) for name in points}

    def collect():
        lines, score = [], 0
        for name, p in points.items():
            status, out = futures[name].result()
            if status is None:
                lines.append(f"{name}: not run: an output was wrong in {out} (the sanitizers "
                             f"score only when the outputs are right: 0)")
                continue
            ok = status == 0 and re.search(r"^self-test passed: \d+ passed, 0 failed", out, re.M)
            score += p if ok else 0
            lines.append(f"{name}: " + ("clean" if ok else "FOUND ERRORS (exit %d)" % status
                                        if status not in (0, 1) else
                                        "its self-test FAILED (no points: the outputs must be "
                                        "right)") + ("" if ok else "\n" + tail(out, 8)))
        it["score"] = score
        it["output"] = f"compute-sanitizer on {' '.join(args)}\n" + "\n".join(lines)
    return collect
