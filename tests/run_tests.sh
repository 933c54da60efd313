#!/usr/bin/env bash
# The runner behind `make test` (docs/CONVENTIONS.md §7). `make test` builds everything first; this runs:
#   host suites  - unit tests of common/, the scan-network models and their figures, the command
#                  line of every chapter, \file blocks, helpers carried over between chapters
#                  unchanged, chapter 01's self-test (no GPU needed)
#   GPU suites   - CUDA helper tests and every GPU chapter's --self-test, when the probe finds a
#                  CUDA device that runs our code; otherwise each is reported as skipped, with why
# Each suite's full output goes to build/tests/logs/. The last line is "N passed, N failed, N skipped";
# the exit status is non-zero if anything failed.
# Environment: CHAPTERS (chapter folders that exist); GPU detection is in tests/gpu_env.sh.
set -u
cd "$(dirname "$0")/.."
LOGS=build/tests/logs
mkdir -p "$LOGS"
passed=0 failed=0 skipped=0

# run_suite NAME COMMAND... : run, record pass/fail, show the summary line or the failure's tail
run_suite() {
  local name=$1 log
  shift
  log="$LOGS/$(echo "$name" | tr -c 'A-Za-z0-9_\n' '_').log"
  local runner="timeout 3600"   # belt and braces: no suite may hang make test
  [ "$(type -t "$1")" = function ] && runner=""
  $runner "$@" </dev/null >"$log" 2>&1
  local status=$?
  if [ "$status" -eq 0 ]; then
    passed=$((passed + 1))
    printf 'PASS  %-46s %s\n' "$name" "$(grep -v '^[[:space:]]*$' "$log" | tail -n 1)"
  else
    failed=$((failed + 1))
    printf 'FAIL  %-46s (exit %s; last lines of %s follow)\n' "$name" "$status" "$log"
    tail -n 25 "$log" | sed 's/^/      /'
  fi
}

skip_suite() {
  skipped=$((skipped + 1))
  printf 'SKIP  %-46s %s\n' "$1" "$2"
}

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

# the first name a chapter's --help lists after "one of:"
first_variant() {
  "$1/run" --help | sed -n 's/.*one of: \([^,]*\),.*/\1/p' | head -n 1
}

# the checks a chapter's --help says make test runs besides the self-test, one per line, words
# joined by _ (its last line reads "make test runs: --self-test | --stress 1000 | ...")
chapter_modes() {
  "$1/run" --help | sed -n 's/^make test runs: //p' | tr '|' '\n' | sed 's/^ *//; s/ *$//' |
    grep -v -e '^--self-test$' -e '^$' | tr ' ' _
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

# the committed results table, and the tables quoted in README.md and the chapters' notes, are
# exactly what bench/run_bench.sh makes of the committed CSV: nobody edited a number by hand
check_results() {
  local dir status=0 f csv
  dir=$(mktemp -d)
  mkdir -p "$dir/bench" "$dir/docs/results"
  cp bench/run_bench.sh bench/plot.gp "$dir/bench/"
  cp README.md "$dir/"
  for f in [0-9][0-9]_*/README.md; do mkdir -p "$dir/$(dirname "$f")"; cp "$f" "$dir/$f"; done
  cp docs/results/*.csv "$dir/docs/results/" 2>/dev/null || { echo "no results in docs/results yet"; rm -rf "$dir"; return 0; }
  for csv in "$dir"/docs/results/*.csv; do
    (cd "$dir" && bench/run_bench.sh --from "docs/results/$(basename "$csv")") >/dev/null 2>&1
  done
  for f in docs/results/*.md README.md [0-9][0-9]_*/README.md; do
    if ! cmp -s "$f" "$dir/$f"; then
      echo "$f differs from what bench/run_bench.sh --from makes of docs/results: run it and commit"
      status=1
    fi
  done
  [ "$status" -eq 0 ] && echo "results tables match docs/results/*.csv: $(ls docs/results/*.csv | wc -l) GPU(s)"
  rm -rf "$dir"
  return $status
}

echo "== host suites"
run_suite "host unit tests" build/tests/test_common
run_suite "scan networks" build/tests/scan_networks
run_suite "figures up to date" check_figures
if command -v gnuplot >/dev/null; then  # bench/run_bench.sh --from draws the plots too
  run_suite "results tables up to date" check_results
  run_suite "bench marks and refuses noise" tests/test_bench_noise.sh
else
  skip_suite "results tables up to date" "gnuplot not found (bench/run_bench.sh --from needs it; CI has it)"
fi
run_suite "command line (01_cpu_serial)" tests/test_cli.sh 01_cpu_serial/run serial
run_suite "\\file blocks" check_file_blocks
run_suite "conventions cited exist" check_citations
run_suite "carried-over helpers unchanged" tests/check_carried.sh $CHAPTERS
run_suite "01_cpu_serial --self-test" 01_cpu_serial/run --self-test
# the host code under AddressSanitizer and UBSan (build/asan: make tests builds it); a leak at
# exit is not undefined behaviour, and exits by cli_fail() leave allocations behind on purpose
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
run_suite "host unit tests (ASan, UBSan)" build/asan/test_common
run_suite "command line (01, ASan, UBSan)" tests/test_cli.sh build/asan/cpu_serial serial
run_suite "01 --self-test -n 70000 (ASan, UBSan)" build/asan/cpu_serial --self-test -n 70000
run_suite "fuzz: command line and files (ASan, UBSan)" tests/fuzz_cli.sh build/asan/cpu_serial 1500

echo "== GPU suites"
. tests/gpu_env.sh
if [ "$GPU_PROBE_FAILED" -eq 1 ]; then
  failed=$((failed + 1)); printf 'FAIL  %-46s %s\n' "CUDA probe" "$GPU_PROBE"
elif [ -z "$GPU_REASON" ]; then
  echo "probe: $GPU_PROBE"
fi
if [ -n "$GPU_REASON" ]; then
  skip_suite "cuda helpers" "$GPU_REASON"
  for c in $GPU_CHAPTERS; do
    run_suite "command line ($c, usage)" tests/test_cli.sh "$c/run" "$(first_variant "$c")" usage-only
    skip_suite "$c --self-test" "$GPU_REASON"
    for mode in $(chapter_modes "$c"); do skip_suite "$c $(echo "$mode" | tr _ ' ')" "$GPU_REASON"; done
  done
else
  run_suite "cuda helpers" cuda_helper_suite
  for c in $GPU_CHAPTERS; do
    run_suite "command line ($c)" tests/test_cli.sh "$c/run" "$(first_variant "$c")"
    run_suite "$c --self-test" "$c/run" --self-test
    for mode in $(chapter_modes "$c"); do
      run_suite "$c $(echo "$mode" | tr _ ' ')" "$c/run" $(echo "$mode" | tr _ ' ')
    done
  done
fi
[ -n "$GPU_CHAPTERS" ] || echo "(no GPU chapters written yet)"

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
