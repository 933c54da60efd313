#!/usr/bin/env bash
# End-to-end tests of the shared command line on a real program.
#   tests/test_cli.sh RUN VARIANT [usage-only] [lean]
# RUN is a chapter's ./run, VARIANT one of its --variant names. Bad input must give exit status 2,
# one line on stderr naming the problem, and no output file (not even a temporary one); these
# checks come before any GPU work, so they run everywhere. Unless "usage-only" is given (a GPU
# chapter on a machine without a GPU), --input/--output must also round-trip hand-checked vectors
# exactly (all shorter than any chapter's segment, so segmented chapters give the same answers).
# "lean" (make test, for a chapter after the first of its kind) leaves out the checks of the files
# and streams --input and --output take: common/io.c's code, the same in every chapter, checked in
# full on chapters 01 and 02 by make test and on every chapter by make test-all.
# A program that streams its --input through a device-memory budget (chapter 13: --device-memory)
# reads it chunk by chunk: it refuses a device when it opens it, and finds a pipe's partial last
# element only at its end, after the GPU has started (docs/CONVENTIONS.md §4); its checks say so.
set -u
RUN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
STREAMS=$("$RUN" --help 2>/dev/null | grep -c -- '^  --device-memory ')
VARIANT=$2
USAGE_ONLY= LEAN=
for flag in "${@:3}"; do
  case $flag in
    usage-only) USAGE_ONLY=usage-only ;;
    lean) LEAN=lean ;;
    *) echo "test_cli.sh: unknown flag '$flag' (usage-only, lean)" >&2; exit 2 ;;
  esac
done
TMP=$(mktemp -d)
trap 'umount "$TMP/fixture_tmpfs" 2>/dev/null; rm -rf "$TMP"' EXIT  # a tmpfs of the full-disk check, if one is left mounted
cd "$TMP"
checks=0 failures=0

fail() { failures=$((failures + 1)); echo "FAIL: $*"; }
# a check that cannot run here: one line "SKIP what: why", which make test's summary shows
skip() { echo "SKIP $1: $2"; }

# expect_usage "words in the message" ARGS... : exit 2, one stderr line containing the words,
# and nothing left in the folder besides the fixtures (with bash's own words, not wc, grep and
# ls: a check then starts one process, the program, and this suite runs on every chapter)
expect_usage() {
  local want=$1 status err newlines left=() f
  shift
  checks=$((checks + 1))
  "$RUN" "$@" >stdout.txt 2>stderr.txt
  status=$?
  IFS= read -r -d '' err <stderr.txt
  newlines=${err//[!$'\n']/}
  if [ "$status" -ne 2 ]; then fail "run $* exited $status, wanted 2"; return; fi
  if [ "${#newlines}" -ne 1 ]; then fail "run $*: ${#newlines} lines on stderr, wanted 1"; printf '%s' "$err"; return; fi
  if [[ $err != *"$want"* ]]; then fail "run $*: message '${err%$'\n'}' lacks '$want'"; return; fi
  for f in * .*; do
    case $f in .|..|stdout.txt|stderr.txt|fixture_*) ;; *) [ -e "$f" ] || [ -L "$f" ] && left+=("$f") ;; esac
  done
  if [ "${#left[@]}" -gt 0 ]; then
    fail "run $* left files behind: ${left[*]}"
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
# options as every GNU tool parses them (getopt_long): -n10 is -n 10, abbreviations while
# unambiguous, -- ends the options
expect_usage "'-n' is given twice" -n4 -n 5
expect_usage "'--reps' is given twice" --rep 2 --reps=3
expect_usage "option '--s' is ambiguous: it could be --self-test, --seed, --stress" --s
expect_usage "unexpected argument '-n'" -- -n 5
expect_usage "-n '=10' is not a size" -n=10
expect_usage "'--csv' takes no value" --cs=1
rm -f fixture_out.bin

