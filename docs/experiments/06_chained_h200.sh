#!/usr/bin/env bash
# Issue 32: what chapter 06's notes (and 04's and 05's "Run it") need from a GPU, in one run of
# about 5 minutes on an H200 with 16 cores. From the repository root:
#   docs/experiments/06_chained_h200.sh          logs to $OUT (or build/06_chained_h200)
# 1. builds everything for this GPU (make all, SMS from nvidia-smi) and keeps ptxas's registers
#    and shared memory of chapter 06's kernels (ptxas.txt);
# 2. times, on an otherwise idle GPU:
#    - the default sweeps of chapters 06, 04 and 05 (run_06.txt, run_04.txt, run_05.txt; 04's and
#      05's are their notes' "Run it" blocks, copied whole), and chapter 06 at 2^28 alone
#      (run_06_n28.txt, its notes' "Run it" block);
#    - chapter 06 at 2^24, 2^26 and 2^30 and chapters 04, 05, 07 and 08 at 2^30, --reps 11, as
#      CSV (csv_*.txt): the latency bound against the chunk size, and the replication of the
#      paper's Fig. 11 (chapter 07, and 08, against 06, 05, 04 at 2^30);
# 3. then checks, side by side: chapter 06's --self-test, --stress 300 of three of its variants,
#    and the plants of chapter 06 and lookback_ldg_07 (tests/plant_bugs.sh);
# 4. prints a summary last: per variant of chapter 06 and size, µs, links (chunks), µs per link
#    and % of memcpy; the Fig. 11 table; the checks' last lines.
# Exit status: 0 when every check passed, 1 otherwise (the timings are printed either way).
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-build/06_chained_h200}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 2
export PATH=/usr/local/cuda/bin:$PATH
start=$(date +%s)
SM=${SM:-$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '.[:space:]')}
[ -n "$SM" ] || { echo "06_chained_h200: no GPU found by nvidia-smi (or set SM=90)" >&2; exit 2; }
export SM
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee "$OUT/gpu.txt"
date -u +%Y-%m-%d | tee -a "$OUT/gpu.txt"

# 1. the build, and what ptxas gives chapter 06's kernels
make -j"$(nproc)" SMS="$SM" all >"$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log"; exit 1; }
nvcc -std=c++20 -O3 -lineinfo -gencode "arch=compute_$SM,code=sm_$SM" -Icommon -Xptxas -v -cubin \
  -o /dev/null 06_chained_scan/chained_scan.cu >"$OUT/ptxas.txt" 2>&1
echo "build: $(( $(date +%s) - start )) s"

# 2. the timings, one program at a time
06_chained_scan/run >"$OUT/run_06.txt" 2>&1 || echo "06 sweep: exit $?"
06_chained_scan/run -n 2^28 >"$OUT/run_06_n28.txt" 2>&1 || echo "06 at 2^28: exit $?"
04_scan_then_fan/run >"$OUT/run_04.txt" 2>&1 || echo "04 sweep: exit $?"
05_reduce_then_scan/run >"$OUT/run_05.txt" 2>&1 || echo "05 sweep: exit $?"
for k in 24 26 30; do
  06_chained_scan/run --csv -n "2^$k" --reps 11 >"$OUT/csv_06_$k.txt" 2>"$OUT/csv_06_$k.err" ||
    echo "06 at 2^$k: exit $?: $(tail -n 3 "$OUT/csv_06_$k.err")"
done
for c in 04_scan_then_fan 05_reduce_then_scan 07_decoupled_lookback 08_memcpy_speed; do
  "$c/run" --csv -n 2^30 --reps 11 --variant "$(case $c in 04*) echo scan-then-fan ;;
    05*) echo reduce-then-scan ;; *) echo decoupled-lookback ;; esac)" \
    >"$OUT/csv_${c%%_*}_30.txt" 2>"$OUT/csv_${c%%_*}_30.err" ||
    echo "$c at 2^30: exit $?: $(tail -n 3 "$OUT/csv_${c%%_*}_30.err")"
done
echo "timings: $(( $(date +%s) - start )) s"

