#!/usr/bin/env bash
# End-to-end tests of the shared command line on a real program.
#   tests/test_cli.sh RUN VARIANT [usage-only]
# RUN is a chapter's ./run, VARIANT one of its --variant names. Bad input must give exit status 2,
# one line on stderr naming the problem, and no output file (not even a temporary one); these
# checks come before any GPU work, so they run everywhere. Unless "usage-only" is given (a GPU
# chapter on a machine without a GPU), --input/--output must also round-trip hand-checked vectors
# exactly (all shorter than any chapter's segment, so segmented chapters give the same answers).
set -u
RUN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
VARIANT=$2
USAGE_ONLY=${3:-}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"
checks=0 failures=0

fail() { failures=$((failures + 1)); echo "FAIL: $*"; }

# expect_usage "words in the message" ARGS... : exit 2, one stderr line containing the words,
# and nothing left in the folder besides the fixtures
expect_usage() {
  local want=$1 status lines
  shift
  checks=$((checks + 1))
  "$RUN" "$@" >stdout.txt 2>stderr.txt
  status=$?
  lines=$(wc -l <stderr.txt)
  if [ "$status" -ne 2 ]; then fail "run $* exited $status, wanted 2"; return; fi
  if [ "$lines" -ne 1 ]; then fail "run $*: $lines lines on stderr, wanted 1"; cat stderr.txt; return; fi
  if ! grep -qF -- "$want" stderr.txt; then fail "run $*: message '$(cat stderr.txt)' lacks '$want'"; return; fi
  if [ -n "$(ls -A | grep -v -E '^(stdout.txt|stderr.txt|fixture_.*)$')" ]; then
    fail "run $* left files behind: $(ls -A | tr '\n' ' ')"
  fi
}

# bytes VALUES... : raw little-endian int32 of the given (signed decimal) values
bytes() {
  local v
  for v in "$@"; do
    v=$(( v & 0xFFFFFFFF ))
    printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((v & 255)) $(((v >> 8) & 255)) $(((v >> 16) & 255)) $(((v >> 24) & 255)))"
  done
}

# ---- bad usage: exit 2, one line, nothing written
expect_usage "unknown option '--bogus'" --bogus
expect_usage "unexpected argument 'stray'" stray
expect_usage "needs a value" -n
expect_usage "not a size" -n abc
expect_usage "negative" -n -5
expect_usage "too large" -n 99999999999999999999
expect_usage "out of range" -n 2^41
expect_usage "at least 1" --reps 0
expect_usage "not a number" --reps many
expect_usage "unknown variant 'fast'" --variant fast
expect_usage "--output needs --input" --output fixture_out.bin
expect_usage "give one of them" --input fixture_a.bin -n 4
expect_usage "'-n' is given twice" -n 4 -n 5
expect_usage "'--reps' is given twice" --reps 2 --reps=3
expect_usage "'--csv' is given twice" --csv --csv
rm -f fixture_out.bin

# ---- bad files: exit 2, one line, no output written
bytes 1 2 3 >fixture_a.bin
printf 'abcde' >fixture_odd.bin
mkdir fixture_dir
expect_usage "No such file" --input fixture_missing.bin --output fixture_out.bin
expect_usage "5 bytes, not a multiple of 4" --input fixture_odd.bin --output fixture_out.bin
expect_usage "is a folder" --input fixture_dir --output fixture_out.bin
expect_usage "drop --csv" --input fixture_a.bin --csv
expect_usage "cannot write --output" --input fixture_a.bin --output fixture_no/such/dir/x.bin
expect_usage "is a folder" --input fixture_a.bin --output fixture_dir
checks=$((checks + 1))
[ ! -e fixture_out.bin ] || fail "an output was written for bad input"

