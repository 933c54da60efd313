#!/usr/bin/env python3
"""The classroom kit's tests, part of `make test` (no GPU needed; run after `make all`).

 1. The markers build to the same objects with and without them (markers_same_binary.py).
 2. The default starter (every chapter with parts, the contest, the radix sort) is written; no
    solution line survives in it (check_starter.py); every chapter of it builds (each source
    that the starter changed is compiled with the course's flags for sm_90 and linked with the
    course's objects; the radix sort's is compiled, and linked only when the course's CUB sort
    object is already built, which takes 30 s alone); chapter 01's stub prints its TODO line and
    its --self-test exits 1.
 2b. A starter of chapters 1-3 with its parts written (the course's code put back): make
    SMS=90 all and make SMS=90 test pass in it, so that every build and test target tolerates
    the chapters a copy leaves out (about a minute: the copy builds its own common/).
 3. The grader (GRADE_MAX_N=70000, to keep it short): chapter 01 unchanged scores every point;
    the starter's chapter 01 scores nothing for correctness; three bugs planted in chapter 01's
    part each lose the points of the item that catches it and keep the others, and a part that
    calls the CPU reference loses every correctness point to the honesty item; where there is no
    GPU, chapter 02's GPU items say "not graded here" and the grade says partial; every
    results.json has Gradescope's fields; grade-class writes one CSV row per student.
It takes about 2 minutes on 2 busy cores (most of it nvcc); each check prints ok or FAIL.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import kit  # noqa: E402
import starter  # noqa: E402

ROOT = kit.ROOT
failures = []


def check(name, ok, detail=""):
    print(f"{'ok  ' if ok else 'FAIL'} {name}" + ("" if ok or not detail else f"\n     {detail}"),
          flush=True)
    if not ok:
        failures.append(name)


def run(cmd, env=None, cwd=ROOT):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, errors="replace")
    return r.returncode, r.stdout + r.stderr


def flags(build):
    _, out = run(["make", "-s", "--no-print-directory", "classroom-env", "SMS=90", "BUILD=" + build])
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


def build_starter(copy, tmp):
    """Compile every source of the starter that differs from the course's, link each chapter."""
    f = flags(os.path.join(tmp, "build"))
    objs = os.path.join(ROOT, "build", "common")
    host = [os.path.join(objs, o + ".o") for o in ("cli", "data", "io", "report", "selftest")]
    cuda = [os.path.join(objs, o + ".o") for o in ("cuda_util", "gpu_driver")]
    built = []
    for folder, number, sources in kit.assignments():
        if not os.path.isdir(os.path.join(copy, folder)):
            continue
        objects, compiled, linkable = [], 0, True
        for s in sources:
            mine, course = os.path.join(copy, folder, s), os.path.join(ROOT, folder, s)
            course_obj = os.path.join(ROOT, "build", os.path.basename(folder),
                                      os.path.splitext(s)[0] + ".o")
            if open(mine).read() == open(course).read():
                if os.path.isfile(course_obj):
                    objects.append(course_obj)
                else:
                    linkable = False
                continue
            if s.endswith(".cu") and not f.get("NVCC"):
                check(f"starter {folder} builds", True)
                print(f"     (skipped: no nvcc)")
                break
            obj = os.path.join(tmp, folder.replace("/", "_") + "_" + os.path.splitext(s)[0] + ".o")
            compiler = [f["CC"]] + f["CFLAGS"].split() if s.endswith(".c") else \
                [f["NVCC"]] + f["NVCCFLAGS"].split()
            status, out = run(compiler + ["-c", mine, "-o", obj], cwd=os.path.join(copy, folder))
            check(f"starter {folder}/{s} compiles with -Werror (sm_90)", status == 0, out[-800:])
            objects.append(obj)
            compiled += 1
        else:
            if not compiled:
                continue
            if not linkable:
                print(f"     {folder}: compiled, not linked (the course's objects of its other "
                      f"sources are not built: make -C {folder})")
                continue
            cu = any(s.endswith(".cu") for s in sources)
            baselines = [os.path.join(objs, os.path.splitext(b)[0] + ".o")
                         for b in kit.makefile_var(folder, "BASELINES")]
            binary = os.path.join(tmp, folder.replace("/", "_") + "_run")
            cmd = ([f["NVCC"]] + f["GENCODE"].split() if cu else [f["CC"]] + f["CFLAGS"].split()) + \
                objects + baselines + host + (cuda if cu else []) + ["-o", binary, "-lgomp"]
            status, out = run(cmd)
            check(f"starter {folder} links", status == 0, out[-800:])
            built.append((folder, binary))
    return built


