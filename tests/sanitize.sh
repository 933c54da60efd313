#!/usr/bin/env bash
# The runner behind `make sanitize`: compute-sanitizer's memcheck, racecheck and synccheck over the
# self-tests of every GPU chapter that exists, on small sizes (the tools slow kernels down 10-100x).
# Without a CUDA device, or without compute-sanitizer, nothing can be checked: it says why and
# exits 2 (a check that checked nothing must not pass). Otherwise the last line is
# "sanitize: N passed, N failed, 0 skipped", and the exit status is non-zero on any failure.
# Environment: CHAPTERS (chapter folders that exist), SANITIZE_N (largest self-test size, default 5000).
set -u
cd "$(dirname "$0")/.."
LOGS=build/tests/logs
mkdir -p "$LOGS"
MAX_N=${SANITIZE_N:-5000}
TOOLS="memcheck racecheck synccheck"
passed=0 failed=0 skipped=0

. tests/gpu_env.sh
reason=$GPU_REASON
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer 2>/dev/null | head -n 1)
if [ "$GPU_PROBE_FAILED" -eq 1 ]; then
  echo "sanitize: FAILED: $GPU_REASON"
  exit 1
fi
if [ -z "$reason" ] && [ -z "$sanitizer" ]; then
  reason="compute-sanitizer not found (it ships with the CUDA Toolkit, in its bin/ folder)"
fi

# The probe kernel always runs, so the tools themselves are checked even before GPU chapters exist.
runs="build/tests/cuda_probe"
for c in $GPU_CHAPTERS; do runs="$runs $c/run"; done
[ -n "$GPU_CHAPTERS" ] || echo "(no GPU chapters written yet: only the probe kernel is checked)"

# Chapter 05's blocks loop over several tiles only when n > G x 1024 (G: the blocks resident at
# once, from the occupancy API; 1320 on the H200 in chapter 05's notes): the small self-test never
# gets there, so one larger sweep run (2^23) covers that loop too. The single-pass chapters add a
# stress run of many tiles (in place for half of the runs). Chapter 11's: 74 of its 4096-element
# tiles, one per persistent block (a ring wraps only when its block gets more tiles than the ring
# has stages: docs/experiments/11_chapter_h200.sh checks that with a 3-block build); chapter
# 13's: 70001 elements through a 256 KiB budget, 4 chunks of 20480 through its 3 slots (as
# docs/experiments/13_chapter_h200.sh ran it).
extra_args() {
  case $1 in
    05_reduce_then_scan/run) echo "-n 2^23 --reps 1" ;;
    06_chained_scan/run) echo "--stress 2 -n 300000" ;;
    07_decoupled_lookback/run) echo "--stress 2 -n 300000" ;;
    08_memcpy_speed/run) echo "--stress 2 -n 300000" ;;
    09_operators/run) echo "--stress 2 -n 300000" ;;
    10_compaction/run) echo "--stress 2 -n 300000" ;;
    11_warp_specialised/run) echo "--stress 2 -n 300000" ;;
    12_decoupled_fallback/run) echo "--stress 2 -n 300000" ;;
    13_out_of_core/run) echo "--stress 4 -n 70001 --device-memory 256KiB" ;;
  esac
}
for c in $GPU_CHAPTERS; do [ -n "$(extra_args "$c/run")" ] && runs="$runs $c/run:extra"; done
# Chapter 09's operators and chapter 10's compaction are modes: each one's battery too, up to
# n = 1100, this chapter's pass only.
operator_modes() {
  case $1 in
    09_operators/run) echo "--float-sum --recurrence --recurrence-f32 --segmented" ;;
    10_compaction/run) echo "--compact" ;;
  esac
}
for c in $GPU_CHAPTERS; do
  for m in $(operator_modes "$c/run"); do runs="$runs $c/run:mode$m"; done
done

if [ -n "$reason" ]; then
  count=$(( $(echo $runs | wc -w) * $(echo $TOOLS | wc -w) ))
  echo "make sanitize: nothing checked: $reason; its $count runs ($TOOLS, each over $(echo $runs | wc -w) command lines) need a CUDA GPU and compute-sanitizer" >&2
  exit 2
fi

for target in $runs; do
  exe=${target%%:*} args=""
  name=$(dirname "$exe")
  [ "$exe" = build/tests/cuda_probe ] && name=cuda_probe
  [ "$exe" = build/tests/cuda_probe ] || args="--self-test -n $MAX_N"
  case $target in
    *:extra) args=$(extra_args "$exe"); name="$name $args" ;;
    *:mode*) args="${target#*:mode} --self-test -n 1100 --variant decoupled-lookback"; name="$name $args" ;;
  esac
  for tool in $TOOLS; do
    log="$LOGS/sanitize_${tool}_$(echo "$target" | tr '/:' '__').log"
    if timeout 3600 "$sanitizer" --tool "$tool" --error-exitcode 99 "$exe" $args >"$log" 2>&1; then
      passed=$((passed + 1))
      printf 'PASS  %-50s %s\n' "$tool $name" "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -n 1)"
    else
      failed=$((failed + 1))
      printf 'FAIL  %-50s (see %s)\n' "$tool $name" "$log"
      grep -E 'ERROR|Invalid|hazard|Barrier' "$log" | head -n 15 | sed 's/^/      /'
    fi
  done
done
echo "sanitize: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
