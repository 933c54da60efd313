"""A submission's runs, in order and side by side (classroom/grade.py): what the grader runs
beside the student's code made first, then the correctness runs and the sanitizers on a pool of
runs.jobs() threads (each item's runs queued in turn: the self-test, stress, in place, the hidden
vectors with the n > 2^31 case first, the sanitizers last), then the speed alone. Where the
outcome is already decided the runs are not made: the sanitizers of a GPU chapter wait for the
runs of the items shown before the due date and are not run when an output there was wrong (they
would score 0), and the speed is not measured when any correctness item lost points (0 anyway:
items.py's rules). Each item's runs add up their seconds (results.json's extra_data.seconds,
for the instructor and classroom/tests/gpu_batch.py).
"""
import concurrent.futures
import os
import threading
import time

import items
import reports
import runs
import sandbox
from items import CPU_THREADS, omp_env, runs_of
from runs import ROOT


class Timed:
    """A pool whose tasks add their seconds to an item's "seconds" (to(item): the same pool,
    for another item)."""

    _lock = threading.Lock()

    def __init__(self, pool, it):
        self.pool, self.it = pool, it

    def to(self, it):
        return Timed(self.pool, it)

    def submit(self, fn, *args, **kwargs):
        it = self.it

        def timed():
            t = time.time()
            try:
                return fn(*args, **kwargs)
            finally:
                with Timed._lock:
                    it["seconds"] = it.get("seconds", 0.0) + time.time() - t
        return self.pool.submit(timed)


def run_items(b, cfg, env, seed, seed_set, gpu, work, it_self, it_stress, it_place, it_hidden,
              it_san, it_speed, it_share, instructor, reasons, phases):
    """Every run of the items: what the grader runs beside the student's code made first
    (runs.Made), the correctness runs and the sanitizers side by side (runs.jobs()), then the
    speed alone. Each item's runs add their seconds to its "seconds", and `phases` gets the
    seconds of each phase (made, runs, speed)."""
    t = time.time()
    vectors = os.path.join(b.env["BUILD"], "grade", "vectors")
    os.makedirs(vectors, exist_ok=True)
    hidden_runs = items.HiddenRuns(cfg, seed)
    made = runs.Made(b, cfg, env, vectors, hidden_runs,
                     it_place is not None or bool(hidden_runs.big) or
                     (it_speed is not None and not cfg.get("radix")))
    sb = sandbox.Sandbox(work, [p for p in (b.run, made.harness, made.asan) if p],
                      list(made.vector.values())[:1], gpu[0] and not cfg.get("cpu"))
    if sb.note:
        instructor.append(sb.note)
    phases["made"] = time.time() - t
    envs = ([(f"OMP_NUM_THREADS={k}", omp_env(k)) for k in CPU_THREADS]
            if cfg.get("cpu") else [("", dict(os.environ))])
    battery = items.battery_args()
    share = {} if it_share else None
    t = time.time()
    with concurrent.futures.ThreadPoolExecutor(runs.jobs(cfg.get("cpu"))) as whole:
        pool = Timed(whole, it_self)
        # the self-test also as a student runs it: no OpenMP variables (S01 of the fourth
        # gaming review)
        f_self = pool.submit(runs_of, [b.run, "--self-test"] + battery,
                             items.self_test_envs(cfg, envs),
                             r"^self-test passed: \d+ passed, 0 failed$", sb)
        f_stress = it_stress and pool.to(it_stress).submit(runs_of, [b.run, "--stress", "200"] +
                                             (["-n", str(runs.max_n())] if runs.max_n() else []),
                                             envs, r"^stress test passed", sb)
        place = (items.in_place, cfg, it_place, made.harness, envs, sb, seed, share)
        # chapter 01's in-place runs hold the judge's timing of the work sharing: they run
        # alone, after every other run, so that the grader's own runs (several at once on 16
        # cores and more, runs.jobs()) never crowd the timing into "not decided" (instructor
        # review 3, #4)
        alone = bool(cfg.get("cpu") and it_place)
        f_place = it_place and not alone and pool.to(it_place).submit(*place)

        def visible_wrong():
            """The items shown before the due date whose runs gave a wrong output (the
            sanitizers then score 0, items.py: they wait for those runs, which were queued
            first, and are not run)."""
            bad = [it_self] if not f_self.result()[0] else []
            if f_stress and not f_stress.result()[0]:
                bad.append(it_stress)
            if f_place:
                f_place.result()
                if it_place["score"] < it_place["max_score"]:
                    bad.append(it_place)
            return ", ".join(reports.short(i) for i in bad)
        collect_hidden = items.hidden(b, cfg, it_hidden, made, sb, pool.to(it_hidden))
        collect_san = items.sanitizers(b, cfg, it_san, env, made, sb, pool.to(it_san),
                                       None if cfg.get("cpu") else visible_wrong)
        ok, it_self["output"] = f_self.result()
        it_self["score"] = it_self["max_score"] if ok else 0
        if f_stress:
            ok, it_stress["output"] = f_stress.result()
            it_stress["score"] = it_stress["max_score"] if ok else 0
        collect_hidden()
        collect_san()
        if alone:
            f_place = pool.to(it_place).submit(*place)
        if f_place:
            f_place.result()
            # the self-test's last line is the program's own word: its points need the judge's
            # check of the same battery (classroom/grader/verdict.h): chapter 01's out of place,
            # a GPU chapter's in place
            judged = it_place.pop("out_of_place") if cfg.get("cpu") else \
                it_place["score"] == it_place["max_score"]
            it_place.pop("out_of_place", None)
            if not judged and it_self["score"]:
                it_self["score"] = 0
                it_self["output"] += ("\n(scored 0: the grader's judge, which checks every output "
                                      "itself, did not find the " + ("out-of-place" if
                                                                     cfg.get("cpu") else
                                                                     "in-place") +
                                      " battery right)")
    if share is not None:
        it_share["output"] = share.get("output", "not checked (the in-place harness did not run)")
        it_share["gate"] = share.get("status_gate")
        if share.get("partial"):
            it_share["status"] = "partial"
        if share.get("instructor"):
            instructor.append(share["instructor"])
    phases["runs"] = time.time() - t
    wrong = [i for i in (it_self, it_stress, it_place, it_hidden)
             if i and i["status"] in ("graded", "partial") and i["score"] < i["max_score"]]
    if it_speed and it_speed["status"] == "graded" and wrong:
        # a wrong output anywhere takes the speed (items.py): it is not measured
        it_speed["output"] = ("not run: an output was wrong in " +
                              ", ".join(reports.short(i) for i in wrong) +
                              ", and a wrong output takes the speed: 0")
    elif it_speed and it_speed["status"] == "graded":
        t = time.time()
        items.speed(b, cfg, it_speed, made, sb, seed, seed_set)
        it_speed["seconds"] = phases["speed"] = time.time() - t
    sb.close()
    if sb.leftovers:
        instructor.append("the grader could not remove what the runs left (the machine's "
                          "problem, not a score): " + "; ".join(sb.leftovers[:3]))
    if sb.tampered:
        reasons.append("the grader's own files changed while your programs ran ("
                       + ", ".join(os.path.relpath(t, ROOT) if t.startswith(ROOT) else t
                                   for t in sb.tampered[:3]) + ")")
    return sb.interrupted, sb.killed