# ---- --output never destroys what it does not own: only a regular file is replaced
# kept "what PATH is before" PATH: after a refused run, PATH is still what it was
kept() {
  checks=$((checks + 1))
  [ "$(stat -c %F "$2" 2>/dev/null)" = "$1" ] || fail "--output $2 was $1 and is now '$(stat -c %F "$2" 2>/dev/null)'"
}
mkfifo fixture_fifo
expect_usage "is a FIFO" --input fixture_a.bin --output fixture_fifo
kept fifo fixture_fifo
ln -s fixture_nowhere/x.bin fixture_dangling
expect_usage "symbolic link to nothing" --input fixture_a.bin --output fixture_dangling
kept "symbolic link" fixture_dangling
if [ "$(id -u)" -eq 0 ] && mknod fixture_null c 1 3 2>/dev/null; then  # a device node (root only)
  expect_usage "is a device" --input fixture_a.bin --output fixture_null
  kept "character special file" fixture_null
fi
if command -v python3 >/dev/null; then  # a socket
  python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("fixture_socket")'
  expect_usage "is a socket" --input fixture_a.bin --output fixture_socket
  kept socket fixture_socket
fi
checks=$((checks + 1))
"$RUN" --help >stdout.txt 2>stderr.txt && grep -q -- "--self-test" stdout.txt || fail "--help"
cp stdout.txt fixture_help.txt  # the modes' blocks below read it (each expect_usage rewrites stdout.txt)

# ---- chapter 09's operators: each mode's --input format is checked before the GPU is touched
if grep -q -- '^  --recurrence ' fixture_help.txt; then
  printf '\x5f\x70\x89\x30' >fixture_tiny.bin             # 1e-9: not a multiple of 2^-23
  printf '\x00\x00\x80\x7f\x00\x00\x80\x3f' >fixture_inf.bin  # inf, 1.0
  expect_usage "an odd number; --recurrence takes" --recurrence --input fixture_a.bin --output fixture_out.bin
  expect_usage "an odd number; --segmented takes" --segmented --input fixture_a.bin --output fixture_out.bin
  expect_usage "not a multiple of 2^-23" --float-sum --input fixture_tiny.bin --output fixture_out.bin
  expect_usage "not a finite float" --recurrence-f32 --input fixture_inf.bin --output fixture_out.bin
  for i in $(seq 200); do printf '\x00\x00\x00\x40\x00\x00\x80\x3f'; done >fixture_grow.bin  # (2, 1): h = 2^(t+1) - 1
  printf '\x00\x00\x00\x3f\x00\x00\x80\x03' >fixture_tiny_h.bin                          # (0.5, 2^-120), then
  for i in $(seq 19); do printf '\x00\x00\x00\x3f\x00\x00\x00\x00'; done >>fixture_tiny_h.bin #   (0.5, 0): h halves
  expect_usage "overflows float" --recurrence-f32 --input fixture_grow.bin --output fixture_out.bin
  expect_usage "goes subnormal at pair 7" --recurrence-f32 --input fixture_tiny_h.bin --output fixture_out.bin
fi
# ---- chapter 10's compaction: the same checks of its mode
if grep -q -- '^  --compact ' fixture_help.txt; then
  expect_usage "inclusively only" --compact --exclusive
  expect_usage "5 bytes, not a multiple of 4" --compact --input fixture_odd.bin --output fixture_out.bin
fi

if [ "$USAGE_ONLY" = usage-only ]; then
  echo "command line tests (usage only: no GPU here): $checks checks, $failures failed"
  [ "$failures" -eq 0 ]
  exit
fi