# ---- bad files: exit 2, one line, no output written
bytes 1 2 3 >fixture_a.bin
printf 'abcde' >fixture_odd.bin
mkdir fixture_dir
lonely_fifo() { :; }  # the FIFO check below replaces it (not in a lean run)
if [ -z "$LEAN" ]; then
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
expect_usage "symbolic link to 'fixture_nowhere/x.bin', in a folder that does not exist" --input fixture_a.bin --output fixture_dangling
kept "symbolic link" fixture_dangling
ln -s fixture_new.bin fixture_dangling_new  # its target could be made: still not written through, as cp does
expect_usage "symbolic link to 'fixture_new.bin', which does not exist" --input fixture_a.bin --output fixture_dangling_new
kept "symbolic link" fixture_dangling_new
checks=$((checks + 1))
[ ! -e fixture_new.bin ] || fail "a dangling link's target was made"
# the file the report goes to is never --output: /dev/stdout into a pipe, or the file of '>'
checks=$((checks + 1))
"$RUN" --input fixture_a.bin --output /dev/stdout 2>stderr.txt | cat >/dev/null
status=${PIPESTATUS[0]}
[ "$status" -eq 2 ] && grep -q "'/dev/stdout' is standard output (a pipe here), where the report goes" stderr.txt ||
  fail "--output /dev/stdout into a pipe: exit $status, $(cat stderr.txt)"
expect_usage "'stdout.txt' is standard output (a regular file here)" --input fixture_a.bin --output stdout.txt
if [ "$(id -u)" -eq 0 ] && mknod fixture_null c 1 3 2>/dev/null; then  # a device node (root only)
  expect_usage "is a device" --input fixture_a.bin --output fixture_null
  kept "character special file" fixture_null
else
  skip "a device node as --output" "making one needs root (mknod)"
fi
if command -v python3 >/dev/null; then  # a socket
  python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("fixture_socket")'
  expect_usage "is a socket" --input fixture_a.bin --output fixture_socket
  kept socket fixture_socket
else
  skip "a socket as --output" "python3 not found (it makes the socket)"
fi
expect_usage "--output '-' would mix" --input fixture_a.bin --output -
# a hard link is refused, and both names keep the file
bytes 7 7 >fixture_linked.bin
ln fixture_linked.bin fixture_other_name.bin
expect_usage "has 2 hard links" --input fixture_a.bin --output fixture_other_name.bin
checks=$((checks + 1))
[ "$(stat -c %h fixture_linked.bin)" = 2 ] && bytes 7 7 | cmp -s - fixture_other_name.bin ||
  fail "a hard-linked --output was detached or changed"

# ---- --input as any Unix tool reads it: to the end, whatever the file is
expect_usage "5 bytes, not a multiple of 4" --input - <fixture_odd.bin
if [ "$STREAMS" -eq 0 ]; then
  expect_usage "5 bytes, not a multiple of 4" --input <(cat fixture_odd.bin)
elif [ "$USAGE_ONLY" = usage-only ]; then  # the GPU is asked for before the pipe's end is seen
  checks=$((checks + 1))
  "$RUN" --input <(cat fixture_odd.bin) >stdout.txt 2>stderr.txt
  status=$?
  [ "$status" -eq 3 ] || fail "a streamed --input of a 5-byte pipe without a GPU: exit $status, wanted 3: $(cat stderr.txt)"
else
  expect_usage "ends with a partial element (1 bytes after 1 elements)" --input <(cat fixture_odd.bin)
fi
expect_usage "5 bytes, not a multiple of 4" --input /dev/stdin <fixture_odd.bin
# an endless device is refused, not taken as empty; under ulimit -v the limit comes quickly (a
# streamed input refuses any device when it opens it)
if [ "$STREAMS" -gt 0 ]; then
  expect_usage "'/dev/zero' is a device, which may never end" --input /dev/zero
elif checks=$((checks + 1)); (ulimit -v 1000000 && "$RUN" --help) >/dev/null 2>&1; then
  (ulimit -v 1000000 && exec "$RUN" --input /dev/zero) >stdout.txt 2>stderr.txt
  status=$?
  [ "$status" -eq 2 ] && grep -q "goes on past" stderr.txt && ! grep -q verified stdout.txt ||
    fail "--input /dev/zero under ulimit -v 1000000: exit $status, $(cat stderr.txt)"
