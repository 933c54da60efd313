#!/usr/bin/env bash
# Chapter 13 (issue 38): the first GPU run of 13_out_of_core/ on an H200 (16 cores, 128 GiB of
# host memory, 64 GiB of disk), in two device calls, each ending its last step within BUDGET
# seconds (default 520) of its start. From the repository root, in this order:
#     OUT=/some/folder docs/experiments/13_chapter_h200.sh speed         # issue 38's goal first
#     OUT=/some/folder docs/experiments/13_chapter_h200.sh correctness
# Each phase builds what it lacks itself (make is incremental, and a warm machine keeps build/),
# so either runs alone. Every log goes under $OUT (default /tmp/13_chapter_h200); each step
# appends its summary lines to $OUT/summary.txt as it ends, so a call killed early still leaves
# the steps it finished. Every command runs under `timeout` with what is left of the budget (less
# a reserve), background jobs included, so the phase ends on time even when a run hangs. Scratch
# files go to $SCRATCH (default build/13_scratch, on the machine's disk, never into $OUT), removed
# at the end. Nothing in the repository changes but build/ and the chapters' ./run.
#
# speed (expected 250-420 s: the build 100-150 s when build/ is empty, 10 s when not), each
# step alone on the GPU, most important first:
#  1. -n 2^30: the duplex copy (the ceiling), the pipeline, the naive loop, chapter 01's CPU scan
#     (all 16 cores), every row checked; `nvidia-smi dmon -s t` records PCIe traffic meanwhile
#     (both directions at once?), and the link's current generation and width under load;
#  2. --timeline -n 2^28 --csv (CUDA events), drawn by 13_timeline_svg.py into timeline.svg;
#  3. -n 2^33 --reps 5 (32 GiB pinned twice: skipped, and said so, without 72 GiB of host memory
#     free or 200 s left);
#  4. a file of 2^30 elements (16 copies of 256 MiB of random data: a valid test, every element
#     is checked): the disk's own read speed with dd from a cold page cache (`dd iflag=nocache
#     count=0` drops the file's cached pages), the pipeline from a cold file, again from the
#     page cache (warm), and with --output;
#  5. -n 2^30 --exclusive; 6. Nsight Systems' trace of -n 2^28 where nsys is installed;
#  then issue 38's goal: the pipeline's row at 2^30 and 2^33 is "met" only with
#  pct_ceiling >= 90, check ok and no noise flag; a size that did not run says NOT MEASURED.
#
# correctness (expected 250-450 s), OMP_NUM_THREADS=2 per job since seven jobs share 16 cores:
#  - builds: chapter 08 (the files' reference), chapter 13, a planted copy whose carry_in_kernel()
#    traps in the second chunk (a CUDA error mid-way through a file);
#  - side by side on the GPU: `--self-test --variant pipeline` (the full battery, n > 2^31
#    included: each case through pipeline_scan() on pinned copies and through the staged path);
#    `--self-test -n 2^24` (every variant); `--self-test -n 2^22 --device-memory 256KiB` (chunks
#    of a few tiles); `--stress 1000` and `--stress 200 --device-memory 256KiB`; files compared
#    byte for byte with chapter 08's scan of the same file (inclusive, exclusive, both in place,
#    from a pipe, a pipe with a partial last element: exit 2, the trap: exit 3 and --output kept);
#    compute-sanitizer memcheck, racecheck, synccheck; chapter 13's seven plants
#    (tests/plant_bugs.sh '_13$', four shards), each judged CAUGHT by its `--self-test -n 2^21
#    --device-memory 256KiB`, else by `--stress 50 --device-memory 256KiB`, else MISSED.
set -u
PHASE=${1:-}
case $PHASE in
  speed | correctness) ;;
  *) echo "usage: OUT=DIR $0 speed|correctness (from the repository root; speed first)" >&2; exit 2 ;;
