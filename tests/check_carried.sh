#!/usr/bin/env bash
# docs/CONVENTIONS.md §2: device helpers carried over from an earlier chapter are copied unchanged, so
# that `diff` between chapters shows only the new idea. For every __device__ function of every
# chapter (doc comment included), this compares it with the latest earlier chapter that defines a
# function of the same name, and prints any difference.
#   tests/check_carried.sh [CHAPTER_DIR...]   (default: every NN_* folder, in order)
set -u
cd "$(dirname "$0")/.."
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
dirs=${*:-$(ls -d [0-9][0-9]_* 2>/dev/null)}
checked=0 differ=0

# split FILE OUTDIR: each __device__ function, with the comment block just above it, to OUTDIR/NAME.
# A function template (a "template <...>" line above it, chapter 09) is a generic rewrite, not a
# carried helper: it is not compared, only counted, in OUTDIR/.templates.
split_helpers() {
  awk -v out="$2" '
    /^\/\*\*/ { buf = ""; in_comment = 1 }
    in_comment || collecting { buf = buf $0 "\n" }
    in_comment && /\*\// { in_comment = 0; next }
    !in_comment && !collecting && /^template.*__device__/ {
      name = $0; sub(/\(.*/, "", name); sub(/.*[ *]/, "", name)
      print name >> (out "/.templates"); buf = ""; skipping = 1; next
    }
    !in_comment && !collecting && /^template/ { template = 1; next }
    !in_comment && !collecting && /^__device__/ {
      name = $0; sub(/\(.*/, "", name); sub(/.*[ *]/, "", name)
      if (template) { print name >> (out "/.templates"); template = 0; buf = ""; skipping = 1; next }
      buf = buf $0 "\n"; collecting = 1; next
    }
    skipping { if (/^}/) skipping = 0; next }
    collecting && /^}/ { printf "%s", buf > (out "/" name); close(out "/" name); collecting = 0; buf = "" }
    !in_comment && !collecting && !/^__device__/ { buf = ""; template = 0 }
  ' "$1"
}

for d in $dirs; do
  mkdir -p "$TMP/$d"
  for f in "$d"/*.cu; do [ -f "$f" ] && split_helpers "$f" "$TMP/$d"; done
  for h in "$TMP/$d"/*; do
    [ -f "$h" ] || continue
    name=$(basename "$h") earlier=""
    for e in $dirs; do
      [ "$e" = "$d" ] && break
      [ -f "$TMP/$e/$name" ] && earlier=$e
    done
    [ -n "$earlier" ] || continue
    checked=$((checked + 1))
    if ! diff -u "$TMP/$earlier/$name" "$h" >"$TMP/diff.txt"; then
      differ=$((differ + 1))
      echo "FAIL: $name in $d differs from $earlier (carried-over helpers must be unchanged):"
      sed 's/^/  /' "$TMP/diff.txt"
    fi
  done
done
templates=$(cat "$TMP"/*/.templates 2>/dev/null | wc -l)
echo "carried-over device helpers: $checked compared, $differ changed ($templates function templates, generic rewrites, not compared)"
[ "$differ" -eq 0 ]