else
  skip "--input /dev/zero" "this program does not start under ulimit -v 1000000 (an AddressSanitizer build reserves terabytes of shadow memory)"
fi
# a terminal is refused (raw int32 values are not typed)
checks=$((checks + 1))
if command -v python3 >/dev/null; then
  python3 -c 'import os, pty, subprocess, sys
m, s = pty.openpty()
sys.exit(subprocess.run([sys.argv[1], "--input", "-"], stdin=s, stdout=subprocess.DEVNULL, stderr=open("stderr.txt", "w"), timeout=20).returncode)' "$RUN"
  status=$?
  [ "$status" -eq 2 ] && grep -q "is a terminal" stderr.txt || fail "--input - from a terminal: exit $status, $(cat stderr.txt)"
else
  skip "--input - from a terminal" "python3 not found (it makes the terminal)"
fi
# a FIFO that nobody writes: the program waits, as cat does, says so, and never reports a result
# (it waits 4 s: started here, in the background, and looked at at the end)
checks=$((checks + 1))
mkfifo fixture_lonely
timeout 4 "$RUN" --input fixture_lonely >fixture_lonely.out 2>fixture_lonely.err &
lonely=$!
lonely_fifo() {
  local status
  wait "$lonely"
  status=$?
  [ "$status" -eq 124 ] && grep -q "waiting for a writer" fixture_lonely.err && ! grep -q verified fixture_lonely.out ||
    fail "--input of a FIFO with no writer: exit $status, stderr '$(cat fixture_lonely.err)', stdout '$(cat fixture_lonely.out)'"
}
# writing to a full standard output is a write error, not a success
checks=$((checks + 1))
if [ -w /dev/full ]; then
  "$RUN" --help >/dev/full 2>stderr.txt
  status=$?
  [ "$status" -eq 4 ] && grep -q "cannot write standard output" stderr.txt ||
    fail "--help >/dev/full: exit $status, wanted 4: $(cat stderr.txt)"
else
  skip "standard output on /dev/full" "/dev/full is missing"
fi
fi  # [ -z "$LEAN" ]: the bad files, what --output replaces, how --input reads
checks=$((checks + 1))
"$RUN" --help >stdout.txt 2>stderr.txt && grep -q -- "--self-test" stdout.txt || fail "--help"
checks=$((checks + 1))  # exit status 3 is CUDA trouble: listed only where there is CUDA code
case $(head -n 1 stdout.txt) in
  01_cpu_serial:*) ! grep -q "CUDA" stdout.txt || fail "chapter 01's --help mentions CUDA: $(grep CUDA stdout.txt)" ;;
  *) grep -q "3 CUDA trouble" stdout.txt || fail "--help lists no exit status 3" ;;
esac
checks=$((checks + 1))
"$RUN" --he >stdout.txt 2>stderr.txt && grep -q -- "--self-test" stdout.txt || fail "--he (for --help)"
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

# ---- chapter 12's --starve: a mode of its own, given alone
if grep -q -- '^  --starve ' fixture_help.txt; then
  expect_usage "--self-test, --stress, --input, --starve are separate modes" --starve --self-test
  expect_usage "are separate modes; give one of them" --starve --input fixture_a.bin --output fixture_out.bin
fi
# ---- chapter 13's device-memory budget and --timeline, checked before the GPU is touched
if [ "$STREAMS" -gt 0 ]; then
  expect_usage "--device-memory '0' is not a size in bytes" --device-memory 0
  expect_usage "--device-memory '1.5GiB' is not a size in bytes" --device-memory 1.5GiB
  expect_usage "--device-memory '2^80' is out of range" --device-memory 2^80
  expect_usage "'--device-memory' is given twice" --device-memory 1GiB --device-memory=2GiB
  expect_usage "is too small: the pipeline needs more than" --input fixture_a.bin --output fixture_out.bin --device-memory 1KiB
  expect_usage "are separate modes; give one of them" --timeline --self-test
fi

