#!/usr/bin/env bash
# The GPU checks of a session, in as few device calls as its budget allows (each call at most 10
# minutes): `test` builds for the GPU here, then times make test and runs make sanitize; `extras`
# runs the plants named in PLANTS (a regex for tests/plant_bugs.sh) and chapter 08's inclusive and
# exclusive scans at 2^28 and 2^30, three runs each. Logs go to OUTDIR.
#   docs/experiments/h200_run.sh test OUTDIR      |   docs/experiments/h200_run.sh extras OUTDIR
set -u
[ $# -eq 2 ] || { echo "usage: docs/experiments/h200_run.sh test|extras OUTDIR" >&2; exit 2; }
mkdir -p "$2" && OUT=$(cd "$2" && pwd) || exit 2
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
case $1 in
  test)
    s=$(date +%s)
    make -j"$(nproc)" all >"$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log"; exit 1; }
    echo "build: $(( $(date +%s) - s )) s ($(grep -m1 -o 'code=sm_[0-9]*' "$OUT/build.log" | sort -u | tr '\n' ' '))"
    s=$(date +%s)
    timeout "${TEST_LIMIT:-330}" make test >"$OUT/test.log" 2>&1
    echo "make test: exit $?, $(( $(date +%s) - s )) s: $(tail -n 1 "$OUT/test.log")"
    grep -E '^(FAIL|SKIP)' "$OUT/test.log" | head -n 40
    cp -r build/tests/logs "$OUT/test_logs" 2>/dev/null
    s=$(date +%s)
    timeout "${SANITIZE_LIMIT:-120}" make sanitize >"$OUT/sanitize.log" 2>&1
    echo "make sanitize: exit $?, $(( $(date +%s) - s )) s: $(tail -n 1 "$OUT/sanitize.log")"
    grep -E '^FAIL' "$OUT/sanitize.log" | head -n 20
    ;;
  extras)
    [ -x 08_memcpy_speed/run ] || make -j"$(nproc)" all >"$OUT/build.log" 2>&1
    for r in 1 2 3; do
      for k in 28 30; do
        for m in "" --exclusive; do
          08_memcpy_speed/run -n "2^$k" $m --variant decoupled-lookback --csv 2>&1 |
            awk -F, -v r="$r" -v m="${m:-inclusive}" '/^#/ { next } !h { for (i = 1; i <= NF; ++i) c[$i] = i; h = 1; next }
              $c["variant"] != "memcpy" { print "08," r "," m "," $c["n"] "," $c["time_us"] "," $c["pct_memcpy"] "," $c["spread_pct"] "," $c["check"] }'
        done
      done
    done | tee "$OUT/08_exclusive.csv"
    timeout "${PLANT_LIMIT:-200}" tests/plant_bugs.sh "$OUT/plants" "${PLANTS:-.}" 2>&1 | tee "$OUT/plants.log"
    ;;
  *) echo "h200_run.sh: unknown part $1" >&2; exit 2 ;;
esac