# ---- round trips on hand-checked vectors (wrap-around included)
roundtrip() { # name "input values" "expected values" [options]
  local name=$1 input=$2 expected=$3
  shift 3
  checks=$((checks + 1))
  bytes $input >fixture_in.bin
  bytes $expected >fixture_want.bin
  if ! "$RUN" --input fixture_in.bin --output fixture_got.bin "$@" >stdout.txt 2>stderr.txt; then
    fail "$name: run exited non-zero: $(cat stderr.txt)"
  elif ! cmp -s fixture_got.bin fixture_want.bin; then
    fail "$name: output differs from the hand-checked answer"
  fi
  rm -f fixture_got.bin
}
roundtrip "inclusive" "3 -1 4 1 -5" "3 2 6 7 2"
roundtrip "exclusive" "3 -1 4 1 -5" "0 3 2 6 7" --exclusive
roundtrip "wrap-around" "2147483647 1 -2147483648 -1" "2147483647 -2147483648 0 -1"
roundtrip "one variant" "5 5 5" "5 10 15" --variant "$VARIANT"
# a symbolic link as --output is written through: the file it names gets the result, the link stays
checks=$((checks + 1))
bytes 1 2 3 >fixture_in.bin
bytes 9 9 9 >fixture_target.bin
ln -s fixture_target.bin fixture_link.bin
if ! "$RUN" --input fixture_in.bin --output fixture_link.bin >stdout.txt 2>stderr.txt; then
  fail "--output through a symbolic link: run exited non-zero: $(cat stderr.txt)"
elif [ ! -L fixture_link.bin ] || [ "$(od -An -tx1 fixture_target.bin | tr -d ' \n')" != 010000000300000006000000 ]; then
  fail "--output through a symbolic link: the link was replaced, or its target not written"
fi
roundtrip "empty file" "" ""

# in place: the output may be the input file, on purpose (it is read whole first; common/io.h)
checks=$((checks + 1))
bytes 1 1 1 >fixture_inplace.bin
"$RUN" --input fixture_inplace.bin --output fixture_inplace.bin >/dev/null 2>&1 &&
  bytes 1 2 3 | cmp -s - fixture_inplace.bin || fail "in-place --input/--output"

# ---- a normal run: the table, CSV, and the self-test limited by -n
checks=$((checks + 1))
"$RUN" -n 5000 --reps 2 >stdout.txt 2>stderr.txt || fail "run -n 5000 exited non-zero"
grep -q "ok" stdout.txt || fail "run -n 5000: no verified row"
checks=$((checks + 1))
"$RUN" -n 2^12 --reps 2 --csv >stdout.txt 2>stderr.txt || fail "run --csv exited non-zero"
header=$(grep -v '^#' stdout.txt | head -n 1)
case $header in n,variant,time_us,GB/s,pct_memcpy,*check | n,variant,time_us,GB/s,traffic,moved_GB/s,pct_memcpy,*check) ;; *) false ;; esac ||
  fail "run --csv: unexpected header '$(grep -v '^#' stdout.txt | head -n 1)'"
[ "$(grep -v '^#' stdout.txt | grep -c ',ok$')" -ge 1 ] || fail "run --csv: no verified row"
checks=$((checks + 1))  # n = 0 moves nothing: its rates and shares of a copy are "-"
"$RUN" -n 0 --reps 2 --csv >stdout.txt 2>stderr.txt || fail "run -n 0 exited non-zero"
[ "$(grep -v '^#' stdout.txt | tail -n +2 | awk -F, '$5 != "-" && $4 != "-"' | wc -l)" -eq 0 ] ||
  fail "run -n 0: a row with a rate: $(grep -v '^#' stdout.txt | tail -n +2 | head -n 1)"
checks=$((checks + 1))  # a size the machine cannot hold: refused before the table's header
"$RUN" -n 2^40 --reps 2 >stdout.txt 2>stderr.txt
status=$?
[ "$status" -eq 2 ] || fail "run -n 2^40 exited $status, wanted 2"
! grep -q "variant" stdout.txt || fail "run -n 2^40 printed a table header before its error"
checks=$((checks + 1))
"$RUN" --self-test -n 40 >stdout.txt 2>stderr.txt || fail "run --self-test -n 40 exited non-zero"
grep -q "self-test passed" stdout.txt || fail "self-test -n 40: no pass line"

echo "command line tests: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