if [ "$USAGE_ONLY" = usage-only ]; then
  lonely_fifo
  echo "command line tests (usage only: no GPU here${LEAN:+; lean}): $checks checks, $failures failed"
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
# any name the file system takes: 255 bytes (the temporary name beside it is cut to fit)
checks=$((checks + 1))
long=$(printf 'x%.0s' $(seq 255))
bytes 3 -1 4 1 -5 >fixture_in.bin
if ! "$RUN" --input fixture_in.bin --output "$long" >stdout.txt 2>stderr.txt; then
  fail "--output of a 255-byte name: $(cat stderr.txt)"
elif ! bytes 3 2 6 7 2 | cmp -s - "$long" || [ -n "$(ls -A | grep '\.tmp')" ]; then
  fail "--output of a 255-byte name: wrong content, or a temporary file left"
fi
rm -f "$long"

if [ -z "$LEAN" ]; then
# ---- --input from a pipe, a FIFO, standard input: the same answer as from a file
piped() { # name command-producing-input... : run with the input from it, compare with the answer
  local name=$1
  shift
  checks=$((checks + 1))
  if ! "$@" >stdout.txt 2>stderr.txt; then
    fail "--input $name: run exited non-zero: $(cat stderr.txt)"
  elif ! bytes 3 2 6 7 2 | cmp -s - fixture_got.bin; then
    fail "--input $name: output differs from the hand-checked answer"
  elif [ "$(grep -c "5 elements" stdout.txt)" -lt 1 ]; then
    fail "--input $name: the report does not say 5 elements: $(cat stdout.txt)"
  fi
  rm -f fixture_got.bin
}
bytes 3 -1 4 1 -5 >fixture_in.bin
piped "- (standard input)" "$RUN" --input - --output fixture_got.bin <fixture_in.bin
piped "/dev/stdin" "$RUN" --input /dev/stdin --output fixture_got.bin <fixture_in.bin
piped "<(cat F)" "$RUN" --input <(cat fixture_in.bin) --output fixture_got.bin
mkfifo fixture_fifo_in
{ sleep 1; cat fixture_in.bin >fixture_fifo_in; } &
writer=$!
piped "a FIFO" "$RUN" --input fixture_fifo_in --output fixture_got.bin
wait "$writer"

# in place: the output may be the input file, on purpose (it is read whole first; common/io.h)
checks=$((checks + 1))
bytes 1 1 1 >fixture_inplace.bin
"$RUN" --input fixture_inplace.bin --output fixture_inplace.bin >/dev/null 2>&1 &&
  bytes 1 2 3 | cmp -s - fixture_inplace.bin || fail "in-place --input/--output"

# ---- --output keeps what it replaces: mode, owner and group (root); a failed write keeps it all
checks=$((checks + 1))
bytes 9 >fixture_mode.bin
chmod 640 fixture_mode.bin
"$RUN" --input fixture_in.bin --output fixture_mode.bin >stdout.txt 2>stderr.txt &&
  [ "$(stat -c %a fixture_mode.bin)" = 640 ] && bytes 3 2 6 7 2 | cmp -s - fixture_mode.bin ||
  fail "--output over a 0640 file: now $(stat -c %a fixture_mode.bin), or not written: $(cat stderr.txt)"
nobody_uid=$(id -u nobody 2>/dev/null)
nobody_gid=$(id -g nobody 2>/dev/null)
if [ "$(id -u)" -eq 0 ] && [ -n "$nobody_uid" ]; then
  checks=$((checks + 1))  # root replaces a user's private file: it stays theirs, and private
  bytes 9 >fixture_private.bin
  chown "$nobody_uid:$nobody_gid" fixture_private.bin && chmod 600 fixture_private.bin
  "$RUN" --input fixture_in.bin --output fixture_private.bin >stdout.txt 2>stderr.txt &&
    [ "$(stat -c %u:%g:%a fixture_private.bin)" = "$nobody_uid:$nobody_gid:600" ] ||
    fail "root's --output over nobody's 0600 file: now $(stat -c %u:%g:%a fixture_private.bin): $(cat stderr.txt)"
