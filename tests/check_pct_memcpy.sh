#!/usr/bin/env bash
# Every "GB/s (% of memcpy)" quoted between <!-- bench:begin SEL --> and <!-- bench:end --> in
# README.md and the chapters' notes is the row's own measurement in docs/results/*.csv: the GB/s is
# its gb_per_s, and the percentage its pct_memcpy, which the program that timed the row computed
# against the cudaMemcpy of the same n in the same run (docs/CONVENTIONS.md §6). A percentage
# computed from another program's memcpy (the baselines' row, say) differs in the last digit or
# more, and fails here. The series names are those of bench/run_bench.sh: "memcpy" (the baselines
# program's copy), "cub", "cub exclusive" (program baselines-exclusive), "chNN VARIANT".
#   tests/check_pct_memcpy.sh [FILE...]     (default: README.md and every NN_*/README.md)
# Prints one line per mismatch, then how many cells it compared; exit 1 on any mismatch, or if a
# quoted table yields no percentage at all (a check that compared nothing would pass silently).
set -u
cd "$(dirname "$0")/.."
ls docs/results/*.csv >/dev/null 2>&1 || { echo "no results in docs/results yet: nothing to compare"; exit 0; }
[ $# -gt 0 ] || set -- README.md [0-9][0-9]_*/README.md
awk '
  FILENAME ~ /\.csv$/ {
    if (FNR == 1) { delete c; nh = split($0, h, ","); for (i = 1; i <= nh; ++i) c[h[i]] = i; next }
    split($0, f, ",")
    prog = f[c["program"]]; var = f[c["variant"]]
    if (var == "memcpy" && prog != "baselines") next
    name = var == "memcpy" ? "memcpy" : (prog ~ /^baselines/ ? "" : "ch" prog " ") var (prog == "baselines-exclusive" ? " exclusive" : "")
    key = f[c["gpu"]] SUBSEP name SUBSEP f[c["log2_n"]]
    gb[key] = f[c["gb_per_s"]]; pct[key] = f[c["pct_memcpy"]]
    next
  }
  FNR == 1 { inblock = 0 }
  /^<!-- bench:begin / { inblock = 1; gpu = ""; ncol = 0; found = 0; where = FILENAME ":" FNR; next }
  /^<!-- bench:end -->$/ {
    if (inblock && !found) { printf "%s: a quoted table with no %% of memcpy to compare\n", where; bad++ }
    inblock = 0; next
  }
  !inblock { next }
  /^Measured by `make bench` on / { gpu = $0; sub(/^Measured by `make bench` on /, "", gpu); sub(/, CUDA .*/, "", gpu); next }
  /^\| series \|/ {
    ncol = split($0, head, "|")
    for (i = 1; i <= ncol; ++i) { k[i] = ""; if (match(head[i], /2\^[0-9]+ \(% of memcpy\)/)) k[i] = substr(head[i], RSTART + 2, RLENGTH - 16) }
    next
  }
  /^\| / && ncol {
    n = split($0, cell, "|"); name = cell[2]; gsub(/^ +| +$/, "", name)
    for (i = 3; i <= n; ++i) {
      if (k[i] == "" || !match(cell[i], /[0-9.]+ \([0-9.]+ %\)/)) continue
      split(substr(cell[i], RSTART, RLENGTH), v, /[ (]+/)
      key = gpu SUBSEP name SUBSEP k[i]; found++; checked++
      if (!(key in pct)) { printf "%s: %s at 2^%s on %s is not in docs/results\n", FILENAME, name, k[i], gpu; bad++; continue }
      if (v[1] + 0 != gb[key] + 0 || v[2] + 0 != pct[key] + 0) {
        printf "%s: %s at 2^%s quotes %s GB/s (%s %%); the CSV has %s GB/s (%s %%)\n", FILENAME, name, k[i], v[1], v[2], gb[key], pct[key]
        bad++
      }
    }
  }
  END {
    printf "%% of memcpy quoted: %d cells compared with the CSV, %d wrong\n", checked, bad
    exit bad > 0 || checked == 0
  }' docs/results/*.csv "$@"
