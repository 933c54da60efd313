#!/usr/bin/env python3
"""Tables of docs/experiments/11_warp_specialised.md (chapter 11's runs), from committed logs.

    11_chapter_tables.py rounds CSV [--brief] [--versus A B]...   builds timed in rounds
    11_chapter_tables.py sweep DIR [--brief] [SIZE...]           one run's sweep (2^28 2^30)
    11_chapter_tables.py ncu FILE...                    Nsight Compute reports (--page raw)

rounds: CSV holds lines `build,round,LINE`, LINE being what a chapter's `./run --csv` printed
(comment lines included: "# inclusive scan" or "# exclusive scan" says the mode), as
docs/experiments/11_ablation_h200.sh writes chapter.csv and 11_chapter_h200.sh writes change.csv.
One table row per build and variant (`build` for its warp-specialised rows, `build:variant` for
the others) and mode: % of memcpy as median [min-max] over the rounds (each round beside a cudaMemcpy of
the same bytes in the same process), the median time, and x CUB, the median of CUB's times in the
file at that size and mode over this row's median time ('-' where CUB did not run). --versus A B
prints A's % of memcpy minus B's, round by round. --brief (for the chapter's notes): % of memcpy
and check only, and the largest spread in one line below the table.
sweep: DIR/timing_inclusive.csv and DIR/timing_exclusive.csv of 11_chapter_h200.sh, one run per
size: % of memcpy (x CUB), and the row's spread and its memcpy's, in %; --brief: the largest
spread in one line below the table instead.
ncu: one column per report: the kernel and its launch, duration, DRAM and L2, occupancy and what
limits it, and the five largest warp stall reasons (warps stalled per issued instruction).
"""
import os
import re
import statistics
import sys

SIZES = {'2^28': 1 << 28, '2^30': 1 << 30}


def size_name(n):
    """'2^28' for 268435456 or '2^28'; other sizes as given."""
    if n.startswith('2^'):
        return n
    v = int(n)
    return f'2^{v.bit_length() - 1}' if v > 0 and v & (v - 1) == 0 else n


def sweep_line(line):
    """(n, variant, us, pct, spread, memcpy_spread, noise, check) of a data line, else None."""
    f = line.strip().split(',')
    if len(f) < 11 or line.startswith('#') or f[0] == 'n':
        return None
    return (size_name(f[0]), f[1], float(f[2]), float(f[6]), f[7], f[8], f[9], f[10])


def read_rounds(path):
    """{(label, mode, n): [(round, us, pct, check, spread)]} from build,round,LINE lines; spread:
    the larger of the row's and its memcpy's (p75 - p25) / median, in %."""
    rows, mode = {}, {}
    for line in open(path):
        build, rnd, rest = (line.rstrip('\n').split(',', 2) + ['', ''])[:3]
        m = re.match(r'# (inclusive|exclusive) scan', rest)
        if m:
            mode[(build, rnd)] = m.group(1)
            continue
        r = sweep_line(rest)
        if r is None or r[1] == 'memcpy':
            continue
        label = build if r[1] == 'warp-specialised' else f'{build}:{r[1]}'
        key = (label, mode.get((build, rnd), '?'), r[0])
        spread = max([0.0] + [float(x) for x in (r[4], r[5]) if re.fullmatch(r'[\d.]+', x)])
        check = r[7] if r[6] in ('-', '') else f'{r[7]} {r[6]}'
        rows.setdefault(key, []).append((rnd, r[2], r[3], check, spread))
    return rows


