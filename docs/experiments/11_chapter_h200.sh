#!/usr/bin/env bash
# Chapter 11 (issue 36, step 2): the GPU checks and timings of 11_warp_specialised/ on an H200, in
# one device call of at most 9 minutes on a machine with 16 cores (4-6 expected). From the
# repository root (nothing needs building first):
#     OUT=/some/folder docs/experiments/11_chapter_h200.sh
# Through the device tool, which brings back at most 8 files of its $OUT, keep the logs outside it
# and pack them (run 5 lost all but 3 files):
#     OUT=/tmp/c11 docs/experiments/11_chapter_h200.sh; tar czf "$OUT/c11.tgz" --exclude='*.bin' -C /tmp c11
# Every log goes under $OUT (default /tmp/11_chapter_h200); a short summary is printed last and
# kept in $OUT/summary.txt. Nothing in the repository is changed but build/ and the chapter's ./run.
# The chapter is checked with its default knobs (since 2026-12-03: BLOCKS_PER_SM 2, RING_STAGES 4,
# CONSUMER_GROUPS 2, the ablation's best); the old default (1, 8, 4) is timed beside it.
#
#  1. builds: the chapter for sm_90 (`make SMS=90`), a test build whose persistent
#     grid has 3 blocks (-DMAX_PIPELINE_BLOCKS=3: every ring wraps many times at small n), the old
#     default (-DBLOCKS_PER_SM=1 -DRING_STAGES=8 -DCONSUMER_GROUPS=4), and ptxas's report
#     (-Xptxas -v) of the chapter and of the old default;
#  2. side by side (correctness only, so the GPU may be shared):
#     - `--self-test` (the whole battery, n > 2^31 included, all four variants);
#     - the plants of tests/plant_bugs.sh named *_11 (three shards);
#     - `--stress 1000`, the 3-block build's `--stress 200`, `--input/--output` (also the same
#       file in place), and compute-sanitizer memcheck, racecheck and synccheck on small n: four
#       runs (inclusive, exclusive, each also in place) at n = 3 · 4096 + 7 (4 blocks, a ragged
#       last tile) and, with the 3-block build, at n = 300001 (about 25 tiles per block: every
#       ring wraps); the whole battery under the tools waits for `make sanitize`;
#  3. alone on the GPU, timings: first the change, ROUNDS (3) rounds in turn of the chapter
#     (every variant: chapter 08's kernel and CUB in the same process) and the old default
#     (warp-specialised only), each at 2^28 and 2^30, inclusive and exclusive, each row beside a
#     cudaMemcpy of the same bytes in its own process ($OUT/change.csv, lines `build,round,LINE`);
#     then every variant beside memcpy at 2^16 … 2^30, inclusive and exclusive (one run each);
#     two more rounds of 2^16 … 2^26 (the crossover, which CROSSOVER_ITEMS took from the old
#     default); the proxy fence's cost (the chapter against its no_proxy_fence_11 plant at 2^28,
#     three rounds each); the prototype it comes from (docs/experiments/11_scan_proto.cu, mode
#     landing, S = 8, G = 4, B = 1, K = 1) at 2^28 and 2^30, inclusive and exclusive; and Nsight
#     Compute on one launch of the chapter and of the old default at 2^28 (as
#     11_ablation_h200.sh runs it: occupancy, DRAM, L2, warp stalls);
#  4. the summary (the tables by docs/experiments/11_chapter_tables.py).
# Steps that would run past the budget are skipped and say so. The prototype's sanitizer runs:
# none (docs/experiments/11_scan_proto.md, "Not yet run"). Racecheck models the TMA unit's writes
# (run 4: its logs of the *_released_early_11 plants report races with bulk_copy_to_shared).
set -u
OUT=${OUT:-/tmp/11_chapter_h200}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 2
cd "$(dirname "$0")/../.." || exit 2
export PATH="/usr/local/cuda/bin:$PATH"
START=$(date +%s)
BUDGET=${BUDGET:-540} # seconds for the whole script
elapsed() { echo $(($(date +%s) - START)); }
say() { echo "[$(elapsed) s] $*"; }
left() { echo $((BUDGET - $(elapsed))); }
CH=11_warp_specialised
RUN=$CH/run
GRID3=$OUT/ws_grid3
OLD=$OUT/ws_old # the default until 2026-12-03: 1 block per SM, 8 stages, 4 groups
OLD_DEFS="-DBLOCKS_PER_SM=1 -DRING_STAGES=8 -DCONSUMER_GROUPS=4"
ROUNDS=${ROUNDS:-3}
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/compute-sanitizer/compute-sanitizer)

