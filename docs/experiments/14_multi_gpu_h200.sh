#!/usr/bin/env bash
# Chapter 14 (issue 39): the first GPU run of 14_multi_gpu/, on a machine of ONE GPU (the lent
# nvidia-h200): everything but the exchange between two GPUs. From the repository root:
#     docs/experiments/14_multi_gpu_h200.sh            (logs in $LOGS, default /tmp/c14)
# and the device command packs them: tar czf "$OUT/c14.tgz" -C /tmp c14 (the device returns at
# most 8 files). Expected 200-300 s on an H200 with 16 cores (the build 60-120 s from an empty
# build/); every step runs under `timeout` with what is left of BUDGET (default 280 s), and
# appends its lines to $LOGS/summary.txt as it ends, so a run cut short keeps the steps it did.
#  1. the build (make -f Makefile.wip SMS=90), and where NCCL was found;
#  2. meanwhile, five planted copies built on the CPU (the plants below);
#  3. --self-test, every variant (nccl as one rank, shards-2, -3, -8), n > 2^31 included;
#  4. the sweep at -n 2^28 and -n 2^30 (--csv), and -n 2^30 as a table, every row checked;
#  5. --stress 20, and a file through --input/--output;
#  6. each plant's --self-test -n 2^20: CAUGHT (exit 1) or MISSED (exit 0); exchange_without_wait
#     (each shard waits for its own reduce only) is a race: a MISSED there is possible;
#  7. compute-sanitizer memcheck of --self-test -n 2^12 --variant shards-3, if time is left.
# NCCL_NVLS_ENABLE=0 in every run (the program sets it too: see cluster_open()).
set -u
LOGS=${LOGS:-/tmp/c14}
BUDGET=${BUDGET:-280}
rm -rf "$LOGS" && mkdir -p "$LOGS" || exit 2
cd "$(dirname "$0")/../.." && ROOT=$(pwd -P) || exit 2
export PATH="/usr/local/cuda/bin:$PATH" NCCL_NVLS_ENABLE=0 NCCL_DEBUG=WARN
START=$(date +%s)
SUMMARY=$LOGS/summary.txt
PLANTS=$ROOT/build/c14_plants
RUN=./14_multi_gpu/run
left() { echo $((BUDGET - ($(date +%s) - START))); }
# tm N CMD...: CMD under timeout of N seconds or what is left less 10, whichever is smaller
tm() {
  local c l
  l=$(($(left) - 10)); c=$1; shift
  [ "$l" -lt "$c" ] && c=$l
  [ "$c" -ge 3 ] || { echo "no time left for: $*"; return 124; }
  timeout -k 5 "$c" "$@"
}
sum() { echo "[$(($(date +%s) - START)) s] $*" | tee -a "$SUMMARY"; }
# last LINES FILE: a log's summary lines
last() { grep -hE "$1" "$2" 2>/dev/null | tail -n 12 | sed 's/^/    /' | tee -a "$SUMMARY"; }

{ git rev-parse HEAD; git status --short; nvidia-smi -L; nvidia-smi topo -m; nproc; free -g
  python3 -c "import nvidia.nccl as m; print('python nccl:', list(m.__path__))"; } >"$LOGS/machine.txt" 2>&1
sum "commit $(git rev-parse --short HEAD 2>/dev/null); $(nvidia-smi -L 2>/dev/null | head -n 2 | tr '\n' ' ')"

# 1. the build
if ! tm 200 make -C 14_multi_gpu -f Makefile.wip SMS=90 -j16 >"$LOGS/build.log" 2>&1; then
  tail -n 5 "$LOGS/build.log" | tee -a "$SUMMARY"
  sum "build FAILED (build.log)"
  exit 1
fi
sum "built; $(ldd $RUN | grep -o "libnccl[^ ]* => [^ ]*")"