def rounds(path, versus, brief=False):
    rows = read_rounds(path)
    cub = {}
    for (label, mode, n), v in rows.items():
        if label.endswith(':cub'):
            cub.setdefault((mode, n), []).extend(x[1] for x in v)
    modes = sorted({k[1] for k in rows}, key=lambda m: m != 'inclusive')
    sizes = sorted({k[2] for k in rows}, key=lambda n: int(n[2:]) if n.startswith('2^') else 0)
    labels = sorted({k[0] for k in rows}, key=lambda s: (':' in s, s))
    runs = max(len(v) for v in rows.values()) if rows else 0
    if brief:
        rounds_brief(rows, modes, sizes, labels, runs)
        return
    # Without CUB in the run the x CUB columns would hold only dashes: they are left out, which
    # keeps the table inside the page at 1024 px (make docs checks it).
    per = 3 if cub else 2
    print(f'{runs} rounds; % of memcpy: median [min-max] of the rounds; µs: median; '
          + ('x CUB: median of CUB\'s times / median of the row\'s; ' if cub else '')
          + 'spread: the largest (p75 - p25) / median of the row\'s runs or its memcpy\'s in any '
          'round, %\n')
    head = ' | '.join(f'{n} %' + (' | µs | x CUB' if cub else ' | µs') for n in sizes)
    print(f'| build | mode | {head} | spread | check |')
    print('|---|---|' + '---|' * per * len(sizes) + '---|---|')
    for m in modes:
        for label in labels:
            cells, checks, spread = [], set(), 0.0
            for n in sizes:
                v = rows.get((label, m, n))
                if not v:
                    cells += ['-'] * per
                    continue
                pct = [x[2] for x in v]
                us = statistics.median(x[1] for x in v)
                checks |= {x[3] for x in v}
                spread = max([spread] + [x[4] for x in v])
                c = cub.get((m, n))
                x = f'{statistics.median(c) / us:.2f}' if c else '-'
                cells += [f'{statistics.median(pct):.1f} [{min(pct):.1f}-{max(pct):.1f}]',
                          f'{us:.1f}'] + ([x] if cub else [])
            if checks:
                print(f'| {label} | {m} | ' + ' | '.join(cells) +
                      f' | {spread:.1f} | {",".join(sorted(checks))} |')
    for a, b in versus:
        print(f'\n{a} minus {b}, points of memcpy, round by round:')
        for m in modes:
            for n in sizes:
                va = {x[0]: x[2] for x in rows.get((a, m, n), [])}
                vb = {x[0]: x[2] for x in rows.get((b, m, n), [])}
                both = sorted(set(va) & set(vb))
                if both:
                    print(f'- {n} {m}: ' + ', '.join(f'{va[r] - vb[r]:+.1f}' for r in both))


def rounds_brief(rows, modes, sizes, labels, runs):
    print('| build | mode | ' + ' | '.join(f'{n}: % of memcpy' for n in sizes) + ' | check |')
    print('|---|---|' + '---|' * len(sizes) + '---|')
    for m in modes:
        for label in labels:
            cells, checks = [], set()
            for n in sizes:
                pct = [x[2] for x in rows.get((label, m, n), [])]
                checks |= {x[3] for x in rows.get((label, m, n), [])}
                cells.append(f'{statistics.median(pct):.1f} [{min(pct):.1f}-{max(pct):.1f}]'
                             if pct else '-')
            if checks:
                print(f'| {label} | {m} | ' + ' | '.join(cells) + f' | {",".join(sorted(checks))} |')
    spread = max(x[4] for v in rows.values() for x in v)
    print(f'\nMedian [min-max] of {runs} rounds; the largest spread, (p75 - p25) / median of one '
          f'row\'s runs or of its memcpy\'s: {spread:.1f} %.')


def sweep(folder, sizes, brief=False):
    variants = ['warp-specialised', 'crossover', 'decoupled-lookback', 'cub']
    print('| n | mode | ' + ' | '.join(variants) + ' |')
    print('|---|---|' + '---|' * len(variants))
    spread = 0.0
    for mode in ('inclusive', 'exclusive'):
        path = os.path.join(folder, f'timing_{mode}.csv')
        if not os.path.exists(path):
            continue
        t = {}
        for line in open(path):
            r = sweep_line(line)
            if r:
                t[(r[0], r[1])] = r
        for n in sizes:
            cub = t.get((n, 'cub'))
            cells = []
            for v in variants:
                r = t.get((n, v))
                if not r:
                    cells.append('-')
                    continue
                x = f' ({cub[2] / r[2]:.2f}x)' if cub and v != 'cub' else ''
                flag = '' if r[6] in ('-', '') else f' {r[6]}'
                bad = '' if r[7] == 'ok' else f' {r[7]}'
                cells.append(f'{r[3]:.1f}{x}{flag}{bad}' if brief else
                             f'{r[3]:.1f}{x}; spread {r[4]}/{r[5]}{flag}{bad}')
                spread = max([spread] + [float(v) for v in (r[4], r[5]) if re.fullmatch(r'[\d.]+', v)])
            print(f'| {n} | {mode} | ' + ' | '.join(cells) + ' |')
    if brief:
        print(f'\nThe largest spread, (p75 - p25) / median of one row\'s runs or of its memcpy\'s: '
              f'{spread:.1f} %.')


