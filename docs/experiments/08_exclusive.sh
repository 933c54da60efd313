#!/usr/bin/env bash
# Chapter 08's exclusive scan against its inclusive one: builds variants of
# 08_memcpy_speed/memcpy_speed.cu (perl substitutions on a copy; the chapter is not touched) and
# times each, inclusive and exclusive, at n = 2^28 and 2^30, ROUNDS times, each in its own process
# (median of 20 per run, against the same run's cudaMemcpy). Prints ptxas's report per variant,
# then one CSV line per run: round,build,mode,n,time_us,pct_memcpy,check.
#   make SMS=90 all && docs/experiments/08_exclusive.sh OUTDIR [ROUNDS]   (needs a GPU; sm_90)
# The substitutions apply to the chapter as it was before it took `scanexcl` (commit 852d422:
# `git show 852d422:08_memcpy_speed/memcpy_speed.cu > FILE; SRC=FILE docs/experiments/...`);
# the run of 2026-12-01 on the H200 is docs/experiments/08_exclusive_2026-12-01.csv.
# Variants:
#   base       the chapter: the scan writes inclusive values, the exclusive store shifts by one,
#              reading the element before from shared memory
#   scanexcl   the scan writes exclusive values itself (before, before + x, …): no shifted read
#   twokern    base, with the two copies of the pass as two kernels (ptxas budgets each alone)
#   both       scanexcl and twokern
#   mb12       base with MIN_BLOCKS_PER_SM 12 on sm_90 (40 registers)
#   scanexcl12 scanexcl with MIN_BLOCKS_PER_SM 12
#   both12     both with MIN_BLOCKS_PER_SM 12
set -u
[ $# -ge 1 ] || { echo "usage: docs/experiments/08_exclusive.sh OUTDIR [ROUNDS]" >&2; exit 2; }
mkdir -p "$1" && OUT=$(cd "$1" && pwd) || exit 2
ROUNDS=${2:-2}
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
SRC=${SRC:-08_memcpy_speed/memcpy_speed.cu}
OBJS="build/common/cli.o build/common/data.o build/common/io.o build/common/report.o build/common/selftest.o build/common/cuda_util.o build/common/gpu_driver.o build/common/cub_scan.o"

declare -A SUB=(
  [scanexcl]='s/void scan_warp_part_shared\(uint4 \*tile\)/void scan_warp_part_shared(uint4 *tile, int exclusive)/; s/        \*mine = make_uint4\(before \+ q.x, before \+ q.y, before \+ q.z, before \+ q.w\);/        *mine = exclusive ? make_uint4(before, before + q.x, before + q.y, before + q.z)\n                          : make_uint4(before + q.x, before + q.y, before + q.z, before + q.w);/; s/        if \(exclusive\) \{ \/\* shift by one[^\n]*\n[^\n]*\n[^\n]*\n        \}\n//; s/    scan_warp_part_shared\(tile_data\);/    scan_warp_part_shared(tile_data, exclusive);/'
  [twokern]='s/(__global__ void __launch_bounds__\(BLOCK_THREADS, MIN_BLOCKS_PER_SM\)\n    lookback_scan_kernel\(const int32_t \*in, int32_t \*out, size_t n, unsigned long long \*state,\n\s*size_t capacity, int exclusive\)\n\{\n)(.*?\n)\}\n/__global__ void __launch_bounds__(BLOCK_THREADS, MIN_BLOCKS_PER_SM)\n    lookback_scan_kernel(const int32_t *in, int32_t *out, size_t n, unsigned long long *state,\n                         size_t capacity, int exclusive)\n{\n    single_pass_tile(in, out, n, state, capacity, 0);\n}\n__global__ void __launch_bounds__(BLOCK_THREADS, MIN_BLOCKS_PER_SM)\n    lookback_scan_exclusive_kernel(const int32_t *in, int32_t *out, size_t n, unsigned long long *state,\n                         size_t capacity, int exclusive)\n{\n    single_pass_tile(in, out, n, state, capacity, 1);\n}\n/s; s/    lookback_scan_kernel<<<\(unsigned\)tiles, BLOCK_THREADS, 0, stream>>>\(/    (exclusive ? lookback_scan_exclusive_kernel : lookback_scan_kernel)<<<(unsigned)tiles, BLOCK_THREADS, 0, stream>>>(/'
  [mb12]='s/#define MIN_BLOCKS_PER_SM 13/#define MIN_BLOCKS_PER_SM 12/'
)
declare -A VARIANTS=([base]="" [scanexcl]="scanexcl" [twokern]="twokern" [both]="scanexcl twokern"
                     [mb12]="mb12" [scanexcl12]="scanexcl mb12" [both12]="scanexcl twokern mb12")
NAMES="base scanexcl twokern both mb12 scanexcl12 both12"

build() { # name
  local name=$1 s
  cp "$SRC" "$OUT/$name.cu"
  for s in ${VARIANTS[$name]}; do
    perl -0pi -e "${SUB[$s]}" "$OUT/$name.cu"
  done
  for s in ${VARIANTS[$name]}; do
    perl -0pe "${SUB[$s]}" "$SRC" | cmp -s - "$SRC" && { echo "$name: $s did not apply" >&2; return 1; }
  done
  nvcc -std=c++20 -O3 -lineinfo -gencode arch=compute_90,code=sm_90 -Xptxas -v -I common \
    "$OUT/$name.cu" $OBJS -o "$OUT/$name" -lgomp > "$OUT/$name.build.log" 2>&1 ||
    { echo "$name: build failed (see $OUT/$name.build.log)" >&2; return 1; }
  grep -A2 "Function properties for _Z.*lookback_scan" "$OUT/$name.build.log" | grep -v '^--' |
    tr -s ' ' | sed "s/^/$name ptxas:/" >&2
}
for b in $NAMES; do build "$b" & done
wait

run() { # round build mode args...
  local round=$1 name=$2 mode=$3 k
  shift 3
  for k in 28 30; do
    "$OUT/$name" "$@" --variant decoupled-lookback --csv -n "2^$k" --reps 20 2>&1 |
      awk -F, -v r="$round" -v b="$name" -v m="$mode" -v k="$k" '
      /^#/ { next } !h { for (i = 1; i <= NF; ++i) c[$i] = i; h = 1; next }
      $c["variant"] != "memcpy" { printf "%s,%s,%s,2^%s,%s,%s,%s\n", r, b, m, k, $c["time_us"], $c["pct_memcpy"], $c["check"] }'
  done
}
echo "round,build,mode,n,time_us,pct_memcpy,check"
for ((r = 1; r <= ROUNDS; ++r)); do
  for b in $NAMES; do
    [ -x "$OUT/$b" ] || continue
    run "$r" "$b" inclusive
    run "$r" "$b" exclusive --exclusive
  done
done
# each variant's self-test, exclusive and inclusive, small sizes (a wrong shift shows here)
for b in $NAMES; do
  [ -x "$OUT/$b" ] || continue
  echo "$b self-test: $("$OUT/$b" --self-test -n 70000 --variant decoupled-lookback 2>&1 | tail -n 1)"
done
