#!/usr/bin/env bash
# Chapter 11 (issue 36, item 3): the ablation table, one run on the H200. Each row beside a
# cudaMemcpy of the same bytes in the same process, at 2^28 and 2^30, inclusive, three rounds in
# turn (medians printed), with chapter 08 in the same rounds:
#   ring depth       the chapter with one block per SM, 4 groups and RING_STAGES 4, 8 (the
#                    default until 2026-12-03), 12. The stages must be a multiple of the 4
#                    consumer groups (static_assert) and fewer than SLOTS (16), so 6 and 10 are
#                    not buildable with 4 groups; 12 stages are 192 KiB per SM.
#   blocks per SM    the chapter with BLOCKS_PER_SM 2 (RING_STAGES 4, CONSUMER_GROUPS 2: two
#                    blocks of 352 threads and 64 KiB; the default since the first run of this
#                    script), against 1 with the same ring; and the prototype at B = 2.
#                    Every build names all three knobs, so the rows do not depend on the default.
#   prefix scheme    the chapter has one: the prefix warp's look-ahead. The look-back inside the
#                    group is the prototype's mode `lookback` (11_scan_proto.cu --only S,G,B,0,0,1,
#                    as docs/experiments/11_steps.sh runs it), beside its mode `landing` (the
#                    chapter's design, 8,4,1,2,0,1).
#   TMA vs cp.async  not built: the chapter has no cp.async path. It would take a producer warp
#                    that issues 16-byte cp.async per lane (1024 per tile, 32 per lane) with
#                    cp.async.mbarrier.arrive.noinc on full[s] instead of one cp.async.bulk, and
#                    a full[s] count of 32 arrivals; chapter 08 (cp.async, no ring) is the row
#                    that stands for cp.async here.
#   ceiling          step 1's copy-only ring (11_ceiling.cu): its best configuration of
#                    2026-12-03 (T = 32 KiB, S = 2, B = 1, W = 4) and the chapter's geometry
#                    (T = 16 KiB, S = 8, B = 1, W = 4).
# Then Nsight Compute on one launch each of the builds b1_s8_g4 and b2_s4_g2 and of chapter 08 at
# 2^28 (DRAM, achieved occupancy, L2 hit rate, the top 5 warp stall reasons: the table is
# docs/experiments/11_chapter_tables.py's).
# About 7-9 minutes on an H200 with 16 cores. From the repository root, after
# `make SMS=90 -j16 common chapter-8`:
#     OUT=/some/folder docs/experiments/11_ablation_h200.sh
# Logs and CSVs go under $OUT (default /tmp/11_ablation_h200); nothing in the repository changes.
set -u
OUT=${OUT:-/tmp/11_ablation_h200}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 2
cd "$(dirname "$0")/../.." || exit 2
export PATH="/usr/local/cuda/bin:$PATH"
START=$(date +%s)
BUDGET=${BUDGET:-510} # seconds, all of it; ncu gets what the rounds leave, at most 180
elapsed() { echo $(($(date +%s) - START)); }
say() { echo "[$(elapsed) s] $*"; }
SRC=11_warp_specialised/warp_specialised.cu
OBJS="build/common/cli.o build/common/data.o build/common/io.o build/common/report.o \
build/common/selftest.o build/common/cuda_util.o build/common/gpu_driver.o build/common/cub_scan.o"
for o in $OBJS 08_memcpy_speed/run; do
  [ -e "$o" ] || { echo "11_ablation_h200: $o is missing: run make SMS=90 -j16 common chapter-8 first" >&2; exit 2; }
done
FLAGS="-std=c++20 -O3 -lineinfo -gencode arch=compute_90,code=sm_90 -I common"
# chapter builds: name and -D switches
# (the first run, runs_2026-12-03/11_ablation_h200_run1, named b1_s8_g4 s8_chapter, b1_s4_g4 s4
# and b1_s12_g4 s12)
BUILDS="b1_s8_g4:-DBLOCKS_PER_SM=1 -DRING_STAGES=8 -DCONSUMER_GROUPS=4
b1_s4_g4:-DBLOCKS_PER_SM=1 -DRING_STAGES=4 -DCONSUMER_GROUPS=4
b1_s12_g4:-DBLOCKS_PER_SM=1 -DRING_STAGES=12 -DCONSUMER_GROUPS=4
b2_s4_g2:-DBLOCKS_PER_SM=2 -DRING_STAGES=4 -DCONSUMER_GROUPS=2
b1_s4_g2:-DBLOCKS_PER_SM=1 -DRING_STAGES=4 -DCONSUMER_GROUPS=2"
# prototype configurations (S,G,B,mode,exclusive,K; mode 0 look-back in the group, 2 landing)
PROTO="8,4,1,2,0,1 4,4,1,0,0,1 4,2,2,2,0,1"
# ceiling configurations (T,S,B,W,draw,store)
CEIL="32768,2,1,4,0,0 16384,8,1,4,0,0"

