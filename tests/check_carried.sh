#!/usr/bin/env bash
# docs/CONVENTIONS.md §2: device helpers carried over from an earlier chapter are copied unchanged, so
# that `diff` between chapters shows only the new idea. For every __device__ function of every
# chapter (doc comment included), and every function template and struct (chapter 09's generic
# pass and operators, carried into chapter 10), this compares it with the latest earlier chapter
# that defines one of the same name and kind, and prints any difference.
#   tests/check_carried.sh [CHAPTER_DIR...]   (default: every NN_* folder, in order)
set -u
cd "$(dirname "$0")/.."
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
dirs=${*:-$(ls -d [0-9][0-9]_* 2>/dev/null)}
checked=0 differ=0 generic=0

# split FILE OUTDIR: each __device__ function, with the comment block just above it, to OUTDIR/NAME.
# Templates and structs (chapter 09 on: the generic pass and its operators, which chapter 10 carries
# over) go to OUTDIR/tpl.NAME and OUTDIR/struct.NAME, each with its comment: every function template
# (device or host), every struct (template or not). A template of the same name as an earlier
# chapter's plain function (chapter 09's look_back<Op>() against chapter 08's look_back()) is a
# generic rewrite, a new function: it is compared only with earlier templates.
split_helpers() {
  awk -v out="$2" '
    function fname(line) { sub(/\(.*/, "", line); sub(/.*[ *]/, "", line); return line }
    function start(header) {
      if (header ~ /^(template[^>]*> *)?struct [A-Za-z_0-9]+/) {
        kind = "struct"; name = header; sub(/^(template[^>]*> *)?struct /, "", name); sub(/[^A-Za-z_0-9].*/, "", name)
        key = "struct." name
      } else {
        kind = "function"
        if (header ~ /__launch_bounds__/) { need_name = 1; key = "" } else { key = (tpl ? "tpl." : "") fname(header) }
      }
      collecting = 1
    }
    /^\/\*\*/ && !collecting { buf = ""; in_comment = 1 }
    in_comment || collecting { buf = buf $0 "\n" }
    in_comment && /\*\// { in_comment = 0; next }
    collecting && need_name { s = $0; sub(/^ */, "", s); key = "tpl." fname(s); need_name = 0 }
    collecting && kind == "function" && /^}/ { emit(); next }
    collecting && kind == "struct" && /^};/ { emit(); next }
    collecting { next }
    after_template { after_template = 0; buf = buf $0 "\n"; start($0); next }
    /^template/ {
      tpl = 1; buf = buf $0 "\n"
      if ($0 ~ /\(/ || $0 ~ /struct /) start($0); else after_template = 1
      next
    }
    /^struct [A-Za-z_0-9]+ \{/ { tpl = 0; buf = buf $0 "\n"; start($0); next }
    /^__device__/ { tpl = 0; buf = buf $0 "\n"; start($0); next }
    !in_comment { buf = "" }
    function emit() {
      if (key != "") { printf "%s", buf > (out "/" key); close(out "/" key) }
      collecting = 0; buf = ""; tpl = 0; kind = ""
    }
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
    case $name in tpl.* | struct.*) generic=$((generic + 1)) ;; esac
    if ! diff -u "$TMP/$earlier/$name" "$h" >"$TMP/diff.txt"; then
      differ=$((differ + 1))
      echo "FAIL: $name in $d differs from $earlier (carried-over helpers must be unchanged):"
      sed 's/^/  /' "$TMP/diff.txt"
    fi
  done
done
echo "carried-over device helpers: $checked compared ($generic of them templates or structs), $differ changed"
[ "$differ" -eq 0 ]
