#!/usr/bin/env bash
# The driver behind `make bench` (docs/CONVENTIONS.md §6): the baselines (memcpy, CUB inclusive and
# exclusive, Thrust inclusive) and every chapter whose array lives in GPU memory (04 to 12) over
# n = 2^10 … 2^30, each program with --csv, on one GPU in one run. Every row was verified by the
# program that printed it. Chapter 13 scans arrays in host memory: its ceiling is a copy
# host->device and device->host at once over the host link, not a device memcpy, so it has a
# table of its own, measured after the others by bench/host_bench.sh (docs/results/GPU_host.*).
# Writes, for GPU "NVIDIA H200" on date D:
#   docs/results/nvidia_h200.csv        every row: gpu, cuda, date, program, n, variant, times, check
#   docs/results/nvidia_h200.md         GB/s per size and series (a Markdown table)
#   docs/results/nvidia_h200_bandwidth.svg   GB/s against n, memcpy as the ceiling
#   docs/results/nvidia_h200_latency.svg     time against n up to 2^20 (latency)
# Environment: BENCH_MIN_LOG2 (10), BENCH_MAX_LOG2 (30), BENCH_STEP (2), BENCH_REPS (10),
# BENCH_OUT (docs/results), BENCH_ALLOW_NOISY (0), BENCH_ONLY (the labels of PROGRAMS below to run
# beside the baselines, e.g. "11 12"; a part of the run, so BENCH_OUT must then name another
# folder than docs/results). Progress goes to stderr, one line per size and
# program. Each row carries the spread of its runs and of its memcpy's, and the program's noise
# flag (common/report.h): a run with a noisy row (spread above 20 %, or above 100 % of memcpy) is
# not written to docs/results but to build/bench/, and the script exits 1, unless
# BENCH_ALLOW_NOISY=1 (then the tables mark those cells). --from accepts CSVs with or without the
# three noise columns (older runs have none: nothing is marked).
#   bench/run_bench.sh --from CSV    redraw the table and plots from a CSV this script wrote
#                                    (no GPU needed: e.g. where the GPU machine has no gnuplot)
#   bench/run_bench.sh --csv-only    measure and write only the CSV (a GPU machine without
#                                    gnuplot); then --from CSV where gnuplot is. Without gnuplot
#                                    and without --csv-only, the script stops before measuring:
#                                    it never quotes new numbers beside plots of an older run.
set -u
cd "$(dirname "$0")/.."
MIN=${BENCH_MIN_LOG2:-10} MAX=${BENCH_MAX_LOG2:-30} STEP=${BENCH_STEP:-2} REPS=${BENCH_REPS:-10}
OUTDIR=${BENCH_OUT:-docs/results}

# refuse_noise CSV: true (and says why) when CSV has noisy rows and would become docs/results
# without BENCH_ALLOW_NOISY=1
refuse_noise() {
  local noisy
  noisy=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
                  ("noise" in c) && $c["noise"] != "" && $c["noise"] != "-"' "$1")
  [ -n "$noisy" ] && [ "${BENCH_ALLOW_NOISY:-0}" != 1 ] && [ "$OUTDIR" = docs/results ] || return 1
  echo "bench: $(echo "$noisy" | wc -l) rows are noise (their runs' spread, or their memcpy's, is" \
       "above 20 %, or they claim more than 100 % of memcpy):" >&2
  echo "$noisy" | cut -d, -f4-10,13-15 | head -n 20 | sed 's/^/  /' >&2
  echo "bench: not written to docs/results. Rerun on an idle GPU (or with BENCH_REPS=30), or keep" \
       "the run, its noisy cells marked, with BENCH_ALLOW_NOISY=1 (make bench BENCH_ALLOW_NOISY=1)" >&2
  return 0
}

