#!/usr/bin/env bash
# Chapter 11's measurements on the H200, one step at a time (issue 36; docs/experiments/11_design.md):
#   scan OUTDIR      step 2's prototype (11_scan_proto.cu): every configuration checked against CUB at
#                    ragged sizes (20 rounds at 2^24 + 1), then timed at 2^24, 2^28 and 2^30 beside
#                    CUB and memcpy; chapter 08's ./run at the same sizes, inclusive and exclusive
#   ceiling OUTDIR   step 1: build docs/experiments/11_ceiling.cu, sweep the TMA ring's knobs at
#                    2^28, time the best eight at 2^24 and 2^30 too (three runs of each), and read
#                    the best ring and the plain copy with Nsight Compute (speed of light, memory)
# Needs a GPU of compute capability 9.0 and build/common from `make SMS=90 all` (or `common`).
# Writes CSVs and logs to OUTDIR; prints a short summary last.
set -u
[ $# -eq 2 ] || { echo "usage: docs/experiments/11_steps.sh ceiling|scan OUTDIR" >&2; exit 2; }
mkdir -p "$2" && OUT=$(cd "$2" && pwd) || exit 2
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
case $1 in
  ceiling)
    nvcc -std=c++20 -O3 -lineinfo -gencode arch=compute_90,code=sm_90 -I common \
      docs/experiments/11_ceiling.cu build/common/cuda_util.o build/common/report.o \
      build/common/cli.o -o build/11_ceiling 2>"$OUT/ceiling_build.log" \
      || { cat "$OUT/ceiling_build.log"; exit 1; }
    s=$(date +%s)
    timeout 240 build/11_ceiling 2^28 >"$OUT/ceiling_2p28.csv" 2>"$OUT/ceiling.err"
    echo "sweep at 2^28: exit $?, $(( $(date +%s) - s )) s, $(grep -c '^ring' "$OUT/ceiling_2p28.csv") configurations"
    # the best eight by % of memcpy (column 13), wrong = 0 only
    best=$(grep '^ring' "$OUT/ceiling_2p28.csv" | awk -F, '$14 == 0' | sort -t, -k13,13 -gr | head -n 8)
    printf '%s\n' "$best" >"$OUT/ceiling_best.csv"
    for size in 2^24 2^28 2^30; do
      printf '%s\n' "$best" | while IFS=, read -r _ t st b w draw store _; do
        d=0; [ "$draw" = static ] && d=1
        k=0; [ "$store" = bulk ] && k=1
        for run in 1 2 3; do
          timeout 60 build/11_ceiling --only "$t,$st,$b,$w,$d,$k" "$size" | grep -E '^(ring|plain)'
        done
      done
    done >"$OUT/ceiling_best_sizes.csv"
    if command -v ncu >/dev/null; then
      top=$(head -n 1 "$OUT/ceiling_best.csv" | awk -F, '{d = $6 == "static"; k = $7 == "bulk"; printf "%s,%s,%s,%s,%d,%d", $2, $3, $4, $5, d, k}')
      # one launch of each kernel: the plain copy's check run, then the ring's
      for k in plain_copy_kernel ring_copy_kernel; do
        timeout 120 ncu --clock-control none -k "$k" -c 1 \
          --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
          build/11_ceiling --only "$top" --reps 1 2^28
      done >"$OUT/ceiling_ncu.txt" 2>&1
      echo "ncu: exit $? ($top)"
    fi
    echo "kernel,T,S,B,W,draw,store,n,us,spread,memcpy_us,memcpy_spread,pct_memcpy,wrong"
    grep '^plain' "$OUT/ceiling_2p28.csv"
    cat "$OUT/ceiling_best.csv"
    echo "-- the best at 2^24, 2^28, 2^30 (three runs each):"
    awk -F, '{print $1","$2","$3","$4","$5","$6","$7","$8","$9","$13","$14}' "$OUT/ceiling_best_sizes.csv" | head -n 80
    ;;
  scan)
    nvcc -std=c++20 -O3 -lineinfo -gencode arch=compute_90,code=sm_90 -Xptxas -v -I common \
      docs/experiments/11_scan_proto.cu build/common/cuda_util.o build/common/report.o \
      build/common/cli.o build/common/cub_scan.o -o build/11_scan_proto >"$OUT/scan_build.log" 2>&1 \
      || { cat "$OUT/scan_build.log"; exit 1; }
    grep -A3 ws_scan "$OUT/scan_build.log" | grep -E 'registers|spill'
    s=$(date +%s)
    timeout 120 build/11_scan_proto --check-only 1 33 4095 4097 12289 1000003 16777217 >"$OUT/scan_check.csv" 2>&1
    echo "check at ragged sizes: exit $?, $(grep -c '^check' "$OUT/scan_check.csv") runs, $(grep '^check' "$OUT/scan_check.csv" | awk -F, '$5 != "none" && $14 != 0' | wc -l) wrong (modes with a prefix), $(( $(date +%s) - s )) s"
    for round in $(seq 20); do
      timeout 60 build/11_scan_proto --check-only 16777217 || echo "round $round: exit $?"
    done >"$OUT/scan_stress.csv" 2>&1
    echo "20 rounds at 2^24 + 1: $(grep '^check' "$OUT/scan_stress.csv" | awk -F, '$5 != "none" && $14 != 0' | wc -l) wrong runs of $(grep '^check' "$OUT/scan_stress.csv" | awk -F, '$5 != "none"' | wc -l); $(grep -c '^round' "$OUT/scan_stress.csv") rounds failed"
    s=$(date +%s)
    timeout 240 build/11_scan_proto 2^24 2^28 2^30 >"$OUT/scan_sweep.csv" 2>"$OUT/scan_sweep.err"
    echo "sweep: exit $?, $(( $(date +%s) - s )) s"
    for size in 2^24 2^28 2^30; do
      for x in "" --exclusive; do
        (cd 08_memcpy_speed && timeout 60 ./run -n $size $x --csv)
      done
    done >"$OUT/scan_08.csv" 2>&1
    echo "kernel,S,G,B,mode,exclusive,n,us,spread,memcpy_us,memcpy_spread,pct_memcpy,x_cub,wrong,K"
    grep -E '^(cub|ws)' "$OUT/scan_sweep.csv" | sort -t, -k7,7n -k12,12gr
    echo "-- chapter 08, same call:"
    grep -E 'decoupled|cub' "$OUT/scan_08.csv" | head -n 24
    ;;
  *) echo "usage: docs/experiments/11_steps.sh ceiling|scan OUTDIR" >&2; exit 2 ;;
esac
