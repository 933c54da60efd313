#!/usr/bin/env python3
"""Where the spills of a kernel land: every STL and LDL, on the hot path or only on the watchdog's
way to __trap(), inside a loop or not, and in which copy of chapter 08's pass.

    docs/experiments/08_sass_spills.py LISTING [CUBIN ...]

LISTING is a `cuobjdump -sass` listing (docs/experiments/08_lookback_kernel_2026-12-02.sass);
each CUBIN is `nvcc -cubin` output for the same architecture. With no CUBIN the listing's own
kernel is read; a CUBIN's kernel of the same name is first compared with it byte for byte.

The course's CPU machine has no disassembler, so this reads only what it needs: an instruction's
opcode (its low 12 bits) is named after the listing's instruction with that opcode (an opcode the
listing lacks prints as ?xxx), and it decodes the guard predicate, branch targets and the offset
of a local access. An instruction is "trap only" when no path from it reaches an EXIT (every path
ends at BPT.TRAP, the watchdog's __trap()). A loop is a backward branch and the code it jumps
back over, leaving out the branches back from the divergence stubs laid after the last EXIT.
When the kernel's first conditional branch jumps over a third of its code or more, the code from
its target on is one copy of the pass and the code between the branch and the target the other.
"""
import os
import re
import struct
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_kernels import cubin_sections  # noqa: E402  (the cubin's sections, by name)


def listing(path):
    """{kernel: [(word0, word1, text)]} of a cuobjdump -sass listing."""
    kernels, name, rows = {}, None, None
    for line in open(path):
        m = re.match(r'\s*Function : (\S+)', line)
        if m:
            name, rows = m.group(1), []
            kernels[name] = rows
            continue
        m = re.match(r'\s*/\*[0-9a-f]{4}\*/\s+(.*?)\s*;?\s*/\* (0x[0-9a-f]{16}) \*/', line)
        if m and rows is not None:
            rows.append([int(m.group(2), 16), None, m.group(1).rstrip(' ;')])
            continue
        m = re.match(r'\s*/\* (0x[0-9a-f]{16}) \*/', line)
        if m and rows and rows[-1][1] is None:
            rows[-1][1] = int(m.group(1), 16)
    return {k: [tuple(r) for r in v] for k, v in kernels.items()}


def cubin(path):
    """{kernel: [(word0, word1)]}: the code of each kernel of a cubin."""
    return {name[len('.text.'):]: [struct.unpack_from('<QQ', text, k)
                                   for k in range(0, len(text), 16)]
            for name, text in cubin_sections(path).items() if name.startswith('.text.')}


def branch_target(k, w0, w1):
    """Target address of the BRA at instruction k: a signed word offset in bits 16-23, 34-79."""
    v = ((w0 >> 16) & 0xff) | ((((w1 << 64 | w0) >> 34) & ((1 << 46) - 1)) << 8)
    v = v - (1 << 54) if v >> 53 & 1 else v
    return 16 * (k + 1) + 4 * v


def classify(code, names):
    """Print the STL/LDL of one kernel, given as [(word0, word1)], with opcode names `names`."""
    op = [names.get(w0 & 0xfff, '?%03x' % (w0 & 0xfff)).split('.')[0] for w0, _ in code]
    guarded = [(w0 >> 12 & 0xf) != 7 for w0, _ in code]              # 7: PT, always
    divergent = [op[k] == 'BRA' and w1 >> 27 & 1 == 1  # BRA.DIV: taken when the warp diverged
                 for k, (_, w1) in enumerate(code)]
    target = {k: branch_target(k, *code[k]) // 16 for k in range(len(code)) if op[k] == 'BRA'}
    succ = []
    for k in range(len(code)):
        s = [target[k]] if k in target else []
        ends = op[k] == 'BPT' or (op[k] in ('EXIT', 'BRA') and not guarded[k] and not divergent[k])
        succ.append(s + ([] if ends or k + 1 == len(code) else [k + 1]))
    pred = [[] for _ in code]
    for k, s in enumerate(succ):
        for j in s:
            pred[j].append(k)
    live = {k for k in range(len(code)) if op[k] == 'EXIT'}      # instructions that reach an EXIT
    todo = list(live)
    while todo:
        for j in pred[todo.pop()]:
            if j not in live:
                live.add(j)
                todo.append(j)
    last_exit = max(k for k in range(len(code)) if op[k] == 'EXIT')
    loops = [(t, k) for k, t in target.items() if t <= k <= last_exit]
    split = next(((k, target[k]) for k in range(len(code)) if k in target and guarded[k]), None)
    split = split if split and split[1] - split[0] > len(code) // 3 else None
    counts = Counter()
    for k, (w0, _) in enumerate(code):
        if op[k] not in ('STL', 'LDL'):
            continue
        hot = k in live
        part = ''
        if split:
            part = ('before the split' if k < split[0] else
                    'fall-through copy' if k < split[1] else 'target copy')
        inside = ['%x-%x' % (16 * t, 16 * b) for t, b in loops if t <= k <= b]
        counts[(op[k], hot, part)] += 1
        print('  /*%04x*/ %s [R1+0x%x]: %s' % (16 * k, op[k], w0 >> 40 & 0xffffff, ', '.join(
            w for w in ('hot' if hot else 'trap only', part,
                        'in loop ' + ' '.join(inside) if inside else 'in no loop') if w)))
    if split:
        print('  split: the conditional branch at /*%04x*/ jumps to /*%04x*/' % (
            16 * split[0], 16 * split[1]))
    for (o, hot, part), n in sorted(counts.items()):
        print('  %d %s %s%s' % (n, o, 'hot' if hot else 'trap only', ', ' + part if part else ''))
    print('  instructions %d; %s' % (len(code), ' '.join(
        '%s %d' % (o, c) for o, c in sorted(Counter(op).items()) if o in
        ('SHFL', 'BAR', 'LDS', 'STS', 'LDG', 'STG', 'LDGSTS', 'VOTE', 'EXIT'))))
    unknown = Counter(o for o in op if o.startswith('?'))
    if unknown:
        print('  opcodes the listing lacks: %s' % dict(unknown))


def main(argv):
    if len(argv) < 2:
        sys.exit('usage: docs/experiments/08_sass_spills.py LISTING [CUBIN ...]')
    known = listing(argv[1])
    names = {w0 & 0xfff: re.sub(r'^@!?U?P\w+\s+', '', text).split()[0]
             for rows in known.values() for w0, _, text in rows}
    sources = [(argv[1], {k: [(a, b) for a, b, _ in v] for k, v in known.items()})]
    sources += [(path, cubin(path)) for path in argv[2:]]
    for path, kernels in sources[1:] if len(argv) > 2 else sources:
        for name, code in kernels.items():
            same = ''
            if path != argv[1] and name in known:
                same = (' (identical to the listing)' if code == [(a, b) for a, b, _ in known[name]]
                        else ' (differs from the listing)')
            print('%s: %s%s' % (path, name, same))
            classify(code, names)


if __name__ == '__main__':
    main(sys.argv)
