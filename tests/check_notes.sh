#!/usr/bin/env bash
# The chapters' notes follow the outline of docs/CONVENTIONS.md §8: each NN_name/README.md has
# the sections Goal, Idea, Walkthrough, Run and expected output, Why this speed, Common bugs and
# Exercises ("## " headings, in this order; other sections may come between them); its "Run and
# expected output" names the date of its run (YYYY-MM-DD); and every numbered exercise says how
# it is checked (a "*Check:*" in the item).
#   tests/check_notes.sh CHAPTER_DIR...     (make test passes the chapters that exist)
# Prints one line per problem, then a summary; exit 1 on any problem.
set -u
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: tests/check_notes.sh CHAPTER_DIR..." >&2; exit 2; }
status=0 count=0
for c in "$@"; do
  f="$c/README.md"
  [ -f "$f" ] || { echo "$f: missing"; status=1; continue; }
  count=$((count + 1))
  awk -v f="$f" '
    BEGIN { n = split("Goal|Idea|Walkthrough|Run and expected output|Why this speed|Common bugs|Exercises", want, "|"); next_want = 1 }
    /^```/ { fence = !fence; next }
    fence { next }
    /^## / {
      section = substr($0, 4)
      if (next_want <= n && section == want[next_want]) next_want++
      else for (i = next_want + 1; i <= n; ++i) if (section == want[i]) {
        printf "%s: \"## %s\" comes before \"## %s\"\n", f, section, want[next_want]; bad = 1 }
      item = 0; next
    }
    section == "Run and expected output" && /20[0-9][0-9]-[01][0-9]-[0-3][0-9]/ { dated = 1 }
    section == "Exercises" && /^[0-9]+\. / { if (item && !checked) missing = missing " " item; item = $1 + 0; checked = 0 }
    section == "Exercises" && /\*Check:\*/ { checked = 1 }
    END {
      if (item && !checked) missing = missing " " item
      if (next_want <= n) { printf "%s: no \"## %s\" section (in the order of docs/CONVENTIONS.md §8)\n", f, want[next_want]; bad = 1 }
      if (!dated) { printf "%s: \"Run and expected output\" names no date of its run\n", f; bad = 1 }
      if (missing != "") { printf "%s: exercise(s)%s say no *Check:*\n", f, missing; bad = 1 }
      exit bad
    }' "$f" || status=1
done
[ "$status" -eq 0 ] && echo "chapter notes follow docs/CONVENTIONS.md §8: $count chapters"
exit $status