say "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown); logs in $OUT"
nvidia-smi --query-gpu=name,compute_cap,memory.total,clocks.max.sm,clocks.max.mem,driver_version \
  --format=csv >"$OUT/gpu.txt" 2>&1
(git rev-parse HEAD 2>/dev/null; git status --short 2>/dev/null) >"$OUT/commit.txt"

# ---- 1. builds ----------------------------------------------------------------------------------
say "1. building the chapter for sm_90"
if ! (cd $CH && make SMS=90 -j16) >"$OUT/build.log" 2>&1; then
  tail -n 30 "$OUT/build.log"
  say "the build failed: see $OUT/build.log"
  exit 1
fi
OBJS="build/common/cli.o build/common/data.o build/common/io.o build/common/report.o \
build/common/selftest.o build/common/cuda_util.o build/common/gpu_driver.o build/common/cub_scan.o"
FLAGS="-std=c++20 -O3 -lineinfo -gencode arch=compute_90,code=sm_90 -I common"
nvcc $FLAGS -DMAX_PIPELINE_BLOCKS=3 $CH/warp_specialised.cu $OBJS -o "$GRID3" -lgomp \
  >"$OUT/build_grid3.log" 2>&1 &
nvcc $FLAGS -Xptxas -v -c $CH/warp_specialised.cu -o "$OUT/ptxas.o" >"$OUT/ptxas.txt" 2>&1 &
# shellcheck disable=SC2086 # $OLD_DEFS is a list of -D switches
nvcc $FLAGS -Xptxas -v $OLD_DEFS $CH/warp_specialised.cu $OBJS -o "$OLD" -lgomp >"$OUT/build_old.log" 2>&1 &
# the prototype the chapter comes from (as docs/experiments/11_steps.sh builds it), timed in step 3
nvcc $FLAGS -I docs/experiments docs/experiments/11_scan_proto.cu build/common/cuda_util.o \
  build/common/report.o build/common/cli.o build/common/cub_scan.o -o "$OUT/11_scan_proto" \
  >"$OUT/proto_build.log" 2>&1 &
wait
for b in "$GRID3" "$OLD"; do
  [ -x "$b" ] || say "BUILD FAILED: $b (see $OUT/build_*.log); its steps are skipped"
done
say "built ./$RUN, $GRID3 and $OLD"

# ---- 2. correctness, side by side ---------------------------------------------------------------
say "2. self-test, plants, stress, files, sanitizers (side by side)"
(timeout 300 ./$RUN --self-test >"$OUT/self_test.txt" 2>&1; echo "exit $?" >>"$OUT/self_test.txt") &
docs/experiments/h200_plants.sh "$OUT" '_11$' 3 300 & # $OUT/plants_K.txt, binaries in $OUT/plants
(timeout 200 ./$RUN --stress 1000 >"$OUT/stress.txt" 2>&1; echo "exit $?" >>"$OUT/stress.txt") &
(timeout 150 "$GRID3" --stress 200 --variant warp-specialised >"$OUT/stress_grid3.txt" 2>&1
 echo "exit $?" >>"$OUT/stress_grid3.txt") &
