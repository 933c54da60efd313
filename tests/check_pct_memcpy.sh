#!/usr/bin/env bash
# Every "GB/s (% of memcpy)" quoted between <!-- bench:begin SEL --> and <!-- bench:end --> in
# README.md and the chapters' notes is the row's own measurement in docs/results/*.csv: the GB/s is
# its gb_per_s, and the percentage its pct_memcpy, which the program that timed the row computed
# against the cudaMemcpy of the same n in the same run (docs/CONVENTIONS.md §6). A percentage
# computed from another program's memcpy (the baselines' row, say) differs in the last digit or
# more, and fails here. The series names are those of bench/run_bench.sh: "memcpy" (the baselines
# program's copy), "cub", "cub exclusive" (program baselines-exclusive), "chNN VARIANT"; rows of
# program 09 named compact-in-place or cub-select-if-in-place are chapter 10's (bench/run_bench.sh
# says why). The tables of the selectors "sizes PROGRAM VARIANT" and "pairs PROGRAM" are compared
# cell by cell too: times with time_us, percentages with pct_memcpy, of the same program's rows.
#   tests/check_pct_memcpy.sh [FILE...]     (default: README.md, every NN_*/README.md, the primer)
# Prints one line per mismatch, then how many cells it compared; exit 1 on any mismatch, or if a
# quoted table yields no percentage at all (a check that compared nothing would pass silently).
set -u
cd "$(dirname "$0")/.."
ls docs/results/*.csv >/dev/null 2>&1 || { echo "no results in docs/results yet: nothing to compare"; exit 0; }
[ $# -gt 0 ] || set -- README.md [0-9][0-9]_*/README.md docs/primer.md
awk '
  FILENAME ~ /\.csv$/ {
    if (FNR == 1) { delete c; nh = split($0, h, ","); for (i = 1; i <= nh; ++i) c[h[i]] = i; next }
    split($0, f, ",")
    prog = f[c["program"]]; var = f[c["variant"]]
    if (prog == "09" && (var == "compact-in-place" || var == "cub-select-if-in-place")) prog = "10"
    run = f[c["gpu"]] SUBSEP prog SUBSEP var SUBSEP f[c["log2_n"]]  # the selectors sizes and pairs
    if (var != "memcpy" || !(run in us)) { us[run] = f[c["time_us"]]; own[run] = f[c["pct_memcpy"]] }
    if (var == "memcpy" && prog != "baselines") next
    name = var == "memcpy" ? "memcpy" : (prog ~ /^baselines/ ? "" : "ch" prog " ") var (prog == "baselines-exclusive" ? " exclusive" : "")
    key = f[c["gpu"]] SUBSEP name SUBSEP f[c["log2_n"]]
    gb[key] = f[c["gb_per_s"]]; pct[key] = f[c["pct_memcpy"]]
    next
  }
  FNR == 1 { inblock = 0 }
  /^<!-- bench:begin / {
    inblock = 1; gpu = ""; ncol = 0; found = 0; where = FILENAME ":" FNR
    sel = $0; sub(/^<!-- bench:begin /, "", sel); sub(/ -->$/, "", sel); nsel = split(sel, sw, " ")
    kind = sw[1] == "sizes" || sw[1] == "pairs" ? sw[1] : ""; mode = ""
    next
  }
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
  kind == "sizes" && /^\| 2\^[0-9]+ \|/ {  # n, memcpy µs, µs, %, CUB µs, ratio
    n = split($0, cell, "|"); for (i = 2; i < n; ++i) gsub(/^ +| +$/, "", cell[i])
    kn = substr(cell[2], 3); found++; checked++
    r = gpu SUBSEP sw[2] SUBSEP sw[3] SUBSEP kn; m = gpu SUBSEP sw[2] SUBSEP "memcpy" SUBSEP kn
    b = gpu SUBSEP "baselines" SUBSEP "cub" SUBSEP kn
    if (!(r in us) || cell[4] + 0 != us[r] + 0 || cell[5] + 0 != own[r] + 0 || cell[3] + 0 != us[m] + 0 ||
        (b in us && cell[6] + 0 != us[b] + 0)) {
      printf "%s: %s at 2^%s does not match docs/results\n", FILENAME, sel, kn; bad++
    }
    next
  }
  kind == "pairs" && /^\| [^|]* \| 2\^[0-9]+ \|/ {  # mode, n, µs, %, CUB, CUB µs, %, ratio
    n = split($0, cell, "|"); for (i = 2; i < n; ++i) gsub(/^ +| +$/, "", cell[i])
    if (cell[2] != "") { mode = cell[2]; cub = cell[6] }
    kn = substr(cell[3], 3); found++; checked++
    r = gpu SUBSEP sw[2] SUBSEP mode SUBSEP kn; q = gpu SUBSEP sw[2] SUBSEP cub SUBSEP kn
    if (!(r in us) || !(q in us) || cell[4] + 0 != us[r] + 0 || cell[5] + 0 != own[r] + 0 ||
        cell[7] + 0 != us[q] + 0 || cell[8] + 0 != own[q] + 0) {
      printf "%s: %s, %s at 2^%s does not match docs/results\n", FILENAME, sel, mode, kn; bad++
    }
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