# 2. the plants, compiled in the background from the chapter's own compile and link lines
plant() { # NAME PERL-SUBSTITUTION: fails if the substitution changed nothing
  mkdir -p "$PLANTS"
  perl -0pe "$2" 14_multi_gpu/multi_gpu.cu >"$PLANTS/$1.cu"
  cmp -s 14_multi_gpu/multi_gpu.cu "$PLANTS/$1.cu" && { echo "plant $1 changed nothing"; return 1; }
  local cmds compile link
  cmds=$(make -s -C 14_multi_gpu -f Makefile.wip SMS=90 -B -n 2>/dev/null)
  compile=$(grep -- "-c $ROOT/14_multi_gpu/multi_gpu.cu" <<<"$cmds")
  link=$(grep -- "-o $ROOT/14_multi_gpu/run " <<<"$cmds")
  compile=${compile//$ROOT\/14_multi_gpu\/multi_gpu.cu/$PLANTS/$1.cu}
  compile=${compile//$ROOT\/build\/14_multi_gpu\/multi_gpu.o/$PLANTS/$1.o}
  link=${link//$ROOT\/build\/14_multi_gpu\/multi_gpu.o/$PLANTS/$1.o}
  link=${link//$ROOT\/14_multi_gpu\/run/$PLANTS/$1.run}
  [ -n "$compile" ] && [ -n "$link" ] || { echo "plant $1: no compile or link line in make -n"; return 1; }
  eval "$compile" && eval "$link"
}
(
  plant seed_own_total 's/for \(int r = 0; r < rank; \+\+r\)/for (int r = 0; r <= rank; ++r)/' &
  plant input_not_given_back 's/\n        in\[0\] = \(int32_t\)words\[WORD_FIRST\];/\n        (void)words;/' &
  plant exclusive_seed_lost 's/\n        out\[0\] = \(int32_t\)words\[WORD_SEED\];/\n        (void)words;/' &
  plant reduce_tail_lost 's/threadIdx\.x < n % 4\)/threadIdx.x < n % 2)/' &
  plant exchange_without_wait 's/cudaStreamWaitEvent\(r->stream, c->rank\[k\]/cudaStreamWaitEvent(r->stream, c->rank[j]/' &
  wait
) >"$LOGS/plants_build.log" 2>&1 &
PLANT_JOB=$!

# 3. the self-test
tm 150 $RUN --self-test >"$LOGS/self_test.txt" 2>&1; rc=$?
sum "3. --self-test: exit $rc"
last "SKIP|FAIL|self-test (passed|FAILED)|NCCL|^run:" "$LOGS/self_test.txt"

# 4. the sweep
for n in 2^28 2^30; do
  tm 60 $RUN -n $n --csv >"$LOGS/sweep_${n/^/p}.csv" 2>&1; rc=$?
  sum "4. -n $n --csv: exit $rc"
  last "^[0-9]|WRONG|^run:|summary" "$LOGS/sweep_${n/^/p}.csv"
done
tm 60 $RUN -n 2^30 >"$LOGS/sweep_2p30.txt" 2>&1; rc=$?
sum "4. -n 2^30 (table): exit $rc"
last "n +variant|memcpy|nccl|shards|summary|^run:" "$LOGS/sweep_2p30.txt"

# 5. the stress test and a file
tm 60 $RUN --stress 20 >"$LOGS/stress.txt" 2>&1; rc=$?
sum "5. --stress 20: exit $rc"
last "wrong|stress test|^run:" "$LOGS/stress.txt"
head -c 4000012 /dev/urandom >"$LOGS/in.bin"
tm 30 $RUN --input "$LOGS/in.bin" --output "$LOGS/out.bin" --exclusive >"$LOGS/file.txt" 2>&1; rc=$?
sum "5. --input (1000003 random elements) --output --exclusive: exit $rc, $(stat -c %s "$LOGS/out.bin" 2>/dev/null) bytes written"
last "verified|WRONG|FAILED|wrote|^run:" "$LOGS/file.txt"
rm -f "$LOGS/in.bin" "$LOGS/out.bin"

# 6. the plants
while kill -0 "$PLANT_JOB" 2>/dev/null && [ "$(left)" -gt 20 ]; do sleep 2; done
kill "$PLANT_JOB" 2>/dev/null
for p in seed_own_total input_not_given_back exclusive_seed_lost reduce_tail_lost exchange_without_wait; do
  if [ ! -x "$PLANTS/$p.run" ]; then
    sum "6. plant $p: NOT BUILT (plants_build.log)"
    continue
  fi
  tm 40 "$PLANTS/$p.run" --self-test -n 2^20 >"$LOGS/plant_$p.txt" 2>&1; rc=$?
  case $rc in 1) v=CAUGHT ;; 0) v=MISSED ;; *) v="exit $rc" ;; esac
  sum "6. plant $p: $v by --self-test -n 2^20 ($(grep -c '^  FAIL' "$LOGS/plant_$p.txt") failures shown)"
done

# 7. memcheck, if time is left
if command -v compute-sanitizer >/dev/null && [ "$(left)" -ge 50 ]; then
  tm 60 compute-sanitizer --tool memcheck --error-exitcode 99 $RUN --self-test -n 2^12 \
    --variant shards-3 >"$LOGS/memcheck.txt" 2>&1; rc=$?
  sum "7. memcheck --self-test -n 2^12 --variant shards-3: exit $rc (99: errors found)"
  last "ERROR SUMMARY|self-test (passed|FAILED)" "$LOGS/memcheck.txt"
else
  sum "7. memcheck: skipped ($(left) s left, or no compute-sanitizer)"
fi
rm -rf "$PLANTS"
sum "done in $(($(date +%s) - START)) s"
