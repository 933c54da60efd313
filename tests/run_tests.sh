#!/usr/bin/env bash
# The runner behind `make test`, `make test-all` and `make check` (docs/CONVENTIONS.md §7).
# `make test` builds everything first; this runs:
#   host suites  - unit tests of common/, the scan-network models and their figures, the command
#                  line of every chapter, \file blocks, helpers carried over between chapters
#                  unchanged, the README's tables against their sources, chapter 01's self-test
#                  (no GPU needed)
#   GPU suites   - CUDA helper tests and every GPU chapter's command line, --self-test and the
#                  checks its --help lists ("make test runs: ..."), when the probe finds a CUDA
#                  device that runs our code; otherwise each is reported as skipped, with why
# Tiers:
#   tests/run_tests.sh (make test): the first hour's tier. Every self-test runs its sizes below
#                  2^31 (-n 2^30), but for one chapter of each single-pass family (06, 08),
#                  which runs its n > 2^31 case too; a stress test runs at most 100 times per
#                  size (each chapter's --help lists these checks, "make test runs: ..."); the
#                  fuzz of the command line tries 150 command lines.
#   tests/run_tests.sh --all (make test-all): the exhaustive tier: every check as the chapters'
#                  --help lists it, every n > 2^31 case, the fuzz at 1500 command lines.
#   tests/run_tests.sh --quick (make check): unit tests, chapter 01's command line, the
#                  citations, and every chapter's --self-test up to n = 2^20
#   --gpu-only (with either of the first two): the GPU suites alone, as that tier runs them
# TEST_TIER (test, all or quick) is exported for the suites that have tiers of their own.
# Each suite's full output goes to build/tests/logs/; a line "SKIP what: why" in it (a case the
# suite could not run here) is shown under the suite's line, as a case skipped inside it. Suites
# run side by side in one batch, host and GPU suites together (the CUDA helpers, whose test times
# a kernel, run alone first); each PASS/FAIL line shows its seconds, and the lines come in a
# fixed order. The last line counts suites, "N passed, N failed, N skipped"; the exit status is
# non-zero if anything failed.
# Environment: CHAPTERS (chapter folders that exist); TEST_JOBS (default: one suite per core, at
# most 4 of them on the GPU). Their n > 2^31 cases, which need tens of GiB each, wait for room
# in a shared budget of host memory (SCAN_BIG_CASE_LOCK and SCAN_BIG_CASE_BUDGET,
# common/selftest.h). GPU detection is in tests/gpu_env.sh.
set -u
cd "$(dirname "$0")/.."
LOGS=build/tests/logs
mkdir -p "$LOGS"
passed=0 failed=0 skipped=0 inner=0  # suites; and cases skipped inside passing suites
quick=0 all=0
gpu_only=0  # --gpu-only: the GPU suites alone (a device call too short for the whole run)
for arg in "$@"; do
  case $arg in
    --quick) quick=1 ;;
    --all) all=1 ;;
    --gpu-only) gpu_only=1 ;;
    *) echo "usage: tests/run_tests.sh [--quick | --all] [--gpu-only]" >&2; exit 2 ;;
  esac
done
[ "$quick" -eq 1 ] && [ "$all" -eq 1 ] && { echo "tests/run_tests.sh: --quick or --all, not both" >&2; exit 2; }
TEST_TIER=test
[ "$all" -eq 1 ] && TEST_TIER=all
[ "$quick" -eq 1 ] && TEST_TIER=quick
export TEST_TIER
# the fuzz's command lines (what make test and make test-all run of each chapter, the chapter's
# --help says: chapter_checks below)
FUZZ_LINES=150
[ "$all" -eq 1 ] && FUZZ_LINES=1500
cores=$(nproc 2>/dev/null || echo 1)
host_jobs=${TEST_JOBS:-$cores}
gpu_jobs=${TEST_JOBS:-$(( cores < 4 ? cores : 4 ))}
[ "$gpu_jobs" -ge 1 ] || gpu_jobs=1
# suites side by side oversubscribe the cores with OpenMP threads: waiting threads sleep rather
# than spin (unless the caller chose otherwise)
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
# self-tests side by side share the memory for their n > 2^31 cases: nine tenths of what is
# available now (common/selftest.h)
export SCAN_BIG_CASE_LOCK="$PWD/build/tests/big_case.lock"
SCAN_BIG_CASE_BUDGET=$(awk '/^MemAvailable:/ { printf "%.0f", $2 * 1024 * 0.9 }' /proc/meminfo 2>/dev/null)
export SCAN_BIG_CASE_BUDGET
rm -f "$SCAN_BIG_CASE_LOCK"

