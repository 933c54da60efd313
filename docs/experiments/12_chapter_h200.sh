#!/usr/bin/env bash
# Chapter 12 (issue 37): the first GPU checks and timings of 12_decoupled_fallback/ on an H200, in one
# device call of at most 9 minutes on a machine with 16 cores. From the repository root, after
#     make SMS=90 -j16 common chapter-7
# run
#     OUT=/some/folder docs/experiments/12_chapter_h200.sh
# Every log goes under $OUT (default /tmp/12_chapter_h200); a short summary is printed last and kept
# in $OUT/summary.txt. Nothing in the repository is changed but build/ and the chapter's ./run.
#
#  1. builds: the chapter for sm_90 (`make SMS=90`), ptxas's report (-Xptxas -v),
#     and two builds with another poll budget (-DPOLL_BUDGET=4, the paper's, and 256);
#  2. side by side (correctness only, so the GPU is shared):
#     - `--self-test`, every variant (the battery, n > 2^31 included);
#     - `--stress 1000` of decoupled-fallback and of fallback-100pct (small grids and 2^24,
#       inclusive and exclusive, half of the runs in place);
#     - `--starve`: the four fallback variants must pass (exit 0), and chapter 07's look-back
#       (`--starve --variant decoupled-lookback`, its look_back() in this kernel) must be stopped
#       by its watchdog (exit 3) within about 5 s (the time it took is recorded);
#     - the plants of tests/plant_bugs.sh named *_12 (three), each line with its exit status: a
#       plant that moves a state back may be caught by --starve's descriptor check (exit 1) or
#       leave a held block waiting on a state moved back until its watchdog stops it (exit 3);
#       the summary says which happened and counts either as caught;
#     - `--input/--output` (also the same file), and compute-sanitizer memcheck, racecheck and
#       synccheck on small n: `--stress 4 -n 3077` of decoupled-fallback and fallback-100pct
#       (three tiles and a ragged fourth; inclusive, exclusive, each in place), and
#       `--self-test -n 1100` of fallback-100pct (every look-back falls back); the whole battery
#       under the tools waits for `make sanitize`;
#  3. alone on the GPU, timings (the default 20 reps, median): at 2^28 three rounds and at 2^30
#     two rounds of every variant beside memcpy (the chapter, the fallback forced on 1, 50 and
#     100 % of look-backs, chapter 07's look-back in this kernel, CUB), each beside a run of
#     chapter 07's own ./run; the fallbacks that fire without forcing with poll budgets 32 (the
#     chapter's), 4 and 256 (`--starve -n 2^28 --variant decoupled-fallback`, free and held
#     runs); and the budgets 4 and 256 timed at 2^28;
#  4. the summary: issue 37's two speed criteria (within 2 points of chapter 07's % of memcpy at
#     2^28, from the decoupled-lookback rows of chapter 07's ./run, never its memcpy rows;
#     fallback-100pct at >= 80 % of the chapter's throughput) read from the same runs.
# Steps that would run past the budget are skipped and say so.
set -u
OUT=${OUT:-/tmp/12_chapter_h200}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 2
cd "$(dirname "$0")/../.." || exit 2
export PATH="/usr/local/cuda/bin:$PATH"
START=$(date +%s)
BUDGET=${BUDGET:-530} # seconds for the whole script
elapsed() { echo $(($(date +%s) - START)); }
say() { echo "[$(elapsed) s] $*"; }
left() { echo $((BUDGET - $(elapsed))); }
CH=12_decoupled_fallback
RUN=$CH/run
RUN07=07_decoupled_lookback/run
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/compute-sanitizer/compute-sanitizer)

say "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown); logs in $OUT"
nvidia-smi --query-gpu=name,compute_cap,memory.total,clocks.max.sm,clocks.max.mem,driver_version \
  --format=csv >"$OUT/gpu.txt" 2>&1
(git rev-parse HEAD 2>/dev/null; git status --short 2>/dev/null) >"$OUT/commit.txt"
[ -x "$RUN07" ] || { say "no $RUN07: run make SMS=90 -j16 common chapter-7 first"; exit 2; }