else
  skip "--output keeps owner and group" "needs root and a user 'nobody' to own the file"
fi
# as a user who is not root: mode kept, a file it may not write refused (exit 2, file intact)
as_nobody=""
if [ "$(id -u)" -eq 0 ] && [ -n "$nobody_uid" ] && command -v setpriv >/dev/null; then
  as_nobody="setpriv --reuid=$nobody_uid --regid=$nobody_gid --clear-groups"
elif [ "$(id -u)" -eq 0 ] && [ -n "$nobody_uid" ] && command -v runuser >/dev/null; then
  as_nobody="runuser -u nobody --"
fi
if [ -n "$as_nobody" ]; then
  mkdir fixture_nobody && cp "$RUN" fixture_nobody/run && cp fixture_in.bin fixture_nobody/in.bin
  bytes 9 >fixture_nobody/own.bin && bytes 9 >fixture_nobody/readonly.bin
  chmod 640 fixture_nobody/own.bin && chmod 444 fixture_nobody/readonly.bin
  chown -R "$nobody_uid:$nobody_gid" fixture_nobody && chmod 755 . fixture_nobody
  checks=$((checks + 1))
  (cd fixture_nobody && $as_nobody ./run --input in.bin --output own.bin) >stdout.txt 2>stderr.txt
  status=$?
  if [ "$status" -eq 3 ]; then
    skip "--output as nobody" "nobody may not use the GPU here: $(head -n 1 stderr.txt)"
  elif [ "$status" -ne 0 ] || [ "$(stat -c %u:%a fixture_nobody/own.bin)" != "$nobody_uid:640" ]; then
    fail "nobody's --output over its 0640 file: exit $status, now $(stat -c %u:%a fixture_nobody/own.bin): $(cat stderr.txt)"
  fi
  checks=$((checks + 1))
  (cd fixture_nobody && $as_nobody ./run --input in.bin --output readonly.bin) >stdout.txt 2>stderr.txt
  status=$?
  [ "$status" -eq 2 ] && grep -q "cannot write --output" stderr.txt && bytes 9 | cmp -s - fixture_nobody/readonly.bin ||
    fail "nobody's --output over a 0444 file: exit $status, wanted 2 and the file intact: $(cat stderr.txt)"
  chmod 700 .
  rm -rf fixture_nobody
else
  skip "--output as a user who is not root" "needs root, a user 'nobody' and setpriv or runuser"
fi
# a write that fails (here: past a file-size limit, ulimit -f in 1024-byte blocks) exits 4
# and leaves the file it would have replaced as it was, and no temporary file
bytes 5 5 5 >fixture_kept.bin
head -c 8192 /dev/zero >fixture_8k.bin
write_fails() { # what run-prefix... : the run must exit 4 with the old file and nothing else left
  local what=$1 target=$2 status
  shift 2
  checks=$((checks + 1))
  "$@" >stdout.txt 2>stderr.txt
  status=$?
  if [ "$status" -ne 4 ] || ! grep -q "cannot write --output" stderr.txt; then
    fail "$what: exit $status, wanted 4 with a message: $(cat stderr.txt)"
  elif ! bytes 5 5 5 | cmp -s - "$target"; then
    fail "$what: the file it would have replaced was changed"
  elif [ -n "$(ls -A "$(dirname "$target")" | grep '\.tmp')" ]; then
    fail "$what: left a temporary file: $(ls -A "$(dirname "$target")" | grep '\.tmp')"
  fi
}
write_fails "--output past ulimit -f" fixture_kept.bin \
  bash -c 'ulimit -f 4 && exec "$@"' - "$RUN" --input fixture_8k.bin --output fixture_kept.bin
# a report that cannot be written (a full standard output): exit 4, and the file is not replaced
checks=$((checks + 1))
if [ -w /dev/full ]; then
  "$RUN" --input fixture_in.bin --output fixture_kept.bin >/dev/full 2>stderr.txt
  status=$?
  [ "$status" -eq 4 ] && grep -q "cannot write standard output" stderr.txt && [ "$(wc -l <stderr.txt)" -eq 1 ] &&
    bytes 5 5 5 | cmp -s - fixture_kept.bin && [ -z "$(ls -A | grep '\.tmp')" ] ||
    fail "--output with standard output on /dev/full: exit $status (wanted 4), file $(od -An -tx1 fixture_kept.bin | tr -d ' '): $(cat stderr.txt)"