# --input/--output: 3 tiles + 7 random values; the same file in place, exclusive
python3 -c "import os; open('$OUT/input.bin','wb').write(os.urandom(4 * (3 * 4096 + 7)))"
cp "$OUT/input.bin" "$OUT/inplace.bin"
{
  ./$RUN --input "$OUT/input.bin" --output "$OUT/output.bin" --variant warp-specialised
  echo "exit $? (--input/--output, inclusive)"
  ./$RUN --input "$OUT/inplace.bin" --output "$OUT/inplace.bin" --exclusive --variant warp-specialised
  echo "exit $? (--input F --output F, exclusive)"
} >"$OUT/files.txt" 2>&1
for tool in memcheck racecheck synccheck; do
  (
    timeout 150 "$SAN" --tool $tool --error-exitcode 99 ./$RUN --stress 4 -n 12295 \
      --variant warp-specialised >"$OUT/san_${tool}.txt" 2>&1
    echo "exit $?" >>"$OUT/san_${tool}.txt"
    timeout 150 "$SAN" --tool $tool --error-exitcode 99 "$GRID3" --stress 4 -n 300001 \
      --variant warp-specialised >"$OUT/san_${tool}_grid3.txt" 2>&1
    echo "exit $?" >>"$OUT/san_${tool}_grid3.txt"
  ) &
done
wait
say "correctness done"

# ---- 3. timings, alone on the GPU ---------------------------------------------------------------
timed() { # FILE ARGS...: one run of the sweep, appended as CSV
  local file=$1
  shift
  ./$RUN --csv "$@" >>"$file" 2>>"$OUT/timing_stderr.txt"
}
if [ -x "$OLD" ] && [ "$(left)" -gt 300 ]; then
  say "3. timings: the change, $ROUNDS rounds of the chapter and the old default at 2^28 and 2^30"
  for r in $(seq 1 "$ROUNDS"); do
    for x in "" --exclusive; do
      for size in 2^28 2^30; do
        # shellcheck disable=SC2086 # $x is empty or one option
        ./$RUN --csv -n $size $x 2>>"$OUT/timing_stderr.txt" | sed "s/^/default,$r,/" >>"$OUT/change.csv"
        # shellcheck disable=SC2086
        timeout 60 "$OLD" --csv -n $size $x --variant warp-specialised 2>>"$OUT/timing_stderr.txt" |
          sed "s/^/old_default,$r,/" >>"$OUT/change.csv"
      done
    done
  done
else
  say "3. the change SKIPPED: $(left) s left, or no $OLD"
fi
if [ "$(left)" -gt 200 ]; then
  say "   timings: 2^16 ... 2^30, inclusive and exclusive"
  for k in $(seq 16 30); do timed "$OUT/timing_inclusive.csv" -n 2^$k; done
  for k in $(seq 16 30); do timed "$OUT/timing_exclusive.csv" -n 2^$k --exclusive; done
else
  say "3. timings SKIPPED: $(left) s left"
fi
if [ "$(left)" -gt 90 ]; then
  say "   the crossover: two more rounds of 2^16 ... 2^26"
  for r in 2 3; do for k in $(seq 16 26); do timed "$OUT/crossover_round$r.csv" -n 2^$k; done; done
else
  say "   crossover rounds SKIPPED: $(left) s left"
fi
if [ "$(left)" -gt 40 ] && [ -x "$OUT/plants/no_proxy_fence_11" ]; then
  say "   the proxy fence's cost at 2^28"
  for r in 1 2 3; do
    timed "$OUT/fence_with.csv" -n 2^28 --variant warp-specialised
    "$OUT/plants/no_proxy_fence_11" --csv -n 2^28 --variant warp-specialised >>"$OUT/fence_without.csv" 2>&1
  done
else
  say "   fence cost SKIPPED: $(left) s left, or no plant binary"
fi

if [ "$(left)" -gt 30 ] && [ -x "$OUT/11_scan_proto" ]; then
  say "   the prototype (landing, S=8 G=4 K=1) at 2^28 and 2^30, inclusive and exclusive"
  for x in 0 1; do
    timeout 60 "$OUT/11_scan_proto" --only 8,4,1,2,$x,1 2^28 2^30 >>"$OUT/proto.csv" 2>&1
  done
