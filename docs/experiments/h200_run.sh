#!/usr/bin/env bash
# The GPU checks of a session, in as few device calls as its budget allows (each call at most 10
# minutes; run them back to back, so that the machine stays warm and keeps its build):
#   test    builds for the GPU here, times make test and make check, and saves chapter 08's SASS
#   bench   make bench's measurements (bench/run_bench.sh --csv-only: the device has no gnuplot)
#   checks  make sanitize and tests/plant_bugs.sh side by side (every plant, in PLANT_STREAMS
#           streams: PLANT_SHARD),
#           then classroom/tests/gpu_batch.py until CHECKS_LIMIT seconds have passed
#   extras  the plants named in PLANTS (a regex) and chapter 08's inclusive and exclusive scans
#           at 2^28 and 2^30, three runs each
#   kit     chapter 01's work-sharing judge on this machine's cores: share_timing.py (its default
#           cases, idle and beside 8 and 16 loads, 3 rounds), the course's part on 8 cores only
#           (the students' advice), then the kit's running of students' code, slow cases too
#           (at most 490 s with a built tree; share_timing.txt keeps each row as it comes)
# Logs go to OUTDIR.   docs/experiments/h200_run.sh test|bench|checks|extras|kit OUTDIR
set -u
[ $# -eq 2 ] || { echo "usage: docs/experiments/h200_run.sh test|bench|checks|extras|kit OUTDIR" >&2; exit 2; }
mkdir -p "$2" && OUT=$(cd "$2" && pwd) || exit 2
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
case $1 in
  test)
    s=$(date +%s)
    make -j"$(nproc)" all >"$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log"; exit 1; }
    echo "build: $(( $(date +%s) - s )) s ($(grep -o 'code=sm_[0-9]*' "$OUT/build.log" | sort -u | tr '\n' ' '))"
    s=$(date +%s)
    timeout "${TEST_LIMIT:-420}" make test >"$OUT/test.log" 2>&1
    echo "make test: exit $?, $(( $(date +%s) - s )) s: $(tail -n 1 "$OUT/test.log")"
    grep -E '^(FAIL|SKIP)' "$OUT/test.log" | head -n 40
    cp -r build/tests/logs "$OUT/test_logs" 2>/dev/null
    s=$(date +%s)
    timeout "${CHECK_LIMIT:-90}" make check >"$OUT/check.log" 2>&1
    echo "make check: exit $?, $(( $(date +%s) - s )) s: $(tail -n 1 "$OUT/check.log")"
    command -v cuobjdump >/dev/null && cuobjdump -sass 08_memcpy_speed/run >"$OUT/08.sass" 2>&1
    ;;
  bench)
    s=$(date +%s)
    timeout "${BENCH_LIMIT:-560}" bench/run_bench.sh --csv-only >"$OUT/bench.log" 2>&1
    echo "bench: exit $?, $(( $(date +%s) - s )) s"
    tail -n 5 "$OUT/bench.log"
    mkdir -p "$OUT/results"
    cp docs/results/*.csv build/bench/*.csv "$OUT/results/" 2>/dev/null
    ;;
  checks)
    s=$(date +%s)
    limit=${CHECKS_LIMIT:-560}
    (timeout 200 make sanitize >"$OUT/sanitize.log" 2>&1; echo "make sanitize: exit $?, $(( $(date +%s) - s )) s: $(tail -n 1 "$OUT/sanitize.log")" >"$OUT/sanitize.done") &
    k=${PLANT_STREAMS:-4}
    for ((i = 1; i <= k; ++i)); do
      (PLANT_SHARD=$i/$k timeout 300 tests/plant_bugs.sh "$OUT/plants" >"$OUT/plants.$i.log" 2>&1) &
    done
    wait
    cat "$OUT/sanitize.done"
    grep -E '^FAIL' "$OUT/sanitize.log" | head -n 20
    cat "$OUT"/plants.*.log >"$OUT/plants.log"
    echo "plants: $(grep -c . "$OUT/plants.log") lines, $(( $(date +%s) - s )) s"
    left=$(( limit - ($(date +%s) - s) ))
    if [ "$left" -gt 60 ]; then
      # graded in /tmp (the hidden vectors' outputs are GiB); the results come back
      GRADE_SEED=777 GRADE_CASES=${GRADE_CASES:-} timeout "$left" python3 classroom/tests/gpu_batch.py /tmp/gpu_batch >"$OUT/grade.log" 2>&1
      echo "gpu_batch: exit $? after $(( $(date +%s) - s )) s in all"
      cat "$OUT/grade.log"
      (cd /tmp/gpu_batch && find . -name results.json -o -name summary.csv | while read -r f; do
         mkdir -p "$OUT/grade/$(dirname "$f")" && cp "$f" "$OUT/grade/$f"; done)
    fi
    ;;
  extras)
    [ -x 08_memcpy_speed/run ] || make -j"$(nproc)" all >"$OUT/build.log" 2>&1
    for r in 1 2 3; do
      for k in 28 30; do
        for m in "" --exclusive; do
          08_memcpy_speed/run -n "2^$k" $m --variant decoupled-lookback --csv 2>&1 |
            awk -F, -v r="$r" -v m="${m:-inclusive}" '/^#/ { next } !h { for (i = 1; i <= NF; ++i) c[$i] = i; h = 1; next }
              $c["variant"] != "memcpy" { print "08," r "," m "," $c["n"] "," $c["time_us"] "," $c["pct_memcpy"] "," $c["spread_pct"] "," $c["check"] }'
        done
      done
    done | tee "$OUT/08_exclusive.csv"
    timeout "${PLANT_LIMIT:-200}" tests/plant_bugs.sh "$OUT/plants" "${PLANTS:-.}" 2>&1 | tee "$OUT/plants.log"
    ;;
  kit)
    [ -x 01_cpu_serial/run ] || make -j"$(nproc)" all >"$OUT/build.log" 2>&1
    s=$(date +%s)
    timeout "${SHARE_LIMIT:-300}" python3 docs/experiments/share_timing.py --rounds 3 \
      --load 0,8,16 "$OUT/share_timing.csv" >"$OUT/share_timing.txt" 2>&1
    echo "share_timing: exit $?, $(( $(date +%s) - s )) s"
    tail -n 25 "$OUT/share_timing.txt"
    s=$(date +%s)
    taskset -c 0-7 timeout 60 python3 docs/experiments/share_timing.py --rounds 3 --load 0 \
      --cases course "$OUT/share_timing_8cores.csv" >"$OUT/share_timing_8cores.txt" 2>&1
    echo "share_timing on 8 cores: exit $?, $(( $(date +%s) - s )) s"
    tail -n 8 "$OUT/share_timing_8cores.txt"
    s=$(date +%s)
    timeout 130 python3 classroom/tests/test_kit.py --students --all >"$OUT/students.log" 2>&1
    echo "test_kit.py --students --all: exit $?, $(( $(date +%s) - s )) s"
    grep -E '^(FAIL|running)' "$OUT/students.log" | head -n 20
    ;;
  *) echo "h200_run.sh: unknown part $1" >&2; exit 2 ;;
esac
