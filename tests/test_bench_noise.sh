#!/usr/bin/env bash
# The noise columns of make bench (bench/run_bench.sh, common/report.h), checked without a GPU
# through --from on copies of the committed CSV (without its own noise columns, if it has them):
#   - a CSV from before the noise columns and the same CSV with quiet noise columns give the same
#     tables (old CSVs stay valid inputs), but for the results page's spread of the runs;
#   - a CSV with a noisy row is refused for docs/results (exit 1, docs/results untouched) unless
#     BENCH_ALLOW_NOISY=1, and then the table and the README quote mark that cell.
# Needs gnuplot (--from draws the plots). Last line: "bench noise: N checks, N failed".
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
csv=$(ls "$ROOT"/docs/results/*.csv 2>/dev/null | head -n 1)
[ -n "$csv" ] || { echo "SKIP bench noise: no CSV in docs/results yet"; echo "bench noise: 0 checks, 0 failed"; exit 0; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
checks=0 failures=0
fail() { failures=$((failures + 1)); echo "FAIL: $*"; }
name=$(basename "$csv" .csv)
# the committed CSV without its noise columns (a run kept with BENCH_ALLOW_NOISY=1 has noisy
# rows): the base that the checks below add quiet or noisy columns to
awk -F, -v OFS=, 'NR == 1 { cut = ($(NF) == "noise") ? 3 : 0 }
  { NF -= cut; print }' "$csv" >"$TMP/base.csv"

# a copy of the project's bench and README, with CSV as its docs/results; prints the exit status
draw() { # folder csv-file [env...]
  local dir=$1 file=$2
  shift 2
  mkdir -p "$dir/bench" "$dir/docs/results"
  cp "$ROOT/bench/run_bench.sh" "$ROOT/bench/plot.gp" "$dir/bench/"
  cp "$ROOT/README.md" "$dir/"
  cp "$file" "$dir/docs/results/$name.csv"
  (cd "$dir" && env "$@" bench/run_bench.sh --from "docs/results/$name.csv") >"$dir/out.txt" 2>"$dir/err.txt"
  echo $?
}
# with-noise CSV FLAG-AWK: the CSV with the three columns; rows matching the awk test get FLAG
with_noise() {
  awk -F, -v OFS=, -v flag="$2" -v program="$3" -v k="$4" 'NR == 1 { print $0, "spread_pct", "memcpy_spread_pct", "noise"; next }
    { print $0, "1.0", "1.0", ($4 == program && $6 == k && $7 != "memcpy") ? flag : "-" }' "$1"
}

checks=$((checks + 1))
[ "$(draw "$TMP/old" "$TMP/base.csv")" = 0 ] || fail "--from the committed CSV without noise columns: $(cat "$TMP/old/err.txt")"
with_noise "$TMP/base.csv" - none 0 >"$TMP/quiet.csv"
checks=$((checks + 1))
[ "$(draw "$TMP/quiet" "$TMP/quiet.csv")" = 0 ] || fail "--from a quiet CSV: $(cat "$TMP/quiet/err.txt")"
checks=$((checks + 1))
# (the results page's spread section is new with those columns: the rest must be the same)
no_spread() { awk '/^## The spread of the runs/ { skip = 1; next } /^## / { skip = 0 } !skip' "$1"; }
cmp -s <(no_spread "$TMP/old/docs/results/$name.md") <(no_spread "$TMP/quiet/docs/results/$name.md") &&
  cmp -s "$TMP/old/README.md" "$TMP/quiet/README.md" ||
  fail "quiet noise columns changed the tables"

for flag in noisy over-memcpy; do
  with_noise "$TMP/base.csv" "$flag" 04 28 >"$TMP/$flag.csv"
  checks=$((checks + 1))
  status=$(draw "$TMP/$flag" "$TMP/$flag.csv")
  [ "$status" = 1 ] && grep -q "rows are noise" "$TMP/$flag/err.txt" &&
    [ ! -e "$TMP/$flag/docs/results/$name.md" ] && cmp -s "$ROOT/README.md" "$TMP/$flag/README.md" ||
    fail "a $flag row: exit $status, wanted 1 and nothing written: $(cat "$TMP/$flag/err.txt")"
  checks=$((checks + 1))
  status=$(draw "$TMP/$flag-kept" "$TMP/$flag.csv" BENCH_ALLOW_NOISY=1)
  md="$TMP/$flag-kept/docs/results/$name.md"
  [ "$status" = 0 ] && grep -q "^| ch04 [^|]* |.* ($flag) |" "$md" &&
    grep -q "^(noisy): " "$md" && grep -q "^| ch04 .* %) $flag |" "$TMP/$flag-kept/README.md" ||
    fail "BENCH_ALLOW_NOISY=1 with a $flag row: exit $status, or its cell is not marked in the tables"
done
echo "bench noise: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