def fill_parts(copy):
    """A student who has written every part: each part of every source of `copy` given the
    course's own code."""
    bodies = {name: body for _, _, ps in kit.sources_with_parts() for name, _, body in ps}
    for folder, _, sources in kit.assignments():
        for s in sources:
            path = os.path.join(copy, folder, s)
            if os.path.isfile(path):
                text = open(path).read()
                open(path, "w").write(kit.replace_parts(text, bodies, path))


def make_in(copy, *args):
    """make in a students' copy, as a student runs it (none of this make's variables)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "SMS", "CHAPTERS")}
    return run(["make", "--no-print-directory"] + list(args), env=env, cwd=copy)


def partial_copy_builds_and_tests(copy):
    """A students' copy of some chapters only, its parts written: make all and make test pass
    (every build and test target tolerates the chapters it leaves out)."""
    fill_parts(copy)
    status, out = make_in(copy, "-j2", "SMS=90", "all")
    check("a starter of chapters 1-3, parts written: make SMS=90 all passes", status == 0,
          out[-1500:])
    if status == 0:
        status, out = make_in(copy, "SMS=90", "test")
        last = out.strip().splitlines()[-1] if out.strip() else ""
        check("... and its make SMS=90 test passes", status == 0 and
              re.match(r"^\d+ passed, 0 failed, \d+ skipped$", last) is not None,
              "\n".join(l for l in out.splitlines() if l.startswith("FAIL"))[:1500] or out[-1500:])
        print("     " + last)


def grade(number, student, out, extra_env=None):
    env = dict(os.environ, GRADE_MAX_N="70000", GRADE_SEED="4242", **(extra_env or {}))
    status, text = run([sys.executable, os.path.join(kit.KIT, "grade.py"), "one", str(number),
                        student, out], env=env)
    path = os.path.join(out, "results.json")
    if status != 0 or not os.path.isfile(path):
        check(f"grade CH={number} {student} ran", False, text[-1500:])
        return None
    return json.load(open(path))


def scores(result):
    return {t["name"].split(" (")[0].split(":")[0]: t["score"] for t in result["tests"]}


def valid_results(result, name):
    """Gradescope's fields, with their types."""
    ok = (isinstance(result.get("score"), (int, float)) and
          isinstance(result.get("execution_time"), int) and
          isinstance(result.get("output"), str) and
          result.get("stdout_visibility") in ("visible", "hidden", "after_due_date", "after_published") and
          isinstance(result.get("tests"), list) and result["tests"])
    for t in result.get("tests", []):
        ok = ok and set(t) >= {"name", "score", "max_score", "output", "visibility"} and \
            isinstance(t["name"], str) and isinstance(t["score"], (int, float)) and \
            isinstance(t["max_score"], (int, float)) and isinstance(t["output"], str) and \
            t["visibility"] in ("visible", "hidden", "after_due_date", "after_published")
    ok = ok and abs(result["score"] - sum(t["score"] for t in result["tests"])) < 1e-6
    check(f"results.json of {name} has Gradescope's fields", bool(ok), json.dumps(result)[:600])


