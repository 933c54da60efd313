#!/usr/bin/env bash
# make test's GPU suites alone (the command-line suite, --self-test and the modes each chapter's
# --help lists), 4 at a time, as tests/run_tests.sh runs them; one line per suite with its
# seconds. For a device call too short for the whole make test. Logs go to OUTDIR.
#   docs/experiments/gpu_suites.sh OUTDIR
set -u
mkdir -p "$1" && OUT=$(cd "$1" && pwd) || exit 2
cd "$(dirname "$0")/../.."
export SCAN_BIG_CASE_LOCK=/tmp/big_case.lock
SCAN_BIG_CASE_BUDGET=$(awk '/^MemAvailable:/ { printf "%.0f", $2 * 1024 * 0.9 }' /proc/meminfo)
export SCAN_BIG_CASE_BUDGET OUT
for c in [0-9][0-9]_*/; do
  c=${c%/}; [ "$c" = 01_cpu_serial ] && continue
  v=$("$c/run" --help | sed -n 's/.*one of: \([^,]*\),.*/\1/p' | head -n 1)
  echo "tests/test_cli.sh $c/run $v"
  echo "$c/run --self-test"
  "$c/run" --help | sed -n 's/^make test runs: //p' | tr '|' '\n' | sed 's/^ *//; s/ *$//' |
    grep -v -e '^--self-test$' -e '^$' | sed "s|^|$c/run |"
done | xargs -P 4 -I{} bash -c 's=$SECONDS; log="$OUT/$(echo "{}" | tr -c "A-Za-z0-9\n" _).log"; {} </dev/null >"$log" 2>&1; r=$?; printf "%-4s %-50s %4ss  %s\n" "$([ $r -eq 0 ] && echo PASS || echo FAIL)" "{}" "$((SECONDS - s))" "$(grep -v "^[[:space:]]*$" "$log" | tail -n 1)"'
