#!/usr/bin/env bash
# Plant known bugs in copies of chapters 02 and 03, build each copy, and report which check
# catches it: the self-test (up to n = 5000), and compute-sanitizer memcheck, racecheck and
# synccheck (up to n = 1100). Needs a GPU; the chapters' notes quote its results.
#   make SMS=90 all && tests/plant_bugs.sh OUTDIR
# Each line: NAME: self-test -> its last line | memcheck rc=… | racecheck rc=… | synccheck rc=…
# (rc 99: the tool found errors; 0: clean; 1: the self-test failed under the tool; 3: CUDA error).
# The chapters are not touched; the copies, build logs and tool logs go to OUTDIR. When a
# chapter's code changes so that a pattern no longer matches, the line says so.
set -u
[ $# -eq 1 ] || { echo "usage: tests/plant_bugs.sh OUTDIR (after make all; needs a GPU)" >&2; exit 2; }
mkdir -p "$1" && OUTD=$(cd "$1" && pwd) || exit 2
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
OBJS="build/common/cli.o build/common/data.o build/common/io.o build/common/report.o build/common/selftest.o build/common/cuda_util.o build/common/gpu_driver.o"
mutate() { # name file perl-expression variant
  local name=$1 file=$2 expr=$3 variant=$4
  local src="$OUTD/$name.cu" bin="$OUTD/$name"
  perl -0pe "$expr" "$file" > "$src"
  if cmp -s "$src" "$file"; then echo "$name: MUTATION DID NOT APPLY"; return; fi
  nvcc -O3 -lineinfo -gencode arch=compute_90,code=sm_90 -I common "$src" $OBJS -o "$bin" -lgomp 2>"$OUTD/$name.build.log" || { echo "$name: build failed"; return; }
  local st; st=$(timeout 300 "$bin" --self-test -n 5000 --variant "$variant" 2>&1 | tail -n 1)
  local line="$name: self-test -> $st"
  for tool in memcheck racecheck synccheck; do
    timeout 300 compute-sanitizer --tool $tool --error-exitcode 99 "$bin" --self-test -n 1100 --variant "$variant" >"$OUTD/$name.$tool.log" 2>&1
    line="$line | $tool rc=$?"
  done
  echo "$line"
}
mutate shfl_early_return 02_warp_shfl/warp_shfl.cu 's/(const size_t i = \(size_t\)blockIdx.x \* BLOCK_THREADS \+ threadIdx.x;\n    const uint32_t x = i < n)/const size_t i = (size_t)blockIdx.x * BLOCK_THREADS + threadIdx.x;\n    if (i >= n) return;\n    const uint32_t x = i < n/' shfl
mutate smem_no_first_syncwarp 02_warp_shfl/warp_shfl.cu 's/__syncwarp\(\); \/\* every read of this step is done before any write \*\//\/\* removed \*\//' smem
mutate ks_in_place 03_block_scan/block_scan.cu 's/buffer\[1 - from\]\[t\] = x; \/\*[^\n]*\n        from = 1 - from;/buffer[from][t] = x;/' kogge-stone
mutate sklansky_one_barrier 03_block_scan/block_scan.cu 's/(warp_exclusive_from_inclusive\(warp_inclusive_scan\(warp_prefix\[lane\]\)\);\n)    __syncthreads\(\);/$1/' sklansky
mutate coarsened_always_vector 03_block_scan/block_scan.cu 's/const int full_tile = tile \+ TILE_ITEMS <= n;/const int full_tile = 1;/' coarsened
mutate blelloch_unpadded_buffer 03_block_scan/block_scan.cu 's/(block_scan_blelloch_kernel[^{]*\{\n    __shared__ uint32_t tree\[)PADDED_WORDS\]/$1TILE_ITEMS]/' blelloch