PLANTS = {
    # each: (what it does, the text changed, the items that must lose points)
    "seed-off-by-one": (
        "each slice seeded with its own inclusive prefix, prefix[t + 1]",
        [("scan_serial(in + begin, out + begin, end - begin, exclusive, prefix[t]);",
          "scan_serial(in + begin, out + begin, end - begin, exclusive, prefix[t + 1]);")],
        {"self-test battery", "in place", "hidden vectors"}),
    "signed-overflow": (
        "the aggregate summed in int32_t: overflow is undefined (UBSan), the result right",
        [("        uint32_t aggregate = 0;\n        for (size_t i = begin; i < end; ++i)\n"
          "            aggregate += (uint32_t)in[i];",
          "        int32_t aggregate = 0;\n        for (size_t i = begin; i < end; ++i)\n"
          "            aggregate += in[i];")],
        {"sanitizers"}),
    "scan-before-reduce": (
        "each slice scanned into out before its aggregate is read back: wrong only in place",
        [("        uint32_t aggregate = 0;\n        for (size_t i = begin; i < end; ++i)\n"
          "            aggregate += (uint32_t)in[i];",
          "        scan_serial(in + begin, out + begin, end - begin, 0, 0);\n"
          "        uint32_t aggregate = end > begin ? (uint32_t)out[end - 1] : 0;")],
        {"in place"}),
    "calls-the-reference": (
        "thread 0 calls the CPU reference from common/ (right results, not the student's)",
        [("        scan_serial(in + begin, out + begin, end - begin, exclusive, prefix[t]);",
          "        if (t == 0)\n            scan_reference(in, out, n, exclusive, 0);")],
        {"self-test battery", "in place", "hidden vectors"}),
}