# program label, command: what runs, in this order (the label names the series in table and plots)
PROGRAMS=(
  "baselines|build/bench/baselines"
  "baselines-exclusive|build/bench/baselines --exclusive --variant cub"
  "04|04_scan_then_fan/run"
  "05|05_reduce_then_scan/run"
  "06|06_chained_scan/run"
  "07|07_decoupled_lookback/run"
  "08|08_memcpy_speed/run --variant decoupled-lookback"
  "09|09_operators/run --float-sum"
  "09|09_operators/run --recurrence"
  "09|09_operators/run --recurrence-f32"
  "09|09_operators/run --segmented"
  "10|10_compaction/run --compact"
  "11|11_warp_specialised/run --variant warp-specialised"
  "12|12_decoupled_fallback/run --variant decoupled-fallback"
)
ONLY=${BENCH_ONLY:-}
if [ -n "$ONLY" ] && [ "${1:-}" != --from ]; then
  labels=$(printf '%s\n' "${PROGRAMS[@]}" | cut -d'|' -f1 | grep -v '^baselines' | uniq | tr '\n' ' ')
  for l in $ONLY; do
    case " $labels" in *" $l "*) ;; *) echo "make bench: BENCH_ONLY has '$l'; the programs are $labels(the baselines always run)" >&2; exit 2 ;; esac
  done
  [ "$OUTDIR" != docs/results ] || { echo "make bench: BENCH_ONLY=\"$ONLY\" times a part of the" \
    "programs, and docs/results keeps whole runs: give BENCH_OUT=another folder (e.g. build/bench/only)" >&2; exit 2; }
fi

csv_only=0
[ "${1:-}" = --csv-only ] && csv_only=1
# without a GPU there is nothing to measure: say so first, and what can be done here instead
no_gpu_fix="without one, bench/run_bench.sh --from CSV draws the tables and plots of a run made elsewhere"
no_gpu_fix="$no_gpu_fix$(for f in docs/results/*.csv; do [ -f "$f" ] && echo " (e.g. --from $f)" && break; done)"
if [ "${1:-}" != --from ]; then
  . tests/gpu_env.sh
  if [ -n "$GPU_REASON" ]; then
    echo "make bench needs a CUDA GPU: $GPU_REASON; $no_gpu_fix" >&2
    exit 2
  fi
fi
if [ "$csv_only" -eq 0 ] && ! command -v gnuplot >/dev/null; then
  echo "make bench: gnuplot not found, and the plots must come from the same run as the tables:" \
       "install it (apt-get install gnuplot-nox), or measure with bench/run_bench.sh --csv-only" \
       "here and draw with bench/run_bench.sh --from CSV where gnuplot is" >&2
  exit 2
