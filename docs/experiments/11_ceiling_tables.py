#!/usr/bin/env python3
"""Tables of docs/experiments/11_ceiling.md from the committed CSVs of 11_ceiling.cu's runs.

    python3 docs/experiments/11_ceiling_tables.py SWEEP.csv BEST.csv

Prints Markdown: the best configuration per knob value in the sweep, the staged bytes per SM,
and the best eight's three runs at each size (median of the three, min-max).
"""
import csv
import statistics
import sys
from collections import defaultdict


def rows_of(path):
    with open(path) as f:
        lines = [l for l in f if not l.startswith('#')]
    if lines and not lines[0].startswith('kernel,'):
        lines.insert(0, 'kernel,tile_bytes,stages,blocks_per_sm,consumer_warps,draw,store,n,us,'
                        'spread_pct,memcpy_us,memcpy_spread_pct,pct_memcpy,wrong\n')
    return list(csv.DictReader(lines))


def main(sweep_path, best_path):
    sweep = rows_of(sweep_path)
    ring = [r for r in sweep if r['kernel'] == 'ring']
    wrong = sum(int(r['wrong']) > 0 for r in sweep)
    plain = [r for r in sweep if r['kernel'] == 'plain'][0]
    print(f'Sweep at n = {plain["n"]}: {len(ring)} ring configurations, {wrong} with a wrong '
          f'element; the plain copy kernel {plain["us"]} µs, {plain["pct_memcpy"]} % of memcpy.\n')
    print('| knob | value | configurations | best % of memcpy | median % |')
    print('|---|---|---|---|---|')
    for key in ['tile_bytes', 'stages', 'blocks_per_sm', 'consumer_warps', 'draw', 'store']:
        groups = defaultdict(list)
        for r in ring:
            groups[r[key]].append(float(r['pct_memcpy']))
        for value in sorted(groups, key=lambda v: (len(v), v)):
            v = groups[value]
            print(f'| {key} | {value} | {len(v)} | {max(v):.1f} | {statistics.median(v):.1f} |')
    print('\n| staged bytes per SM (T · S · B) | configurations | best % of memcpy | worst % |')
    print('|---|---|---|---|')
    groups = defaultdict(list)
    for r in ring:
        groups[int(r['tile_bytes']) * int(r['stages']) * int(r['blocks_per_sm'])].append(
            float(r['pct_memcpy']))
    for kb in sorted(groups):
        v = groups[kb]
        print(f'| {kb // 1024} KB | {len(v)} | {max(v):.1f} | {min(v):.1f} |')
    best = rows_of(best_path)
    runs = defaultdict(list)
    for r in best:
        key = (r['kernel'], r['tile_bytes'], r['stages'], r['blocks_per_sm'], r['consumer_warps'],
               r['draw'], r['store'], int(r['n']))
        runs[key].append((float(r['us']), float(r['pct_memcpy'])))
    print('\n| kernel | T | S | B | W | draw | store | n | runs | µs (median) | % of memcpy: median (min-max) |')
    print('|---|---|---|---|---|---|---|---|---|---|---|')
    for key in sorted(runs, key=lambda k: (k[7], k[0] != 'plain', k[1:7])):
        v = runs[key]
        us = statistics.median(x for x, _ in v)
        pct = [p for _, p in v]
        n = key[7]
        size = f'2^{n.bit_length() - 1}' if n & (n - 1) == 0 else str(n)
        cells = ' | '.join(key[:7]) if key[0] == 'ring' else 'plain | - | - | - | - | - | -'
        print(f'| {cells} | {size} | {len(v)} | {us:.2f} | {statistics.median(pct):.1f} '
              f'({min(pct):.1f}-{max(pct):.1f}) |')


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit('usage: docs/experiments/11_ceiling_tables.py SWEEP.csv BEST.csv')
    main(sys.argv[1], sys.argv[2])
