#!/usr/bin/env bash
# Chapter 11 (issue 36): where does the chapter lose points of memcpy to the prototype it comes
# from? First run 2026-12-03 (runs_2026-12-03/11_chapter_h200_run2/gap): a watchdog without
# printf +1.0 point; the proxy fence, the slot read, the counter's place: noise; the prototype's
# per-lane look-ahead loop -9.5 (GAP_LOOKAHEAD_PER_LANE, GAP_SLOT_ALL_LANES, GAP_NO_PROXY_FENCE,
# GAP_COUNTER_APART stay in the source, not timed again). Run 3 (11_chapter_h200_run3) found the
# report-writing watchdog that replaced printf 2-3 points slower than run 2's trap-only build;
# this third version times the watchdog's cold path compiled four ways (the chapter: stall()
# noreturn; trap_only; stall_inline; stall_returns: run 3's control flow) and keeps the three
# remaining differences (when the reducer publishes, the grid at small n, timed at 2^16 too,
# where the barriers live), and writes each build's SASS (cuobjdump) with its instruction counts.
# This script builds the chapter with each difference found by reading the two
# (docs/experiments/11_warp_specialised.md, "The gap to the prototype") switched to the
# prototype's way (-DGAP_*, see the chapter's source), and times each beside memcpy and the
# prototype (11_scan_proto.cu --only 8,4,1,2,0,1) at 2^28 and 2^30, inclusive, three rounds in
# turn; it prints the medians. Under 4 minutes (BUDGET) on an H200 with 16 cores. From the repository
# root, after `make SMS=90 -j16 common chapter-8` (for build/common):
#     OUT=/some/folder docs/experiments/11_gap_h200.sh
# Logs and CSVs go under $OUT (default /tmp/11_gap_h200); nothing in the repository changes.
set -u
OUT=${OUT:-/tmp/11_gap_h200}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 2
cd "$(dirname "$0")/../.." || exit 2
export PATH="/usr/local/cuda/bin:$PATH"
START=$(date +%s)
BUDGET=${BUDGET:-260} # seconds
elapsed() { echo $(($(date +%s) - START)); }
say() { echo "[$(elapsed) s] $*"; }
SRC=11_warp_specialised/warp_specialised.cu
OBJS="build/common/cli.o build/common/data.o build/common/io.o build/common/report.o \
build/common/selftest.o build/common/cuda_util.o build/common/gpu_driver.o build/common/cub_scan.o"
for o in $OBJS; do
  [ -f "$o" ] || { echo "11_gap_h200: $o is missing: run make SMS=90 -j16 common chapter-8 first" >&2; exit 2; }
done
FLAGS="-std=c++20 -O3 -lineinfo -gencode arch=compute_90,code=sm_90 -I common"
# name and -D switches of each build; "chapter" is the chapter as committed, with the prototype's
# geometry (BASE: 1 block per SM, 8 stages, 4 groups, the chapter's default until 2026-12-03; the
# default since then, 2 blocks per SM with 4 stages and 2 groups, has no prototype twin)
BASE="-DBLOCKS_PER_SM=1 -DRING_STAGES=8 -DCONSUMER_GROUPS=4"
BUILDS="chapter:
trap_only:-DGAP_WATCHDOG_TRAP_ONLY
stall_inline:-DGAP_STALL_INLINE
stall_returns:-DGAP_STALL_RETURNS
publish_after_slot:-DGAP_PUBLISH_AFTER_SLOT
state_in_ring:-DGAP_STATE_IN_RING
full_grid:-DGAP_FULL_GRID"
say "building $(printf '%s\n' "$BUILDS" | wc -l) chapter builds and the prototype (logs in $OUT)"
git rev-parse HEAD >"$OUT/commit.txt" 2>&1
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,driver_version --format=csv,noheader \
  >"$OUT/gpu.txt" 2>&1