esac
OUT=${OUT:-/tmp/13_chapter_h200}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 2
cd "$(dirname "$0")/../.." || exit 2
export PATH="/usr/local/cuda/bin:$PATH"
SCRATCH=${SCRATCH:-$PWD/build/13_scratch}
rm -rf "$SCRATCH" && mkdir -p "$SCRATCH/bin" || exit 2
START=$(date +%s)
BUDGET=${BUDGET:-520} # seconds for the phase, its last step included
RESERVE=10            # seconds kept back from every timeout, for the summary and the cleanup
SUMMARY=$OUT/summary.txt
CH=13_out_of_core
RUN=./$CH/run
RUN08=./08_memcpy_speed/run
JOBS=() # this phase's background jobs, by PID
elapsed() { echo $(($(date +%s) - START)); }
left() { echo $((BUDGET - $(elapsed))); }
# cap N: N seconds, or what the budget has left less the reserve, whichever is smaller (min 0)
cap() {
  local l=$(($(left) - RESERVE))
  [ "$l" -lt "$1" ] && echo $((l > 0 ? l : 0)) || echo "$1"
}
# tm N CMD...: CMD under timeout $(cap N); exit 124 at once if fewer than 3 s are left
tm() {
  local c
  c=$(cap "$1"); shift
  [ "$c" -ge 3 ] || { echo "no time left for: $*"; return 124; }
  timeout -k 5 "$c" "$@"
}
# sum LINE...: one line of the summary, written now (and shown)
sum() { echo "[$(elapsed) s] $*" | tee -a "$SUMMARY"; }
finish() {
  for pid in "${JOBS[@]}" ${DMON:-}; do kill "$pid" 2>/dev/null; done
  rm -rf "$SCRATCH"
  sum "phase $PHASE ended after $(elapsed) s (budget $BUDGET s)"
}
trap finish EXIT
# wait_jobs: wait for this phase's jobs; any still running when the budget ends is killed by PID
wait_jobs() {
  local pid alive
  while :; do
    alive=0
    for pid in "${JOBS[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ $alive = 1 ] || break
    if [ "$(left)" -le 3 ]; then
      for pid in "${JOBS[@]}"; do kill "$pid" 2>/dev/null && sum "job $pid killed at the budget's end"; done
      break
    fi
    sleep 2
  done
  JOBS=()
}
# rows FILE: the link's line and the table's rows of a sweep's output
rows() { grep -hE "^the link|^ *[0-9^]+ +(duplex-copy|pipeline|naive-cub|cpu-threads) |is wrong|^exit" "$1" 2>/dev/null | sed 's/^/    /'; }
# goal SIZE FILE WHY_NOT: issue 38's goal at SIZE, from the sweep's output FILE
goal() {
  local size=$1 f=$OUT/$2
  if [ ! -s "$f" ]; then
    sum "  goal at $size: NOT MEASURED ($3)"
    return
  fi
  awk -v size="$size" '
    $2 == "pipeline" && NF == 9 {
      seen = 1; why = ""
      if ($NF != "ok") why = why " check " $NF ";"
      if ($8 != "-") why = why " noise flag " $8 ";"
      if ($5 + 0 < 90) why = why " below 90 %;"
      printf "  goal at %s: pipeline at %s %% of the duplex copy (spread %s %%, the copy'"'"'s %s %%): %s\n",
        size, $5, $6, $7, why == "" ? "met" : "NOT met:" why
    }
    END { if (!seen) printf "  goal at %s: NOT MEASURED (no pipeline row: the run ended early, see its log)\n", size }
  ' "$f" | while IFS= read -r line; do sum "$line"; done
}
host_info() {
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,compute_cap,memory.total,pcie.link.gen.current,pcie.link.width.current,pcie.link.gen.max,pcie.link.width.max,driver_version \
      --format=csv >"$OUT/gpu.txt" 2>&1
    nvidia-smi topo -m >>"$OUT/gpu.txt" 2>&1
    nvidia-smi -q >"$OUT/gpu_q.txt" 2>&1
  else
    echo "nvidia-smi: not installed" >"$OUT/gpu.txt"
  fi
  { lscpu; numactl -H 2>&1 || lscpu | grep -i numa; free -g; df -h "$SCRATCH"; findmnt -T "$SCRATCH"; } >"$OUT/host.txt" 2>&1
  (git rev-parse HEAD; git status --short) >"$OUT/commit.txt" 2>&1
  sum "=== phase $PHASE: commit $(git rev-parse --short HEAD 2>/dev/null), $(sed -n 2p "$OUT/gpu.txt"), scratch on $(findmnt -n -o FSTYPE -T "$SCRATCH" 2>/dev/null)"
}
# build13: common/ and chapter 13 (a few seconds when build/ is kept)
build13() {
  local t
  t=$(elapsed)
  if ! tm 300 make SMS=90 -j16 common-chapters >"$OUT/build_common.log" 2>&1 ||
    ! tm 120 make -C $CH SMS=90 -j16 >"$OUT/build_13.log" 2>&1; then
    tail -n 20 "$OUT/build_common.log" "$OUT/build_13.log" 2>/dev/null
    sum "build of chapter 13 FAILED: see build_common.log, build_13.log"
    return 1
  fi
  sum "built common/ and chapter 13 in $(($(elapsed) - t)) s"
}

