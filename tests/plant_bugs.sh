#!/usr/bin/env bash
# Plant known bugs in copies of chapters 02-13, build each copy, and report which check catches
# it: the self-test (up to n = 5000 unless the bug needs larger sizes), and compute-sanitizer
# memcheck, racecheck and synccheck (up to n = 1100, or the run given). Needs a GPU; the
# chapters' notes quote its results.
#   make all && tests/plant_bugs.sh OUTDIR [NAME_REGEX]   (only the bugs whose name matches)
# PLANT_SHARD=K/M (e.g. 1/4): only the plants numbered K, K + M, … in the order below, so that M
# such runs side by side run every plant once.
# The copies are built for the GPU in this machine (nvidia-smi's compute capability; SM=90 to
# choose) with the nvcc on PATH (or /usr/local/cuda/bin/nvcc, or NVCC=...); build/ must hold
# objects for that architecture (the default `make all` builds for all of SMS).
# Each line: NAME: self-test -> its last line (exit its status) | memcheck rc=… | racecheck rc=… |
# synccheck rc=… (the self-test's whole output: OUTDIR/NAME.run.log)
# (rc 99: the tool found errors; 0: clean; 1: the self-test failed under the tool; 3: CUDA error).
# The chapters are not touched; the copies, build logs and tool logs go to OUTDIR. When a
# chapter's code changes so that a pattern no longer matches, the line says so.
set -u
case ${1:-} in # the comment above is the help; each plant is a `mutate NAME FILE ...` line below
  -h | --help) sed -n '2,/^set -u$/p' "$0" | sed '$d; s/^# \{0,1\}//'; echo "plants:"
    sed -n 's/^mutate \([a-z0-9_]*\) .*/  \1/p' "$0"; exit 0 ;;
  -*) echo "plant_bugs: unknown option $1 (--help lists the plants)" >&2; exit 2 ;;
esac
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: tests/plant_bugs.sh OUTDIR [NAME_REGEX] (after make all; needs a GPU)" >&2; exit 2; }
ONLY=${2:-.}
SHARD_K="" SHARD_M="" plant_number=0
if [ -n "${PLANT_SHARD:-}" ]; then
  SHARD_K=${PLANT_SHARD%/*} SHARD_M=${PLANT_SHARD#*/}
  case $SHARD_K/$SHARD_M in
    [1-9]*/[1-9]*) [ "$SHARD_K" -le "$SHARD_M" ] 2>/dev/null || SHARD_M=bad ;;
    *) SHARD_M=bad ;;
  esac
  [ "$SHARD_M" != bad ] || { echo "plant_bugs: PLANT_SHARD=$PLANT_SHARD: want K/M with 1 <= K <= M (e.g. 1/4)" >&2; exit 2; }
