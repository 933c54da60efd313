#!/usr/bin/env bash
# Chapter 11 (issue 36): where does the chapter lose ~4 points of memcpy to the prototype it comes
# from? The 2026-12-03 run (docs/experiments/runs_2026-12-03/11_chapter_h200_run1) gave the chapter
# 90.7 % (2^28) and 91.6 % (2^30), the prototype's landing mode 94.0-94.9 % and 95.2-95.5 % in
# earlier calls. This script builds the chapter with each difference found by reading the two
# (docs/experiments/11_warp_specialised.md, "The gap to the prototype") switched to the
# prototype's way (-DGAP_*, see the chapter's source), and times each beside memcpy and the
# prototype (11_scan_proto.cu --only 8,4,1,2,0,1) at 2^28 and 2^30, inclusive, three rounds in
# turn; it prints the medians. About 3-4 minutes on an H200 with 16 cores. From the repository
# root, after `make SMS=90 -j16 common chapter-8` (for build/common):
#     OUT=/some/folder docs/experiments/11_gap_h200.sh
# Logs and CSVs go under $OUT (default /tmp/11_gap_h200); nothing in the repository changes.
set -u
OUT=${OUT:-/tmp/11_gap_h200}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 2
cd "$(dirname "$0")/../.." || exit 2
export PATH="/usr/local/cuda/bin:$PATH"
START=$(date +%s)
BUDGET=${BUDGET:-230} # seconds
elapsed() { echo $(($(date +%s) - START)); }
say() { echo "[$(elapsed) s] $*"; }
SRC=11_warp_specialised/warp_specialised.cu
OBJS="build/common/cli.o build/common/data.o build/common/io.o build/common/report.o \
build/common/selftest.o build/common/cuda_util.o build/common/gpu_driver.o build/common/cub_scan.o"
for o in $OBJS; do
  [ -f "$o" ] || { echo "11_gap_h200: $o is missing: run make SMS=90 -j16 common chapter-8 first" >&2; exit 2; }
done
FLAGS="-std=c++20 -O3 -lineinfo -gencode arch=compute_90,code=sm_90 -I common"
# name and -D switches of each build; "chapter" is the chapter as committed
BUILDS="chapter:
no_fence:-DGAP_NO_PROXY_FENCE
quiet_watchdog:-DGAP_QUIET_WATCHDOG
lookahead_per_lane:-DGAP_LOOKAHEAD_PER_LANE
slot_all_lanes:-DGAP_SLOT_ALL_LANES
counter_apart:-DGAP_COUNTER_APART
all:-DGAP_NO_PROXY_FENCE -DGAP_QUIET_WATCHDOG -DGAP_LOOKAHEAD_PER_LANE -DGAP_COUNTER_APART"

say "building $(printf '%s\n' "$BUILDS" | wc -l) chapter builds and the prototype (logs in $OUT)"
git rev-parse HEAD >"$OUT/commit.txt" 2>&1
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,driver_version --format=csv,noheader \
  >"$OUT/gpu.txt" 2>&1
while IFS=: read -r name defs; do
  # shellcheck disable=SC2086 # $defs is a list of -D switches
  nvcc $FLAGS -Xptxas -v $defs $SRC $OBJS -o "$OUT/ws_$name" -lgomp >"$OUT/build_$name.log" 2>&1 &
done <<<"$BUILDS"
nvcc $FLAGS -I docs/experiments docs/experiments/11_scan_proto.cu build/common/cuda_util.o \
  build/common/report.o build/common/cli.o build/common/cub_scan.o -o "$OUT/proto" \
  >"$OUT/build_proto.log" 2>&1 &
wait
for b in $(printf '%s\n' "$BUILDS" | cut -d: -f1) proto; do
  [ "$b" = proto ] && exe=$OUT/proto || exe=$OUT/ws_$b
  [ -x "$exe" ] || { tail -n 20 "$OUT/build_$b.log"; say "build $b failed"; exit 1; }
done
say "built"

for round in 1 2 3; do
  if [ $(($(elapsed) + 70)) -gt "$BUDGET" ]; then
    say "round $round SKIPPED: $(elapsed) s of $BUDGET gone"
    break
  fi
  say "round $round"
  timeout 60 "$OUT/proto" --only 8,4,1,2,0,1 2^28 2^30 >>"$OUT/proto.csv" 2>>"$OUT/stderr.txt"
  for b in $(printf '%s\n' "$BUILDS" | cut -d: -f1); do
    for size in 2^28 2^30; do
      timeout 60 "$OUT/ws_$b" --csv -n $size --variant warp-specialised 2>>"$OUT/stderr.txt" |
        sed "s/^/$b,$round,/" >>"$OUT/chapter.csv"
    done
  done
done

python3 - "$OUT" "$(printf '%s\n' "$BUILDS" | cut -d: -f1 | tr '\n' ' ')" <<'PYEOF' | tee "$OUT/summary.txt"
import os, re, statistics, sys
out, builds = sys.argv[1], sys.argv[2].split()
pct = {}  # (build, n) -> [% of memcpy per round]
for line in open(os.path.join(out, "chapter.csv")):
    f = line.strip().split(",")
    if len(f) >= 13 and f[3] == "warp-specialised":
        pct.setdefault((f[0], f[2]), []).append((float(f[8]), f[12]))
if os.path.exists(os.path.join(out, "proto.csv")):
    for line in open(os.path.join(out, "proto.csv")):
        f = line.strip().split(",")
        if f[0] == "ws" and len(f) >= 14:
            n = {"268435456": "2^28", "1073741824": "2^30"}.get(f[6], f[6])
            pct.setdefault(("prototype", n), []).append((float(f[11]), "ok" if f[13] == "0" else "WRONG"))
regs = {}
for b in builds:
    log = open(os.path.join(out, f"build_{b}.log")).read()
    m = re.search(r"warp_specialised_kernel.*?\n.*?(\d+) bytes stack frame.*?\n.*?Used (\d+) registers", log, re.S)
    regs[b] = f"{m.group(2)} regs, {m.group(1)} B stack" if m else "?"
print("chapter 11 against its prototype, % of memcpy in the same process (median of the rounds, [min-max]), inclusive")
print("GPU:", open(os.path.join(out, "gpu.txt")).read().strip())
print(f"  {'build':<20} {'2^28':<24} {'2^30':<24} {'ptxas':<22} check")
base = {n: statistics.median(x for x, _ in pct.get(("chapter", n), [(0, "")])) for n in ("2^28", "2^30")}
for b in builds + ["prototype"]:
    cells, checks = [], set()
    for n in ("2^28", "2^30"):
        v = pct.get((b, n), [])
        if not v:
            cells.append("-".ljust(24))
            continue
        xs = [x for x, _ in v]
        checks |= {c for _, c in v}
        m = statistics.median(xs)
        d = f" {m - base[n]:+.1f}" if b != "chapter" and base[n] else ""
        cells.append(f"{m:.1f}{d} [{min(xs):.1f}-{max(xs):.1f}]".ljust(24))
    print(f"  {b:<20} {' '.join(cells)} {regs.get(b, ''):<22} {','.join(sorted(checks))}")
print("(+x: points above the chapter as committed; rounds:", max(len(v) for v in pct.values()) if pct else 0, ")")
PYEOF
echo "elapsed: $(elapsed) s" | tee -a "$OUT/summary.txt"
