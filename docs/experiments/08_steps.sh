#!/usr/bin/env bash
# Chapter 08's steps, measured: builds variants of 08_memcpy_speed/memcpy_speed.cu with steps taken
# out (perl substitutions on a copy; the chapter is not touched), then times each at n = 2^28 and
# 2^16 beside chapter 07 and CUB, ROUNDS times, each in its own process (median of 20 per run).
#   make SMS=90 all && docs/experiments/08_steps.sh OUTDIR [ROUNDS]     (needs a GPU; sm_90 build)
# Prints one CSV line per run: round,build,n,time_us,pct_memcpy,check. The notes of chapter 08
# quote its results (docs/experiments/08_memcpy_speed.md has the log), measured on the source of
# commit aefc91b; the substitutions also apply to the source after commit 3c2007b, whose warp-part
# scan takes `exclusive` (`scan_warp_part_shared(tile_data, exclusive);`).
# Fails loudly: exit 1, before any timing, if a step's substitution does not apply or a build
# fails (every build is named); exit 1 at the end if any run failed or any row's check is not ok.
set -u
[ $# -ge 1 ] || { echo "usage: docs/experiments/08_steps.sh OUTDIR [ROUNDS]" >&2; exit 2; }
mkdir -p "$1" && OUT=$(cd "$1" && pwd) || exit 2
ROUNDS=${2:-2}
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
SRC=08_memcpy_speed/memcpy_speed.cu
OBJS="build/common/cli.o build/common/data.o build/common/io.o build/common/report.o build/common/selftest.o build/common/cuda_util.o build/common/gpu_driver.o build/common/cub_scan.o"

# Each step as the substitution that takes it out of the chapter.
declare -A OFF=(
  [stripe]='s/const int k = warp \* WARP_VECTORS \+ v \* WARP_THREADS \+ lane;/const int k = warp * WARP_VECTORS + lane * VECTORS_PER_THREAD + v;/g'
  [tile4096]='s/#define ITEMS_PER_THREAD 32/#define ITEMS_PER_THREAD 8/'
  [cpasync]='s/#if __CUDA_ARCH__ >= 800/#if 0/g'
  [prefetch]='s/\n    prefetch_tile_l2\(in, n, tile_first\);//'
  [onelaunch]='s/(    lookback_scan_kernel<<<)/    CUDA_CHECK(cudaMemsetAsync(d_temp, 0, temp_bytes, stream));\n$1/'
  [budget]='s/#define MIN_BLOCKS_PER_SM 13/#define MIN_BLOCKS_PER_SM 1/'
  [reducefirst]='s/(    if \(threadIdx.x == 0\)\n        publish_aggregate\(descriptors, tile, aggregate\);\n)(    scan_warp_part_shared\(tile_data(?:, exclusive)?\);\n)/$2$1/'
)
STEPS="stripe tile4096 cpasync prefetch onelaunch budget reducefirst"

build() { # name steps-to-take-out...
  local name=$1 expr="" s
  shift
  rm -f "$OUT/$name" # a binary left by an earlier run must not stand in for this build
  for s in "$@"; do expr="$expr${OFF[$s]}; "; done
  perl -0pe "$expr" "$SRC" > "$OUT/$name.cu"
  for s in "$@"; do
    perl -0pe "${OFF[$s]}" "$SRC" | cmp -s - "$SRC" && { echo "$name: step $s did not apply" >&2; return 1; }
  done
  nvcc -std=c++20 -O3 -lineinfo -gencode arch=compute_90,code=sm_90 -Xptxas -v -I common \
    "$OUT/$name.cu" $OBJS -o "$OUT/$name" -lgomp > "$OUT/$name.build.log" 2>&1 ||
    { echo "$name: build failed (see $OUT/$name.build.log)" >&2; return 1; }
  grep -A2 "Function properties for _Z20lookback" "$OUT/$name.build.log" | tail -n 2 | tr -s ' ' |
    sed "s/^/$name ptxas:/" >&2
}

# The path: every step out (c0), then the steps put back one at a time, in order (c7 is the
# chapter); and the ablations: the chapter with one step out (no_STEP). Built in parallel.
all=($STEPS)
names=""
for ((i = 0; i <= ${#all[@]}; ++i)); do
  build "c$i" "${all[@]:$i}" &
  names="$names c$i"
done
for s in $STEPS; do
  build "no_$s" "$s" &
  names="$names no_$s"
done
wait
missing=""
for b in $names; do [ -x "$OUT/$b" ] || missing="$missing $b"; done
if [ -n "$missing" ]; then
  echo "08_steps: not built:$missing (the messages above say why); nothing timed" >&2
  exit 1
fi

failed=0
run() { # round build binary args...
  local round=$1 name=$2 bin=$3 rows status
  shift 3
  for k in 28 16; do
    rows=$("$bin" "$@" --csv -n "2^$k" --reps 20 2>&1 | awk -F, -v r="$round" -v b="$name" -v k="$k" '
      /^#/ { next } !h { for (i = 1; i <= NF; ++i) c[$i] = i; h = 1; next }
      $c["variant"] != "memcpy" { printf "%s,%s,2^%s,%s,%s,%s\n", r, b ($c["variant"] == "cub" ? "_cub" : ""), k, $c["time_us"], $c["pct_memcpy"], $c["check"] }'
      exit "${PIPESTATUS[0]}")
    status=$?
    [ -n "$rows" ] && echo "$rows"
    if [ "$status" -ne 0 ] || [ -z "$rows" ] || echo "$rows" | grep -qv ',ok$'; then
      echo "08_steps: $name at 2^$k: exit status $status, or no row, or a check not ok" >&2
      failed=1
    fi
  done
}
echo "round,build,n,time_us,pct_memcpy,check"
for ((r = 1; r <= ROUNDS; ++r)); do
  run "$r" ch07 07_decoupled_lookback/run
  run "$r" ch08 08_memcpy_speed/run
  for b in $names; do run "$r" "$b" "$OUT/$b" --variant decoupled-lookback; done
done
exit "$failed"
