#!/usr/bin/env bash
# Chapter 13's part of `make bench` (called by bench/run_bench.sh): arrays that live in host
# memory. Their ceiling is not a device cudaMemcpy but the host link: host->device and
# device->host copies of the same bytes at once (`duplex-copy`, measured by the chapter's own
# program in the same run), so they get a table of their own. For GPU "NVIDIA H200" it writes
#   docs/results/nvidia_h200_host.csv   every row: gpu, cuda, date, n, log2_n, variant, time_us,
#                                       GB/s, pct_ceiling, check, reps, spread_pct,
#                                       ceiling_spread_pct, noise
#   docs/results/nvidia_h200_host.md    GB/s and % of the duplex copy per size and variant
# and the table between `<!-- hostbench:begin -->` and `<!-- hostbench:end -->` in README.md.
#   bench/host_bench.sh GPU_SLUG GPU CUDA DAY    measure (13_out_of_core/run --csv), then write
#   bench/host_bench.sh --from CSV               rewrite the table and the README's from a CSV
# Environment: HOST_BENCH_SIZES (log2 sizes, "24 26 28 30"), BENCH_REPS (10), BENCH_OUT
# (docs/results). Exit 0, 1 (a run failed or was wrong: nothing written), 2 (usage).
set -u
cd "$(dirname "$0")/.."
OUTDIR=${BENCH_OUT:-docs/results}
REPS=${BENCH_REPS:-10}
SIZES=${HOST_BENCH_SIZES:-"24 26 28 30"}
PROG=13_out_of_core/run

write_tables() { # CSV: the results page and README.md's table, from the CSV
  local csv=$1 md=${1%.csv}.md
  awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
    { gpu = $c["gpu"]; cuda = $c["cuda"]; day = $c["date"]; reps = $c["reps"]
      v = $c["variant"]; k = $c["log2_n"]
      if (!(v in seen)) { seen[v] = 1; names[++nv] = v }
      if (!(k in seenk)) { seenk[k] = 1; ks[++nk] = k }
      mark = ($c["noise"] == "-" || $c["noise"] == "") ? "" : " (" $c["noise"] ")"
      g[v, k] = $c["GB/s"]; p[v, k] = $c["pct_ceiling"]; m[v, k] = mark }
    END {
      printf "# Host-resident arrays on %s (chapter 13)\n\n", gpu
      printf "Chapter 13 scans int32 arrays held in pinned host memory, chunk by chunk through the GPU. "
      printf "GB/s = 2 · 4 · n bytes / median time of %s runs (each element crosses the link in and out); ", reps
      printf "%% of the duplex copy compares with `duplex-copy`: the same bytes copied host->device and device->host at once, timed by the same program in the same run (the ceiling). "
      printf "`cpu-threads` is chapter 01'"'"'s threaded scan on the same host (its %% is against the same copy). "
      printf "CUDA %s, measured %s by bench/host_bench.sh (which `make bench` runs); do not edit by hand. Each cell: GB/s (%% of the duplex copy); every row: [%s](%s).\n\n", cuda, day, "'"$(basename "$csv")"'", "'"$(basename "$csv")"'"
      printf "| variant |"; for (j = 1; j <= nk; ++j) printf " 2^%s |", ks[j]
      printf "\n|---|"; for (j = 1; j <= nk; ++j) printf "---|"; printf "\n"
      for (i = 1; i <= nv; ++i) {
        printf "| %s |", names[i]
        for (j = 1; j <= nk; ++j)
          printf " %s |", ((names[i], ks[j]) in g) ? g[names[i], ks[j]] " (" p[names[i], ks[j]] ")" m[names[i], ks[j]] : "-"
        printf "\n"
      }
    }' "$csv" > "$md" || return 1
  # README.md: the same table, its first lines replaced by one that says where it comes from;
  # only for the run that docs/results keeps
  [ "$(cd "$(dirname "$csv")" && pwd -P)" = "$(cd docs/results && pwd -P)" ] || return 0
  python3 - "$md" README.md <<'EOF'
import sys
md, readme = sys.argv[1], sys.argv[2]
lines = open(md).read().splitlines()
table = [l for l in lines if l.startswith("|")]
intro = lines[2]
name = md.rsplit("/", 1)[-1].replace(".md", ".csv")
begin, end = "<!-- hostbench:begin -->", "<!-- hostbench:end -->"
text = open(readme).read()
if begin not in text or end not in text:
    sys.exit(0)  # a copy of the course without the markers: the results page is enough
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
intro = intro.replace("](" + name + ")", "](docs/results/" + name + ")")
block = "\n".join([begin, intro, "", *table, end])
open(readme, "w").write(head + block + tail)
EOF
}

if [ "${1:-}" = --from ]; then
  csv=${2:?"usage: bench/host_bench.sh --from CSV"}
  [ -r "$csv" ] || { echo "bench: cannot read $csv" >&2; exit 2; }
  write_tables "$csv" || exit 1
  echo "bench: wrote ${csv%.csv}.md from $csv" >&2
  exit 0
fi
[ $# -eq 4 ] || { echo "usage: bench/host_bench.sh GPU_SLUG GPU CUDA DAY | --from CSV" >&2; exit 2; }
slug=$1 gpu=$2 cuda=$3 day=$4
[ -x "$PROG" ] || { echo "bench: no $PROG (make chapter-13): the host table is not measured" >&2; exit 0; }
csv="$OUTDIR/${slug}_host.csv"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "gpu,cuda,date,n,log2_n,variant,time_us,GB/s,pct_ceiling,check,reps,spread_pct,ceiling_spread_pct,noise" \
  > "$tmp/rows.csv"
for k in $SIZES; do
  start=$(date +%s)
  if ! "$PROG" --csv -n "2^$k" --reps "$REPS" > "$tmp/out.csv" 2> "$tmp/err.txt"; then
    echo "bench: host 2^$k FAILED:" >&2
    sed 's/^/  /' "$tmp/err.txt" >&2
    exit 1
  fi
  awk -F, -v gpu="$gpu" -v cuda="$cuda" -v day="$day" -v k="$k" -v reps="$REPS" '
    /^#/ { next }
    !header { for (i = 1; i <= NF; ++i) col[$i] = i; header = 1; next }
    { printf "%s,%s,%s,%s,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", gpu, cuda, day, $col["n"], k,
             $col["variant"], $col["time_us"], $col["GB/s"], $col["pct_ceiling"], $col["check"], reps,
             $col["spread_pct"], $col["ceiling_spread_pct"], $col["noise"] }' "$tmp/out.csv" >> "$tmp/rows.csv"
  echo "bench: host 2^$k done in $(( $(date +%s) - start )) s" >&2
done
if awk -F, 'NR > 1 && $10 != "ok" && $10 != "-"' "$tmp/rows.csv" | grep -q .; then
  echo "bench: a host row was not verified ok; nothing written" >&2
  exit 1
fi
mkdir -p "$OUTDIR"
mv "$tmp/rows.csv" "$csv"
write_tables "$csv" || exit 1
echo "bench: wrote $csv and ${csv%.csv}.md" >&2