say "building (logs in $OUT)"
git rev-parse HEAD >"$OUT/commit.txt" 2>&1
git status --short >>"$OUT/commit.txt" 2>&1
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,driver_version --format=csv,noheader \
  >"$OUT/gpu.txt" 2>&1
while IFS=: read -r name defs; do
  # shellcheck disable=SC2086 # $defs is a list of -D switches
  nvcc $FLAGS -Xptxas -v $defs $SRC $OBJS -o "$OUT/ws_$name" -lgomp >"$OUT/build_$name.log" 2>&1 &
done <<<"$BUILDS"
nvcc $FLAGS -Xptxas -v -I docs/experiments docs/experiments/11_scan_proto.cu build/common/cuda_util.o \
  build/common/report.o build/common/cli.o build/common/cub_scan.o -o "$OUT/proto" \
  >"$OUT/build_proto.log" 2>&1 &
nvcc $FLAGS -I docs/experiments docs/experiments/11_ceiling.cu build/common/cuda_util.o \
  build/common/report.o build/common/cli.o -o "$OUT/ceiling" >"$OUT/build_ceiling.log" 2>&1 &
wait
for b in $(printf '%s\n' "$BUILDS" | cut -d: -f1); do
  [ -x "$OUT/ws_$b" ] || { tail -n 20 "$OUT/build_$b.log"; say "build $b failed"; exit 1; }
done
for b in proto ceiling; do
  [ -x "$OUT/$b" ] || { tail -n 20 "$OUT/build_$b.log"; say "build $b failed"; exit 1; }
done
say "built"

for round in 1 2 3; do
  if [ $(($(elapsed) + 110)) -gt $((BUDGET - 150)) ]; then
    say "round $round SKIPPED: $(elapsed) s gone"
    break
  fi
  say "round $round"
  for size in 2^28 2^30; do
    for b in $(printf '%s\n' "$BUILDS" | cut -d: -f1); do
      timeout 60 "$OUT/ws_$b" --csv -n $size --variant warp-specialised 2>>"$OUT/stderr.txt" |
        sed "s/^/$b,$round,/" >>"$OUT/chapter.csv"
    done
    (cd 08_memcpy_speed && timeout 60 ./run --csv -n $size --variant decoupled-lookback) \
      2>>"$OUT/stderr.txt" | sed "s/^/chapter08,$round,/" >>"$OUT/chapter.csv"
  done
  for c in $PROTO; do
    timeout 60 "$OUT/proto" --only "$c" 2^28 2^30 2>>"$OUT/stderr.txt" | grep -E '^(ws|# S=)' |
      sed "s/^/$round,/" >>"$OUT/proto.csv"
  done
  for c in $CEIL; do
    timeout 60 "$OUT/ceiling" --only "$c" 2^28 2^30 2>>"$OUT/stderr.txt" | grep -E '^(ring|plain)' |
      sed "s/^/$round,/" >>"$OUT/ceiling.csv"
  done
done

# Nsight Compute: one launch of each kernel at 2^28 (the fourth: after the driver's check run and
# warm-ups); no clock control, as the timings run
NCU_LEFT=$((BUDGET - $(elapsed)))
[ $NCU_LEFT -gt 180 ] && NCU_LEFT=180
if ! command -v ncu >/dev/null; then
  say "ncu not found: no Nsight Compute figures"
elif [ $NCU_LEFT -lt 40 ]; then
  say "ncu SKIPPED: $(elapsed) s gone"
else
  say "ncu ($NCU_LEFT s at most)"
  SECTIONS="--section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis"
  for b in b1_s8_g4 b2_s4_g2; do
    # shellcheck disable=SC2086
    timeout $((NCU_LEFT / 3)) ncu --clock-control none $SECTIONS --page raw -k regex:warp_specialised_kernel \
      --launch-skip 3 --launch-count 1 "$OUT/ws_$b" -n 2^28 --reps 1 --variant warp-specialised \
      >"$OUT/ncu_$b.txt" 2>&1
    echo "ncu $b: exit $?" >>"$OUT/ncu_status.txt"
  done
  # shellcheck disable=SC2086
  (cd 08_memcpy_speed && timeout $((NCU_LEFT / 3)) ncu --clock-control none $SECTIONS --page raw \
    -k regex:lookback_scan_kernel --launch-skip 3 --launch-count 1 ./run -n 2^28 --reps 1 \
    --variant decoupled-lookback) >"$OUT/ncu_08.txt" 2>&1
  echo "ncu chapter 08: exit $?" >>"$OUT/ncu_status.txt"