fi
mkdir -p "$1" && OUTD=$(cd "$1" && pwd) || exit 2
cd "$(dirname "$0")/.."
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || { echo "plant_bugs: nvcc not found: put the CUDA Toolkit's bin/ on PATH, or set NVCC" >&2; exit 2; }
export PATH="$(dirname "$NVCC"):$PATH"  # compute-sanitizer ships beside nvcc
SM=${SM:-$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '.[:space:]')}
[ -n "$SM" ] || { echo "plant_bugs: no GPU found by nvidia-smi; run it on a machine with a GPU (or set SM, e.g. SM=90)" >&2; exit 2; }
OBJS="build/common/cli.o build/common/data.o build/common/io.o build/common/report.o build/common/selftest.o build/common/cuda_util.o build/common/gpu_driver.o"
mutate() { # name file perl-expression variant [self-test args] [sanitizer args | skip]
  local name=$1 file=$2 expr=$3 variant=$4
  local st_args=${5:---self-test -n 5000} tool_args=${6:---self-test -n 1100}
  local src="$OUTD/$name.cu" bin="$OUTD/$name"
  echo "$name" | grep -qE "$ONLY" || return 0
  plant_number=$((plant_number + 1))
  [ -z "$SHARD_M" ] || [ $(((plant_number - 1) % SHARD_M)) -eq $((SHARD_K - 1)) ] || return 0
  perl -0pe "$expr" "$file" > "$src"
  if cmp -s "$src" "$file"; then echo "$name: MUTATION DID NOT APPLY"; return; fi
  local extra=""  # chapters 09 and 10 link their modes' host side and their own CUB baselines
  case $file in
    09_*) extra="-I $(dirname "$file") build/09_operators/operator_modes.o build/09_operators/cub_operators.o build/09_operators/float_checks.o" ;;
    10_*) extra="-I $(dirname "$file") build/10_compaction/compaction_modes.o build/10_compaction/cub_select.o" ;;
    13_*) extra="-I $(dirname "$file") build/13_out_of_core/cpu_threads.o" ;;  # the chapter's make builds it
  esac
  "$NVCC" -std=c++20 -O3 -lineinfo -gencode "arch=compute_$SM,code=sm_$SM" -I common $extra "$src" $OBJS build/common/cub_scan.o -o "$bin" -lgomp 2>"$OUTD/$name.build.log" || { echo "$name: build failed (see $OUTD/$name.build.log)"; return; }
  timeout 300 "$bin" $st_args --variant "$variant" >"$OUTD/$name.run.log" 2>&1
  local rc=$? st; st=$(tail -n 1 "$OUTD/$name.run.log")
  local line="$name: $st_args -> $st (exit $rc)"
  if [ "$tool_args" != skip ]; then
    for tool in memcheck racecheck synccheck; do
      timeout 300 compute-sanitizer --tool $tool --error-exitcode 99 "$bin" $tool_args --variant "$variant" >"$OUTD/$name.$tool.log" 2>&1
      line="$line | $tool rc=$?"
    done
  fi
  echo "$line"
}
mutate shfl_early_return 02_warp_shfl/warp_shfl.cu 's/(const size_t i = \(size_t\)blockIdx.x \* BLOCK_THREADS \+ threadIdx.x;\n    const uint32_t x = i < n)/const size_t i = (size_t)blockIdx.x * BLOCK_THREADS + threadIdx.x;\n    if (i >= n) return;\n    const uint32_t x = i < n/' shfl
mutate smem_no_first_syncwarp 02_warp_shfl/warp_shfl.cu 's/__syncwarp\(\); \/\* every read of this step is done before any write \*\//\/\* removed \*\//' smem
mutate ks_in_place 03_block_scan/block_scan.cu 's/buffer\[1 - from\]\[t\] = x; \/\*[^\n]*\n        from = 1 - from;/buffer[from][t] = x;/' kogge-stone
mutate sklansky_one_barrier 03_block_scan/block_scan.cu 's/(warp_exclusive_from_inclusive\(warp_inclusive_scan\(warp_prefix\[lane\]\)\);\n)    __syncthreads\(\);/$1/' sklansky
mutate coarsened_always_vector 03_block_scan/block_scan.cu 's/if \(tile_first \+ TILE_ITEMS <= n\) \{/if (1) {/' coarsened
mutate blelloch_unpadded_buffer 03_block_scan/block_scan.cu 's/(block_scan_blelloch_kernel[^{]*\{\n    __shared__ uint32_t tree\[)PADDED_WORDS\]/$1TILE_ITEMS]/' blelloch
mutate fan_int_index 04_scan_then_fan/scan_then_fan.cu 's/const size_t first = tile \* TILE_ITEMS \+ \(size_t\)threadIdx.x \* 4;/const int first = (blockIdx.x + 1) * TILE_ITEMS + threadIdx.x * 4;/' scan-then-fan --self-test skip
mutate scratch_unaligned 04_scan_then_fan/scan_then_fan.cu 's/#define SCRATCH_ALIGN_ITEMS 32/#define SCRATCH_ALIGN_ITEMS 1/' scan-then-fan --self-test skip
mutate chunk_no_loop_barrier 05_reduce_then_scan/reduce_then_scan.cu 's/        __syncthreads\(\); \/\* block_scan_tile[^\n]*\n//' reduce-then-scan "--self-test -n 16777217" "-n 2^23 --reps 1"
mutate chunk_carry_dropped 05_reduce_then_scan/reduce_then_scan.cu 's/        carry \+= aggregate;\n//' reduce-then-scan "--self-test -n 5000" skip
mutate chunk_carry_dropped_big 05_reduce_then_scan/reduce_then_scan.cu 's/        carry \+= aggregate;\n//' reduce-then-scan "--self-test -n 16777217" skip
mutate chain_blockidx 06_chained_scan/chained_scan.cu 's/chunk_id = atomicAdd\(next_chunk, 1u\);/chunk_id = blockIdx.x;/' held-1tile "--stress 100" skip
mutate chain_split_flag 06_chained_scan/chained_scan.cu 's/    store_descriptor\(&descriptors\[chunk\],\n\s*\(unsigned long long\)TILE_PREFIX << 32 \| \(uint32_t\)\(exclusive \+ aggregate\)\);/    ((volatile unsigned *)&descriptors[chunk])[1] = TILE_PREFIX;\n    ((volatile unsigned *)&descriptors[chunk])[0] = exclusive + aggregate;/' held-1tile "--stress 100" skip
# (No plant chain_no_fence any more: value, then flag, in two 32-bit stores without a fence
# changed only the writer; the reader still loads both halves with one 64-bit load, a mixed-size
# race to which no rule of the PTX model applies (PTX ISA §8.7.2), so it did not model the missing
# fence of a two-word protocol, and nothing caught it (--stress 100 passed on the H200 twice). No
# test can: a run shows a reordering when one happens, never that none can. Chapter 06's
# exercise 3 builds the two-word protocol on both sides and argues its fence from the model.)
# the spin through the read-only cache (__ldg, ld.global.nc: outside the memory model, PTX ISA
# §8.1; the CUDA guide allows it only for data read-only for the kernel's lifetime): nothing makes
# it see the predecessor's store, and the compiler may hoist it out of the loop (expected: the
# watchdog, exit 3)
mutate chain_ldg 06_chained_scan/chained_scan.cu 's/asm volatile\("ld.relaxed.gpu.global.u64 %0, \[%1\];" : "=l"\(word\) : "l"\(descriptor\) : "memory"\);/word = __ldg(descriptor);/' held-1tile "--stress 20" skip
# the launcher's memset left out: the chunk counter then starts from the driver's poison
# (0xA5A5A5A5), so the chunk numbers index far past the descriptors (expected: a CUDA error, exit 3)
mutate chain_no_memset 06_chained_scan/chained_scan.cu 's/    CUDA_CHECK\(cudaMemsetAsync\(d_temp, 0, chained_temp_bytes\(variant, n\), 0\)\);\n//' held-1tile "--self-test -n 5000"
# the look-back (chapter 07, carried unchanged into 08: planted in both)
for ch in 07_decoupled_lookback/decoupled_lookback.cu 08_memcpy_speed/memcpy_speed.cu; do
  c=${ch%%_*}
  mutate lookback_double_count_$c $ch 's/const unsigned needed = prefix_lanes \? \(prefix_lanes \^ \(prefix_lanes - 1\)\) : FULL_MASK;/const unsigned needed = FULL_MASK;/' decoupled-lookback "--self-test -n 16777217" skip
  mutate lookback_ldg_$c $ch 's/asm volatile\("ld.relaxed.gpu.global.u64 %0, \[%1\];" : "=l"\(word\) : "l"\(descriptor\) : "memory"\);/word = __ldg(descriptor);/' decoupled-lookback "--stress 20" skip
  mutate tile0_never_publishes_$c $ch 's/        store_descriptor\(&descriptors\[0\], pack_descriptor\(TILE_PREFIX, aggregate\)\);/        ;/' decoupled-lookback "-n 2^20 --reps 1" skip