# ================================ speed ===========================================================
speed_phase() {
  local rc free_gib why
  unset OMP_NUM_THREADS OMP_WAIT_POLICY # chapter 01's row uses every core
  build13 || return 1
  # 1. 2^30, with the link's counters
  DMON=""
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi dmon -s t -d 1 >"$OUT/dmon_2p30.txt" 2>&1 &
    DMON=$!
    (sleep 8; nvidia-smi --query-gpu=pcie.link.gen.current,pcie.link.width.current --format=csv) \
      >"$OUT/link_under_load.txt" 2>&1 &
  fi
  tm 150 $RUN -n 2^30 >"$OUT/speed_2p30.txt" 2>&1; rc=$?
  [ -n "$DMON" ] && kill "$DMON" 2>/dev/null; DMON=""
  echo "exit $rc" >>"$OUT/speed_2p30.txt"
  sum "1. -n 2^30: exit $rc; link under load: $(tail -n 1 "$OUT/link_under_load.txt" 2>/dev/null)"
  rows "$OUT/speed_2p30.txt" | tee -a "$SUMMARY"
  goal 2^30 speed_2p30.txt "the step did not run"
  # 2. the timeline
  tm 60 $RUN --timeline -n 2^28 --csv >"$OUT/timeline.csv" 2>"$OUT/timeline.err"; rc=$?
  python3 docs/experiments/13_timeline_svg.py "$OUT/timeline.csv" "$OUT/timeline.svg" --chunks 8 \
    >"$OUT/timeline_svg.txt" 2>&1
  sum "2. --timeline -n 2^28 --csv: exit $rc, $(grep -c ',copy,' "$OUT/timeline.csv") copies, $(grep '^# checked\|WRONG' "$OUT/timeline.csv" | tail -n 1); svg: $(tail -n 1 "$OUT/timeline_svg.txt")"
  # 3. 2^33
  free_gib=$(awk '/MemAvailable/ {print int($2 / 1048576)}' /proc/meminfo)
  if [ "$free_gib" -ge 72 ] && [ "$(left)" -ge 200 ]; then
    tm 300 $RUN -n 2^33 --reps 5 >"$OUT/speed_2p33.txt" 2>&1; rc=$?
    echo "exit $rc" >>"$OUT/speed_2p33.txt"
    sum "3. -n 2^33 --reps 5: exit $rc ($free_gib GiB of host memory free before)"
    rows "$OUT/speed_2p33.txt" | tee -a "$SUMMARY"
    why="the step did not run"
  else
    why="skipped: $(left) s left, $free_gib GiB of host memory free; it needs 200 s and 72 GiB"
    sum "3. -n 2^33 $why"
  fi
  goal 2^33 speed_2p33.txt "$why"
  # 4. a file of 2^30 elements
  if [ "$(left)" -ge 150 ]; then
    file_speed
  else
    sum "4. the file of 2^30 elements: skipped, $(left) s left (needs 150)"
  fi
  # 5. exclusive at 2^30
  if [ "$(left)" -ge 80 ]; then
    tm 120 $RUN -n 2^30 --exclusive >"$OUT/speed_2p30_exclusive.txt" 2>&1; rc=$?
    echo "exit $rc" >>"$OUT/speed_2p30_exclusive.txt"
    sum "5. -n 2^30 --exclusive: exit $rc"
    rows "$OUT/speed_2p30_exclusive.txt" | tee -a "$SUMMARY"
  else
    sum "5. -n 2^30 --exclusive: skipped, $(left) s left (needs 80)"
  fi
  # 6. Nsight Systems
  if command -v nsys >/dev/null && [ "$(left)" -ge 100 ]; then
    tm 60 nsys profile --trace=cuda --force-overwrite=true -o "$SCRATCH/nsys_13" \
      $RUN -n 2^28 --reps 2 --variant pipeline >"$OUT/nsys.txt" 2>&1
    tm 30 nsys stats --report cuda_gpu_trace --format csv --force-export=true \
      -o "$OUT/nsys_13" "$SCRATCH/nsys_13.nsys-rep" >>"$OUT/nsys.txt" 2>&1
    sum "6. nsys: $(ls "$OUT"/nsys_13*.csv 2>/dev/null | head -n 1 || echo 'no CSV: see nsys.txt')"
  else
    sum "6. nsys: $(command -v nsys >/dev/null && echo "skipped, $(left) s left (needs 100)" || echo 'not installed')"
  fi
  sum "issue 38's goal (pipeline >= 90 % of the duplex copy, check ok, no noise flag):"
  goal 2^30 speed_2p30.txt "the step did not run"
  goal 2^33 speed_2p33.txt "$why"
}

