#!/usr/bin/env python3
"""The table of docs/experiments/11_scan_proto.md from 11_scan_proto.cu's committed CSV.

    python3 docs/experiments/11_scan_proto_tables.py docs/experiments/11_scan_proto_2026-12-03.csv

One row per configuration: % of memcpy (same run) and CUB's time over ours, at 2^24, 2^28, 2^30;
where a configuration ran several times, the medians and the range of % of memcpy.
Rows with prefix "none" add 0 instead of the tile's prefix: their output is wrong by design.
"""
import csv
import statistics
import sys


def main(path):
    with open(path) as f:
        lines = [l for l in f if not l.startswith('#')]
    rows = [r for r in csv.DictReader(lines) if r['kernel'] in ('ws', 'cub')]
    def key_of(r):
        return (r['kernel'], r['stages'], r['groups'], r['blocks_per_sm'], r['mode'],
                r['exclusive'], r.get('draw_tiles') or '1')

    keys = []
    for r in rows:
        k = key_of(r)
        if k not in keys:
            keys.append(k)

    def cell(k, n):
        found = [r for r in rows if key_of(r) == k and r['n'] == str(n)]
        if not found:
            return '-'
        if len(found) == 1:
            return f"{found[0]['pct_memcpy']} ({found[0]['x_cub']}x)"
        pct = sorted(float(r['pct_memcpy']) for r in found)
        x = sorted(float(r['x_cub']) for r in found)
        return (f'{statistics.median(pct):.1f} ({statistics.median(x):.2f}x); {len(found)} runs: '
                f'{pct[0]:.1f}-{pct[-1]:.1f}')

    def order(k):
        c = cell(k, 1 << 28)
        return (k[0] != 'cub',
                ['none', 'lookback', 'lookahead', 'landing'].index(k[4]) if k[0] != 'cub' else 0,
                -float(c.split()[0]) if c != '-' else 0.0)

    print('| kernel | S | G | B | prefix | K | exclusive | 2^24: % of memcpy (CUB time / ours) '
          '| 2^28 | 2^30 |')
    print('|---|---|---|---|---|---|---|---|---|---|')
    for k in sorted(keys, key=order):
        if k[0] == 'cub':
            name, s, g, b, mode, kk = 'CUB', '-', '-', '-', '-', '-'
        else:
            name, (s, g, b), kk = 'ring scan', k[1:4], k[6]
            mode = {'none': 'none: 0 (wrong by design)', 'lookback': 'look-back in the group',
                    'lookahead': 'look-ahead warp', 'landing': 'reducer at landing + look-ahead warp'}[k[4]]
        print(f'| {name} | {s} | {g} | {b} | {mode} | {kk} | {k[5]} | {cell(k, 1 << 24)} | '
              f'{cell(k, 1 << 28)} | {cell(k, 1 << 30)} |')


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: docs/experiments/11_scan_proto_tables.py CSV')
    main(sys.argv[1])
