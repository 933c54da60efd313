#!/usr/bin/env bash
# Chapter 13 (issue 38): the first GPU checks and timings of 13_out_of_core/ on an H200, in one
# device call of at most 9 minutes on a machine with 16 cores and 128 GiB of host memory. From the
# repository root run
#     OUT=/some/folder docs/experiments/13_chapter_h200.sh
# It builds what it needs itself (common/, chapter 08 for the reference files, chapter 13). Every
# log goes under $OUT (default /tmp/13_chapter_h200); a short summary is printed last and kept in
# $OUT/summary.txt. Scratch files (a 4 GiB input and its outputs) go to $SCRATCH (default
# /tmp/13_chapter_h200_scratch, outside $OUT so that they never travel back) and are removed at
# the end. Nothing in the repository is changed but build/ and
# the chapters' ./run.
#
#  1. builds: chapters 08 and 13 for sm_90, ptxas's report of chapter 13 (-Xptxas -v), a planted
#     copy whose carry_in_kernel() traps once the carry is not 0 (the second chunk), and six
#     planted bugs (perl on copies, as tests/plant_bugs.sh does): the carry not folded in, the
#     exclusive scan's element 0 not fixed, the carry read before that fix, and each of the three
#     event waits of enqueue_chunk() left out;
#  2. correctness, side by side (the GPU shared):
#     - `--self-test` (the battery: chunks of 2^20 in a budget of ~12 MiB; chunk ± 1, 3·chunk + 7,
#       2^24 + 1, n > 2^31; every variant, inclusive and exclusive), and `--self-test -n 2^22
#       --device-memory 256KiB` (chunks of a few tiles);
#     - `--stress 1000` (pinned, half in place) and `--stress 200 --device-memory 256KiB`;
#     - files, each result compared byte for byte with chapter 08's `--input/--output` of the same
#       file (a whole-array scan on the GPU): 2^26 + 5 random elements, inclusive and exclusive,
#       `--device-memory 64MiB`; in place (`--output` = `--input`); from a pipe; a pipe with a
#       partial last element (exit 2, nothing written); the planted copy on a file whose
#       `--output` exists (exit 3, the old file unchanged, no temporary left);
#     - each plant: `--self-test -n 2^21 --device-memory 256KiB --variant pipeline` and
#       `--stress 50 --device-memory 256KiB` (the line says which caught it);
#     - compute-sanitizer memcheck, racecheck and synccheck: `--stress 4 -n 70001` and
#       `--self-test -n 1100 --variant pipeline`, both `--device-memory 256KiB` (chunks of a few
#       tiles), and memcheck of a file; 90 s at most each;
#  3. alone on the GPU, timings: `-n 2^30` (inclusive twice, exclusive once) and `-n 2^33 --reps 5`
#     (32 GiB pinned twice: skipped without 72 GiB of host memory free), each with the duplex copy,
#     the naive loop and chapter 01's CPU scan in the same run; a 2^30-element file, with and
#     without --output (its read speed beside it); the timeline (`--timeline -n 2^28`, CSV of
#     events, drawn by docs/experiments/13_timeline_svg.py into $OUT/timeline.svg), and Nsight
#     Systems' trace of the same run where nsys is installed;
#  4. the summary: issue 38's goal (pipeline >= 0.90 x the duplex copy at 2^30 and 2^33).
# Steps that would run past the budget are skipped and say so.
set -u
OUT=${OUT:-/tmp/13_chapter_h200}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 2
cd "$(dirname "$0")/../.." || exit 2
export PATH="/usr/local/cuda/bin:$PATH"
SCRATCH=${SCRATCH:-${TMPDIR:-/tmp}/13_chapter_h200_scratch}
mkdir -p "$SCRATCH" || exit 2
trap 'rm -rf "$SCRATCH"' EXIT
START=$(date +%s)
BUDGET=${BUDGET:-530} # seconds for the whole script
elapsed() { echo $(($(date +%s) - START)); }
say() { echo "[$(elapsed) s] $*"; }
left() { echo $((BUDGET - $(elapsed))); }
CH=13_out_of_core
RUN=$CH/run
RUN08=08_memcpy_speed/run
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/compute-sanitizer/compute-sanitizer)