# inner_skips LOG: every "SKIP what: why" line a suite printed, shown under the suite's line and
# counted apart (the suite itself passed or failed)
inner_skips() {
  local line
  while IFS= read -r line; do
    inner=$((inner + 1))
    printf '      skipped inside: %s\n' "${line#SKIP }"
  done < <(sed -n 's/^[[:space:]]*\(SKIP [^:]*: .*\)$/\1/p' "$1")
}

# failed_checks LOG: the first three "FAIL what" lines a suite printed, each with the indented
# lines after it (its evidence: at most 8, of at most 1600 characters; "record:" lines, which a
# suite prints for the record before a check, are not evidence), so that a failure early in a
# long suite is seen where the log is gone (a fresh clone's, tests/time_commands.py)
failed_checks() {
  awk 'shown >= 3 { exit }
       /^[[:space:]]*FAIL[[:space:]]/ { if (detail) ++shown; if (shown >= 3) exit;
                                       print "      check: " substr($0, 1, 1600); detail = 1; lines = 0; next }
       detail && /^[[:space:]]+record: / { detail = 0; ++shown; next }
       detail && /^[[:space:]]/ && lines < 8 { print "      " substr($0, 1, 1600); ++lines; next }
       detail { detail = 0; ++shown }' "$1"
}

# run_suite NAME COMMAND... : run, record pass/fail, show the summary line or the failure's tail
run_suite() {
  local name=$1 log
  shift
  log="$LOGS/$(echo "$name" | tr -c 'A-Za-z0-9_\n' '_').log"
  local runner="timeout 3600"   # belt and braces: no suite may hang make test
  [ "$(type -t "$1")" = function ] && runner=""
  local start=$SECONDS
  $runner "$@" </dev/null >"$log" 2>&1
  local status=$? took=$((SECONDS - start))
  if [ "$status" -eq 0 ]; then
    passed=$((passed + 1))
    printf 'PASS  %-46s %4ss  %s\n' "$name" "$took" "$(grep -v '^[[:space:]]*$' "$log" | tail -n 1)"
  else
    failed=$((failed + 1))
    printf 'FAIL  %-46s %4ss  (exit %s; log: %s)\n' "$name" "$took" "$status" "$log"
    failed_checks "$log"
    echo "      last lines:"
    tail -n 25 "$log" | sed 's/^/      /'
  fi
  inner_skips "$log"
}