done
mutate lookback_blockidx_07 07_decoupled_lookback/decoupled_lookback.cu 's/tile_id = atomicAdd\(next_tile, 1u\);/tile_id = blockIdx.x;/' decoupled-lookback "--stress 100" skip
# chapter 08's one launch per call: the descriptors the last call left must be cleared, and each
# scan needs its own scratch
mutate stale_not_cleared_08 08_memcpy_speed/memcpy_speed.cu 's/    clear_stale_descriptors\(state \+ 1 \+ \(1 - array\) \* capacity,\n\s*\(size_t\)\(drawn >> 32 & STATE_STALE_MASK\), tile\);\n//' decoupled-lookback "--self-test -n 16777217" skip
mutate shared_scratch_08 08_memcpy_speed/memcpy_speed.cu 's/(lookback_scan_async\(s\[k\]\.d_in, s\[k\]\.d_out, s\[k\]\.n, s\[k\]\.exclusive, )s\[k\]\.d_temp,\n(\s*)s\[k\]\.temp_bytes,/$1s[0].d_temp,\n$2s[0].temp_bytes,/' decoupled-lookback "--two-streams 300" skip
mutate prefetch_past_end_08 08_memcpy_speed/memcpy_speed.cu 's/        if \(first \+ k < n\)\n            asm volatile\("prefetch/        asm volatile("prefetch/' decoupled-lookback "--self-test -n 16777217" "--self-test -n 70000"
# chapter 09: the operator's order, where the look-back stops, the descriptors of two words (mode
# arguments go with the self-test's)
ch9=09_operators/operators.cu
mutate window_wrong_order_09 $ch9 's/const V window = warp_combine<Op>\(\(needed >> lane\) & 1u \? v : Op::identity\(\), 0\);/const V window = warp_combine<Op>((needed >> lane) \& 1u ? v : Op::identity(), 1);/' decoupled-lookback "--recurrence --self-test -n 16777217" skip
mutate reduce_as_commutative_09 $ch9 's/Op::COMMUTATIVE \? group :/1 ? group :/; s/if \(Op::COMMUTATIVE\)\n        total = warp_combine/if (1)\n        total = warp_combine/' decoupled-lookback "--recurrence --self-test -n 16777217" skip
mutate stops_without_head_09 $ch9 's/static __device__ int absorbs\(value v\) \{ return v.head != 0; \}/static __device__ int absorbs(value v) { return 1; }/' decoupled-lookback "--segmented --self-test -n 16777217" skip
mutate crosses_head_09 $ch9 's/static __device__ int absorbs\(value v\) \{ return v.head != 0; \}/static __device__ int absorbs(value v) { return 0; }/; s/        w.w\[i\] = \(uint32_t\)word;/        w.w[i] = i == 0 \&\& words == 2 ? 0u : (uint32_t)word;/' decoupled-lookback "--segmented --self-test -n 16777217" skip
mutate torn_descriptor_09 $ch9 's/state = i == 0 \? s : \(s == state \? state : TILE_INVALID\);/state = i == 0 ? s : state;/' decoupled-lookback "--recurrence --stress 300" skip
# the float sum's identity +0.0 instead of -0.0: a sum of -0.0s comes out +0.0 (new; not yet run:
# the battery's neg-zeros-first pattern, checked bit for bit, is meant to catch it)
mutate identity_plus_zero_09 $ch9 's/static __device__ value identity\(\) \{ return -0.0f; \}/static __device__ value identity() { return 0.0f; }/' decoupled-lookback "--float-sum --self-test -n 5000" skip
# chapter 10: the compaction with relaxed descriptors: nothing orders a tile's writes after its
# predecessors' reads (a race that no test has caught on the H200: see the notes); and its gathering
# in shared memory. (Planted on the H200 on 2026-12-01 as compact_relaxed_09, gather_no_syncwarp_09,
# when the compaction was chapter 09's mode: the same kernel.)
ch10=10_compaction/compaction.cu
mutate compact_relaxed_10 $ch10 's/Op::ORDERED \? load_descriptor_acquire\(at\)/0 ? load_descriptor_acquire(at)/; s/        if \(Op::ORDERED\)\n            store_descriptor_release/        if (0)\n            store_descriptor_release/' decoupled-lookback "--compact --stress 100" skip
mutate gather_no_syncwarp_10 $ch10 's/        __syncwarp\(\); \/\* every lane has read its group before any lane writes into it \*\///' decoupled-lookback "--compact --stress 100" "--compact --self-test -n 1100"
# the count from the last tile's exclusive prefix instead of its inclusive one (new; not yet run)
mutate count_exclusive_10 $ch10 's/Op::last_tile\(a, Op::combine\(tile_exclusive_prefix, aggregate\)\);/Op::last_tile(a, tile_exclusive_prefix);/' decoupled-lookback "--compact --self-test -n 5000" skip
# chapter 11 (docs/experiments/11_chapter_h200.sh runs these too): the pipeline's stages, barriers
# and fences. First run on the H200 on 2026-12-03 (docs/experiments/11_warp_specialised.md): the
# four plants that break a phase count or a wait were caught; stage_released_early_11 (then with
# the full grid and --stress 300) and no_proxy_fence_11 were not.
ch11=11_warp_specialised/warp_specialised.cu
# A stage released before its readers finished. For the early release to matter, the producer must
# draw, copy and land the next tile into the stage before the early reader's loads are served, and
# the reader must be the stage's last one. So both plants use the 3-block grid
# (MAX_PIPELINE_BLOCKS 3: every ring wraps about 170 times at 2^24 in --stress), and the sanitizers,
# which slow every instrumented shared-memory load but not the copy engine, also run on it
# (rc 1: the self-test failed under the tool; rc 99: a hazard reported).
# - the group frees the stage before copying it out: the first run's plant. Usually harmless:
#   the reducer, one warp reading all 16 KB (32 loads per lane against a group's 8), is mostly
#   the stage's last reader, and the next copy waits for it;
mutate stage_released_early_11 $ch11 's/(        uint4 q\[VECTORS_PER_THREAD\];\n        copy_stage_to_registers\([^\n]*\n)(        fence_proxy_async_shared\(\);[^\n]*\n        mbarrier_arrive\(&sh->empty\[s\]\);[^\n]*\n)/$2$1/; s/#define MAX_PIPELINE_BLOCKS 0/#define MAX_PIPELINE_BLOCKS 3/' warp-specialised "--stress 300" "--stress 4 -n 300001"
# - the reducer frees the stage before summing it: the usual last reader released early, so the
#   window is its 32 loads per lane against the producer's draw and the copy's latency
mutate reducer_released_early_11 $ch11 's/(            aggregate = reduce_stage\([^\n]*\n[^\n]*\n)(            fence_proxy_async_shared\(\);[^\n]*\n            mbarrier_arrive\(&sh->empty\[s\]\);[^\n]*\n)/$2$1/; s/#define MAX_PIPELINE_BLOCKS 0/#define MAX_PIPELINE_BLOCKS 3/' warp-specialised "--stress 300" "--stress 4 -n 300001"
# a missing mbarrier wait: the group (or the reducer) reads its stage without waiting for `full`
mutate group_no_full_wait_11 $ch11 's/        wait_phase\(&sh->full\[s\], \(k \/ RING_STAGES\) & 1u, WAIT_FULL, s\);\n(        const unsigned tile = sh->tile_of\[s\];\n        if \(tile == NO_TILE\))/$1/' warp-specialised "--self-test -n 16777217" skip
mutate reducer_no_full_wait_11 $ch11 's/        wait_phase\(&sh->full\[s\], \(k \/ RING_STAGES\) & 1u, WAIT_FULL, s\);\n(        const unsigned tile = sh->tile_of\[s\];\n        uint32_t aggregate = 0;)/$1/' warp-specialised "--self-test -n 16777217" skip
# a missing proxy fence: the consumers' generic reads of a stage, then the copy engine's write into
# it, with no fence.proxy.async between them. NOTHING CATCHES IT, and no test here can: the fence
# is there because the PTX ISA's memory model gives no order between a generic read and a later
# async-proxy write without one (§8.9.5, proxy-preserved order; §9.7.9.25.2, "Async proxy";
# docs/experiments/11_design.md §3.5, hand-off 7), not because a run showed a wrong answer
# (self-test passed on the H200, 2026-12-03). A run can show a reordering when one happens, never
# that none can. The plant stays for the fence's cost: 11_chapter_h200.sh times its binary.
mutate no_proxy_fence_11 $ch11 's/ *fence_proxy_async_shared\(\); *\/\* these reads, before the next copy into the stage \*\/\n//g' warp-specialised "--self-test -n 16777217" skip
# an arrival count the arrivers never reach, and NO_TILE handed to one group only (the prototype's
# first hang): the stage watchdog's message, then exit 3
mutate empty_count_plus_one_11 $ch11 's/#define EMPTY_ARRIVALS \(GROUP_THREADS \+ WARP_THREADS\)/#define EMPTY_ARRIVALS (GROUP_THREADS + WARP_THREADS + 1)/' warp-specialised "--self-test -n 16777217" skip
mutate no_tile_to_one_group_11 $ch11 's/for \(unsigned e = 0; e < CONSUMER_GROUPS; \+\+e\) \{/for (unsigned e = 0; e < 1; ++e) {/' warp-specialised "--self-test -n 16777217" skip
# chapter 12 (docs/experiments/12_chapter_h200.sh runs these too; on the H200 on 2026-12-04 each
# was caught: docs/experiments/runs_2026-12-04/12_chapter_h200/summary.txt). The variant fallback-100pct makes every look-back fall back on its
# nearest predecessor, so the fallback's code runs in every tile. A state that moves back leaves the
# results right (a tile's aggregate in place of its prefix only lengthens later look-backs): what
# sees it is --starve's check that every descriptor ends at TILE_PREFIX (exit 1), unless a held
# block's hold_back() meets its successor's state moved back first and waits until its watchdog
# stops the kernel (exit 3). Either is a catch; which one happens is for the GPU run to record.
ch12=12_decoupled_fallback/decoupled_fallback.cu
# - a state that can move backwards: the states numbered out of the order a tile moves through
#   them, so the atomic max of a late fallback puts an aggregate over the owner's prefix
mutate state_order_reversed_12 $ch12 's/#define TILE_AGGREGATE 1u/#define TILE_AGGREGATE 2u/; s/#define TILE_PREFIX 2u/#define TILE_PREFIX 1u/' fallback-100pct "--starve" skip
# - the redundant reduction over the wrong range: the tile after the blocking one (off by one)
mutate fallback_wrong_tile_12 $ch12 's/const uint4 \*tile = \(const uint4 \*\)\(in \+ \(size_t\)blocking \* TILE_ITEMS\);/const uint4 *tile = (const uint4 *)(in + (size_t)(blocking + 1) * TILE_ITEMS);/' fallback-100pct "--self-test -n 5000" skip
# - publication without the atomic: a relaxed store (store_descriptor()), and the fallback's own word taken as found
mutate fallback_plain_store_12 $ch12 's/        before = atomic_max_descriptor\(&descriptors\[blocking\], ours\);/        store_descriptor(\&descriptors[blocking], ours);/' fallback-100pct "--starve" skip
# chapter 13 (docs/experiments/13_chapter_h200.sh runs these too; on the H200 on 2026-12-04 each
# was caught by its self-test: docs/experiments/runs_2026-12-04/13_chapter_h200/correctness/).
# The carry's arithmetic, then the pipeline's event waits. The
# battery runs each pipeline case through pipeline_scan() on pinned copies (the timings' path) and
# through the staged path of a file; with --device-memory 256KiB its chunks are a few tiles, so
# the scan stream, launch-bound, falls behind the copies and a missing wait shows (expected: a
# wrong result, exit 1; a race may also pass: the script adds --stress 50 for these).
ch13=13_out_of_core/out_of_core.cu
p13="--self-test -n 2^21 --device-memory 256KiB"
# - every chunk scanned from 0: all results after the first chunk wrong
mutate carry_not_folded_13 $ch13 's/    chunk\[0\] = \(int32_t\)\(\(uint32_t\)chunk\[0\] \+ running\);\n//' pipeline "$p13" skip
# - the exclusive scan's element 0 left at 0 in every chunk: exclusive runs of 2 chunks or more
mutate exclusive_zero_13 $ch13 's/        chunk\[0\] = \(int32_t\)carry\[CARRY_SAVED\]; [^\n]*\n//' pipeline "$p13" skip
# - the carry read before that fix: wrong only for a chunk of one element (size chunk + 1)
# - the carry not reset before a call of pipeline_scan(): the call starts from the last one's total
mutate carry_not_reset_13 $ch13 's/(static void pipeline_scan\(pipeline \*p, const int32_t \*in, [^\n]*\n\{\n)    reset_carry\(p\);\n/$1/' pipeline "$p13" skip
# - each of enqueue_chunk()'s three waits left out (slot_refilled_early_13: only pipeline_scan()
#   relies on it; the staged path waits for the same event on the host)
mutate scan_not_waiting_copy_13 $ch13 's/    CUDA_CHECK\(cudaStreamWaitEvent\(p->scan, p->loaded\[s\], 0\)\);\n//' pipeline "$p13" skip
mutate copy_out_not_waiting_scan_13 $ch13 's/    CUDA_CHECK\(cudaStreamWaitEvent\(p->to_host, p->scanned\[s\], 0\)\);\n//' pipeline "$p13" skip
mutate slot_refilled_early_13 $ch13 's/    CUDA_CHECK\(cudaStreamWaitEvent\(p->to_device, p->emptied\[s\], 0\)\);\n//' pipeline "$p13" skip
# - `scanned` recorded before carry_out_kernel(): the copy out may leave before the exclusive
#   scan's element 0 is fixed (exclusive runs of 2 chunks or more)
mutate copied_before_fix_13 $ch13 's/(    carry_out_kernel<<<1, 1, 0, p->scan>>>\([^\n]*\n    CUDA_CHECK_LAUNCH\(\);\n    mark\(p, k, MARK_SCAN_END, p->scan\);\n)(    CUDA_CHECK\(cudaEventRecord\(p->scanned\[s\], p->scan\)\);\n)/$2$1/' pipeline "$p13" skip