# ---- 1. builds ----------------------------------------------------------------------------------
say "1. building the chapter for sm_90"
if ! (cd $CH && make SMS=90 -j16) >"$OUT/build.log" 2>&1; then
  tail -n 30 "$OUT/build.log"
  say "the build failed: see $OUT/build.log"
  exit 1
fi
OBJS="build/common/cli.o build/common/data.o build/common/io.o build/common/report.o \
build/common/selftest.o build/common/cuda_util.o build/common/gpu_driver.o build/common/cub_scan.o"
FLAGS="-std=c++20 -O3 -lineinfo -gencode arch=compute_90,code=sm_90 -I common"
nvcc $FLAGS -Xptxas -v -c $CH/decoupled_fallback.cu -o "$OUT/ptxas.o" >"$OUT/ptxas.txt" 2>&1 &
for b in 4 256; do
  nvcc $FLAGS -DPOLL_BUDGET=${b}u $CH/decoupled_fallback.cu $OBJS -o "$OUT/budget_$b" -lgomp \
    >"$OUT/build_budget_$b.log" 2>&1 &
done
wait
say "built ./$RUN, $OUT/budget_4 and $OUT/budget_256"

# ---- 2. correctness, side by side ---------------------------------------------------------------
say "2. self-test, stress, starve, plants, files, sanitizers (side by side)"
(timeout 420 ./$RUN --self-test >"$OUT/self_test.txt" 2>&1; echo "exit $?" >>"$OUT/self_test.txt") &
for v in decoupled-fallback fallback-100pct; do
  (timeout 300 ./$RUN --stress 1000 --variant $v >"$OUT/stress_$v.txt" 2>&1
   echo "exit $?" >>"$OUT/stress_$v.txt") &
done
(
  timeout 200 ./$RUN --starve >"$OUT/starve.txt" 2>&1
  echo "exit $? (expected 0)" >>"$OUT/starve.txt"
  t0=$(date +%s)
  timeout 60 ./$RUN --starve --variant decoupled-lookback >"$OUT/starve_07.txt" 2>&1
  echo "exit $? after $(($(date +%s) - t0)) s (expected 3: the watchdog, after about 5 s)" >>"$OUT/starve_07.txt"
) &
docs/experiments/h200_plants.sh "$OUT" '_12$' 3 300 & # $OUT/plants_K.txt, logs in $OUT/plants
# --input/--output: 3 tiles + 7 random values; the same file in place, exclusive
python3 -c "import os; open('$OUT/input.bin','wb').write(os.urandom(4 * (3 * 1024 + 7)))"
cp "$OUT/input.bin" "$OUT/inplace.bin"
{
  ./$RUN --input "$OUT/input.bin" --output "$OUT/output.bin" --variant decoupled-fallback
  echo "exit $? (--input/--output, inclusive)"
  ./$RUN --input "$OUT/inplace.bin" --output "$OUT/inplace.bin" --exclusive --variant fallback-100pct
  echo "exit $? (--input F --output F, exclusive)"
} >"$OUT/files.txt" 2>&1
for tool in memcheck racecheck synccheck; do
  (
    for v in decoupled-fallback fallback-100pct; do
      timeout 150 "$SAN" --tool $tool --error-exitcode 99 ./$RUN --stress 4 -n 3077 --variant $v \
        >"$OUT/san_${tool}_$v.txt" 2>&1
      echo "exit $?" >>"$OUT/san_${tool}_$v.txt"
    done
    timeout 150 "$SAN" --tool $tool --error-exitcode 99 ./$RUN --self-test -n 1100 \
      --variant fallback-100pct >"$OUT/san_${tool}_self_test.txt" 2>&1
    echo "exit $?" >>"$OUT/san_${tool}_self_test.txt"
  ) &
done
wait
say "correctness done"

# ---- 3. timings, alone on the GPU ---------------------------------------------------------------
timed() { # FILE BINARY ARGS...: one run of the sweep, appended as CSV
  local file=$1 bin=$2
  shift 2
  "$bin" --csv "$@" >>"$file" 2>>"$OUT/timing_stderr.txt"
}
if [ "$(left)" -gt 60 ]; then
  say "3. timings at 2^28: three rounds, every variant, and chapter 07's ./run"
  for r in 1 2 3; do
    timed "$OUT/t28_ch12.csv" ./$RUN -n 2^28
    timed "$OUT/t28_ch07.csv" ./$RUN07 -n 2^28
  done