# Suites side by side: queue_suite NAME COMMAND... adds a host suite to the batch, queue_gpu_suite
# a GPU one, queue_heading TEXT a line to print between them; run_batch JOBS GPU_JOBS runs the
# batch, JOBS at a time of which at most GPU_JOBS on the GPU, each in a subshell of its own,
# starting them in the order queued, and prints their lines in that order.
queued=() queued_kind=()  # kind: host, long, gpu, heading or skip
queue_suite() { queued+=("$(printf '%q ' "$@")"); queued_kind+=(host); }
# the longest host suite, which sets make test's time: queued first, and the host suites that
# start while it runs yield to it (10 above its nice value), so that they slow it less and fill
# what it leaves of the cores (2 cores, 2026-12-05: the kit took 69 s in make test beside
# them at its own priority; 52 and 56 s so, with its starters' checks moved beside its class,
# against 47 s alone)
queue_long_suite() { queued+=("$(printf '%q ' "$@")"); queued_kind+=(long); }
queue_gpu_suite() { queued+=("$(printf '%q ' "$@")"); queued_kind+=(gpu); }
queue_heading() { queued+=("$1"); queued_kind+=(heading); }  # skip_suite() queues a skip
run_batch() {
  local jobs=$1 gpu_jobs=$2 dir next=0 shown=0 running=0 p f s i cmd gpu_running long_running
  if [ "$jobs" -le 1 ]; then
    for ((p = 0; p < ${#queued[@]}; ++p)); do
      case ${queued_kind[p]} in
        heading) echo "${queued[p]}" ;;
        skip) echo "${queued[p]}"; skipped=$((skipped + 1)) ;;
        *) eval "run_suite ${queued[p]}" ;;
      esac
    done
    queued=() queued_kind=()
    return
  fi
  dir=$(mktemp -d)
  while [ "$shown" -lt "${#queued[@]}" ]; do
    while [ "$running" -lt "$jobs" ] && [ "$next" -lt "${#queued[@]}" ]; do
      if [ "${queued_kind[next]}" = heading ] || [ "${queued_kind[next]}" = skip ]; then
        echo "${queued[next]}" >"$dir/$next.out"
        if [ "${queued_kind[next]}" = skip ]; then echo "0 0 1 0"; else echo "0 0 0 0"; fi >"$dir/$next.counts"
        next=$((next + 1))
        continue
      fi
      if [ "${queued_kind[next]}" = gpu ]; then  # the GPU suites started and not ended
        gpu_running=0
        for ((p = shown; p < next; ++p)); do
          [ "${queued_kind[p]}" = gpu ] && [ ! -f "$dir/$p.counts" ] && gpu_running=$((gpu_running + 1))
        done
        [ "$gpu_running" -lt "$gpu_jobs" ] || [ "$running" -eq 0 ] || break
      fi
      long_running=0  # the long suite started and not ended
      for ((p = 0; p < next; ++p)); do
        [ "${queued_kind[p]}" = long ] && [ ! -f "$dir/$p.counts" ] && long_running=1
      done
      (passed=0 failed=0 skipped=0 inner=0
       if [ "${queued_kind[next]}" = host ] && [ "$long_running" -eq 1 ]; then
         renice "$(( $(nice) + 10 ))" -p "$BASHPID" >/dev/null 2>&1  # absolute: util-linux, busybox
       fi
       eval "run_suite ${queued[next]}" >"$dir/$next.out"
       echo "$passed $failed $skipped $inner" >"$dir/$next.counts") &
      next=$((next + 1)) running=$((running + 1))
    done
    if [ "$running" -gt 0 ]; then
      wait -n
      running=$((running - 1))
    fi
    if [ "$running" -le 0 ] && [ "$next" -ge "${#queued[@]}" ]; then
      wait  # every runner has ended: one that left no counts died, and failed
      for ((p = shown; p < ${#queued[@]}; ++p)); do
        [ -f "$dir/$p.counts" ] || echo "0 1 0 0" >"$dir/$p.counts"
        [ -s "$dir/$p.out" ] || echo "FAIL  ${queued[p]} (its runner died)" >"$dir/$p.out"
      done
    fi
    while [ "$shown" -lt "${#queued[@]}" ] && [ -f "$dir/$shown.counts" ]; do
      cat "$dir/$shown.out"
      read -r p f s i <"$dir/$shown.counts"
      passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s)) inner=$((inner + i))
      shown=$((shown + 1))
    done
  done
  wait
  rm -rf "$dir"
  queued=() queued_kind=()
}

# skip_suite NAME WHY: a suite that cannot run here, shown (and counted) in its place in the batch
skip_suite() { queued+=("$(printf 'SKIP  %-46s %s' "$1" "$2")"); queued_kind+=(skip); }

# every source file opens with a Doxygen \file block
check_file_blocks() {
  local missing=0 f
  for f in $(git ls-files --cached --others --exclude-standard '*.c' '*.h' '*.cu' '*.cuh' 2>/dev/null || find . -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh'); do
    [ -f "$f" ] || continue   # listed by git but deleted in this working tree
    if ! grep -q '\\file' "$f"; then echo "no \\file block: $f"; missing=$((missing + 1)); fi
  done
  echo "source files without a \\file block: $missing"
  [ "$missing" -eq 0 ]
}

# the CUDA helpers, and the exit status 3 that CUDA trouble must give
cuda_helper_suite() {
  build/tests/test_cuda_util || return 1
  local provoke status
  for provoke in --oom --bad-launch; do
    build/tests/test_cuda_util "$provoke"
    status=$?
    if [ "$status" -ne 3 ]; then echo "FAIL test_cuda_util $provoke exited $status, wanted 3"; return 1; fi
    echo "test_cuda_util $provoke: exit 3 as it should"
  done
  echo "cuda helpers ok; CUDA errors exit with status 3"
}

# without a usable GPU: a GPU chapter stops with exit 3 and the probe's reason, in words a user can
# act on ("no NVIDIA driver found" where there is no libcuda.so.1, not "driver insufficient")
no_gpu_message() {
  local err status stub dir
  err=$("$1/run" -n 1 2>&1 >/dev/null)
  status=$?
  echo "$1/run -n 1: exit $status: $err"
  [ "$status" -eq 3 ] || { echo "exit $status, wanted 3"; return 1; }
  case $err in *"$GPU_PROBE"*) ;; *) echo "it differs from the probe's reason: $GPU_PROBE"; return 1 ;; esac
  if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
    case $err in *"no NVIDIA driver found"*) ;; *) echo "no libcuda.so.1 here, yet not 'no NVIDIA driver found'"; return 1 ;; esac
  fi
  # the toolkit's stub libcuda.so as the driver: CUDA's own words, not "no driver found"
  stub=$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")/../lib64/stubs/libcuda.so
  if [ -f "$stub" ]; then
    dir=$(mktemp -d)
    ln -s "$(cd "$(dirname "$stub")" && pwd)/libcuda.so" "$dir/libcuda.so.1"
    err=$(LD_LIBRARY_PATH=$dir "$1/run" -n 1 2>&1 >/dev/null)
    status=$?
    rm -rf "$dir"
    echo "with the stub libcuda: exit $status: $err"
    case $status:$err in 3:*"stub library"*) ;; *) echo "wanted exit 3 and CUDA's 'stub library'"; return 1 ;; esac
  else
    echo "SKIP the stub driver's message: no $stub"
  fi
  echo "no-GPU messages: as the probe says"
}

