#!/usr/bin/env python3
"""`make gradescope-zip CH=N [OUT=file.zip]`: Gradescope's autograder for chapter N (1-8, radix).

The zip holds what grading needs of the course as git has it: the chapters (their solutions:
the grader builds the course's own code around a student's parts), common/, tests/, the kit
and the Makefiles; not docs/ (the answers, the instructor's guide, the notes), bench/, nor
tests/plant_bugs.sh. At its top are the two files Gradescope runs, setup.sh and run_autograder
(from classroom/gradescope/), and grade.env:

    GRADE_CH=N          the chapter graded
    GRADE_SEED=...      the hidden vectors' seed: $GRADE_SEED when set, else a new random one,
                        printed (keep it: a regrade with the same seed gives the same vectors)
    SMS=...             the GPU architecture setup.sh builds for ($SMS, default 90)

The zip is the instructor's: it holds the solutions and your seed, so it must never reach
students (Gradescope does not show it to them; run_autograder makes the solutions and grade.env
unreadable to any user but root; the students' programs run as users of their own).
Default OUT: build/gradescope/chapter-N.zip. Exit status: 0 written; 2 bad arguments.
"""
import os
import secrets
import stat
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import kit  # noqa: E402
import starter  # noqa: E402


# What grading does not need, and an instructor would not hand out: left out of the zip.
NOT_FOR_GRADING = ("docs/", "bench/")


def for_grading(rel):
    return not rel.startswith(NOT_FOR_GRADING) and rel not in starter.INSTRUCTOR_ONLY


def fail(message):
    print(f"gradescope-zip: {message}", file=sys.stderr)
    sys.exit(2)


def main(argv):
    ch = (argv[0] if argv else "").strip().lower()
    offered = [str(n) for _, n, _ in kit.assignments() if n == "radix" or n <= 8]
    if ch.lstrip("0") not in offered:
        fail(f"CH='{ch}': give the chapter to grade, one of {' '.join(offered)}: "
             f"make gradescope-zip CH=7")
    ch = ch.lstrip("0")
    out = os.path.abspath(argv[1] if len(argv) > 1 and argv[1] else
                          os.path.join(kit.ROOT, "build", "gradescope", f"chapter-{ch}.zip"))
    if not out.endswith(".zip"):
        fail(f"OUT={out} does not end in .zip")
    seed = os.environ.get("GRADE_SEED", "")
    if seed and not seed.isdigit():
        fail(f"GRADE_SEED={seed} is not a number")
    new_seed = not seed
    # 128 bits: a seed small enough to count through could be found from one hidden size
    seed = seed or str(secrets.randbits(128) | 1)
    sms = os.environ.get("SMS", "").strip() or "90"
    os.makedirs(os.path.dirname(out), exist_ok=True)
    tmp = out + ".tmp"

    def add(z, name, data, executable=False):
        info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
        info.external_attr = ((0o755 if executable else 0o644) | stat.S_IFREG) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(info, data)

    with zipfile.ZipFile(tmp, "w") as z:
        for rel in filter(for_grading, starter.tracked_files()):
            src = os.path.join(kit.ROOT, rel)
            add(z, rel, open(src, "rb").read(), os.access(src, os.X_OK))
        for name in ("setup.sh", "run_autograder"):
            add(z, name, open(os.path.join(HERE, name), "rb").read(), True)
        add(z, "grade.env", f"# made by make gradescope-zip\nGRADE_CH={ch}\nGRADE_SEED={seed}\n"
                            f"SMS=\"{sms}\"\n")
    os.replace(tmp, out)
    print(f"gradescope-zip: wrote {out} (chapter {ch}, SMS={sms}, GRADE_SEED={seed}"
          + (", a new random seed: keep it, and grade the GPU items with the same one"
             if new_seed else "") + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
