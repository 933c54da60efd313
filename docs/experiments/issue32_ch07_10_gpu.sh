#!/usr/bin/env bash
# Issue 32, chapters 07-10: the GPU runs that the changes of helper i32c need, which the machine
# they were made on (no GPU) could only compile. From the top folder, on a machine with a GPU:
#   docs/experiments/issue32_ch07_10_gpu.sh PART      (PART: checks, outputs or plants)
#   checks   (about 5 min) the changed kernel (chapter 10's compaction: its look-back's
#            __syncwarp() is now a named barrier, bar.sync 1, 32) and the changed launcher
#            (chapter 07's scratch and grid checks): self-tests, stress runs, and memcheck,
#            racecheck and synccheck over sizes with many tiles (one tile never reaches the
#            barrier); the compaction's time at 2^28 beside the relaxed build's; the barrier in SASS.
#   outputs  (about 3 min) today's ./run of chapters 07-10, for the notes' "Run it" blocks.
#   plants   (about 5 min) the six look-back plants of chapters 07 and 08 that the run of
#            2026-12-02 left out (docs/experiments/plants_2026-12-02.md).
# Logs go to $OUT (default /tmp/issue32_gpu); each step prints one line: its name, exit status and
# last line. Exit status 1 if a step that must pass did not.
set -u
part=${1:-}
case $part in checks | outputs | plants) ;; *)
  echo "usage: docs/experiments/issue32_ch07_10_gpu.sh checks|outputs|plants" >&2; exit 2 ;;
esac
OUT=${OUT:-/tmp/issue32_gpu}
mkdir -p "$OUT" || exit 2
cd "$(dirname "$0")/../.." || exit 2
export PATH=/usr/local/cuda/bin:$PATH
failed=0

# step NAME EXPECT COMMAND...: EXPECT is the exit status the step must have (- for any)
step() {
  local name=$1 expect=$2 rc
  shift 2
  timeout 540 "$@" > "$OUT/$name.log" 2>&1
  rc=$?
  echo "$name: rc=$rc: $(tail -n 1 "$OUT/$name.log")"
  if [ "$expect" != - ] && [ "$rc" -ne "$expect" ]; then failed=1; fi
}

if ! make -j"$(nproc)" SMS=90 all > "$OUT/build.log" 2>&1; then
  echo "build failed: $OUT/build.log"; exit 1
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/gpu.txt" 2>&1
echo "gpu: $(cat "$OUT/gpu.txt")"

case $part in
checks)
  step 07_selftest 0 07_decoupled_lookback/run --self-test
  step 07_stress 0 07_decoupled_lookback/run --stress 1000
  step 09_selftest 0 09_operators/run --self-test -n 16777217
  step 09_stress 0 09_operators/run --stress 1000
  step 09_recurrence_stress 0 09_operators/run --recurrence --stress 100
  step 10_selftest 0 10_compaction/run --self-test -n 16777217
  step 10_stress 0 10_compaction/run --stress 1000
  step 10_compact_selftest 0 10_compaction/run --compact --self-test
  step 10_compact_stress 0 10_compaction/run --compact --stress 1000
  for tool in memcheck racecheck synccheck; do
    step "10_compact_$tool" 0 compute-sanitizer --tool "$tool" --error-exitcode 99 \
      10_compaction/run --compact --self-test -n 70000 --variant decoupled-lookback
    step "10_compact_stress_$tool" 0 compute-sanitizer --tool "$tool" --error-exitcode 99 \
      10_compaction/run --compact --stress 2 -n 300000 --variant decoupled-lookback
  done
  step 07_synccheck 0 compute-sanitizer --tool synccheck --error-exitcode 99 \
    07_decoupled_lookback/run --stress 2 -n 300000
  # the price of the order with the named barrier: the chapter's kernel, then ORDERED 0 (relaxed)
  step 10_time_ordered 0 10_compaction/run --compact -n 2^28 --reps 20 --variant decoupled-lookback
  sed 's/COMMUTATIVE = 1, ORDERED = 1 }/COMMUTATIVE = 1, ORDERED = 0 }/' \
    10_compaction/compaction.cu > "$OUT/compaction_relaxed.cu"
  if cmp -s "$OUT/compaction_relaxed.cu" 10_compaction/compaction.cu; then
    echo "10_time_relaxed: the ORDERED substitution did not apply"; failed=1
  else
    nvcc -std=c++20 -O3 -lineinfo -gencode arch=compute_90,code=sm_90 -I common -I 10_compaction \
      "$OUT/compaction_relaxed.cu" build/10_compaction/compaction_modes.o \
      build/10_compaction/cub_select.o build/common/cli.o build/common/data.o build/common/io.o \
      build/common/report.o build/common/selftest.o build/common/cuda_util.o \
      build/common/gpu_driver.o build/common/cub_scan.o -o "$OUT/compaction_relaxed" -lgomp \
      > "$OUT/compaction_relaxed.build.log" 2>&1 || { echo "relaxed build failed"; failed=1; }
    step 10_time_relaxed 0 "$OUT/compaction_relaxed" --compact -n 2^28 --reps 20 \
      --variant decoupled-lookback
  fi
  step 10_time_ordered_again 0 10_compaction/run --compact -n 2^28 --reps 20 \
    --variant decoupled-lookback
  cuobjdump -sass 10_compaction/run > "$OUT/10_sass.txt" 2>&1
  echo "10_sass: $(grep -c 'BAR.SYNC' "$OUT/10_sass.txt") BAR.SYNC lines; with a count of 32:" \
    "$(grep -E 'BAR\.SYNC[^;]*0x1, *0x20' "$OUT/10_sass.txt" | wc -l)"
  ;;
outputs)
  step 07_run 0 07_decoupled_lookback/run
  step 08_run 0 08_memcpy_speed/run
  step 09_run 0 09_operators/run
  step 09_float_sum 0 09_operators/run --float-sum
  step 10_compact 0 10_compaction/run --compact
  ;;
plants)
  step plants - tests/plant_bugs.sh "$OUT/plants" \
    '^(lookback_double_count|lookback_ldg|tile0_never_publishes)_0[78]$'
  cat "$OUT/plants.log"
  ;;
esac
exit $failed