else
  say "   prototype SKIPPED: $(left) s left, or no binary (see $OUT/proto_build.log)"
fi

# Nsight Compute: one launch at 2^28 (the fourth: after the driver's check run and warm-ups), no
# clock control, as the timings run; the same command as 11_ablation_h200.sh's
SECTIONS="--section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis"
for b in new old; do
  bin=./$RUN
  [ $b = old ] && bin=$OLD
  if ! command -v ncu >/dev/null; then
    say "   ncu not found: no Nsight Compute figures"
    break
  elif [ "$(left)" -lt 40 ] || [ ! -x "$bin" ]; then
    say "   ncu ($b) SKIPPED: $(left) s left, or no $bin"
    continue
  fi
  say "   Nsight Compute, the $b default at 2^28"
  # shellcheck disable=SC2086 # $SECTIONS is a list of options
  timeout $(($(left) / 2)) ncu --clock-control none $SECTIONS --page raw -k regex:warp_specialised_kernel \
    --launch-skip 3 --launch-count 1 "$bin" -n 2^28 --reps 1 --variant warp-specialised \
    >"$OUT/ncu_$b.txt" 2>&1
  echo "ncu $b: exit $?" >>"$OUT/ncu_status.txt"
done

# ---- 4. the summary -----------------------------------------------------------------------------
python3 - "$OUT" >"$OUT/summary.txt" <<'EOF'
import glob, os, re, statistics, sys
sys.path.insert(0, "docs/experiments")
from h200_summary import csv_rows, ptxas_report, tail
out = sys.argv[1]

def rows(path):
    """(n, variant, time_us, pct_memcpy, noise, check) from a file of the sweep's CSV runs."""
    return [(f[0], f[1], float(f[2]), f[6], f[9], f[10]) for f in csv_rows(path)]

def key(n):
    return int(n[2:]) if n.startswith("2^") else n

print("chapter 11 on the GPU:", tail(os.path.join(out, "gpu.txt")))
for name, what in (("ptxas.txt", "the chapter"), ("build_old.log", "the old default")):
    for report in ptxas_report(os.path.join(out, name), "warp_specialised_kernel"):
        print(f"ptxas, warp_specialised_kernel, {what}:", report)
for l in open(os.path.join(out, "timing_inclusive.csv")) if os.path.exists(os.path.join(out, "timing_inclusive.csv")) else []:
    if "n = 268435456" in l:
        print("the chapter's grid at 2^28:", l.split(";")[1].strip())
print()
print("correctness")
print("  --self-test:", tail(os.path.join(out, "self_test.txt"), 2))
print("  --stress 1000:", tail(os.path.join(out, "stress.txt"), 2))
print("  3 blocks, --stress 200:", tail(os.path.join(out, "stress_grid3.txt"), 2))
for l in open(os.path.join(out, "files.txt")) if os.path.exists(os.path.join(out, "files.txt")) else []:
    if l.startswith("exit"):
        print("  files:", l.strip())
for tool in ("memcheck", "racecheck", "synccheck"):
    for suffix, what in (("", "--stress 4 -n 12295"), ("_grid3", "3 blocks, --stress 4 -n 300001")):
        p = os.path.join(out, f"san_{tool}{suffix}.txt")
        summ = [l.strip() for l in open(p) if "SUMMARY" in l] if os.path.exists(p) else []
        print(f"  {tool} {what}: {(summ[-1] if summ else '')} {tail(p)}")
print("plants (tests/plant_bugs.sh, *_11):")
for p in sorted(glob.glob(os.path.join(out, "plants_*.txt"))):
    for l in open(p):
        if l.strip():
            print("  " + l.rstrip())