say "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown); logs in $OUT"
nvidia-smi --query-gpu=name,compute_cap,memory.total,pcie.link.gen.max,pcie.link.width.max,driver_version \
  --format=csv >"$OUT/gpu.txt" 2>&1
nvidia-smi topo -m >>"$OUT/gpu.txt" 2>&1
(lscpu; free -g; df -h "$SCRATCH") >"$OUT/host.txt" 2>&1
(git rev-parse HEAD 2>/dev/null; git status --short 2>/dev/null) >"$OUT/commit.txt"

# ---- 1. builds ----------------------------------------------------------------------------------
say "1. building common/, then chapters 08 and 13 and the planted copies side by side, for sm_90"
if ! make SMS=90 -j16 common-chapters >"$OUT/build.log" 2>&1; then
  tail -n 30 "$OUT/build.log"
  say "the build of common/ failed: see $OUT/build.log"
  exit 1
fi
make SMS=90 -j16 chapter-8 >"$OUT/build_08.log" 2>&1 &
(cd $CH && make -f Makefile.wip SMS=90 -j16) >"$OUT/build_13.log" 2>&1 &
# the planted copies link their own copy of chapter 01's scan (cpu_threads.c), not the chapter's
gcc -std=c11 -O3 -fopenmp -I common -c $CH/cpu_threads.c -o "$OUT/cpu_threads.o" >"$OUT/build_cpu_threads.log" 2>&1
OBJS="build/common/cli.o build/common/data.o build/common/io.o build/common/report.o \
build/common/selftest.o build/common/cuda_util.o build/common/cub_scan.o $OUT/cpu_threads.o"
FLAGS="-std=c++20 -O3 -lineinfo -gencode arch=compute_90,code=sm_90 -I common -Xcompiler -fopenmp"
nvcc $FLAGS -Xptxas -v -c $CH/out_of_core.cu -o "$OUT/ptxas.o" >"$OUT/ptxas.txt" 2>&1 &
# the plant: the second chunk's carry_in_kernel() traps (a CUDA error mid-way through a file)
perl -0pe 's/(    const uint32_t running = carry\[CARRY_RUNNING\];\n)/$1    if (running != 0)\n        __trap();\n/' \
  $CH/out_of_core.cu >"$OUT/fail_midway.cu"
if cmp -s "$OUT/fail_midway.cu" $CH/out_of_core.cu; then
  say "the plant did not apply"
else
  nvcc $FLAGS -I $CH "$OUT/fail_midway.cu" $OBJS -o "$OUT/fail_midway" -lgomp >"$OUT/build_fail_midway.log" 2>&1 &