# drop FILE: its pages out of the page cache (GNU dd's documented way; no root needed); says so
# when it could not, and logs what fincore (util-linux) sees cached afterwards
drop() {
  sync "$1" && dd if="$1" iflag=nocache count=0 status=none ||
    sum "   (could not drop $1's cached pages: the 'cold' number after this may be the page cache's)"
  command -v fincore >/dev/null && fincore "$1" >>"$OUT/fincore.txt" 2>&1
  return 0
}
file_speed() {
  local big=$SCRATCH/big.bin rc t
  t=$(elapsed)
  head -c $((1 << 28)) /dev/urandom >"$SCRATCH/seed.bin"
  # BIG_COPIES: fewer copies, for a dry run without a GPU
  for _ in $(seq "${BIG_COPIES:-16}"); do cat "$SCRATCH/seed.bin"; done >"$big"
  rm -f "$SCRATCH/seed.bin"
  drop "$big"
  tm 60 dd if="$big" of=/dev/null bs=16M 2>"$OUT/file_read_dd.txt"
  sum "4. file of $((${BIG_COPIES:-16} << 26)) elements (written in $(($(elapsed) - t)) s; $(findmnt -n -o FSTYPE -T "$SCRATCH" 2>/dev/null)): the disk alone, cold: $(tail -n 1 "$OUT/file_read_dd.txt")"
  drop "$big"
  tm 90 $RUN --input "$big" >"$OUT/speed_file_cold.txt" 2>&1; rc=$?
  sum "   pipeline from the cold file: exit $rc: $(grep -h '^read, scanned' "$OUT/speed_file_cold.txt")"
  sum "   (its read alone, just after: the page cache's) $(grep -h '^the file read alone' "$OUT/speed_file_cold.txt")"
  tm 90 $RUN --input "$big" >"$OUT/speed_file_warm.txt" 2>&1; rc=$?
  sum "   pipeline from the page cache (warm): exit $rc: $(grep -h '^read, scanned' "$OUT/speed_file_warm.txt")"
  drop "$big"
  tm 120 $RUN --input "$big" --output "$SCRATCH/big_out.bin" >"$OUT/speed_file_output.txt" 2>&1; rc=$?
  sum "   with --output, cold: exit $rc: $(grep -h '^read, scanned' "$OUT/speed_file_output.txt")"
  rm -f "$big" "$SCRATCH/big_out.bin"
}