# without a GPU, make sanitize checks nothing: it must say why and fail (exit 2), not pass
sanitize_refuses() {
  local err status
  err=$(tests/sanitize.sh 2>&1)
  status=$?
  echo "$err"
  [ "$status" -eq 2 ] && case $err in *"nothing checked: $GPU_REASON"*) true ;; *) false ;; esac ||
    { echo "make sanitize without a GPU: exit $status, wanted 2 and the reason"; return 1; }
  echo "make sanitize without a GPU: exit 2, with the reason"
}

# make's own messages: a wrong SMS is refused with the list nvcc accepts; a chapter number that
# CHAPTER_DIRS lacks is refused with the chapters written (no fixed list anywhere else); and the
# default SMS: a GPU's own; all of ALL_SMS with FAT=1, or for make all without a GPU; TEST_SMS
# for every other build without a GPU
check_make_messages() {
  local out last status=0 scratch
  scratch=$(mktemp -d)  # a build folder of its own: the real build's flags stay as they are
  if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
    out=$(make --no-print-directory BUILD="$scratch" SMS=xyz help 2>&1) &&
      { echo "make SMS=xyz help succeeded"; status=1; }
    case $out in *"xyz is not a GPU architecture"*"valid: "*90*) echo "SMS=xyz: refused, with the valid list" ;;
      *) echo "make SMS=xyz: no list of valid values: $out"; status=1 ;; esac
  else
    echo "SKIP make SMS=xyz: no nvcc here to list the valid values"
  fi
  local written n
  written=$(for c in ${CHAPTERS:-}; do echo "${c%%_*}"; done | sed 's/^0*//' | tr '\n' ' ' | sed 's/ $//')
  for n in 99 0; do
    out=$(make --no-print-directory BUILD="$scratch" chapter-$n 2>&1) && { echo "make chapter-$n succeeded"; status=1; }
    case $out in *"there is no chapter $n; the chapters written are $written"*) echo "chapter-$n: refused, chapters $written" ;;
      *) echo "make chapter-$n says '$out', not the chapters written, $written"; status=1 ;; esac
  done
  # a make that builds nothing leaves the flags alone (else the next build would start over)
  make --no-print-directory BUILD="$scratch/quiet" help >/dev/null 2>&1
  if [ -e "$scratch/quiet/flags.txt" ]; then echo "make help wrote the build's flags"; status=1; fi
  # which architectures a build is for (GPU_SMS stands for what the GPU query would find; a dry
  # run)
  local case want got
  for case in "GPU_SMS=86|help|86" "GPU_SMS=86 FAT=1|help|75 80 86 89 90 100 120" \
              "GPU_SMS=|all|75 80 86 89 90 100 120" "GPU_SMS=|check|90" "GPU_SMS=|help|90" \
              "GPU_SMS=86|check|86"; do
    want=${case##*|}
    got=$(env -u SMS -u FAT -u GPU_SMS -u MAKEFLAGS -u MAKELEVEL -u MFLAGS ${case%%|*} \
          make --no-print-directory -pn BUILD="$scratch" "$(echo "$case" | cut -d'|' -f2)" 2>/dev/null |
          sed -n 's/^SMS := //p' | head -n 1)
    [ "$(echo $got)" = "$want" ] || { echo "${case%|*}: SMS is '$got', wanted '$want'"; status=1; }
  done
  rm -rf "$scratch"
  [ "$status" -eq 0 ] && echo "make's messages and default architectures: as they should be"
}