while IFS=: read -r name defs; do
  # shellcheck disable=SC2086 # $defs is a list of -D switches
  nvcc $FLAGS -Xptxas -v $BASE $defs $SRC $OBJS -o "$OUT/ws_$name" -lgomp >"$OUT/build_$name.log" 2>&1 &
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
# Each build's SASS of the pipeline's kernel, and how many instructions of a few kinds it has.
if command -v cuobjdump >/dev/null; then
  for b in $(printf '%s\n' "$BUILDS" | cut -d: -f1); do
    cuobjdump -sass -fun _Z23warp_specialised_kernelPKiPimiPjPy "$OUT/ws_$b" >"$OUT/sass_$b.txt" 2>&1
    printf '%-20s' "$b"
    for op in 'total:/\*[0-9a-f]{4}\*/' 'CALL:CALL' 'RET:RET' 'BSSY:BSSY' 'WARPSYNC:WARPSYNC' \
      'timer:GLOBALTIMER' 'trywait:SYNCS.PHASECHK' 'TRAP:BPT.TRAP' 'STL:STL' 'LDL:LDL'; do
      printf ' %s %s' "${op%%:*}" "$(grep -cE "${op#*:}" "$OUT/sass_$b.txt")"
    done
    echo
  done >"$OUT/sass_counts.txt"
  say "SASS counts (sass_counts.txt):" && cat "$OUT/sass_counts.txt"
else
  say "no cuobjdump: no SASS"
fi

for round in 1 2 3; do
  if [ $(($(elapsed) + 70)) -gt "$BUDGET" ]; then
    say "round $round SKIPPED: $(elapsed) s of $BUDGET gone"
    break
  fi
  say "round $round"
  timeout 60 "$OUT/proto" --only 8,4,1,2,0,1 2^16 2^28 2^30 >>"$OUT/proto.csv" 2>>"$OUT/stderr.txt"
  for b in $(printf '%s\n' "$BUILDS" | cut -d: -f1); do
    sizes="2^28 2^30"
    case $b in chapter | full_grid) sizes="2^16 $sizes" ;; esac
    for size in $sizes; do
      timeout 60 "$OUT/ws_$b" --csv -n $size --variant warp-specialised 2>>"$OUT/stderr.txt" |
        sed "s/^/$b,$round,/" >>"$OUT/chapter.csv"
    done
  done
done

python3 - "$OUT" "$(printf '%s\n' "$BUILDS" | cut -d: -f1 | tr '\n' ' ')" <<'PYEOF' | tee "$OUT/summary.txt"
import os, re, statistics, sys
out, builds = sys.argv[1], sys.argv[2].split()
SIZES = ("2^16", "2^28", "2^30")
rows = {}  # (build, n) -> [(% of memcpy, check, us, memcpy us)] per round
for line in open(os.path.join(out, "chapter.csv")):
    f = line.strip().split(",")
    if len(f) >= 13 and f[3] == "warp-specialised":
        us, pct = float(f[4]), float(f[8])
        rows.setdefault((f[0], f[2]), []).append((pct, f[12], us, us * pct / 100))
if os.path.exists(os.path.join(out, "proto.csv")):
    for line in open(os.path.join(out, "proto.csv")):
        f = line.strip().split(",")
        if f[0] == "ws" and len(f) >= 14:
            n = {"65536": "2^16", "268435456": "2^28", "1073741824": "2^30"}.get(f[6], f[6])
            rows.setdefault(("prototype", n), []).append(
                (float(f[11]), "ok" if f[13] == "0" else "WRONG", float(f[7]), float(f[9])))
regs = {}
for b in builds:
    log = open(os.path.join(out, f"build_{b}.log")).read()
    m = re.search(r"warp_specialised_kernel.*?\n.*?(\d+) bytes stack frame.*?\n.*?Used (\d+) registers", log, re.S)
    regs[b] = f"{m.group(2)} regs, {m.group(1)} B stack" if m else "?"
med = lambda xs: statistics.median(xs) if xs else 0.0
print("chapter 11 against its prototype, median of the rounds: % of memcpy in the same process [min-max], and time in us")
print("GPU:", open(os.path.join(out, "gpu.txt")).read().strip())
if os.path.exists(os.path.join(out, "sass_counts.txt")):
    print("SASS of warp_specialised_kernel (instructions):")
    print(open(os.path.join(out, "sass_counts.txt")).read().rstrip())
print(f"  {'build':<20} " + " ".join(f"{n:<30}" for n in SIZES) + f" {'ptxas':<22} check")
base = {n: (med([r[0] for r in rows.get(("chapter", n), [])]), med([r[2] for r in rows.get(("chapter", n), [])])) for n in SIZES}
for b in builds + ["prototype"]:
    cells, checks = [], set()
    for n in SIZES:
        v = rows.get((b, n), [])
        if not v:
            cells.append("-".ljust(30))
            continue
        xs = [r[0] for r in v]
        checks |= {r[1] for r in v}
        m, t = statistics.median(xs), med([r[2] for r in v])
        d = f" {m - base[n][0]:+.1f}" if b != "chapter" and base[n][0] else ""
        cells.append(f"{m:.1f}{d} [{min(xs):.1f}-{max(xs):.1f}] {t:.1f}us".ljust(30))
    print(f"  {b:<20} {' '.join(cells)} {regs.get(b, ''):<22} {','.join(sorted(checks))}")
print("(+x: points above the chapter as committed; rounds:", max(len(v) for v in rows.values()) if rows else 0, ")")
for n in SIZES:
    ch = [r[3] for (b, m), v in rows.items() if m == n and b != "prototype" for r in v]
    pr = [r[3] for r in rows.get(("prototype", n), [])]
    if ch and pr:
        print(f"memcpy at {n}, median us: chapter's harness {med(ch):.1f} (all builds), prototype's {med(pr):.1f}"
              f" ({100 * (med(pr) / med(ch) - 1):+.2f} %)")
PYEOF
echo "elapsed: $(elapsed) s" | tee -a "$OUT/summary.txt"
