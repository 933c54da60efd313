#!/usr/bin/env python3
"""The student-part markers are comments: every marked source builds to the same object with
them as without them.

How it compares. Deleting a marker line would shift every later line, and line numbers are part
of the build (CUDA_CHECK's __LINE__, the line table of -lineinfo), so the object would differ for
a reason that has nothing to do with the markers. Instead each marker line becomes a line of as
many blanks, which is what the preprocessor makes of a comment anyway: the same tokens, the same
line numbers, and the same file size and modification time, which -lineinfo records in the line
table beside the file's name (a first version of this test, with empty lines, failed on exactly
that). Both versions are compiled from the same path (the name is in the object too), with the
project's flags (`make classroom-env`) for one architecture, sm_90, to keep this fast. nvcc
names its temporary files after its process id and that name lands in the host object, so the
objects are compared after `tmpxft_XXXXXXXX_XXXXXXXX` is made the same in both; nothing else is
normalised. To show that the comparison can fail, one CUDA source is also built with a marker
line deleted outright (the lines below it move up): that object must differ.

    classroom/tests/markers_same_binary.py [--preprocess]   (from the top folder)

With --preprocess (the kit's quick test), each version is only preprocessed, and the outputs
(the tokens the compiler reads, with the line markers) are compared: a few seconds instead of a
minute, for the same question (a comment is gone after preprocessing), but the object itself is
not compared.
Exit status 0 when every source matches, 1 otherwise.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import kit  # noqa: E402

TMPXFT = re.compile(rb'tmpxft_[0-9a-f]{8}_[0-9a-f]{8}')


def project_flags(build):
    """CC, CFLAGS, NVCC, NVCCFLAGS as the Makefile sets them for SMS=90. BUILD points at a
    folder of this test's own: a make with other flags than the last build's would otherwise
    rewrite build/flags.txt, and the next `make` would rebuild everything."""
    out = subprocess.run(["make", "-s", "--no-print-directory", "classroom-env", "SMS=90",
                          "BUILD=" + build], cwd=kit.ROOT, check=True, capture_output=True,
                         text=True).stdout
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


PREPROCESS = "--preprocess" in sys.argv


def build(flags, path, obj, folder):
    """Compile one source as the chapters are compiled (its folder's headers found where they
    are); return the normalised object bytes (with --preprocess: the preprocessed text)."""
    include = ["-I", os.path.join(kit.ROOT, folder)]
    if PREPROCESS:
        compiler = [flags["CC"]] + flags["CFLAGS"].split() if path.endswith(".c") else \
            [flags["NVCC"]] + flags["NVCCFLAGS"].split()
        r = subprocess.run(compiler + include + ["-E", path], capture_output=True)
        if r.returncode != 0:
            raise RuntimeError(f"preprocessing failed: {path}\n{r.stderr.decode()}")
        return r.stdout
    if path.endswith(".c"):
        cmd = [flags["CC"]] + flags["CFLAGS"].split() + include + ["-c", path, "-o", obj]
    else:
        cmd = [flags["NVCC"]] + flags["NVCCFLAGS"].split() + include + ["-c", path, "-o", obj]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"build failed: {' '.join(cmd)}\n{r.stderr}")
    return TMPXFT.sub(b"tmpxft_XXXXXXXX_XXXXXXXX", open(obj, "rb").read())


def main():
    tmp = tempfile.mkdtemp(prefix="markers_")
    flags = project_flags(os.path.join(tmp, "build"))
    failed = checked = 0
    shifted_done = False
    try:
        for rel, folder, ps in kit.sources_with_parts():
            if not ps:
                continue
            if rel.endswith(".cu") and not flags.get("NVCC"):
                print(f"skipped {rel}: no nvcc")
                continue
            src = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(src), exist_ok=True)
            text = open(os.path.join(kit.ROOT, rel)).read()
            objects = []
            for version in (text, kit.blank_markers(text)):
                with open(src, "w") as f:
                    f.write(version)
                os.utime(src, (1e9, 1e9))
                objects.append(build(flags, src, src + ".o", folder))
            checked += 1
            same = objects[0] == objects[1]
            what = "preprocessed text" if PREPROCESS else "object"
            print(f"{rel}: {len(ps)} parts, {2 * len(ps)} marker lines: "
                  f"{f'same {what} with and without them' if same else what.upper() + ' DIFFERS'}")
            failed += not same
            if rel.endswith(".cu") and not shifted_done:
                lines = text.splitlines(True)
                first = next(i for i, l in enumerate(lines) if kit.BEGIN.match(l))
                with open(src, "w") as f:
                    f.write("".join(lines[:first] + lines[first + 1:]))
                os.utime(src, (1e9, 1e9))
                differs = build(flags, src, src + ".o", folder) != objects[0]
                print(f"  (the check can fail: with line {first + 1} deleted instead of blanked, "
                      f"the result {'differs, as it must' if differs else 'is THE SAME: the check is blind'})")
                failed += not differs
                shifted_done = True
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"markers: {checked} sources {'preprocessed' if PREPROCESS else 'built'} twice, "
          f"{failed} differ")
    return 1 if failed or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
