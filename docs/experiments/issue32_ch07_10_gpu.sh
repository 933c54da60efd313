#!/usr/bin/env bash
# Issue 32, chapters 07-10: the GPU runs that the changes of helper i32c need, which the machine
# they were made on (no GPU) could only compile. From the top folder, on a machine with a GPU:
#   docs/experiments/issue32_ch07_10_gpu.sh PART      (PART: checks, outputs or plants)
#   checks   (about 5 min) chapter 07's changed launcher (its scratch and grid checks), and
#            chapters 09-10, whose kernels compile to the PTX of commit 41354b7 again (the named
#            barrier tried in the look-back was measured on 2026-12-03 and not kept:
#            docs/experiments/10_compaction.md): self-tests, stress runs, and memcheck, racecheck
#            and synccheck of the compaction over sizes with many tiles (one tile never reaches
#            the look-back).
#   outputs  (about 2 min) the operator sweeps the notes do not show (09 --float-sum,
#            10 --compact); today's plain ./run of chapters 02-10 is in
#            docs/experiments/runs_2026-12-03/ (H200, 2026-12-03).
#   plants   (about 5 min) the six look-back plants of chapters 07 and 08 that the run of
#            2026-12-02 left out; run on 2026-12-03: docs/experiments/runs_2026-12-03/plants_loop.txt.
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
  ;;
outputs)
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