fi
if [ "${1:-}" = --from ]; then
  csv=${2:?"usage: bench/run_bench.sh --from CSV"}
  [ -r "$csv" ] || { echo "make bench: cannot read $csv" >&2; exit 2; }
  IFS=, read -r gpu cuda day _ _ _ _ _ _ _ _ REPS < <(sed -n 2p "$csv")
  slug=$(echo "$gpu" | tr 'A-Z' 'a-z' | tr -c 'a-z0-9\n' '_')
  OUTDIR=$(dirname "$csv")
  host_csv="${csv%.csv}_host.csv"  # chapter 13's, if the run measured it
  if [ -r "$host_csv" ]; then
    BENCH_OUT=$OUTDIR bench/host_bench.sh --from "$host_csv" || exit 1
  fi
  ! refuse_noise "$csv" || exit 1
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  status=0
else
  device_line=$(build/bench/baselines -n 0 --reps 1 | head -n 1)  # "GPU: NAME, compute capability …"
  gpu=$(echo "$device_line" | sed -n 's/^\(# \)\{0,1\}GPU: \([^,]*\),.*/\2/p')
  cuda=$(echo "$device_line" | sed -n 's/.*CUDA runtime \([0-9.]*\).*/\1/p')
  day=$(date -u +%Y-%m-%d)
  slug=$(echo "$gpu" | tr 'A-Z' 'a-z' | tr -c 'a-z0-9\n' '_')
  [ -n "$gpu" ] || { echo "make bench: could not read the GPU name from: $device_line" >&2; exit 3; }
  mkdir -p "$OUTDIR"
  csv="$OUTDIR/$slug.csv"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  # rows go to $csv.partial as they come, so that an interrupted run keeps what it measured
  echo "gpu,cuda,date,program,n,log2_n,variant,time_us,gb_per_s,pct_memcpy,check,reps,spread_pct,memcpy_spread_pct,noise" > "$csv.partial"
  echo "bench: $gpu, CUDA $cuda, $day; n = 2^$MIN … 2^$MAX, median of $REPS runs" >&2

  status=0
  declare -A too_big
  for ((k = MIN; k <= MAX; k += STEP)); do
    for p in "${PROGRAMS[@]}"; do
      label=${p%%|*} cmd=${p#*|}
      [ -z "${too_big[$label]:-}" ] || continue
      if [ -n "$ONLY" ]; then  # BENCH_ONLY: the baselines and the programs it names
        case $label in baselines*) ;; *) case " $ONLY " in *" $label "*) ;; *) continue ;; esac ;; esac
      fi
      start=$(date +%s)
      $cmd --csv -n "2^$k" --reps "$REPS" > "$tmp/out.csv" 2> "$tmp/err.txt"
      rc=$?
      if [ "$rc" -eq 3 ] && grep -qi "memory" "$tmp/err.txt"; then
        echo "bench: 2^$k $label: not enough memory; larger sizes skipped for it" >&2
        too_big[$label]=1
        continue
      fi
      if [ "$rc" -ne 0 ]; then
        echo "bench: 2^$k $label FAILED (exit $rc):" >&2
        sed 's/^/  /' "$tmp/err.txt" >&2
        grep -i "wrong" "$tmp/out.csv" | head -n 3 >&2
        status=1
        continue
      fi
      # columns by name, since chapters add their own (traffic, chunk); a program without the
      # spread columns leaves them empty
      awk -F, -v gpu="$gpu" -v cuda="$cuda" -v day="$day" -v prog="$label" -v k="$k" -v reps="$REPS" '
        function cell(name) { return (name in col) ? $col[name] : "" }
        /^#/ { next }
        !header { for (i = 1; i <= NF; ++i) col[$i] = i; header = 1; next }
        { printf "%s,%s,%s,%s,%s,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", gpu, cuda, day, prog, $col["n"], k,
                 $col["variant"], $col["time_us"], $col["GB/s"], $col["pct_memcpy"], $col["check"], reps,
                 cell("spread_pct"), cell("memcpy_spread_pct"), cell("noise") }
      ' "$tmp/out.csv" >> "$csv.partial"
      echo "bench: 2^$k $label done in $(( $(date +%s) - start )) s" >&2
    done
  done
  if refuse_noise "$csv.partial"; then
    mkdir -p build/bench
    mv "$csv.partial" "build/bench/$slug.noisy.csv"
    echo "bench: docs/results is unchanged; the run is in build/bench/$slug.noisy.csv" >&2
    exit 1
  fi
  mv "$csv.partial" "$csv"
  # chapter 13's table (its own CSV beside this one), unless BENCH_ONLY leaves it out
  if [ -z "$ONLY" ] && [ -x 13_out_of_core/run ]; then
    bench/host_bench.sh "$slug" "$gpu" "$cuda" "$day" || status=1
  fi
  if [ "$csv_only" -eq 1 ]; then
    echo "bench: wrote $csv only; draw the tables and plots with: bench/run_bench.sh --from $csv" >&2
    exit $status
  fi
fi