else
  say "3. timings at 2^28 SKIPPED: $(left) s left"
fi
# the fallbacks that fire without forcing, with each poll budget (32: the chapter's ./run)
for b in 32 4 256; do
  bin=$OUT/budget_$b
  [ $b = 32 ] && bin=./$RUN
  if [ "$(left)" -gt 40 ] && [ -x "$bin" ]; then
    say "   the fallbacks that fire without forcing, at 2^28 (free and held back), poll budget $b"
    timeout 60 "$bin" --starve -n 2^28 --variant decoupled-fallback >"$OUT/natural_2p28_budget$b.txt" 2>&1
    echo "exit $?" >>"$OUT/natural_2p28_budget$b.txt"
  else
    say "   natural fallbacks with poll budget $b SKIPPED: $(left) s left, or no $bin"
  fi
done
if [ "$(left)" -gt 40 ]; then
  say "   poll budgets 4 and 256 at 2^28 (decoupled-fallback, two rounds each)"
  for r in 1 2; do
    for b in 4 256; do
      [ -x "$OUT/budget_$b" ] && timed "$OUT/t28_budget_$b.csv" "$OUT/budget_$b" -n 2^28 \
        --variant decoupled-fallback
    done
  done
else
  say "   poll budgets SKIPPED: $(left) s left"
fi
if [ "$(left)" -gt 90 ]; then
  say "   timings at 2^30: two rounds, every variant, and chapter 07's ./run"
  for r in 1 2; do
    [ "$(left)" -gt 45 ] || { say "   2^30 round $r SKIPPED: $(left) s left"; break; }
    timed "$OUT/t30_ch12.csv" ./$RUN -n 2^30
    timed "$OUT/t30_ch07.csv" ./$RUN07 -n 2^30
  done
else
  say "   timings at 2^30 SKIPPED: $(left) s left"
fi

# ---- 4. the summary -----------------------------------------------------------------------------
python3 - "$OUT" >"$OUT/summary.txt" <<'EOF'
import glob, os, re, statistics, sys
sys.path.insert(0, "docs/experiments")
from h200_summary import csv_rows, ptxas_report, tail
out = sys.argv[1]

def rows(path):
    """(n, variant, time_us, pct_memcpy or None, noise, check) from a file of the sweep's CSV runs;
    a row whose time or % is not a number is left out."""
    got = []
    for f in csv_rows(path):
        try:
            got.append((f[0], f[1], float(f[2]), float(f[6]) if f[6] != "-" else None, f[9], f[10]))
        except ValueError:
            continue
    return got

print("chapter 12 on the GPU:", tail(os.path.join(out, "gpu.txt")))
for report in ptxas_report(os.path.join(out, "ptxas.txt"), "fallback_scan_kernel"):
    print("ptxas, fallback_scan_kernel:", report)
print()
print("correctness")
print("  --self-test:", tail(os.path.join(out, "self_test.txt"), 2))
for v in ("decoupled-fallback", "fallback-100pct"):
    print(f"  --stress 1000 --variant {v}:", tail(os.path.join(out, f"stress_{v}.txt"), 2))
print("  --starve:", tail(os.path.join(out, "starve.txt"), 2))
print("  --starve --variant decoupled-lookback:", tail(os.path.join(out, "starve_07.txt"), 3))
p = os.path.join(out, "files.txt")
for l in open(p) if os.path.exists(p) else []:
    if l.startswith("exit"):
        print("  files:", l.strip())
for tool in ("memcheck", "racecheck", "synccheck"):
    for what in ("decoupled-fallback", "fallback-100pct", "self_test"):
        p = os.path.join(out, f"san_{tool}_{what}.txt")
        summ = [l.strip() for l in open(p) if "SUMMARY" in l] if os.path.exists(p) else []
        print(f"  {tool} {what}: {(summ[-1] if summ else '')} {tail(p)}")
