#!/usr/bin/env bash
# The variants that the notes of chapters 03-05 compare their kernels with, rebuilt and timed:
# each is a perl substitution on a copy of the chapter's source (the chapters are not touched),
# timed beside the chapter itself, ROUNDS times, each run in its own process (median of 20).
#   make SMS=90 all && docs/experiments/03_05_variants.sh OUTDIR [ROUNDS]   (needs a GPU; sm_90)
#   03 fanout_branchfree  block_scan_tile()'s fan-out reads all 4 warp totals and selects
#                         (docs/experiments/03_block_scan.md: 89.9 % against 99.0 %, not kept)
#   04 fan_8_per_thread   add_carries_kernel with chapter 03's layout: 128 threads, 8 consecutive
#                         elements each (chapter 04: 630 µs, 44.3 %, run not recorded)
#   04 fan_8_streaming    the same with __ldcs/__stcs (45.4 %)
#   04 fan_streaming      the chapter's fan with __ldcs/__stcs (49.4 % against 49.7 %)
#   05 bounds16           __launch_bounds__(COARSE_THREADS, 16) on scan_chunks_kernel (62.9-63.0 %
#                         against 63.9-64.0 %, G = 2112)
# Prints one CSV line per run: round,build,n,time_us,pct_memcpy,check. With Nsight Compute (ncu)
# on PATH it also writes OUTDIR/ncu_04.csv and OUTDIR/ncu_05.csv: each kernel's time and DRAM
# throughput at 2^28 (chapters 04 and 05, "Why this speed"). docs/experiments/04_scan_then_fan.md
# and 05_reduce_then_scan.md say what the notes quote and what this run must show.
set -u
[ $# -ge 1 ] || { echo "usage: docs/experiments/03_05_variants.sh OUTDIR [ROUNDS]" >&2; exit 2; }
mkdir -p "$1" && OUT=$(cd "$1" && pwd) || exit 2
ROUNDS=${2:-3}
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
OBJS="build/common/cli.o build/common/data.o build/common/io.o build/common/report.o build/common/selftest.o build/common/cuda_util.o build/common/gpu_driver.o"

FAN8='s/#define FAN_THREADS \(TILE_ITEMS \/ 4\)/#define FAN_THREADS (TILE_ITEMS \/ 8)/; s/    const size_t first = tile \* TILE_ITEMS \+ \(size_t\)threadIdx.x \* 4;\n    const uint32_t carry = \(uint32_t\)tile_carry\[tile\]; \/\*[^\n]*\n(    if \(first \+ 4 <= n\) \{.*?\n    \}\n)\}/    const uint32_t carry = (uint32_t)tile_carry[tile];\n    for (int half = 0; half < 2; ++half) {\n    const size_t first = tile * TILE_ITEMS + (size_t)threadIdx.x * 8 + 4 * (size_t)half;\n$1    }\n}/s'
STREAM='s/uint4 v = \*vector;/uint4 v = __ldcs(vector);/; s/        \*vector = v;/        __stcs(vector, v);/'
declare -A SRC=(
  [fanout_branchfree]=03_block_scan/block_scan.cu
  [fan_8_per_thread]=04_scan_then_fan/scan_then_fan.cu
  [fan_8_streaming]=04_scan_then_fan/scan_then_fan.cu
  [fan_streaming]=04_scan_then_fan/scan_then_fan.cu
  [bounds16]=05_reduce_then_scan/reduce_then_scan.cu
)
declare -A EXPR=(
  [fanout_branchfree]='s/    for \(int w = 0; w < warp; \+\+w\)\n        before \+= warp_total\[w\];/    for (int w = 0; w < COARSE_WARPS; ++w)\n        before += w < warp ? warp_total[w] : 0;/'
  [fan_8_per_thread]="$FAN8"
  [fan_8_streaming]="$FAN8; $STREAM"
  [fan_streaming]="$STREAM"
  [bounds16]='s/__global__ void scan_chunks_kernel\(/__global__ void __launch_bounds__(COARSE_THREADS, 16) scan_chunks_kernel(/'
)
declare -A VARIANT=([fanout_branchfree]=coarsened [fan_8_per_thread]=scan-then-fan
  [fan_8_streaming]=scan-then-fan [fan_streaming]=scan-then-fan [bounds16]=reduce-then-scan)
BUILDS="fanout_branchfree fan_8_per_thread fan_8_streaming fan_streaming bounds16"

build() { # name
  local name=$1
  perl -0pe "${EXPR[$name]}" "${SRC[$name]}" > "$OUT/$name.cu"
  cmp -s "$OUT/$name.cu" "${SRC[$name]}" && { echo "$name: the substitution did not apply" >&2; return 1; }
  nvcc -std=c++20 -O3 -lineinfo -gencode arch=compute_90,code=sm_90 -Xptxas -v -I common \
    "$OUT/$name.cu" $OBJS -o "$OUT/$name" -lgomp > "$OUT/$name.build.log" 2>&1 ||
    { echo "$name: build failed (see $OUT/$name.build.log)" >&2; return 1; }
  "$OUT/$name" --self-test -n 16777217 --variant "${VARIANT[$name]}" > "$OUT/$name.selftest.log" 2>&1 ||
    { echo "$name: its self-test failed (see $OUT/$name.selftest.log)" >&2; return 1; }
}
for b in $BUILDS; do build "$b" & done
wait

run() { # round build binary variant
  local round=$1 name=$2 bin=$3 variant=$4 k
  for k in 24 26 28; do
    "$bin" --variant "$variant" --csv -n "2^$k" --reps 20 2>&1 | awk -F, -v r="$round" -v b="$name" -v k="$k" '
      /^#/ { next } !h { for (i = 1; i <= NF; ++i) c[$i] = i; h = 1; next }
      $c["variant"] != "memcpy" { printf "%s,%s,2^%s,%s,%s,%s\n", r, b, k, $c["time_us"], $c["pct_memcpy"], $c["check"] }'
  done
}
echo "round,build,n,time_us,pct_memcpy,check"
for ((r = 1; r <= ROUNDS; ++r)); do
  run "$r" ch03 03_block_scan/run coarsened
  run "$r" ch04 04_scan_then_fan/run scan-then-fan
  run "$r" ch05 05_reduce_then_scan/run reduce-then-scan
  for b in $BUILDS; do [ -x "$OUT/$b" ] && run "$r" "$b" "$OUT/$b" "${VARIANT[$b]}"; done
done

if command -v ncu >/dev/null; then
  for c in 04_scan_then_fan 05_reduce_then_scan; do
    ncu --clock-control none --csv \
      --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed \
      "$c/run" -n 2^28 --reps 1 > "$OUT/ncu_${c%%_*}.csv" 2> "$OUT/ncu_${c%%_*}.log" ||
      echo "ncu on $c failed (see $OUT/ncu_${c%%_*}.log)" >&2
  done
fi