# the series: memcpy from the baselines' run; every other row by program and variant, with the
# pct_memcpy its own program measured (against the memcpy of the same size in the same run).
# Columns by name: the CSV may gain columns. Rows of program 09 named compact-in-place or
# cub-select-if-in-place are chapter 10's: the compaction was chapter 09's mode until it became
# chapter 10 (same kernel, its PTX compared), and the CSV of 2026-12-01 was measured before that;
# the next run labels them 10 itself. Rows of program 06 named chained-1tile, chained-16tiles or
# chained-256tiles timed the kernel chapter 06 had until 2026-12-03 (each chunk read twice, a
# chained reduce-then-scan); it was replaced by the chained scan that holds its chunk on chip
# (issue 32), so the tables and plots leave those rows out (the CSV keeps them, as measured), and
# the results page and the tables quoted say so (missing06()) until a run times the new kernel.
# The sixth field is the row's noise flag ("" in a CSV from before the noise columns).
series() {
  awk -F, -v old06="$tmp/old06.txt" 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
  { prog = $c["program"]; var = $c["variant"]
    if (prog == "09" && (var == "compact-in-place" || var == "cub-select-if-in-place")) prog = "10"
    if (prog == "06" && var ~ /^chained-(1tile|16tiles|256tiles)$/) { print var > old06; next }
    name = (prog ~ /^baselines/ ? "" : "ch" prog " ") var (prog == "baselines-exclusive" ? " exclusive" : "")
    if (var == "memcpy") { if (prog != "baselines") next; name = "memcpy" }
    noise = ("noise" in c) ? $c["noise"] : ""
    spread = ("spread_pct" in c) ? $c["spread_pct"] : ""
    print name "," $c["log2_n"] "," $c["time_us"] "," $c["gb_per_s"] "," $c["pct_memcpy"] "," (noise == "-" ? "" : noise) "," spread
  }' "$csv"
}
: > "$tmp/old06.txt"
series > "$tmp/series.csv"
# the old kernel's variants that the CSV has ("chained-1tile chained-16tiles chained-256tiles"),
# and whether it has chapter 06's current kernel too: where it has only the old one, the pages
# that quote the run say why chapter 06 is missing (not a silent gap)
old06=$(awk '!seen[$0]++' "$tmp/old06.txt" | tr '\n' ' ' | sed 's/ $//')
grep -q '^ch06 ' "$tmp/series.csv" && old06=""
missing06() { # the sentence, or nothing
  [ -n "$old06" ] || return 0
  printf 'Chapter 06 is not here: this run timed the kernel chapter 06 had until 2026-12-03 (%s, each chunk read twice), which its notes no longer teach (the CSV keeps those rows, as measured). The chained scan that replaced it (held-1tile … held-max, reread-256tiles) has not been timed by `make bench` yet: its numbers are in chapter 06'"'"'s notes (measured by docs/experiments/06_chained_h200.sh), and the next `make bench` puts it here.' \
    "$(echo "$old06" | sed 's/ /, /g')"
}

