#!/usr/bin/env bash
# The chapters' notes follow the lesson shape of docs/CONVENTIONS.md §8. For each
# NN_name/README.md:
#  - the sections The question, The idea, The code, Run it, What the numbers say, Common bugs,
#    Exercises and Further reading ("## " headings, in this order; sections of the chapter's own
#    may come between them);
#  - "Run it" names the date of the run its output was copied from (YYYY-MM-DD);
#  - every exercise (a numbered item of "Exercises": "1. …" or "- **1.** …") has a *Check:*, and
#    no *Check:* sends the student to the answers page (docs/answers.md, "the answers"): the
#    students' copy replaces that page with "Ask your instructor";
#  - at most 3000 words by `wc -w` (code blocks included), chapter 08 at most 3500;
#  - every student-part marker in the chapter's sources ("explained in NN_name/README.md,
#    \"Section\"", classroom/kit.py) names a section that the README it names has.
#   tests/check_notes.sh CHAPTER_DIR...     (make test passes the chapters that exist)
# Prints one line per problem, then a summary; exit 1 on any problem, 2 on bad usage.
set -u
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: tests/check_notes.sh CHAPTER_DIR..." >&2; exit 2; }
WORDS=3000       # docs/CONVENTIONS.md §8
WORDS_08=3500    # chapter 08, the memory system's several steps
status=0 count=0
for c in "$@"; do
  c=${c%/}
  f="$c/README.md"
  [ -f "$f" ] || { echo "$f: missing"; status=1; continue; }
  count=$((count + 1))
  awk -v f="$f" '
    BEGIN {
      n = split("The question|The idea|The code|Run it|What the numbers say|Common bugs|Exercises|Further reading", want, "|")
      next_want = 1
    }
    function end_item() {
      if (item && !checked) missing = missing " " item
      item = 0
    }
    /^```/ { fence = !fence; next }
    fence { next }
    /^## / {
      end_item()
      section = substr($0, 4)
      if (next_want <= n && section == want[next_want]) next_want++
      else for (i = next_want + 1; i <= n; ++i) if (section == want[i]) {
        printf "%s:%d: \"## %s\" comes before \"## %s\" (docs/CONVENTIONS.md §8)\n", f, FNR, section, want[next_want]; bad = 1 }
      next
    }
    section == "Run it" && /20[0-9][0-9]-[01][0-9]-[0-3][0-9]/ { dated = 1 }
    section == "Exercises" && (/^[0-9]+\. / || /^- \*\*[0-9]+\.\*\* /) {
      end_item()
      item = $0; sub(/^- \*\*/, "", item); item = item + 0; checked = 0; told = 0
    }
    section == "Exercises" && item && /\*Check:\*/ { checked = 1 }
    section == "Exercises" && item && checked {
      text = $0
      if (index(text, "*Check:*")) text = substr(text, index(text, "*Check:*"))
      if (!told && tolower(text) ~ /answers\.md|answers page|the answers([^a-z]|$)/) {
        told = 1
        printf "%s:%d: exercise %d: its *Check:* points at the answers page, which the copy for students replaces with \"Ask your instructor\": name something a student can run or see\n", f, FNR, item
        bad = 1
      }
    }
    END {
      end_item()
      if (next_want <= n) { printf "%s: no \"## %s\" section in its place (docs/CONVENTIONS.md §8 gives the order)\n", f, want[next_want]; bad = 1 }
      if (!dated) { printf "%s: \"Run it\" names no date of the run its output comes from (YYYY-MM-DD)\n", f; bad = 1 }
      if (missing != "") { printf "%s: exercise(s)%s say no *Check:*\n", f, missing; bad = 1 }
      exit bad
    }' "$f" || status=1
  limit=$WORDS
  case $(basename "$c") in 08_*) limit=$WORDS_08 ;; esac
  words=$(wc -w < "$f")
  if [ "$words" -gt "$limit" ]; then
    echo "$f: $words words, more than $limit (wc -w; docs/CONVENTIONS.md §8): say less, move side studies to docs/experiments/"
    status=1
  fi
done

# Student-part markers name a section of the notes (classroom/kit.py); a renamed section leaves
# them pointing at nothing. Checked in the sources of the chapters given.
problems=$(mktemp)
for c in "$@"; do
  for src in "${c%/}"/*.c "${c%/}"/*.cu; do
    [ -f "$src" ] || continue
    grep -n '\[student part: [a-z0-9-]*; explained in ' "$src" |
      sed -n 's/^\([0-9]*\):.*explained in \([^,]*\), "\([^"]*\)"\].*/\1|\2|\3/p' |
      while IFS='|' read -r line readme sect; do
        if [ ! -f "$readme" ]; then
          echo "$src:$line: the student-part marker names $readme, which does not exist"
        elif ! grep -qxF "## $sect" "$readme" && ! grep -qxF "### $sect" "$readme"; then
          echo "$src:$line: the student-part marker names \"$sect\", a section $readme does not have"
        fi
      done
  done
done > "$problems"
[ -s "$problems" ] && { cat "$problems"; status=1; }
rm -f "$problems"

[ "$status" -eq 0 ] && echo "chapter notes follow the lesson shape of docs/CONVENTIONS.md §8: $count chapters"
exit $status
