#!/usr/bin/env python3
"""A host model of chapter 12's look-back with fallback (12_decoupled_fallback/decoupled_fallback.cu),
for its logic only: every access is sequentially consistent (no memory model), each lane's read of
a window is its own step, and the tiles' steps are interleaved at random, blocks starting in id order
at random times. It checks every exclusive prefix and that every descriptor ends at TILE_PREFIX with
its tile's inclusive prefix, for poll budgets, forced shares and held tiles (--starve's hold_back());
chapter 07's look-back with a hold must hang (the model's step limit); and it runs the two plants of
tests/plant_bugs.sh that only move a state back (states numbered out of order; a plain store), to see
whether the descriptor check catches them here. Used on 2026-12-03 before any GPU run:
    python3 docs/experiments/12_fallback_model.py        (about a minute)
"""
import random, sys
INV, AGG, PRE = 0, 1, 2
W = 32
def run(n_tiles, budget, forced_pct, hold_period, seed, use_fallback=True, publish='max'):
    rnd = random.Random(seed)
    vals = [rnd.randrange(1 << 32) for _ in range(n_tiles)]
    incl = []
    acc = 0
    for v in vals:
        acc = (acc + v) & 0xffffffff; incl.append(acc)
    desc = [(INV, 0)] * n_tiles
    result = [None] * n_tiles
    rank = {INV: 0, AGG: 1, PRE: 2} if publish != 'reversed' else {INV: 0, AGG: 2, PRE: 1}
    def word_max(a, b): return max(a, b, key=lambda w: (rank[w[0]], w[1]))
    def forced(t): return t > 0 and (t * forced_pct) // 100 != ((t - 1) * forced_pct) // 100
    def fall_back(b):
        # reads input (always right out of place), then max
        yield
        ours = (PRE if b == 0 else AGG, vals[b])
        before = desc[b]
        if publish == 'store':
            desc[b] = ours
            return ours
        desc[b] = word_max(desc[b], ours)
        return before if before[0] == PRE else ours
    def tile_proc(t):
        yield
        if hold_period and t % hold_period == 1 and t + 1 < n_tiles:
            while desc[t + 1][0] != PRE:
                yield 'held'
        desc[t] = (PRE, vals[t]) if t == 0 else (AGG, vals[t])
        yield
        if t == 0:
            result[t] = 0; return
        ex = 0; wl = t - 1
        if use_fallback and forced(t):
            w = yield from fall_back(t - 1)
            ex = w[1]; wl = -1 if w[0] == PRE else t - 2
        polls = 0
        while wl >= 0:
            words = []
            for lane in range(W):
                p = wl - lane
                words.append(desc[p] if p >= 0 else (PRE, 0))
                yield
            pl = [i for i in range(W) if words[i][0] == PRE]
            needed = range(0, (pl[0] + 1) if pl else W)
            inv = [i for i in needed if words[i][0] == INV]
            if not inv:
                ex = (ex + sum(words[i][1] for i in needed)) & 0xffffffff
                if pl: break
                wl -= W; polls = 0; continue
            polls += 1
            if not use_fallback or polls < budget:
                yield 'wait'; continue
            bl = inv[0]
            ex = (ex + sum(words[i][1] for i in range(bl))) & 0xffffffff
            b = wl - bl
            w = yield from fall_back(b)
            ex = (ex + w[1]) & 0xffffffff
            if w[0] == PRE: break
            wl = b - 1; polls = 0
        desc[t] = (PRE, (ex + vals[t]) & 0xffffffff)
        result[t] = ex
    # blocks start in id order but run interleaved at random; some start late
    procs = {}
    started = 0
    steps = 0
    while True:
        if started < n_tiles and (not procs or rnd.random() < 0.3):
            procs[started] = tile_proc(started); started += 1
        if not procs: break
        t = rnd.choice(list(procs))
        try:
            next(procs[t])
        except StopIteration:
            del procs[t]
        steps += 1
        if steps > 5_000_000: return 'HANG'
    ok = all(result[t] == (incl[t - 1] if t else 0) for t in range(n_tiles))
    dok = all(desc[t] == (PRE, incl[t]) for t in range(n_tiles))
    return 'ok' if ok and dok else f'WRONG ok={ok} desc={dok}'
bad = 0
for seed in range(int(sys.argv[1]) if len(sys.argv) > 1 else 300):
    n = random.Random(seed).randrange(1, 200)
    for budget, pct, hold in ((1, 0, 0), (4, 0, 0), (32, 0, 0), (4, 1, 0), (4, 50, 0), (4, 100, 0), (4, 0, 2), (4, 0, 3), (2, 100, 2), (8, 0, 64)):
        r = run(n, budget, pct, hold, seed)
        if r != 'ok':
            bad += 1; print(n, budget, pct, hold, seed, r)
print('runs wrong or hung:', bad)
print("chapter 07's look-back with a hold (expected HANG):", run(10, 4, 0, 3, 1, use_fallback=False))
for plant in ('reversed', 'store'):
    caught = sum(run(60, 4, 100, 0, seed, publish=plant) != 'ok' for seed in range(100))
    print(f"plant {plant}, 60 tiles, fallback-100pct: {caught} of 100 runs caught")