# The results page, docs/results/GPU.md (the site's "Scan throughput" page): the plots, then
# tables with one row per series (in order of appearance) and one column per size: GB/s (sizes
# up to 2^20, where launch and latency set the time, and beyond, so that each table fits a page
# 1024 px wide), % of memcpy (each row against the copy its own program timed in the same run),
# and the spread of the runs; the CSV to download. A cell of a noisy run carries its mark, with
# the same words as everywhere the results are quoted.
md="$OUTDIR/$slug.md"
awk -F, -v gpu="$gpu" -v cuda="$cuda" -v day="$day" -v reps="$REPS" -v slug="$slug" \
    -v missing06="$(missing06)" '
  { if (!($1 in seen)) { seen[$1] = 1; names[++ns] = $1 }
    if (!($2 in seenk)) { seenk[$2] = 1; ks[++nk] = $2 }
    mark = ($6 == "" ? "" : " (" $6 ")"); flagged = flagged || $6 != ""
    v[$1, $2] = $4 mark; p[$1, $2] = ($5 == "" ? "-" : $5) mark
    s[$1, $2] = $7; spreads = spreads || $7 != "" }
  function table(title, field, lo, hi,   i, j, cell) {
    if (title != "") printf "%s\n\n", title
    printf "| series |"
    for (j = 1; j <= nk; ++j) if (ks[j] >= lo && ks[j] <= hi) printf " 2^%s |", ks[j]
    printf "\n|---|"
    for (j = 1; j <= nk; ++j) if (ks[j] >= lo && ks[j] <= hi) printf "---|"
    printf "\n"
    for (i = 1; i <= ns; ++i) {
      if (field == "spread" && (names[i] in skip)) continue
      printf "| %s |", names[i]
      for (j = 1; j <= nk; ++j)
        if (ks[j] >= lo && ks[j] <= hi) {
          cell = "-"
          if ((names[i], ks[j]) in v)
            cell = field == "gbs" ? v[names[i], ks[j]] : field == "pct" ? p[names[i], ks[j]] : \
                   (s[names[i], ks[j]] == "" ? "-" : s[names[i], ks[j]])
          printf " %s |", cell
        }
      printf "\n"
    }
    printf "\n"
  }
  END {
    printf "# Scan throughput on %s\n\n", gpu
    printf "GB/s = 2 · 4 · n bytes / median time of %d runs (read n elements of 4 bytes, write n); every run verified. ", reps
    printf "Chapter 09'"'"'s operators and chapter 10'"'"'s compaction (ch09 …, ch10 …): GB/s = the bytes each reads and writes / time. "
    printf "CUDA %s, measured %s by `make bench` (bench/run_bench.sh); do not edit by hand. ", cuda, day
    printf "Every row, with its time, its %% of memcpy and the spread of its runs: [%s.csv](%s.csv).\n\n", slug, slug
    if (missing06 != "") printf "%s\n\n", missing06
    printf "## Plots\n\n"
    printf "![GB/s against n on %s (log scale: every series shows; memcpy, dashed, is the ceiling)](%s_bandwidth.svg)\n\n", gpu, slug
    printf "![Time per call at small n on %s](%s_latency.svg)\n\n", gpu, slug
    printf "The plots leave chapters 09 and 10 out: their GB/s count other bytes (their tables are in their notes).\n\n"
    printf "## GB/s\n\n"
    table("At small n, where launch and latency set the time:", "gbs", 0, 20)
    table("At large n, where bandwidth sets it:", "gbs", 21, 99)
    printf "## %% of memcpy\n\n"
    printf "At large n, each row against the cudaMemcpy its own program timed in the same run, moving as many bytes (the CSV'"'"'s pct_memcpy):\n\n"
    table("", "pct", 21, 99)
    if (spreads) {
      printf "## The spread of the runs\n\n"
      printf "(p75 - p25) / median of the %d runs of each cell, in %%; above 20 %% (its own or its memcpy'"'"'s) a cell is marked noisy:\n\n", reps
      none = ""
      for (i = 1; i <= ns; ++i) {
        any = 0
        for (j = 1; j <= nk; ++j) any = any || s[names[i], ks[j]] != ""
        if (!any) { none = none (none == "" ? "" : ", ") names[i]; skip[names[i]] = 1 }
      }
      table("", "spread", 0, 20)
      table("", "spread", 21, 99)
      if (none != "")
        printf "No spread in this run'"'"'s CSV for: %s.\n\n", none
    }
    if (flagged) {
      printf "## Noisy cells\n\n"
      printf "(noisy): the runs of that cell, or of the memcpy timed beside it, spread by more than 20 %%: a rough value, quoted with the same mark in the README and the notes. (over-memcpy): faster than memcpy, which a scan cannot be: the copy beside it was disturbed. This run was kept with these marks by BENCH_ALLOW_NOISY=1 (docs/CONVENTIONS.md §6).\n"
    }
  }' "$tmp/series.csv" > "$md"

# gnuplot data: one block per series, its name first. Chapters 09 and 10's operators are left out
# of the plots: their GB/s count the bytes each operator moves, not 2 · 4 · n (their tables are in
# their notes).
grep -v -E '^ch(09|10) ' "$tmp/series.csv" > "$tmp/plotted.csv"
awk -F, '{ if (!($1 in seen)) { seen[$1] = ++ns; names[ns] = $1 } rows[seen[$1]] = rows[seen[$1]] $2 " " $3 " " $4 "\n" }
  END { for (i = 1; i <= ns; ++i) printf "\"%s\" \"%s\" \"%s\"\n%s\n\n", names[i], names[i], names[i], rows[i] }' \
  "$tmp/plotted.csv" > "$tmp/series.dat"
count=$(awk -F, '!seen[$1]++' "$tmp/plotted.csv" | wc -l)
plots="and the plots in $OUTDIR"
if command -v gnuplot >/dev/null; then
  gnuplot -e "data='$tmp/series.dat'; blocks=$count; gpu='$gpu'; cuda='$cuda'; day='$day'; \
              bandwidth='$OUTDIR/${slug}_bandwidth.svg'; latency='$OUTDIR/${slug}_latency.svg'; \
              latency_max=20" bench/plot.gp || status=1
