#!/usr/bin/env bash
# Chapter 12 (issue 37): why is forcing every fallback faster than no fallback? (H200, 2026-12-04:
# fallback-100pct took 0.82 of decoupled-fallback's time at 2^28.) Two hypotheses
# (12_decoupled_fallback/README.md, "What the numbers say"):
#   A. the reduction works as a pause before the first poll (fewer polls of descriptors that are
#      not yet published);
#   B. a forced look-back skips the wait for tile - 1, and the pass is bound by that chain.
# The deciding run: copies of the chapter in which a forced look-back, instead of reducing tile - 1,
# sleeps PAUSE_NS (`__nanosleep`: the PTX ISA says the thread sleeps for a time in [0, 2 x PAUSE_NS])
# and then looks back from tile - 1 with the chapter's own bounded look-back (budget 32). If the pause alone makes fallback-100pct
# as fast as the reduction did, A; if no pause does, B (or something else).
# From the repository root, on a GPU machine, in one device call of about 4 minutes:
#     OUT=/tmp/c12p docs/experiments/12_pause_h200.sh; tar czf "$OUT/c12p.tgz" -C /tmp c12p
# Each binary's `./run --csv -n 2^28` (every variant, each beside memcpy) is appended to
# $OUT/pause_NS.csv (NS = 0 for the chapter as it is); rounds in turn; the summary last.
set -u
OUT=${OUT:-/tmp/12_pause_h200}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 2
cd "$(dirname "$0")/../.." || exit 2
export PATH="/usr/local/cuda/bin:$PATH"
CH=12_decoupled_fallback
PAUSES=${PAUSES:-"250 1000 2000 4000"}
ROUNDS=${ROUNDS:-3}
(git rev-parse HEAD 2>/dev/null; git status --short 2>/dev/null) >"$OUT/commit.txt"
(cd $CH && make SMS=90 -j16) >"$OUT/build.log" 2>&1 || { tail "$OUT/build.log"; exit 1; }
OBJS="build/common/cli.o build/common/data.o build/common/io.o build/common/report.o \
build/common/selftest.o build/common/cuda_util.o build/common/gpu_driver.o build/common/cub_scan.o"
FLAGS="-std=c++20 -O3 -lineinfo -gencode arch=compute_90,code=sm_90 -I common"
# the copy: the forced branch's three lines (fall_back() on tile - 1 and what follows) become a sleep
python3 - "$CH/decoupled_fallback.cu" "$OUT/paused.cu" <<'EOF' || exit 1
import sys
src = open(sys.argv[1]).read()
old = """    if (forced) {
        const unsigned long long word = fall_back(descriptors, counters, in, tile - 1, in_place);
        exclusive_prefix = (uint32_t)word;
        window_last = (unsigned)(word >> 32) == TILE_PREFIX ? -1 : (long long)tile - 2;
    }"""
new = """    if (forced) {
        __nanosleep(PAUSE_NS); /* 12_pause_h200.sh: a pause in place of the reduction */
    }"""
if src.count(old) != 1:
    sys.exit("12_pause_h200.sh: the forced branch of look_back_with_fallback() has changed")
open(sys.argv[2], "w").write(src.replace(old, new))
EOF
for p in $PAUSES; do
  nvcc $FLAGS -I $CH -DPAUSE_NS=${p}u "$OUT/paused.cu" $OBJS -o "$OUT/pause_$p" -lgomp \
    >"$OUT/build_pause_$p.log" 2>&1 &
done
wait
for r in $(seq "$ROUNDS"); do
  echo "round $r"
  ./$CH/run --csv -n 2^28 >>"$OUT/pause_0.csv" 2>>"$OUT/stderr.txt"
  for p in $PAUSES; do
    if [ -x "$OUT/pause_$p" ]; then
      "$OUT/pause_$p" --csv -n 2^28 >>"$OUT/pause_$p.csv" 2>>"$OUT/stderr.txt"
    else
      echo "pause_$p did not build: $OUT/build_pause_$p.log"
    fi
  done
done
python3 - "$OUT" $PAUSES <<'EOF' | tee "$OUT/summary.txt"
import csv, os, statistics, sys
out, pauses = sys.argv[1], ["0"] + sys.argv[2:]
def rows(path):
    """{variant: [time_us, ...]} and {variant: [check, ...]} of the CSV runs in path"""
    times, checks = {}, {}
    if not os.path.exists(path):
        return times, checks
    with open(path) as f:
        lines = [l for l in f if not l.startswith("#")]
    header = None
    for r in csv.reader(lines):
        if r and r[0] == "n":
            header = r
        elif header and len(r) == len(header):
            d = dict(zip(header, r))
            times.setdefault(d["variant"], []).append(float(d["time_us"]))
            checks.setdefault(d["variant"], []).append(d["check"])
    return times, checks
print("forced look-backs: the reduction (pause 0 = the chapter) or a sleep of PAUSE ns, n = 2^28")
print("median µs over the rounds [min-max]; checks; fallback-100pct / decoupled-fallback (same binary)")
for p in pauses:
    t, c = rows(os.path.join(out, f"pause_{p}.csv"))
    line = [f"pause {p:>5}:"]
    for v in ("decoupled-fallback", "fallback-100pct", "decoupled-lookback"):
        if v in t:
            line.append(f"{v} {statistics.median(t[v]):.1f} [{min(t[v]):.1f}-{max(t[v]):.1f}]")
    if "decoupled-fallback" in t and "fallback-100pct" in t:
        line.append(f"ratio {statistics.median(t['fallback-100pct']) / statistics.median(t['decoupled-fallback']):.3f}")
    line.append("checks " + ",".join(sorted(set(x for v in c.values() for x in v))))
    print(f"  {line[0]} " + "; ".join(line[1:]))
EOF