else
  skip "--output with a full standard output" "/dev/full is missing"
fi
# the same on a full disk: a small tmpfs (root, where mount works)
mkdir fixture_tmpfs
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=64k tmpfs fixture_tmpfs 2>/dev/null; then
  bytes 5 5 5 >fixture_tmpfs/kept.bin
  head -c 1048576 /dev/zero >fixture_tmpfs/filler 2>/dev/null  # fills it: ENOSPC
  write_fails "--output on a full tmpfs" fixture_tmpfs/kept.bin "$RUN" --input fixture_8k.bin --output fixture_tmpfs/kept.bin
  umount fixture_tmpfs
else
  skip "--output on a full disk (tmpfs)" "mounting a small tmpfs needs root and a kernel that allows it here"
fi
rmdir fixture_tmpfs

# ---- a signal that ends the program (SIGHUP, SIGQUIT, SIGTERM, SIGINT, SIGPIPE) leaves no
# temporary file: a scan large enough to be caught while its output is pending
head -c $((4 << 24)) /dev/zero >fixture_large.bin
for sig in HUP QUIT TERM INT PIPE; do
  checks=$((checks + 1))
  rm -f fixture_sig.bin
  # job control on (set -m), so that a background job does not start with SIGINT and SIGQUIT ignored
  bash -c 'set -m; ulimit -c 0; "$1" --input fixture_large.bin --output fixture_sig.bin >/dev/null 2>&1 &
           pid=$!; for i in $(seq 2000); do compgen -G ".fixture_sig.bin.tmp*" >/dev/null && break;
           kill -0 $pid 2>/dev/null || break; sleep 0.01; done; kill -'"$sig"' $pid 2>/dev/null; wait $pid' - "$RUN"  2>/dev/null
  status=$?
  if [ "$status" -eq 0 ]; then
    skip "SIG$sig while --output is pending" "the run ended before the signal came"
  elif [ -n "$(ls -A | grep '^\.fixture_sig\.bin\.tmp')" ] || [ -e fixture_sig.bin ]; then
    fail "SIG$sig while --output is pending (exit $status): $(ls -A | grep fixture_sig | tr '\n' ' ')left behind"
  fi
  rm -f .fixture_sig.bin.tmp*
done
rm -f fixture_large.bin

fi  # [ -z "$LEAN" ]: pipes, FIFOs, standard input, modes kept, write errors, signals

# ---- chapter 12: a variant that cannot be held back is refused; chapter 07's look-back, held
# back, is stopped by its watchdog (exit 3), never a hang
if grep -q -- '^  --starve ' fixture_help.txt; then
  expect_usage "CUB's cannot be held" --starve --variant cub
  checks=$((checks + 1))
  timeout 120 "$RUN" --starve --variant decoupled-lookback -n 3077 >stdout.txt 2>stderr.txt
  status=$?
  # the watchdog's line is the kernel's printf, which CUDA writes to standard output
  [ "$status" -eq 3 ] && grep -q "^watchdog: " stdout.txt ||
    fail "--starve --variant decoupled-lookback: exit $status, wanted 3 and the watchdog's line on standard output: $(tail -n 3 stderr.txt)"