else  # checked at the start: only a gnuplot that vanished since gets here
  echo "bench: gnuplot not found: no plots, and no tables quoted; draw them where gnuplot is" \
       "with: bench/run_bench.sh --from $csv" >&2
  exit 1
fi
# Quote the results where people read them: between the markers
#   <!-- bench:begin SELECTOR -->  …  <!-- bench:end -->
# in README.md (SELECTOR "all"), in each chapter's notes (SELECTOR "chNN", and more series
# names if wanted: "ch08 cub") and in docs/primer.md ("memcpy": the copy alone), a table is
# regenerated from this CSV: GB/s and % of memcpy at the largest sizes, time at 2^16.
snippet() { # selector
  awk -F, -v sel="$1" -v gpu="$gpu" -v cuda="$cuda" -v day="$day" -v missing06="$(missing06)" '
    { if (!($1 in seen)) { seen[$1] = 1; names[++ns] = $1 }
      t[$1, $2] = $3; g[$1, $2] = $4; p[$1, $2] = $5; if ($2 > kmax) kmax = $2
      m[$1, $2] = $6 == "" ? "" : " " $6 }  # the noise flag of a run kept by BENCH_ALLOW_NOISY=1
    END {
      k1 = 24; k2 = 28; k3 = kmax
      printf "Measured by `make bench` on %s, CUDA %s, %s (docs/results/; regenerated, not typed):\n\n", gpu, cuda, day
      if (sel ~ /^ch(09|10)/)
        printf "GB/s count the bytes each operator reads and writes; %% of memcpy compares with a cudaMemcpy moving as many bytes, timed in the same run.\n\n"
      else
        printf "%% of memcpy compares each row with the cudaMemcpy of the same n timed in the run of its own program (the pct_memcpy column of the CSV); the memcpy row is the copy of the baselines program.\n\n"
      if (missing06 != "" && sel == "all") printf "%s\n\n", missing06  # (the notes of 06 say it)
      printf "| series | µs at 2^16 | GB/s at 2^%d | GB/s at 2^%d (%% of memcpy) | GB/s at 2^%d (%% of memcpy) |\n", k1, k2, k3
      printf "|---|---|---|---|---|\n"
      for (i = 1; i <= ns; ++i) {
        n = names[i]
        if (sel == "all" && n ~ /^ch(09|10) /) continue  # other bytes: in the tables of chapters 09, 10
        if (sel != "all" && n != "memcpy") {
          keep = 0; nw = split(sel, word, " ")
          for (w = 1; w <= nw; ++w) keep = keep || n == word[w] || index(n, word[w] " ") == 1
          if (!keep) continue
        }
        # % of memcpy: the pct_memcpy of the run of the row, never GB/s over the memcpy row
        printf "| %s | %s%s | %s%s | %s (%.1f %%)%s | %s (%.1f %%)%s |\n", n, t[n, 16], m[n, 16],
               g[n, k1], m[n, k1], g[n, k2], p[n, k2], m[n, k2], g[n, k3], p[n, k3], m[n, k3]
      }
    }' "$tmp/series.csv"
}
# SELECTOR "sizes PROGRAM VARIANT" (e.g. "sizes 08 decoupled-lookback"): one row per size of that
# program's own run: its memcpy and its time, its pct_memcpy (against the copy it timed), and CUB
# from the baselines' run of the same size.
sizes_table() { # selector
  awk -F, -v prog="$2" -v var="$3" -v gpu="$gpu" -v cuda="$cuda" -v day="$day" '
    NR == 1 { next }
    $4 == prog && $7 == "memcpy" { copy[$6] = $8 }
    $4 == prog && $7 == var { t[$6] = $8; p[$6] = $10; if (!($6 in seen)) { seen[$6] = 1; ks[++nk] = $6 } }
    $4 == "baselines" && $7 == "cub" { cub[$6] = $8 }
    END {
      printf "Measured by `make bench` on %s, CUDA %s, %s (docs/results/; regenerated, not typed). ", gpu, cuda, day
      printf "The memcpy and the %% are this program'"'"'s own run; CUB is the baselines'"'"' run of the same size:\n\n"
      printf "| n | memcpy µs | %s µs | %% of memcpy | CUB µs | our time / CUB'"'"'s |\n|---|---|---|---|---|---|\n", var
      for (j = 1; j <= nk; ++j) {
        k = ks[j]
        if (k != 10 && k != 16 && k != 20 && k != 24 && k != 26 && k != 28 && k != 30) continue
        ratio = (k in cub) && cub[k] > 0 ? sprintf("%.2f", t[k] / cub[k]) : "-"
        printf "| 2^%s | %s | %s | %s | %s | %s |\n", k, copy[k], t[k], p[k], (k in cub) ? cub[k] : "-", ratio
      }
    }' "$csv"
}
# SELECTOR "pairs PROGRAM" (chapters 09 and 10): at 2^24, 2^28 and the largest size, each of the
# program's variants beside the CUB baseline its sweep ran next (the row after it), with the
# pct_memcpy of each (against a copy of as many bytes, timed in that run).
pairs_table() { # selector
  awk -F, -v prog="$2" -v gpu="$gpu" -v cuda="$cuda" -v day="$day" '
    NR == 1 { next }
    { if ($4 == "09" && ($7 == "compact-in-place" || $7 == "cub-select-if-in-place")) $4 = "10" }  # as in series()
    $4 != prog || $7 == "memcpy" { last = ""; next }
    $7 !~ /^cub/ { last = $7; t[$7, $6] = $8; p[$7, $6] = $10; if (!($7 in seen)) { seen[$7] = 1; vs[++nv] = $7 }
                   if ($6 > kmax) kmax = $6; next }
    last != "" { cname[last] = $7; ct[last, $6] = $8; cp[last, $6] = $10; last = "" }
    END {
      printf "Measured by `make bench` on %s, CUDA %s, %s (docs/results/; regenerated, not typed). ", gpu, cuda, day
      printf "%% of memcpy: against a cudaMemcpy moving as many bytes as that row, timed in the same run:\n\n"
      printf "| mode | n | µs | %% of memcpy | CUB | CUB µs | %% of memcpy | CUB'"'"'s time / ours |\n"
      printf "|---|---|---|---|---|---|---|---|\n"
      split("24 28 " kmax, kk, " ")
      for (i = 1; i <= nv; ++i) {
        v = vs[i]
        for (j = 1; j <= 3; ++j) {
          k = kk[j]
          if (!((v, k) in t) || (j == 3 && k == 28)) continue
          ratio = t[v, k] > 0 && ct[v, k] != "" ? sprintf("%.2f", ct[v, k] / t[v, k]) : "-"
          printf "| %s | 2^%s | %s | %s | %s | %s | %s | %s |\n", j == 1 ? v : "", k, t[v, k], p[v, k],
                 j == 1 ? cname[v] : "", ct[v, k], cp[v, k], ratio
        }
      }
    }' "$csv"
}
splice() { # file selector
  local file=$1 sel=$2
  grep -q "<!-- bench:begin $sel -->" "$file" 2>/dev/null || return 0
  case $sel in
    sizes\ *) sizes_table $sel > "$tmp/snippet.md" ;;
    pairs\ *) pairs_table $sel > "$tmp/snippet.md" ;;
    *) snippet "$sel" > "$tmp/snippet.md" ;;
  esac || { echo "bench: could not draw the table for $file" >&2; status=1; return 0; }
  awk -v sel="$sel" -v snip="$tmp/snippet.md" '
    $0 == "<!-- bench:begin " sel " -->" { print; while ((getline line < snip) > 0) print line; skip = 1; next }
    skip && $0 == "<!-- bench:end -->" { skip = 0 }
    !skip { print }' "$file" > "$tmp/spliced" && cat "$tmp/spliced" > "$file"
  echo "bench: quoted the results in $file" >&2
}
if [ "$OUTDIR" = docs/results ]; then
  # every marker of README.md, of each chapter's notes and of the primer
  for f in README.md [0-9][0-9]_*/README.md docs/primer.md; do
    [ -f "$f" ] || continue
    sed -n 's/^<!-- bench:begin \(.*\) -->$/\1/p' "$f" | while IFS= read -r sel; do splice "$f" "$sel"; done
  done
fi
echo "bench: wrote $csv, $md $plots" >&2
cat "$md"
exit $status