# ================================ correctness =====================================================
PLANT_BINS=$SCRATCH/plants
correctness_phase() {
  local t ok
  export OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive
  t=$(elapsed)
  build13 || return 1
  tm 240 make SMS=90 -j16 chapter-8 >"$OUT/build_08.log" 2>&1 &
  local b08=$!
  # the plant of a CUDA error mid-way: the second chunk's carry_in_kernel() traps
  perl -0pe 's/(    const uint32_t running = carry\[CARRY_RUNNING\];\n)/$1    if (running != 0)\n        __trap();\n/' \
    $CH/out_of_core.cu >"$SCRATCH/fail_midway.cu"
  if cmp -s "$SCRATCH/fail_midway.cu" $CH/out_of_core.cu; then
    sum "the plant fail_midway did not apply"
  else
    tm 120 nvcc -std=c++20 -O3 -gencode arch=compute_90,code=sm_90 -I common -I $CH -Xcompiler -fopenmp \
      "$SCRATCH/fail_midway.cu" build/common/{cli,data,io,report,selftest,cuda_util,cub_scan}.o \
      build/$CH/cpu_threads.o -o "$SCRATCH/bin/fail_midway" -lgomp >"$OUT/build_fail_midway.log" 2>&1
  fi
  wait $b08
  sum "built chapter 08 ($([ -x $RUN08 ] && echo ok || echo 'FAILED: build_08.log')) and fail_midway ($([ -x "$SCRATCH/bin/fail_midway" ] && echo ok || echo 'FAILED: build_fail_midway.log')) in $(($(elapsed) - t)) s"

  # every job appends its own summary lines when it ends
  (tm 600 $RUN --self-test --variant pipeline >"$OUT/self_test.txt" 2>&1
   echo "exit $?" >>"$OUT/self_test.txt"; self_test_line self_test "--self-test --variant pipeline") &
  JOBS+=($!)
  (tm 600 $RUN --self-test -n 2^24 >"$OUT/self_test_2p24.txt" 2>&1
   echo "exit $?" >>"$OUT/self_test_2p24.txt"; self_test_line self_test_2p24 "--self-test -n 2^24") &
  JOBS+=($!)
  (tm 600 $RUN --self-test -n 2^22 --device-memory 256KiB >"$OUT/self_test_256k.txt" 2>&1
   echo "exit $?" >>"$OUT/self_test_256k.txt"; self_test_line self_test_256k "--self-test -n 2^22 --device-memory 256KiB") &
  JOBS+=($!)
  (tm 600 $RUN --stress 1000 >"$OUT/stress.txt" 2>&1; rc=$?
   sum "--stress 1000: exit $rc: $(grep -E '^stress test' "$OUT/stress.txt" | tail -n 1)"
   tm 600 $RUN --stress 200 --device-memory 256KiB >"$OUT/stress_256k.txt" 2>&1; rc=$?
   sum "--stress 200 --device-memory 256KiB: exit $rc: $(grep -E '^stress test' "$OUT/stress_256k.txt" | tail -n 1)") &
  JOBS+=($!)
  files_job >"$OUT/files.txt" 2>&1 &
  JOBS+=($!)
  sanitizer_job >"$OUT/sanitize.txt" 2>&1 &
  JOBS+=($!)
  for k in 1 2 3 4; do
    plants_job $k >"$OUT/plants_$k.txt" 2>&1 &
    JOBS+=($!)
  done
  wait_jobs
  grep -h "SKIP" "$OUT"/self_test*.txt | sort -u | while IFS= read -r line; do sum "$line"; done
  sum "plants: $(cat "$OUT"/plants_*.txt | grep -c ': CAUGHT') caught, $(cat "$OUT"/plants_*.txt | grep -c ': MISSED') missed, of 7"
}
# self_test_line NAME ARGS: its verdict and exit status
self_test_line() {
  local v
  v=$(grep -E '^self-test ' "$OUT/$1.txt" | tail -n 1)
  sum "$2: ${v:-no verdict (ended early: see $1.txt)}; $(tail -n 1 "$OUT/$1.txt")"
}
# check WHAT OK: one summary line, judged
check() { if [ "$2" = 1 ]; then sum "file: $1: ok"; else sum "file: $1: WRONG"; fi; }
files_job() {
  local F=$SCRATCH/in.bin rc rc08 mode x
  head -c $((4 * ((1 << 26) + 5))) /dev/urandom >"$F"
  for mode in inclusive exclusive; do
    x=""; [ $mode = exclusive ] && x=--exclusive
    tm 120 $RUN --input "$F" --output "$SCRATCH/got_$mode.bin" --device-memory 64MiB $x >"$OUT/file_$mode.txt" 2>&1; rc=$?
    tm 120 $RUN08 --input "$F" --output "$SCRATCH/ref_$mode.bin" --variant decoupled-lookback $x >"$OUT/file_ref_$mode.txt" 2>&1; rc08=$?
    cmp -s "$SCRATCH/got_$mode.bin" "$SCRATCH/ref_$mode.bin" && [ $rc = 0 ] && [ $rc08 = 0 ]; ok=$((! $?))
    check "$mode, 2^26 + 5 elements, --device-memory 64MiB: exit $rc (chapter 08: $rc08), output == chapter 08's" $ok
    cp "$F" "$SCRATCH/inplace_$mode.bin"
    tm 120 $RUN --input "$SCRATCH/inplace_$mode.bin" --output "$SCRATCH/inplace_$mode.bin" --device-memory 64MiB $x \
      >"$OUT/file_inplace_$mode.txt" 2>&1; rc=$?
    cmp -s "$SCRATCH/inplace_$mode.bin" "$SCRATCH/ref_$mode.bin" && [ $rc = 0 ]; ok=$((! $?))
    check "$mode in place (--output = --input): exit $rc, result == chapter 08's" $ok
  done
  cat "$F" | tm 120 $RUN --input - --output "$SCRATCH/piped.bin" >"$OUT/file_pipe.txt" 2>&1; rc=$?
  cmp -s "$SCRATCH/piped.bin" "$SCRATCH/ref_inclusive.bin" && [ $rc = 0 ]; ok=$((! $?))
  check "from a pipe: exit $rc, output == chapter 08's" $ok
  { cat "$F"; printf x; } | tm 120 $RUN --input - --output "$SCRATCH/partial.bin" >"$OUT/file_partial.txt" 2>&1; rc=$?
  [ $rc = 2 ] && [ ! -e "$SCRATCH/partial.bin" ]; ok=$((! $?))
  check "a pipe with a partial last element: exit $rc (want 2), output $([ -e "$SCRATCH/partial.bin" ] && echo WRITTEN || echo 'not written'): $(tail -n 1 "$OUT/file_partial.txt")" $ok
  if [ -x "$SCRATCH/bin/fail_midway" ]; then
    printf 'old contents\n' >"$SCRATCH/kept.bin"
    tm 120 "$SCRATCH/bin/fail_midway" --input "$F" --output "$SCRATCH/kept.bin" --device-memory 64MiB \
      >"$OUT/file_fail_midway.txt" 2>&1; rc=$?
    local kept=CHANGED tmps
    printf 'old contents\n' | cmp -s - "$SCRATCH/kept.bin" && kept=unchanged
    tmps=$(find "$SCRATCH" -maxdepth 1 -name '.kept.bin.tmp*' | wc -l)
    [ $rc = 3 ] && [ $kept = unchanged ] && [ "$tmps" = 0 ]; ok=$((! $?))
    check "a CUDA error in the second chunk: exit $rc (want 3), --output $kept, $tmps temporary files left" $ok
  else
    sum "file: a CUDA error mid-way: NOT RUN (fail_midway not built)"
  fi
}
sanitizer_job() {
  local SAN tool rc
  SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/compute-sanitizer/compute-sanitizer)
  head -c $((4 * 50001)) /dev/urandom >"$SCRATCH/small.bin"
  for tool in memcheck racecheck synccheck; do
    tm 90 "$SAN" --tool $tool --error-exitcode 99 $RUN --self-test -n 1100 --variant pipeline \
      --device-memory 256KiB >"$OUT/sanitize_${tool}_self_test.txt" 2>&1; rc=$?
    sum "$tool --self-test -n 1100 --variant pipeline --device-memory 256KiB: rc=$rc (0: clean; 99: the tool reported errors)"
    tm 90 "$SAN" --tool $tool --error-exitcode 99 $RUN --stress 4 -n 70001 --device-memory 256KiB \
      >"$OUT/sanitize_${tool}_stress.txt" 2>&1; rc=$?
    sum "$tool --stress 4 -n 70001 --device-memory 256KiB: rc=$rc"
  done
  tm 90 "$SAN" --tool memcheck --error-exitcode 99 $RUN --input "$SCRATCH/small.bin" \
    --output "$SCRATCH/small_out.bin" --device-memory 256KiB >"$OUT/sanitize_memcheck_file.txt" 2>&1; rc=$?
  sum "memcheck --input (50001 elements) --device-memory 256KiB: rc=$rc"
}
# plants_job K: shard K of 4 of tests/plant_bugs.sh's chapter 13 plants (built and self-tested
# there); a plant the self-test missed gets --stress 50 with chunks of a few tiles
plants_job() {
  local line name rc
  PLANT_SHARD=$1/4 SM=90 tm 600 tests/plant_bugs.sh "$PLANT_BINS" '_13$' | while IFS= read -r line; do
    name=${line%%:*}
    if echo "$line" | grep -q '(exit 0)$'; then
      if [ -x "$PLANT_BINS/$name" ]; then
        tm 120 "$PLANT_BINS/$name" --stress 50 --device-memory 256KiB >"$OUT/$name.stress.txt" 2>&1; rc=$?
        [ $rc = 0 ] && v=MISSED || v="CAUGHT by --stress 50 only (exit $rc)"
        sum "plant $name: $v; $line"
      else
        sum "plant $name: NOT RUN; $line"
      fi
    elif echo "$line" | grep -qE '\(exit (124|137)\)$'; then
      sum "plant $name: NOT JUDGED (its self-test ran out of time); $line"
    elif echo "$line" | grep -q '(exit [0-9]*)$'; then
      sum "plant $name: CAUGHT by the self-test (exit 1: a wrong result; 3: a CUDA error); $line"
    else
      sum "plant $name: NOT RUN; $line"
    fi
  done
}

host_info
if [ "$PHASE" = speed ]; then speed_phase; else correctness_phase; fi
