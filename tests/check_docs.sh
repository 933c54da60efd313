#!/usr/bin/env bash
# The generated HTML of `make docs`, read as a reader sees it (part of `make docs`, and so of CI).
# In every page made from Markdown (the README, the notes, docs/): no raw markup in the text
# (a literal <tt>, <code>, ** or backtick means Doxygen did not render what the source meant), no
# en-dash inside code (a copied command would fail), and every image resolves to a file.
#   tests/check_docs.sh HTML_DIR
set -u
dir=${1:?"usage: tests/check_docs.sh HTML_DIR"}
[ -d "$dir" ] || { echo "check_docs: no folder $dir; run make docs" >&2; exit 2; }
problems=0 pages=0
for page in "$dir"/*.html; do
  grep -q '<!-- PageDoc -->' "$page" || [ "$(basename "$page")" = index.html ] || continue
  pages=$((pages + 1))
  name=$(basename "$page")
  # images: relative sources must exist beside the page
  for src in $(grep -o '<img [^>]*src="[^"]*"' "$page" | sed 's/.*src="\([^"]*\)"/\1/'); do
    case $src in http*|data:*) continue ;; esac
    [ -e "$dir/$src" ] || { echo "$name: image does not resolve: $src"; problems=$((problems + 1)); }
  done
  # code: fragments (blocks) and inline <code>; text: the rest
  awk -v name="$name" '
    BEGIN { problems = 0 }
    /<div class="fragment">/ { in_block = 1 }
    {
      line = $0
      if (in_block) {
        end = index(line, "</div><!-- fragment -->")
        block = end ? substr(line, 1, end - 1) : line
        if (block ~ /–|&ndash;/) { print name ": en-dash in a code block: " substr(block, 1, 100); problems++ }
        if (!end) next
        in_block = 0
        line = substr(line, end + 23)
      }
      code = line; text = line
      while (match(code, /<code>([^<]|<[^\/]|<\/[^c])*<\/code>/)) {
        c = substr(code, RSTART, RLENGTH)
        gsub(/<[^>]*>/, "", c)  # the visible code, not the title of a link
        if (c ~ /–|&ndash;/) { print name ": en-dash in code: " c; problems++ }
        code = substr(code, RSTART + RLENGTH)
      }
      gsub(/<code>([^<]|<[^\/]|<\/[^c])*<\/code>/, "", text)
      if (text ~ /&lt;\/?(tt|code|b|em)&gt;/) { print name ": raw markup: " substr(text, 1, 120); problems++ }
      if (text ~ /\*\*/) { print name ": raw **: " substr(text, 1, 120); problems++ }
      if (text ~ /`/) { print name ": raw backtick: " substr(text, 1, 120); problems++ }
    }
    END { exit problems > 0 }' "$page" || problems=$((problems + 1))
done
echo "docs check: $pages pages, $([ "$problems" -eq 0 ] && echo "no problems" || echo "PROBLEMS above")"
# the links: every reference resolves, in place and in a copy elsewhere; links land in the right
# chapter; previous/next; each chapter file's page links its notes (tests/check_site.py)
python3 "$(dirname "$0")/check_site.py" "$dir" "$(dirname "$dir")/site.tag" || problems=$((problems + 1))
[ "$problems" -eq 0 ]
