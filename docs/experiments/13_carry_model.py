#!/usr/bin/env python3
"""The carry of chapter 13 (13_out_of_core/out_of_core.cu), modelled on the host: random arrays cut
into random chunks, each chunk scanned from 0 after carry_in_kernel()'s fold and fixed by
carry_out_kernel(), must give the serial scan, inclusive and exclusive; and first_wrong(), run on
the whole array or chunk by chunk with its seeds, must find the first element planted wrong.
No GPU: it checks the algebra the kernels follow, not the kernels.

    python3 docs/experiments/13_carry_model.py [TRIALS]
"""
import random
import sys

M = 1 << 32


def scan(a, exclusive):
    """The serial scan in uint32 arithmetic: what chapter 08's kernel computes for one chunk."""
    s, out = 0, []
    for x in a:
        if exclusive:
            out.append(s)
            s = (s + x) % M
        else:
            s = (s + x) % M
            out.append(s)
    return out


def chunked(a, chunk, exclusive):
    """The pipeline's arithmetic: fold the carry into element 0, scan, fix, move the carry on."""
    running, result = 0, []
    for first in range(0, len(a), chunk):
        c = a[first:first + chunk]
        saved, last = running, c[-1]             # carry_in_kernel()
        c[0] = (c[0] + running) % M
        c = scan(c, exclusive)                   # chapter 08's kernel, unchanged
        if exclusive:                            # carry_out_kernel()
            c[0] = saved
            running = (c[-1] + last) % M
        else:
            running = c[-1]
        result += c
    return result


def first_wrong(inp, out, exclusive, out_before=0, in_before=0):
    """first_wrong() of the chapter: out[i] = out[i-1] + in[i] (or in[i-1], exclusive)."""
    for i in range(len(out)):
        previous = out[i - 1] if i else out_before
        added = (inp[i - 1] if i else in_before) if exclusive else inp[i]
        if out[i] != (previous + added) % M:
            return i
    return len(out)


def main():
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    rng = random.Random(20161101)
    for _ in range(trials):
        n, chunk, exclusive = rng.randint(0, 60), rng.randint(1, 9), rng.randint(0, 1)
        a = [rng.randrange(M) for _ in range(n)]
        got = chunked(list(a), chunk, exclusive)
        assert got == scan(a, exclusive), (n, chunk, exclusive)
        assert first_wrong(a, got, exclusive) == n
        if n == 0:
            continue
        j = rng.randrange(n)
        bad = list(got)
        bad[j] = (bad[j] + rng.randrange(1, M)) % M
        assert first_wrong(a, bad, exclusive) == j
        found, out_before, in_before = None, 0, 0   # chunk by chunk, as a file is checked
        for first in range(0, n, chunk):
            end = min(first + chunk, n)
            k = first_wrong(a[first:end], bad[first:end], exclusive, out_before, in_before)
            if k < end - first and found is None:
                found = first + k
            out_before, in_before = bad[end - 1], a[end - 1]
        assert found == j, (found, j)
    print(f"carry model: {trials} random arrays and chunkings, inclusive and exclusive: "
          "every chunked scan equals the serial scan, every planted error found first")


if __name__ == "__main__":
    main()
