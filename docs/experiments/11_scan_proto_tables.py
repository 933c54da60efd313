#!/usr/bin/env python3
"""The table of docs/experiments/11_scan_proto.md from 11_scan_proto.cu's committed CSV.

    python3 docs/experiments/11_scan_proto_tables.py docs/experiments/11_scan_proto_2026-12-03.csv

One row per configuration: % of memcpy (same run) and CUB's time over ours, at 2^24, 2^28, 2^30.
Rows with prefix "none" add 0 instead of the tile's prefix: their output is wrong by design.
"""
import csv
import sys


def main(path):
    with open(path) as f:
        lines = [l for l in f if not l.startswith('#')]
    rows = [r for r in csv.DictReader(lines) if r['kernel'] in ('ws', 'cub')]
    keys = []
    for r in rows:
        k = (r['kernel'], r['stages'], r['groups'], r['blocks_per_sm'], r['mode'], r['exclusive'])
        if k not in keys:
            keys.append(k)

    def cell(k, n):
        for r in rows:
            if (r['kernel'], r['stages'], r['groups'], r['blocks_per_sm'], r['mode'],
                    r['exclusive']) == k and r['n'] == str(n):
                return f"{r['pct_memcpy']} ({r['x_cub']}x)"
        return '-'

    def order(k):
        c = cell(k, 1 << 28)
        return (k[0] != 'cub', k[4] != 'none', -float(c.split()[0]) if c != '-' else 0.0)

    print('| kernel | S | G | B | prefix | exclusive | 2^24: % of memcpy (CUB time / ours) '
          '| 2^28 | 2^30 |')
    print('|---|---|---|---|---|---|---|---|---|')
    for k in sorted(keys, key=order):
        if k[0] == 'cub':
            name, s, g, b, mode = 'CUB', '-', '-', '-', '-'
        else:
            name, (s, g, b) = 'ring scan', k[1:4]
            mode = 'none: 0 (wrong by design)' if k[4] == 'none' else 'look-back in the group'
        print(f'| {name} | {s} | {g} | {b} | {mode} | {k[5]} | {cell(k, 1 << 24)} | '
              f'{cell(k, 1 << 28)} | {cell(k, 1 << 30)} |')


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: docs/experiments/11_scan_proto_tables.py CSV')
    main(sys.argv[1])