fi

python3 - "$OUT" <<'PYEOF' | tee "$OUT/summary.txt"
import os, re, statistics, sys
out = sys.argv[1]
rows = {}  # (row name, n) -> [(% of memcpy, us, ok)]
def add(name, n, pct, us, ok):
    rows.setdefault((name, n), []).append((pct, us, ok))
N = {"268435456": "2^28", "1073741824": "2^30"}
for line in open(os.path.join(out, "chapter.csv")) if os.path.exists(os.path.join(out, "chapter.csv")) else []:
    f = line.strip().split(",")
    if len(f) >= 13 and f[3] in ("warp-specialised", "decoupled-lookback"):
        add("chapter 08 (cp.async, look-back)" if f[0] == "chapter08" else "chapter " + f[0], f[2],
            float(f[8]), float(f[4]), f[12])
if os.path.exists(os.path.join(out, "proto.csv")):
    for line in open(os.path.join(out, "proto.csv")):
        f = line.strip().split(",")[1:]  # round first
        if len(f) >= 14:
            mode = {"landing": "look-ahead", "lookback": "look-back in the group"}.get(f[4], f[4])
            add(f"prototype {mode} S={f[1]} G={f[2]} B={f[3]}", N.get(f[6], f[6]), float(f[11]),
                float(f[7]), "ok" if f[13] == "0" else "WRONG")
if os.path.exists(os.path.join(out, "ceiling.csv")):
    for line in open(os.path.join(out, "ceiling.csv")):
        f = line.strip().split(",")[1:]
        if len(f) >= 14:
            name = "plain copy kernel" if f[0] == "plain" else f"ceiling ring T={f[1]} S={f[2]} B={f[3]} W={f[4]}"
            add(name, N.get(f[7], f[7]), float(f[12]), float(f[8]), "ok" if f[13] == "0" else "WRONG")
print("chapter 11 ablation (issue 36 item 3), inclusive, % of memcpy in the same process: median of the rounds [min-max], median time")
print("GPU:", open(os.path.join(out, "gpu.txt")).read().strip())
print(f"  {'row':<46} {'2^28':<28} {'2^30':<28} check")
for name in sorted({k[0] for k in rows}, key=lambda s: (not s.startswith("chapter "), s)):
    cells, checks = [], set()
    for n in ("2^28", "2^30"):
        v = rows.get((name, n), [])
        if not v:
            cells.append("-".ljust(28)); continue
        xs = [x[0] for x in v]; checks |= {x[2] for x in v}
        cells.append(f"{statistics.median(xs):.1f} [{min(xs):.1f}-{max(xs):.1f}] {statistics.median(x[1] for x in v):.1f}us".ljust(28))
    print(f"  {name:<46} {' '.join(cells)} {','.join(sorted(checks))}")
print("(rounds: the chapter's rows", max((len(v) for k, v in rows.items() if k[0].startswith("chapter ")), default=0),
      "each; the plain copy kernel runs once per ceiling configuration and round)")
for b in ("b1_s8_g4", "b1_s4_g4", "b1_s12_g4", "b2_s4_g2", "b1_s4_g2"):
    p = os.path.join(out, f"build_{b}.log")
    if os.path.exists(p):
        m = re.search(r"warp_specialised_kernel.*?\n.*?(\d+) bytes stack frame.*?\n.*?Used (\d+) registers", open(p).read(), re.S)
        print(f"  ptxas {b}: " + (f"{m.group(2)} registers, {m.group(1)} B stack" if m else "?"))
PYEOF
if [ -f "$OUT/ncu_status.txt" ]; then
  echo "Nsight Compute, one launch at 2^28:"
  python3 docs/experiments/11_chapter_tables.py ncu "$OUT/ncu_b1_s8_g4.txt" "$OUT/ncu_b2_s4_g2.txt" "$OUT/ncu_08.txt"
fi 2>&1 | tee -a "$OUT/summary.txt"
echo "elapsed: $(elapsed) s" | tee -a "$OUT/summary.txt"