# the first name a chapter's --help lists after "one of:"
first_variant() {
  "$1/run" --help | sed -n 's/.*one of: \([^,]*\),.*/\1/p' | head -n 1
}

# the checks a chapter's --help says this tier runs, one per line, words joined by _: its line
# "make test runs: --self-test -n 2^30 | --stress 100 | ..." or, for make test-all, "make
# test-all runs: --self-test | --stress 1000 | ..." (common/cli.c writes both)
chapter_checks() {
  local line="make test runs: "
  [ "$all" -eq 1 ] && line="make test-all runs: "
  "$1/run" --help | sed -n "s/^$line//p" | tr '|' '\n' | sed 's/^ *//; s/ *$//' | grep -v '^$' |
    tr ' ' _
}

# every "docs/CONVENTIONS.md §N" (or "§N–§M", "§N, §M") in the code and docs names a section that
# docs/CONVENTIONS.md has ("## §N. ...")
check_citations() {
  local cited bad=0 n count=0
  local files
  files=$(git ls-files --cached --others --exclude-standard 2>/dev/null || find . -type f -not -path './build/*')
  # shellcheck disable=SC2086
  cited=$(for f in $files; do [ -f "$f" ] && echo "$f"; done | grep -E '\.(c|h|cu|sh|md|mk)$|Makefile$' |
          xargs grep -hoE 'CONVENTIONS\.md §[0-9]+([–-]§[0-9]+|, §[0-9]+)*' 2>/dev/null |
          grep -oE '§[0-9]+' | sort -u)
  for n in $cited; do
    count=$((count + 1))
    grep -q "^## $n\. " docs/CONVENTIONS.md || { echo "cited but missing in docs/CONVENTIONS.md: $n"; bad=1; }
  done
  [ "$bad" -eq 0 ] && echo "citations of docs/CONVENTIONS.md: $count sections cited, all present"
  [ "$bad" -eq 0 ] && [ "$count" -gt 0 ]
}

# the committed figures are exactly what tests/scan_networks.c draws today
check_figures() {
  local dir status=0 f
  dir=$(mktemp -d)
  build/tests/scan_networks --svg "$dir" >/dev/null || { rm -rf "$dir"; return 1; }
  for f in "$dir"/*.svg; do
    if ! cmp -s "$f" "docs/figures/$(basename "$f")"; then
      echo "docs/figures/$(basename "$f") differs from what the model draws: run 'make figures' and commit"
      status=1
    fi
  done
  [ "$status" -eq 0 ] && echo "figures match the models: $(ls "$dir"/*.svg | wc -l) SVG files"
  rm -rf "$dir"
  return $status
}

# the committed results table, and the tables quoted in README.md, the chapters' notes and the
# primer, are
# exactly what bench/run_bench.sh makes of the committed CSV: nobody edited a number by hand
check_results() {
  local dir status=0 f csv
  dir=$(mktemp -d)
  mkdir -p "$dir/bench" "$dir/docs/results"
  cp bench/run_bench.sh bench/host_bench.sh bench/plot.gp "$dir/bench/"
  cp README.md "$dir/"
  cp docs/primer.md "$dir/docs/"
  for f in [0-9][0-9]_*/README.md; do mkdir -p "$dir/$(dirname "$f")"; cp "$f" "$dir/$f"; done
  cp docs/results/*.csv "$dir/docs/results/" 2>/dev/null || { echo "SKIP results tables: no results in docs/results yet"; rm -rf "$dir"; return 0; }
  for csv in "$dir"/docs/results/*.csv; do
    case $csv in *_host.csv) continue ;; esac  # chapter 13's: redrawn with its GPU's own CSV
    # a committed run with noisy cells was kept on purpose (BENCH_ALLOW_NOISY=1; the tables mark
    # those cells): redraw it the same way
    (cd "$dir" && BENCH_ALLOW_NOISY=1 bench/run_bench.sh --from "docs/results/$(basename "$csv")") >/dev/null 2>&1
  done
  for f in docs/results/*.md README.md [0-9][0-9]_*/README.md docs/primer.md; do
    if ! cmp -s "$f" "$dir/$f"; then
      echo "$f differs from what bench/run_bench.sh --from makes of docs/results: run it and commit"
      status=1
    fi
  done
  [ "$status" -eq 0 ] && echo "results tables match docs/results/*.csv: $(ls docs/results/*.csv | grep -vc _host.csv) GPU(s)"
  rm -rf "$dir"
  return $status
}