def main():
    tmp = tempfile.mkdtemp(prefix="kit_test_")
    try:
        # 1. markers
        status, out = run([sys.executable, os.path.join(HERE, "markers_same_binary.py")])
        check("markers: same objects with and without them", status == 0, out[-1200:])
        print("     " + out.strip().splitlines()[-1])

        # 2. the starter
        copy = os.path.join(tmp, "starter")
        status, out = run([sys.executable, os.path.join(kit.KIT, "starter.py"), copy])
        check("make starter writes the default copy", status == 0 and os.path.isdir(copy), out)
        status, out = run([sys.executable, os.path.join(HERE, "check_starter.py"), copy])
        check("no solution line survives in the starter", status == 0, out[-1500:])
        print("     " + out.strip().splitlines()[-1])
        status, out = run([sys.executable, os.path.join(HERE, "check_starter.py"), ROOT])
        check("the leak check finds the solutions in the course itself (it can fail)",
              status == 1 and "LEAK" in out, out[-300:])
        status, out = run([sys.executable, os.path.join(kit.KIT, "starter.py"), copy])
        check("make starter refuses a folder that exists", status == 2, out)
        week1 = os.path.join(tmp, "week1")
        status, out = run([sys.executable, os.path.join(kit.KIT, "starter.py"), week1, "1", "2", "3"])
        links = [f"{top}/{n}: {m.group(0)}" for top, _, names in os.walk(week1) for n in names
                 if n.endswith(".md") for m in re.finditer(r"\]\((\.\./)*0[4-9]_[^)]*\)",
                                                          open(os.path.join(top, n)).read())]
        check("a starter of chapters 1-3 leaves out 04-09 and links none of them (make docs "
              "refuses links to missing pages)", status == 0 and not links and
              not os.path.exists(os.path.join(week1, "04_scan_then_fan")), "\n".join(links[:5]) or out)
        if status == 0:
            partial_copy_builds_and_tests(week1)
        built = dict(build_starter(copy, tmp))
        ch1 = built.get("01_cpu_serial")
        if ch1:
            status, out = run([ch1, "--self-test", "-n", "5000"])
            check("starter chapter 01: --self-test exits 1 and names the missing part",
                  status == 1 and "TODO three-steps" in out and "01_cpu_serial/README.md" in out
                  and re.search(r"self-test FAILED: \d+ passed, \d+ failed", out) is not None,
                  f"exit {status}: {out[-600:]}")

        # 3. the grader
        ref = os.path.join(ROOT, "01_cpu_serial", "cpu_serial.c")
        full = grade(1, ref, os.path.join(tmp, "g_ref"))
        if full:
            valid_results(full, "chapter 01")
            most = sum(t["max_score"] for t in full["tests"])
            check(f"grade: chapter 01 unchanged scores every point ({full['score']:g} of {most:g})",
                  full["score"] == most == 60 and not full["extra_data"]["partial"],
                  json.dumps(scores(full)))
            base = scores(full)
        stub = grade(1, os.path.join(copy, "01_cpu_serial"), os.path.join(tmp, "g_starter"))
        if stub:
            s = scores(stub)
            correctness = ("self-test battery", "in place", "hidden vectors")
            check("grade: the starter's chapter 01 scores 0 for correctness (build only)",
                  all(s[k] == 0 for k in correctness) and s["build"] == 5 and s["sanitizers"] == 0,
                  json.dumps(s))
        text = open(ref).read()
        for name, (what, edits, losers) in PLANTS.items():
            planted = text
            for old, new in edits:
                if old not in planted:
                    check(f"plant {name} applies", False, f"no longer matches: {old[:60]}")
                    break
                planted = planted.replace(old, new)
            path = os.path.join(tmp, "plant_" + name, "cpu_serial.c")
            os.makedirs(os.path.dirname(path))
            open(path, "w").write(planted)
            r = grade(1, path, os.path.join(tmp, "g_" + name))
            if not r or not full:
                continue
            s = scores(r)
            lost = {k for k in s if s[k] < base[k]}
            check(f"grade: plant {name} ({what}) loses exactly {', '.join(sorted(losers))}",
                  lost == losers, f"lost {sorted(lost)}: {json.dumps(s)}")
            if name == "calls-the-reference":
                honesty = next(t for t in r["tests"] if t["name"].startswith("honesty"))
                check("grade: the honesty item names scan_reference",
                      "scan_reference" in honesty["output"], honesty["output"][:300])

        # chapter 02: the GPU items without a GPU
        probe = os.path.join(ROOT, "build", "tests", "cuda_probe")
        has_gpu = os.access(probe, os.X_OK) and run([probe])[0] == 0
        if os.access(probe, os.X_OK) and not has_gpu:
            r = grade(2, os.path.join(ROOT, "02_warp_shfl"), os.path.join(tmp, "g_02"))
            if r:
                valid_results(r, "chapter 02")
                status = r["extra_data"]["status"]
                gpu_items = [t for t in r["tests"] if not t["name"].startswith(("build", "honesty"))]
                check("grade: chapter 02 without a GPU: its GPU items say 'not graded here', "
                      "count 0 of 0, and the grade says partial",
                      all(status[t["name"]] == "not graded here" and t["max_score"] == 0 and
                          t["output"].startswith("not graded here: ") for t in gpu_items)
                      and r["extra_data"]["partial"] and "PARTIAL" in r["output"]
                      and scores(r)["build"] == 5, json.dumps(r)[:800])
        else:
            print("     (chapter 02's 'not graded here' check needs a machine without a GPU "
                  "and with nvcc: skipped)")

        # the class form
        klass = os.path.join(tmp, "class")
        os.makedirs(os.path.join(klass, "ada"))
        shutil.copy(ref, os.path.join(klass, "ada", "cpu_serial.c"))
        shutil.copytree(os.path.join(copy, "01_cpu_serial"), os.path.join(klass, "bob"))
        env = dict(os.environ, GRADE_MAX_N="70000", GRADE_SEED="4242")
        status, out = run([sys.executable, os.path.join(kit.KIT, "grade.py"), "class", "1", klass,
                           os.path.join(tmp, "g_class")], env=env)
        rows = open(os.path.join(tmp, "g_class", "grades.csv")).read().splitlines() \
            if status == 0 else []
        check("grade-class: one CSV row per student, with their totals",
              len(rows) == 3 and rows[1].startswith("ada,60,60,no") and rows[2].startswith("bob,5,60,"),
              "\n".join(rows) or out[-800:])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"classroom kit: {len(failures)} checks failed" + (f": {', '.join(failures)}" if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
