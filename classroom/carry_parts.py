#!/usr/bin/env python3
"""Bring your own parts from an earlier copy of the course into this one.

    python3 carry_parts.py ../scan-week1 [--dry-run]

A later week's copy stubs the parts of the earlier chapters too (so that it hands out no
solution): this puts back the ones you wrote. For every part of this copy that still holds its
stub (its TODO line), the code you wrote between the same two markers in the earlier copy is
copied in, in every file of this copy that has the part (a part carried into later chapters
appears in each of them). A part you have already written here is never touched, and nothing is
written with --dry-run. Each change is listed. Run `make test` (tests/check_carried.sh checks
the copies) afterwards.

Exit status: 0 done (or nothing to do); 2 bad arguments, or a marker that does not pair up
(nothing written).
"""
import os
import re
import sys

BEGIN = re.compile(r'^\s*/\* \[student part: ([a-z0-9-]+); explained in [^\]]+\] \*/\s*$')
END = re.compile(r'^\s*/\* \[end of student part: ([a-z0-9-]+)\] \*/\s*$')
HERE = os.path.dirname(os.path.abspath(__file__))


def sources(top):
    """The course's sources under `top`, in chapter order (the home of a part comes first), but
    the hand-out's copies that make precheck reads (classroom/reference/)."""
    out = []
    for base, dirs, names in os.walk(top):
        # classroom/reference/ holds the sources as handed out, for make precheck: not yours
        dirs[:] = sorted(d for d in dirs if d not in (".git", "build") and
                         not (d == "reference" and os.path.basename(base) == "classroom"))
        out += [os.path.join(base, n) for n in sorted(names) if n.endswith((".c", ".cu", ".h"))]
    return out


def split(path):
    """[(None, lines) outside a part | (name, lines) of a part's body], markers kept outside."""
    segments, body, name = [[None, []]], None, None
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        b, e = BEGIN.match(line), END.match(line)
        if name is None and b:
            segments[-1][1].append(line)
            name, body = b.group(1), []
        elif name is not None and e:
            if e.group(1) != name:
                raise ValueError(f"{path}:{number}: part '{name}' ends with the marker of '{e.group(1)}'")
            segments += [[name, body], [None, [line]]]
            name = None
        elif name is not None:
            if b:
                raise ValueError(f"{path}:{number}: part '{b.group(1)}' begins inside '{name}'")
            body.append(line)
        else:
            if e:
                raise ValueError(f"{path}:{number}: an end marker with no begin marker")
            segments[-1][1].append(line)
    if name is not None:
        raise ValueError(f"{path}: part '{name}' has no end marker")
    return segments


def is_stub(name, lines):
    return f"TODO {name}:" in "".join(lines)


def main(argv):
    args = [a for a in argv if a != "--dry-run"]
    dry = len(args) != len(argv)
    if len(args) != 1 or not os.path.isdir(args[0]):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        print("carry_parts: give the folder of your earlier copy of the course", file=sys.stderr)
        return 2
    old = os.path.abspath(args[0])
    if old == HERE:
        print("carry_parts: that is this copy; give the earlier one", file=sys.stderr)
        return 2
    try:
        written = {}
        for path in sources(old):
            for name, lines in split(path):
                if name and not is_stub(name, lines):
                    written.setdefault(name, (lines, os.path.relpath(path, old)))
        plans = []
        for path in sources(HERE):
            segments = split(path)
            changed = []
            for seg in segments:
                if seg[0] and is_stub(seg[0], seg[1]) and seg[0] in written:
                    seg[1] = written[seg[0]][0]
                    changed.append(seg[0])
            if changed:
                plans.append((path, segments, changed))
    except (ValueError, UnicodeDecodeError, OSError) as e:
        print(f"carry_parts: {e}; nothing written", file=sys.stderr)
        return 2
    for path, segments, changed in plans:
        print(f"{os.path.relpath(path, HERE)}: " + ", ".join(
            f"{n} (from {written[n][1]})" for n in changed))
        if not dry:
            with open(path, "w", encoding="utf-8") as f:
                f.write("".join(l for _, lines in segments for l in lines))
    parts = sum(len(p[2]) for p in plans)
    print(f"carry_parts: {parts} part{'' if parts == 1 else 's'} "
          f"{'to bring' if dry else 'brought'} from {args[0]} into {len(plans)} "
          f"file{'' if len(plans) == 1 else 's'}" + (" (dry run: nothing written)" if dry else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