print()
for mode in ("inclusive", "exclusive"):
    r = rows(os.path.join(out, f"timing_{mode}.csv"))
    if not r:
        print(f"timings, {mode}: none")
        continue
    t = {}
    for n, v, us, pct, noise, check in r:
        t[(n, v)] = (us, pct, noise, check)
    sizes = sorted({n for n, *_ in r}, key=key)
    print(f"timings, {mode} (% of memcpy in the same run; x = CUB's time / this variant's)")
    print("  n      warp-specialised     crossover            decoupled-lookback   cub     flags")
    for n in sizes:
        cells, flags = [], []
        cub = t.get((n, "cub"), (None,))[0]
        for v in ("warp-specialised", "crossover", "decoupled-lookback", "cub"):
            if (n, v) not in t:
                cells.append("-".ljust(20))
                continue
            us, pct, noise, check = t[(n, v)]
            x = f" ({cub / us:.2f}x)" if cub and v != "cub" else ""
            cells.append((pct + x).ljust(20))
            if check != "ok":
                flags.append(f"{v}: {check}")
            if noise not in ("-", ""):
                flags.append(f"{v}: {noise}")
        print(f"  {n:<6} " + " ".join(cells) + " " + "; ".join(flags))
    print()

ratios = {}
for p in [os.path.join(out, "timing_inclusive.csv")] + sorted(glob.glob(os.path.join(out, "crossover_round*.csv"))):
    t = {(n, v): us for n, v, us, *_ in rows(p)}
    for (n, v), us in t.items():
        if v == "warp-specialised" and (n, "decoupled-lookback") in t:
            ratios.setdefault(n, []).append(us / t[(n, "decoupled-lookback")])
if ratios:
    print("crossover: warp-specialised time / chapter 08's (inclusive; each round; < 1: the pipeline is faster)")
    for n in sorted(ratios, key=key):
        if key(n) <= 26:
            print(f"  {n:<6} " + " ".join(f"{x:.2f}" for x in ratios[n]))
    print("  smallest n from which the pipeline won every round at every larger size:",
          next((n for i, n in enumerate(sorted(ratios, key=key))
                if all(all(x < 1 for x in ratios[m]) for m in sorted(ratios, key=key)[i:])), "none"))
    print()
# the chapter's own rows only (each file also holds the memcpy rows, 100.0 by definition)
w = [float(x[3]) for x in rows(os.path.join(out, "fence_with.csv")) if x[1] == "warp-specialised"]
wo = [float(x[3]) for x in rows(os.path.join(out, "fence_without.csv")) if x[1] == "warp-specialised"]
if w and wo:
    print(f"proxy fence at 2^28, % of memcpy: with {' '.join(f'{x:.1f}' for x in w)}; without (plant) "
          f"{' '.join(f'{x:.1f}' for x in wo)}; medians {statistics.median(w):.1f} and {statistics.median(wo):.1f}")
proto = [l.strip().split(",") for l in open(os.path.join(out, "proto.csv"))] \
    if os.path.exists(os.path.join(out, "proto.csv")) else []
proto = [f for f in proto if f[0] == "ws" and len(f) >= 14]
if proto:
    print("the prototype in the same run (11_scan_proto.cu, landing, S=8 G=4 K=1), % of memcpy (x CUB):")
    for f in proto:
        print(f"  {'exclusive' if f[5] == '1' else 'inclusive'} n={f[6]}: {f[11]} ({f[12]}x), wrong {f[13]}")
EOF
TABLES=docs/experiments/11_chapter_tables.py
if [ -s "$OUT/change.csv" ]; then
  {
    echo
    echo "the change: the chapter's default (2 blocks per SM, 4 stages, 2 groups) and the old one"
    echo "(1, 8, 4), and chapter 08's kernel and CUB in the default's processes (change.csv):"
    python3 $TABLES rounds "$OUT/change.csv" --versus default old_default \
      --versus default default:decoupled-lookback
  } >>"$OUT/summary.txt" 2>&1
fi
if ls "$OUT"/ncu_*.txt >/dev/null 2>&1; then
  { echo; echo "Nsight Compute, one launch at 2^28:"; python3 $TABLES ncu "$OUT/ncu_new.txt" "$OUT/ncu_old.txt"; } \
    >>"$OUT/summary.txt" 2>&1
fi
echo "elapsed: $(elapsed) s" >>"$OUT/summary.txt"
cat "$OUT/summary.txt"