fi
# the planted bugs: name, then a perl expression applied to a copy of the chapter
PLANTS=(
  carry_not_folded_13 's/    chunk\[0\] = \(int32_t\)\(\(uint32_t\)chunk\[0\] \+ running\);\n//'
  exclusive_zero_13 's/        chunk\[0\] = \(int32_t\)carry\[CARRY_SAVED\]; [^\n]*\n//'
  carry_before_fix_13 's/(        chunk\[0\] = \(int32_t\)carry\[CARRY_SAVED\]; [^\n]*\n)(        carry\[CARRY_RUNNING\] = [^\n]*\n)/$2$1/'
  scan_not_waiting_copy_13 's/    CUDA_CHECK\(cudaStreamWaitEvent\(p->scan, p->loaded\[s\], 0\)\);\n//'
  copy_out_not_waiting_scan_13 's/    CUDA_CHECK\(cudaStreamWaitEvent\(p->to_host, p->scanned\[s\], 0\)\);\n//'
  slot_refilled_early_13 's/    CUDA_CHECK\(cudaStreamWaitEvent\(p->to_device, p->emptied\[s\], 0\)\);\n//'
)
for ((i = 0; i < ${#PLANTS[@]}; i += 2)); do
  name=${PLANTS[i]}
  perl -0pe "${PLANTS[i + 1]}" $CH/out_of_core.cu >"$OUT/$name.cu"
  if cmp -s "$OUT/$name.cu" $CH/out_of_core.cu; then
    echo "$name: MUTATION DID NOT APPLY" >"$OUT/$name.build.log"
  else
    nvcc $FLAGS -I $CH "$OUT/$name.cu" $OBJS -o "$OUT/$name" -lgomp >"$OUT/$name.build.log" 2>&1 &
  fi
done
wait
if [ ! -x "$RUN" ] || [ ! -x "$RUN08" ]; then
  tail -n 30 "$OUT/build_13.log" "$OUT/build_08.log"
  say "the build of chapter 13 or 08 failed: see $OUT/build_13.log, $OUT/build_08.log"
  exit 1
fi
say "built ./$RUN (and $OUT/fail_midway: $([ -x "$OUT/fail_midway" ] && echo yes || echo NO); plants: $(ls "$OUT"/*_13 2>/dev/null | wc -l) of 6)"

# ---- 2. correctness, side by side ---------------------------------------------------------------
say "2. self-tests, stress, files, sanitizers (side by side)"
(timeout 240 ./$RUN --self-test >"$OUT/self_test.txt" 2>&1; echo "exit $?" >>"$OUT/self_test.txt") &
(timeout 200 ./$RUN --self-test -n 2^22 --device-memory 256KiB >"$OUT/self_test_256k.txt" 2>&1
 echo "exit $?" >>"$OUT/self_test_256k.txt") &
(timeout 250 ./$RUN --stress 1000 >"$OUT/stress.txt" 2>&1; echo "exit $?" >>"$OUT/stress.txt") &
(timeout 200 ./$RUN --stress 200 --device-memory 256KiB >"$OUT/stress_256k.txt" 2>&1
 echo "exit $?" >>"$OUT/stress_256k.txt") &
(
  F=$SCRATCH/in.bin
  head -c $((4 * ((1 << 26) + 5))) /dev/urandom >"$F"
  check() { # name: what happened, one line
    echo "$1"
  }
  for mode in inclusive exclusive; do
    x=""; [ $mode = exclusive ] && x=--exclusive
    timeout 120 ./$RUN --input "$F" --output "$SCRATCH/got_$mode.bin" --device-memory 64MiB $x \
      >"$OUT/file_$mode.txt" 2>&1; rc=$?
    timeout 120 ./$RUN08 --input "$F" --output "$SCRATCH/ref_$mode.bin" --variant decoupled-lookback $x \
      >"$OUT/file_ref_$mode.txt" 2>&1; rc08=$?
    cmp -s "$SCRATCH/got_$mode.bin" "$SCRATCH/ref_$mode.bin" && same="the same as" || same="DIFFERENT from"
    check "file $mode, --device-memory 64MiB: exit $rc (chapter 08: $rc08), output $same chapter 08's"
  done
  cp "$F" "$SCRATCH/inplace.bin"
  timeout 120 ./$RUN --input "$SCRATCH/inplace.bin" --output "$SCRATCH/inplace.bin" >"$OUT/file_inplace.txt" 2>&1; rc=$?
  cmp -s "$SCRATCH/inplace.bin" "$SCRATCH/ref_inclusive.bin" && same="the same as" || same="DIFFERENT from"
  check "file in place: exit $rc, result $same chapter 08's"
  cat "$F" | timeout 120 ./$RUN --input - --output "$SCRATCH/piped.bin" >"$OUT/file_pipe.txt" 2>&1; rc=$?
  cmp -s "$SCRATCH/piped.bin" "$SCRATCH/ref_inclusive.bin" && same="the same as" || same="DIFFERENT from"
  check "file from a pipe: exit $rc, output $same chapter 08's"
  { cat "$F"; printf x; } | timeout 120 ./$RUN --input - --output "$SCRATCH/partial.bin" >"$OUT/file_partial.txt" 2>&1; rc=$?
  check "pipe with a partial last element: exit $rc (want 2), output $([ -e "$SCRATCH/partial.bin" ] && echo WRITTEN || echo 'not written'): $(tail -n 1 "$OUT/file_partial.txt")"
  if [ -x "$OUT/fail_midway" ]; then
    printf 'old contents\n' >"$SCRATCH/kept.bin"
    timeout 120 "$OUT/fail_midway" --input "$F" --output "$SCRATCH/kept.bin" --device-memory 64MiB \
      >"$OUT/file_fail_midway.txt" 2>&1; rc=$?
    printf 'old contents\n' | cmp -s - "$SCRATCH/kept.bin" && kept=unchanged || kept=CHANGED
    tmps=$(ls -a "$SCRATCH" | grep -c '^\.kept\.bin\.tmp' || true)
    check "a CUDA error in the second chunk: exit $rc (want 3), --output $kept, $tmps temporary files left"
  fi
) >"$OUT/files.txt" 2>&1 &
(
  for tool in memcheck racecheck synccheck; do
    timeout 90 "$SAN" --tool $tool --error-exitcode 99 ./$RUN --stress 4 -n 70001 --device-memory 256KiB \
      >"$OUT/sanitize_${tool}_stress.txt" 2>&1
    echo "$tool --stress 4 -n 70001 --device-memory 256KiB: rc=$?"
    timeout 90 "$SAN" --tool $tool --error-exitcode 99 ./$RUN --self-test -n 1100 --device-memory 256KiB \
      --variant pipeline >"$OUT/sanitize_${tool}_self_test.txt" 2>&1
    echo "$tool --self-test -n 1100 --device-memory 256KiB --variant pipeline: rc=$?"
  done
  head -c $((4 * 50001)) /dev/urandom >"$SCRATCH/small.bin"
  timeout 90 "$SAN" --tool memcheck --error-exitcode 99 ./$RUN --input "$SCRATCH/small.bin" \
    --output "$SCRATCH/small_out.bin" --device-memory 256KiB >"$OUT/sanitize_memcheck_file.txt" 2>&1
  echo "memcheck --input (50001 elements) --device-memory 256KiB: rc=$?"
) >"$OUT/sanitize.txt" 2>&1 &
(
  for ((i = 0; i < ${#PLANTS[@]}; i += 2)); do
    name=${PLANTS[i]} bin=$OUT/${PLANTS[i]}
    if [ ! -x "$bin" ]; then echo "$name: not built ($(head -c 200 "$OUT/$name.build.log"))"; continue; fi
    timeout 120 "$bin" --self-test -n 2^21 --device-memory 256KiB --variant pipeline >"$OUT/$name.self_test.txt" 2>&1
    st=$?
    timeout 120 "$bin" --stress 50 --device-memory 256KiB >"$OUT/$name.stress.txt" 2>&1
    sr=$?
    echo "$name: --self-test -n 2^21 --device-memory 256KiB -> exit $st, $(tail -n 1 "$OUT/$name.self_test.txt") | --stress 50 --device-memory 256KiB -> exit $sr, $(tail -n 1 "$OUT/$name.stress.txt")"
  done
) >"$OUT/plants.txt" 2>&1 &
wait
say "correctness done"

# ---- 3. timings, alone on the GPU ---------------------------------------------------------------
if [ "$(left)" -gt 60 ]; then
  say "3. timings at 2^30"
  timeout 120 ./$RUN -n 2^30 >"$OUT/speed_2p30_a.txt" 2>&1; echo "exit $?" >>"$OUT/speed_2p30_a.txt"
else
  say "3. no time left for the timings at 2^30"
fi
free_gib=$(awk '/MemAvailable/ {print int($2 / 1048576)}' /proc/meminfo)
if [ "$(left)" -gt 150 ] && [ "$free_gib" -ge 72 ]; then
  say "3. timings at 2^33 ($free_gib GiB of host memory free)"
  timeout $(($(left) - 40)) ./$RUN -n 2^33 --reps 5 >"$OUT/speed_2p33.txt" 2>&1
  echo "exit $?" >>"$OUT/speed_2p33.txt"
else
  say "3. skipped 2^33: $(left) s left, $free_gib GiB of host memory free (needs 150 s and 72 GiB)"
fi
if [ "$(left)" -gt 90 ]; then
  say "3. timings at 2^30 again (CSV), and exclusive"
  timeout 60 ./$RUN -n 2^30 --csv >"$OUT/speed_2p30_b.csv" 2>&1; echo "# exit $?" >>"$OUT/speed_2p30_b.csv"
  timeout 60 ./$RUN -n 2^30 --exclusive >"$OUT/speed_2p30_exclusive.txt" 2>&1
  echo "exit $?" >>"$OUT/speed_2p30_exclusive.txt"
fi
if [ "$(left)" -gt 30 ]; then
  say "3. the timeline at 2^28"
  timeout 60 ./$RUN --timeline -n 2^28 >"$OUT/timeline.csv" 2>&1; echo "# exit $?" >>"$OUT/timeline.csv"
  command -v python3 >/dev/null && python3 docs/experiments/13_timeline_svg.py "$OUT/timeline.csv" \
    "$OUT/timeline.svg" --chunks 8 >>"$OUT/timeline_svg.txt" 2>&1
  if command -v nsys >/dev/null && [ "$(left)" -gt 40 ]; then
    timeout 60 nsys profile --trace=cuda --force-overwrite=true -o "$OUT/nsys_13" \
      ./$RUN -n 2^28 --reps 2 --variant pipeline >"$OUT/nsys.txt" 2>&1
    timeout 30 nsys stats --report cuda_gpu_trace --format csv --force-export=true \
      -o "$OUT/nsys_13" "$OUT/nsys_13.nsys-rep" >>"$OUT/nsys.txt" 2>&1
  else
    echo "nsys: $(command -v nsys || echo 'not installed')" >"$OUT/nsys.txt"
  fi
fi
if [ "$(left)" -gt 100 ]; then
  say "3. a file of 2^30 elements"
  head -c $((4 << 30)) /dev/urandom >"$SCRATCH/big.bin"
  timeout 60 ./$RUN --input "$SCRATCH/big.bin" >"$OUT/speed_file.txt" 2>&1; echo "exit $?" >>"$OUT/speed_file.txt"
  timeout 60 ./$RUN --input "$SCRATCH/big.bin" --output "$SCRATCH/big_out.bin" >"$OUT/speed_file_output.txt" 2>&1
  echo "exit $?" >>"$OUT/speed_file_output.txt"
  rm -f "$SCRATCH/big.bin" "$SCRATCH/big_out.bin"
fi
# ---- 4. summary ---------------------------------------------------------------------------------
{
  echo "chapter 13 on $(head -n 2 "$OUT/gpu.txt" | tail -n 1), commit $(head -n 1 "$OUT/commit.txt"), $(elapsed) s"
  for f in self_test self_test_256k; do echo "$f: $(grep -E '^self-test ' "$OUT/$f.txt" | tail -n 1); $(tail -n 1 "$OUT/$f.txt")"; done
  grep -h "SKIP" "$OUT/self_test.txt"
  for f in stress stress_256k; do echo "$f: $(grep -E '^stress test' "$OUT/$f.txt" | tail -n 1); $(tail -n 1 "$OUT/$f.txt")"; done
  cat "$OUT/files.txt" "$OUT/sanitize.txt" "$OUT/plants.txt"
  for f in speed_2p30_a.txt speed_2p30_exclusive.txt speed_2p33.txt; do
    [ -f "$OUT/$f" ] || continue
    echo "$f:"
    grep -E "the link|^ *2\^[0-9]+ +(duplex-copy|pipeline|naive-cub|cpu-threads)|summary" "$OUT/$f"
  done
  for f in speed_file.txt speed_file_output.txt; do [ -f "$OUT/$f" ] && { echo "$f:"; grep -vE "^GPU|^device memory" "$OUT/$f"; }; done
  echo "issue 38's goal, pipeline at >= 90 % of the duplex copy:"
  for f in speed_2p30_a.txt speed_2p33.txt; do
    [ -f "$OUT/$f" ] || continue
    awk -v f="$f" '$2 == "pipeline" { print "  " f ": " $1 " pipeline at " $5 " % of the ceiling: " ($5 >= 90 ? "met" : "NOT met") }' "$OUT/$f"
  done
  echo "timeline: $(grep -c ',copy,' "$OUT/timeline.csv" 2>/dev/null) copies; $(tail -n 2 "$OUT/timeline.csv" | head -n 1); nsys: $(head -c 200 "$OUT/nsys.txt" | head -n 1)"
  grep -E "registers|spill" "$OUT/ptxas.txt" | head -n 8
} | tee "$OUT/summary.txt"