print("plants (tests/plant_bugs.sh, *_12; a plant is caught when its run does not exit 0):")
# --starve under a plant that moves a state back: exit 1 is the descriptor check; exit 3 a CUDA
# error, expected from a held block whose hold_back() met its successor's state moved back (its
# watchdog line says so); both are catches. Exit 0 is a miss, 124 the plant script's time limit.
WHAT = {"0": "NOT caught", "1": "caught: the run failed (exit 1)",
        "3": "caught: a CUDA error (exit 3)", "124": "no verdict: stopped at the time limit"}
plant_lines = [l.rstrip() for p in sorted(glob.glob(os.path.join(out, "plants_*.txt")))
               for l in open(p) if l.strip()]
for l in plant_lines or ["(missing)"]:
    print("  " + l)
    m = re.search(r"^(\S+): .* \(exit (\d+)\)", l)
    if not m:
        continue
    name, rc = m.groups()
    print(f"    -> {WHAT.get(rc, f'exit {rc}')}")
    log = os.path.join(out, "plants", name + ".run.log")
    for w in (x.strip() for x in open(log) if "watchdog" in x) if os.path.exists(log) else []:
        print("       first watchdog line: " + w)
        break
print()

order = ("decoupled-fallback", "fallback-1pct", "fallback-50pct", "fallback-100pct",
         "decoupled-lookback", "cub")
for size in ("28", "30"):
    r12 = rows(os.path.join(out, f"t{size}_ch12.csv"))
    r07 = rows(os.path.join(out, f"t{size}_ch07.csv"))
    if not r12:
        print(f"timings at 2^{size}: none")
        continue
    print(f"timings at 2^{size}: % of memcpy in each run (time in us); flags: noise or a wrong check")
    per = {}
    for n, v, us, pct, noise, check in r12:
        per.setdefault(v, []).append((us, pct, noise, check))
    for n, v, us, pct, noise, check in r07:
        # chapter 07's own kernel only: its ./run also prints a memcpy row (100.0) and CUB
        if v == "decoupled-lookback":
            per.setdefault("chapter 07 ./run", []).append((us, pct, noise, check))
    for v in order + ("chapter 07 ./run",):
        if v not in per:
            continue
        cells = " ".join(f"{pct:.1f} ({us:.0f})" for us, pct, _, _ in per[v])
        flags = "; ".join(sorted({f"{noise}" for _, _, noise, _ in per[v] if noise not in ("-", "")} |
                                 {f"check {c}" for _, _, _, c in per[v] if c != "ok"}))
        print(f"  {v:<22} {cells}  {flags}")
    def med(v, k):
        xs = [x[k] for x in per.get(v, []) if x[k] is not None]
        return statistics.median(xs) if xs else None
    a, b = med("decoupled-fallback", 1), med("chapter 07 ./run", 1)
    if a is not None and b is not None:
        print(f"  criterion 1: chapter 12 {a:.1f} % vs chapter 07 {b:.1f} % of memcpy (medians): "
              f"{a - b:+.1f} points ({'within' if abs(a - b) <= 2 else 'NOT within'} 2)")
    t0, t100 = med("decoupled-fallback", 0), med("fallback-100pct", 0)
    if t0 and t100:
        print(f"  criterion 2: fallback-100pct at {100 * t0 / t100:.1f} % of the chapter's throughput "
              f"(median times {t0:.0f} and {t100:.0f} us; want >= 80)")
    print()

for b in ("4", "256"):
    r = rows(os.path.join(out, f"t28_budget_{b}.csv"))
    r = [x for x in r if x[1] == "decoupled-fallback"]
    if r:
        print(f"poll budget {b} at 2^28, % of memcpy: " + " ".join(f"{x[3]:.1f}" for x in r))
for b in ("32", "4", "256"):
    p = os.path.join(out, f"natural_2p28_budget{b}.txt")
    if os.path.exists(p):
        print(f"fallbacks without forcing, poll budget {b} (natural_2p28_budget{b}.txt):")
        for l in open(p):
            if "fallbacks per run" in l or l.startswith("exit") or "starve test" in l:
                print("  " + l.rstrip())
EOF
echo "elapsed: $(elapsed) s" >>"$OUT/summary.txt"
cat "$OUT/summary.txt"