# the quick tier (make check): every chapter's self-test up to this size
QUICK_N=2^20

# One batch: the host suites first, then the GPU suites, which start as soon as cores (and, for
# the GPU ones, GPU slots) are free, so the two kinds run side by side.
. tests/gpu_env.sh
if [ "$GPU_PROBE_FAILED" -eq 1 ]; then
  failed=$((failed + 1)); printf 'FAIL  %-46s %s\n' "CUDA probe" "$GPU_PROBE"
elif [ -z "$GPU_REASON" ]; then
  echo "probe: $GPU_PROBE; the CUDA helpers first, alone; then $host_jobs suites at a time, $gpu_jobs of them on the GPU"
  run_suite "cuda helpers" cuda_helper_suite  # alone: it checks a kernel's timing
fi
if [ "$gpu_only" -eq 0 ]; then
  queue_heading "== host suites"
  # the classroom kit first: the longest suite (it builds and grades chapters, on the GPU where
  # there is one), so it must not start last; markers, the student's copy, the grader (not in a
  # student's copy)
  # (make test-all adds the kit's slow end-to-end checks: classroom/tests/kit_full.py)
  if [ "$quick" -eq 0 ] && [ -f classroom/tests/test_kit.py ]; then
    if [ "$all" -eq 1 ]; then
      queue_long_suite "classroom kit, with its slow checks" python3 classroom/tests/test_kit.py --all
    else
      queue_long_suite "classroom kit (starter, grader)" python3 classroom/tests/test_kit.py
    fi
  fi
  queue_suite "host unit tests" build/tests/test_common
  [ -f 09_operators/float_checks.c ] &&  # a students' copy may leave chapter 09 out
    queue_suite "float checks (09, host data)" build/tests/test_float_checks
  queue_suite "command line (01_cpu_serial)" tests/test_cli.sh 01_cpu_serial/run serial
  [ "$quick" -eq 1 ] ||  # a container's memory limit read as the memory a run has (io.c)
    queue_suite "container memory limit (01)" tests/check_cgroup_memory.sh 01_cpu_serial/run
  queue_suite "conventions cited exist" check_citations
  if [ "$quick" -eq 1 ]; then
    queue_suite "01_cpu_serial --self-test -n $QUICK_N" 01_cpu_serial/run --self-test -n "$QUICK_N"
  else
    queue_suite "scan networks" build/tests/scan_networks
    queue_suite "figures up to date" check_figures
    if command -v gnuplot >/dev/null; then  # bench/run_bench.sh --from draws the plots too
      queue_suite "results tables up to date" check_results
      queue_suite "bench marks and refuses noise" tests/test_bench_noise.sh
    else
      skip_suite "results tables up to date" "gnuplot not found (bench/run_bench.sh --from needs it; CI has it)"
      skip_suite "bench marks and refuses noise" "gnuplot not found (bench/run_bench.sh --from needs it)"
    fi
    queue_suite "quoted % of memcpy from the same run" tests/check_pct_memcpy.sh
    if command -v python3 >/dev/null; then
      queue_suite "README's command times from their runs" python3 tests/time_commands.py check
    else
      skip_suite "README's command times from their runs" "python3 not found (tests/time_commands.py)"
    fi
    queue_suite "\\file blocks" check_file_blocks
    queue_suite "make's messages and default SMS" check_make_messages
    queue_suite "carried-over helpers unchanged" tests/check_carried.sh $CHAPTERS
    queue_suite "chapter notes follow the outline" tests/check_notes.sh $CHAPTERS
    queue_suite "expected output has the programs' headers" tests/check_expected_output.py $CHAPTERS
    for check in $(chapter_checks 01_cpu_serial); do
      queue_suite "01_cpu_serial $(echo "$check" | tr _ ' ')" 01_cpu_serial/run $(echo "$check" | tr _ ' ')
    done
    # the host code under AddressSanitizer and UBSan (build/asan: make tests builds it); a leak at
    # exit is not undefined behaviour, and exits by cli_fail() leave allocations behind on purpose
    export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
    queue_suite "host unit tests (ASan, UBSan)" build/asan/test_common
    # the command line under the sanitizers: make test-all runs every check; make test leaves
    # out the files and streams (lean: 2 s instead of 28 s on 2 cores), which it runs without
    # the sanitizers above, and fuzzes the parser under them below
    if [ "$all" -eq 1 ]; then
      queue_suite "command line (01, ASan, UBSan)" tests/test_cli.sh build/asan/cpu_serial serial
    else
      queue_suite "command line (01, ASan, UBSan, lean)" tests/test_cli.sh build/asan/cpu_serial serial lean
    fi
    queue_suite "01 --self-test -n 70000 (ASan, UBSan)" build/asan/cpu_serial --self-test -n 70000
    # the fuzz in two halves, so that two cores share it (the same FUZZ_LINES command lines)
    queue_suite "fuzz: $FUZZ_LINES command lines 1/2 (ASan, UBSan)" tests/fuzz_cli.sh build/asan/cpu_serial "$FUZZ_LINES" 20161101 1/2
    queue_suite "fuzz: $FUZZ_LINES command lines 2/2 (ASan, UBSan)" tests/fuzz_cli.sh build/asan/cpu_serial "$FUZZ_LINES" 20161101 2/2
  fi