fi
# ---- chapter 13: arrays larger than the budget's chunks (256 KiB: chunks of 20480 elements, 4
# of them through 3 slots), from a file and from a pipe, and a pipe that ends with a partial
# element after several chunks: exit 2, --output as it was
if [ "$STREAMS" -gt 0 ]; then
  if command -v perl >/dev/null; then
    perl -e 'print pack("l<*", (1) x 70001)' >fixture_ones.bin
    perl -e 'print pack("l<*", 1 .. 70001)' >fixture_ones_inclusive.bin
    perl -e 'print pack("l<*", 0 .. 70000)' >fixture_ones_exclusive.bin
    chunked() { # name expected-file run-arguments...: the output must equal the expected file
      local name=$1 want=$2
      shift 2
      checks=$((checks + 1))
      if ! "$@" >stdout.txt 2>stderr.txt; then
        fail "$name: exit non-zero: $(cat stderr.txt)"
      elif ! cmp -s fixture_got.bin "$want"; then
        fail "$name: the output differs from 1, 2, 3, ... (or 0, 1, 2, ...)"
      fi
      rm -f fixture_got.bin
    }
    chunked "70001 ones in chunks" fixture_ones_inclusive.bin \
      "$RUN" --input fixture_ones.bin --output fixture_got.bin --device-memory 256KiB
    chunked "70001 ones in chunks, from a pipe" fixture_ones_inclusive.bin \
      "$RUN" --input <(cat fixture_ones.bin) --output fixture_got.bin --device-memory 256KiB
    cp fixture_ones.bin fixture_got.bin
    chunked "70001 ones in chunks, exclusive, in place" fixture_ones_exclusive.bin \
      "$RUN" --input fixture_got.bin --output fixture_got.bin --exclusive --device-memory 256KiB
    bytes 5 5 5 >fixture_kept13.bin
    checks=$((checks + 1))
    { cat fixture_ones.bin; printf 'x'; } | "$RUN" --input - --output fixture_kept13.bin --device-memory 256KiB >stdout.txt 2>stderr.txt
    status=$?
    [ "$status" -eq 2 ] && grep -q "ends with a partial element (1 bytes after 70001 elements)" stderr.txt &&
      bytes 5 5 5 | cmp -s - fixture_kept13.bin && [ -z "$(ls -A | grep '\.tmp')" ] ||
      fail "a pipe with a partial last element after 4 chunks: exit $status (wanted 2), --output changed or a temporary file left: $(cat stderr.txt)"
  else
    skip "chapter 13's chunked files" "perl not found (it writes the fixtures)"
  fi
fi

# ---- a normal run: the table, CSV, and the self-test limited by -n
checks=$((checks + 1))
"$RUN" -n 5000 --reps 2 >stdout.txt 2>stderr.txt || fail "run -n 5000 exited non-zero"
grep -q "ok" stdout.txt || fail "run -n 5000: no verified row"
checks=$((checks + 1))
"$RUN" -n 2^12 --reps 2 --csv >stdout.txt 2>stderr.txt || fail "run --csv exited non-zero"
header=$(grep -v '^#' stdout.txt | head -n 1)
# (chapter 13's ceiling is the duplex host<->device copy: pct_ceiling, ceiling_spread_pct)
case $header in n,variant,time_us,GB/s,pct_memcpy,*check | n,variant,time_us,GB/s,traffic,moved_GB/s,pct_memcpy,*check | \
  n,variant,time_us,GB/s,pct_ceiling,*check) ;; *) false ;; esac ||
  fail "run --csv: unexpected header '$(grep -v '^#' stdout.txt | head -n 1)'"
[ "$(grep -v '^#' stdout.txt | grep -c ',ok$')" -ge 1 ] || fail "run --csv: no verified row"
checks=$((checks + 1))  # every timed row carries its spread, its memcpy's (or ceiling's), and a noise flag
grep -v '^#' stdout.txt | awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i
    copy = col["memcpy_spread_pct"] ? col["memcpy_spread_pct"] : col["ceiling_spread_pct"]
    if (!col["spread_pct"] || !copy || !col["noise"]) { print "no spread or noise column"; exit 1 }
    next }
  $col["spread_pct"] !~ /^[0-9]+\.[0-9]$/ || $copy !~ /^[0-9]+\.[0-9]$/ ||
  $col["noise"] !~ /^(-|noisy|over-memcpy|noisy\+over-memcpy)$/ { print "bad cells: " $0; bad = 1 }
  END { exit bad }' >awk.txt || fail "run --csv: $(head -n 1 awk.txt)"
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

lonely_fifo
echo "command line tests${LEAN:+ (lean)}: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
