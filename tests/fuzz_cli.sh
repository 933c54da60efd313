#!/usr/bin/env bash
# A bounded fuzz of the command line and the file reader (issue: host code clean under
# sanitizers). RUN is a program built with -fsanitize=address,undefined (make tests builds
# build/asan/cpu_serial); CASES random command lines, half of them with random --input files,
# each must end with exit status 0, 1 or 2 within 120 s (a hang, not a slow
# run on a loaded machine: on the H200 host one took over 20 s beside the GPU suites) and
# without a sanitizer report.
#   tests/fuzz_cli.sh RUN CASES [SEED [K/M]]
# With K/M (e.g. 1/2), only cases c with c % M = K - 1 run: M such runs side by side run exactly
# the command lines of one run without it.
set -u
RUN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
CASES=${2:-1000}
RANDOM=${3:-20161101}
SHARD=${4:-1/1}
SHARD_K=$(( ${SHARD%/*} - 1 )) SHARD_M=${SHARD#*/}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"
failures=0

# words a command line may hold: options, values (good, bad, extreme), and junk
OPTIONS=(-n --reps --seed --self-test --input --output --exclusive --variant --csv --help -h
         --stress --bogus -- - "" -n= --reps= --seed= --input= --output= --variant=)
VALUES=(0 1 2 3 31 32 33 1000 4097 2^0 2^10 2^12 2^16 2^40 2^41 2^-1 2^ ^2 -1 -5 007 1e3 0x10
        99999999999999999999 18446744073709551615 18446744073709551616 abc serial threads all
        "" " " fast in.bin out.bin empty.bin odd.bin big.bin nowhere/x.bin . / in.bin)

# random files: empty, 1-3 bytes, random whole words, and one of 4097 words
: >empty.bin
head -c 3 /dev/urandom >odd.bin
head -c $((4 * 4097)) /dev/urandom >big.bin

# pick LIST: one word of LIST into $picked (not echoed: a $(...) subshell would draw from a
# reseeded RANDOM, and the same SEED would not give the same command lines)
pick() { local -n list=$1; picked=${list[RANDOM % ${#list[@]}]}; }

# the edges first, then random command lines
EDGES=("--input empty.bin" "--input empty.bin --output out.bin" "--input empty.bin --exclusive"
       "--input odd.bin" "--input big.bin --output out.bin" "-n 0" "--self-test -n 0"
       "--self-test -n 1" "-n 1 --exclusive" "--input big.bin --variant threads")
for ((c = 0; c < CASES; ++c)); do
  bytes=$((4 * (RANDOM % 300)))  # in.bin's size: drawn for every case, made for this shard's
  args=()
  if ((c < ${#EDGES[@]})); then
    read -r -a args <<<"${EDGES[c]}"
    words=0
  else
    words=$((RANDOM % 6))
  fi
  for ((w = 0; w < words; ++w)); do
    if ((RANDOM % 3)); then
      pick OPTIONS
      o=$picked
      pick VALUES
      case $o in
        -n|--reps|--seed|--input|--output|--variant|--stress) args+=("$o" "$picked") ;;
        *=) args+=("$o$picked") ;;
        *) args+=("$o") ;;
      esac
    else
      pick VALUES
      args+=("$picked")
    fi
  done
  # keep every run short: no self-test or sweep beyond small sizes
  case " ${args[*]} " in *" -n "*|*" -n="*) ;; *) args+=(-n 1000) ;; esac
  args+=(--reps 1)
  ((c % SHARD_M == SHARD_K)) || continue  # another shard's case (its words were drawn all the same)
  [ -z "${FUZZ_LIST:-}" ] || { printf '%s\n' "$c:${args[*]}"; continue; }  # FUZZ_LIST=1: list, run nothing
  head -c "$bytes" /dev/urandom >in.bin
  timeout 120 "$RUN" "${args[@]}" </dev/null >out.txt 2>err.txt  # --input - reads an empty stdin
  status=$?
  # (bash reads err.txt itself: no grep per case)
  err=
  IFS= read -r -d '' err <err.txt
  if [ "$status" -gt 2 ] || [[ $err =~ runtime\ error|AddressSanitizer|LeakSanitizer ]]; then
    failures=$((failures + 1))
    if [ "$failures" -le 5 ]; then
      echo "FAIL (exit $status): run$(printf " '%s'" "${args[@]}")"
      grep -m 3 -E "runtime error|ERROR|SUMMARY" err.txt | sed 's/^/  /'
    fi
  fi
  for f in out.bin .out.bin.tmp*; do [ ! -e "$f" ] || rm -f "$f"; done
done
ran=$(( (CASES - SHARD_K + SHARD_M - 1) / SHARD_M ))
echo "fuzz: $ran command lines$([ "$SHARD_M" -gt 1 ] && echo " (shard $SHARD of $CASES)"), $failures failed"
[ "$failures" -eq 0 ]