fi

# cli_lean CHAPTER: whether make test runs the chapter's command-line suite lean (tests/test_cli.sh:
# the checks of common/io.c's files and streams run in full on 01 and on the first GPU chapter,
# and on every chapter in make test-all)
cli_lean() {
  [ "$all" -eq 0 ] && [ "$1" != "$(set -- $GPU_CHAPTERS; echo "$1")" ]
}
queue_heading "== GPU suites"
if [ -n "$GPU_REASON" ]; then
  skip_suite "cuda helpers" "$GPU_REASON"
  if [ -x build/tests/cuda_probe ]; then
    for c in $GPU_CHAPTERS; do queue_suite "no GPU: exit 3 and why ($c)" no_gpu_message "$c"; break; done
    [ "$quick" -eq 1 ] || queue_suite "make sanitize says why it cannot run" sanitize_refuses
  fi
  for c in $GPU_CHAPTERS; do
    if [ "$quick" -eq 1 ]; then skip_suite "$c --self-test -n $QUICK_N" "$GPU_REASON"; continue; fi
    queue_suite "command line ($c, usage$(cli_lean "$c" && echo ", lean"))" tests/test_cli.sh "$c/run" "$(first_variant "$c")" usage-only $(cli_lean "$c" && echo lean)
    for check in $(chapter_checks "$c"); do skip_suite "$c $(echo "$check" | tr _ ' ')" "$GPU_REASON"; done
  done
else
  for c in $GPU_CHAPTERS; do
    if [ "$quick" -eq 1 ]; then
      queue_gpu_suite "$c --self-test -n $QUICK_N" "$c/run" --self-test -n "$QUICK_N"
      continue
    fi
    queue_gpu_suite "command line ($c$(cli_lean "$c" && echo ", lean"))" tests/test_cli.sh "$c/run" "$(first_variant "$c")" $(cli_lean "$c" && echo lean)
    for check in $(chapter_checks "$c"); do
      queue_gpu_suite "$c $(echo "$check" | tr _ ' ')" "$c/run" $(echo "$check" | tr _ ' ')
    done
  done
fi
run_batch "$host_jobs" "$gpu_jobs"
[ -n "$GPU_CHAPTERS" ] || echo "(no GPU chapters written yet)"

case $TEST_TIER in
  test) tier="make test (make test-all: every n > 2^31 case, stress and fuzz at full length)" ;;
  all) tier="make test-all" ;;
  *) tier="make check" ;;
esac
echo "== $((passed + failed + skipped)) suites, $tier; $inner case(s) skipped inside suites, listed under them"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