def metric(text, name):
    """The value of a metric of `ncu --page raw`, with its unit, or '?'."""
    m = re.search(r'^\s*' + re.escape(name) + r'\s+(\S*?)\s*([\d.,]+)\s*$', text, re.M)
    if not m:
        return '?'
    return f'{m.group(2)} {m.group(1)}'.strip()


def ncu(paths):
    texts = [open(p).read() if os.path.exists(p) else '' for p in paths]
    lines = [
        ('kernel (grid x block)', None),
        ('duration', 'gpu__time_duration.sum'),
        ('DRAM cycles active, % of peak', 'dram__cycles_active.avg.pct_of_peak_sustained_elapsed'),
        ('DRAM bytes per second', 'dram__bytes.sum.per_second'),
        ('L2 hit rate', 'lts__t_sector_hit_rate.pct'),
        ('achieved occupancy', 'sm__warps_active.avg.pct_of_peak_sustained_active'),
        ('theoretical occupancy', 'sm__maximum_warps_per_active_cycle_pct'),
        ('registers per thread', 'launch__registers_per_thread'),
        ('blocks per SM allowed by registers', 'launch__occupancy_limit_registers'),
        ('... by shared memory', 'launch__occupancy_limit_shared_mem'),
        ('... by warps', 'launch__occupancy_limit_warps'),
        ('... by barriers', 'launch__occupancy_limit_barriers'),
    ]
    print('| | ' + ' | '.join(os.path.basename(p) for p in paths) + ' |')
    print('|---|' + '---|' * len(paths))
    for label, name in lines:
        cells = []
        for t in texts:
            if name is None:
                m = re.search(r'^\s+(\w+)\(.*\) \((\d+), 1, 1\)x\((\d+), 1, 1\)', t, re.M)
                cells.append(f'`{m.group(1)}` ({m.group(2)} x {m.group(3)})' if m else '?')
            else:
                cells.append(metric(t, name))
        print(f'| {label} | ' + ' | '.join(cells) + ' |')
    cells = []
    for t in texts:
        stalls = []
        for m in re.finditer(r'^\s*smsp__average_warps?_issue_stalled_(\w+?)_per_issue_active\.ratio'
                             r'\s+\S+\s+([\d.,]+)\s*$', t, re.M):
            stalls.append((float(m.group(2).replace(',', '')), m.group(1)))
        stalls.sort(reverse=True)
        cells.append(', '.join(f'{s} {v:.2f}' for v, s in stalls[:5]) or '?')
    print('| top 5 warp stalls (warps per issued instruction) | ' + ' | '.join(cells) + ' |')


def main(argv):
    brief = '--brief' in argv
    argv = [a for a in argv if a != '--brief']
    if len(argv) >= 2 and argv[0] == 'rounds':
        rest, versus = argv[2:], []
        while len(rest) >= 3 and rest[0] == '--versus':
            versus.append((rest[1], rest[2]))
            rest = rest[3:]
        if rest:
            sys.exit(__doc__)
        rounds(argv[1], versus, brief)
    elif len(argv) >= 2 and argv[0] == 'sweep':
        sweep(argv[1], argv[2:] or list(SIZES), brief)
    elif len(argv) >= 2 and argv[0] == 'ncu':
        ncu(argv[1:])
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main(sys.argv[1:])