# 3. the checks, side by side (correctness only: their timings are not used)
(06_chained_scan/run --self-test >"$OUT/selftest_06.txt" 2>&1; echo "exit $?" >>"$OUT/selftest_06.txt") &
(for v in held-1tile held-max reread-256tiles; do
   06_chained_scan/run --stress 300 --variant "$v" >"$OUT/stress_06_$v.txt" 2>&1
   echo "exit $?" >>"$OUT/stress_06_$v.txt"
 done) &
for i in 1 2 3; do
  (PLANT_SHARD=$i/3 timeout 400 tests/plant_bugs.sh "$OUT/plants" 'chain_|lookback_ldg_07' \
     >"$OUT/plants.$i.log" 2>&1) &
done
wait
cat "$OUT"/plants.[123].log >"$OUT/plants.log"

# 4. the summary
echo
echo "== chapter 06 (and the others at 2^30): median of 11 runs; per link = time / chunks =="
printf '%-22s %5s %12s %8s %9s %10s %10s %8s %s\n' program n time_us spread% chunks us/link memcpy_us pct noise
for f in "$OUT"/csv_*.txt; do
  prog=$(basename "$f" .txt); prog=${prog#csv_}; prog=${prog%_*}
  awk -F, -v prog="$prog" '
    /^#/ || NF < 3 { next }
    !header { for (i = 1; i <= NF; ++i) c[$i] = i; header = 1; next }
    $c["variant"] == "memcpy" { copy = $c["time_us"]; next }
    { k = $c["n"]; n = k ~ /^2\^/ ? 2 ^ substr(k, 3) : k + 0  # sizes print as 2^K
      chunk = ("chunk" in c) ? $c["chunk"] + 0 : 0
      links = chunk > 0 ? int((n + chunk - 1) / chunk) : 0
      printf "%-22s %5s %12s %8s %9s %10s %10s %8s %s\n", prog " " $c["variant"], k, $c["time_us"],
             $c["spread_pct"], links ? links : "-", links ? sprintf("%.3f", $c["time_us"] / links) : "-",
             copy, $c["pct_memcpy"], $c["noise"] }' "$f"
done
echo
echo "== Fig. 11 at 2^30: each time over chapter 07's and over chapter 08's (above 1: 07, 08 faster) =="
awk -F, '
  FNR == 1 { header = 0; prog = FILENAME; sub(/.*csv_/, "", prog); sub(/_30\.txt$/, "", prog) }
  /^#/ || NF < 3 { next }
  !header { delete c; for (i = 1; i <= NF; ++i) c[$i] = i; header = 1; next }
  $c["variant"] != "memcpy" { t[prog " " $c["variant"]] = $c["time_us"]; order[++m] = prog " " $c["variant"] }
  END {
    for (k in t) { if (k ~ /^07 /) t07 = t[k]; if (k ~ /^08 /) t08 = t[k] }
    for (i = 1; i <= m; ++i) {
      r7 = (t07 > 0) ? sprintf("%.2f", t[order[i]] / t07) : "?"
      r8 = (t08 > 0) ? sprintf("%.2f", t[order[i]] / t08) : "?"
      printf "%-26s %12s us   / 07: %6s   / 08: %6s\n", order[i], t[order[i]], r7, r8
    }
  }' "$OUT"/csv_0[45678]_30.txt
echo
echo "== checks =="
status=0
echo "06 --self-test: $(tail -n 2 "$OUT/selftest_06.txt" | tr '\n' ' ')"
grep -q '^exit 0$' "$OUT/selftest_06.txt" || status=1
for v in held-1tile held-max reread-256tiles; do
  echo "06 --stress 300 --variant $v: $(tail -n 2 "$OUT/stress_06_$v.txt" | tr '\n' ' ')"
  grep -q '^exit 0$' "$OUT/stress_06_$v.txt" || status=1
done
echo "plants (tests/plant_bugs.sh, 'chain_|lookback_ldg_07'):"
sed 's/^/  /' "$OUT/plants.log"
echo "ptxas (sm_$SM): $(grep -E 'Compiling entry|Used' "$OUT/ptxas.txt" | sed 's/ptxas info *: //' | tr '\n' ' ')"
echo "06's describe line at 2^28: $(grep -m1 '^n = 268435456' "$OUT/run_06.txt")"
echo "all: $(( $(date +%s) - start )) s; logs in $OUT"
exit $status
