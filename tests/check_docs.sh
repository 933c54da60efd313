#!/usr/bin/env bash
# The site of `make docs`, read as a reader sees it (part of `make docs`, and so of CI):
#   tests/check_docs.sh HTML_DIR
# 1. The Markdown of every page (the list: docs/site/site_pages.py --files), for what Doxygen 1.9.4
#    renders differently from GitHub:
#    - an ordered list that does not count 1, 2, 3, … (Doxygen numbers every list from 1, so
#      "2. 4. 5." reads "1. 2. 3." on the site);
#    - a line inside a paragraph that starts with a number and a dot ("… in the low\n32. `x()`"):
#      Doxygen starts a list there and drops the number, GitHub keeps the text;
#    - a formula outside TeX (docs/CONVENTIONS.md §8: one notation, $…$): a Unicode subscript
#      digit, a floor or ceiling bracket, or an ASCII subscript such as x_i or h_{t-1}, outside
#      code and $…$.
# 2. The generated HTML of every page made from Markdown: no raw markup in the text (a literal
#    <tt>, <code>, **, backtick, or an asterisk against a word — "*`cp.async` staging.*" — means
#    Doxygen did not render what the source meant; a Markdown link "[LICENSE](LICENSE)" to a file
#    Doxygen cannot link; a \f$ formula it did not render), no space between a bracket and a
#    formula ("( x)": Doxygen writes one where the Markdown had "($x$"), no en-dash inside code
#    (a copied command would fail), and every image resolves to a file.
#    The figures of docs/figures: no text against the bottom edge.
# 3. tests/check_site.py: every link of the site resolves, also in a copy elsewhere; links land
#    in the right chapter; previous/next at the top and the bottom of every page; each chapter
#    file's page links its notes; every mention of a file the site has is a link.
# 4. tests/check_browser.py: every page in headless Chromium at 1024 px and at 390 px (a phone):
#    no resource that fails to load, no JavaScript error, no page wider than the screen, tables,
#    code blocks and formulas that scroll with a hint, no code broken at a hyphen, code of 13 px
#    and comments at 4.5:1, figures that open on a page of their own, the phone's menu, five
#    searches of the notes (each finds the chapter that teaches it first); skipped, with the
#    reason, where there is no Chromium, or with CHECK_BROWSER=0.
set -u
dir=${1:?"usage: tests/check_docs.sh HTML_DIR"}
[ -d "$dir" ] || { echo "check_docs: no folder $dir; run make docs" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
problems=0 pages=0 sources=0

# 1. the Markdown sources
for md in $(cd "$root" && python3 docs/site/site_pages.py --files); do
  sources=$((sources + 1))
  awk -v name="$md" '
    function say(msg) { print name ":" FNR ": " msg; bad++ }
    BEGIN { bad = 0 }
    /^[ \t]*(```|~~~)/ { fence = !fence; prev = "other"; next }
    fence { next }
    /^[ \t]*$/ { blank = 1; next }
    {
      prose = $0
      gsub(/`[^`]*`/, "", prose)
      gsub(/\$\$.*\$\$|\$[^$]*\$/, "", prose)
      if (prose ~ /₀|₁|₂|₃|₄|₅|₆|₇|₈|₉|⌈|⌉|⌊|⌋/ || prose ~ /(^|[^A-Za-z0-9_])[A-Za-z]_(\{|[a-z0-9]([^A-Za-z0-9_]|$))/)
        say("a formula outside $…$: write it in TeX between dollar signs (docs/CONVENTIONS.md §8): " substr(prose, 1, 80))
    }
    {
      match($0, /^ */); ind = RLENGTH
      if (match($0, /^ *[0-9]+[.)] /)) {
        num = substr($0, ind + 1) + 0
        inside = !in_list && !blank && prev == "text" && num != 1
        if (inside)
          say("\"" num ".\" starts a line inside a paragraph: Doxygen makes it a list item and drops the number (GitHub keeps the text); reflow the paragraph")
        for (k in expect) if (k + 0 > ind) delete expect[k]
        if (inside) {
        } else if (!(ind in expect)) {
          if (num != 1)
            say("this ordered list starts at " num ": Doxygen numbers every list from 1, so the site would show another number; use a bullet with the number in bold (\"- **" num ".** …\")")
        } else if (num != expect[ind]) {
          say("item " num " follows item " expect[ind] - 1 ": Doxygen numbers items consecutively, so the site would show " expect[ind] "; use bullets with the numbers in bold")
        }
        expect[ind] = num + 1
        in_list = 1; prev = "item"
      } else if ($0 ~ /^ *[-*+] /) {
        for (k in expect) if (k + 0 >= ind) delete expect[k]
        in_list = 1; prev = "item"
      } else {
        if (blank && ind == 0) { in_list = 0; for (k in expect) delete expect[k] }
        prev = ($0 ~ /^ *(#|\||<|>)/) ? "other" : "text"
      }
      blank = 0
    }
    END { exit bad > 0 }' "$root/$md" || problems=$((problems + 1))
done

# 2. the HTML of the pages made from Markdown
for page in "$dir"/*.html; do
  grep -q '<!-- PageDoc -->' "$page" || [ "$(basename "$page")" = index.html ] || continue
  pages=$((pages + 1))
  name=$(basename "$page")
  # images: relative sources must exist beside the page
  for src in $(grep -o '<img [^>]*src="[^"]*"' "$page" | sed 's/.*src="\([^"]*\)"/\1/'); do
    case $src in http*|data:*) continue ;; esac
    [ -e "$dir/$src" ] || { echo "$name: image does not resolve: $src"; problems=$((problems + 1)); }
  done
  # code: fragments (blocks) and inline <code>; text: the rest, between the page's contents markers
  awk -v name="$name" '
    BEGIN { problems = 0 }
    /<div class="contents">/ { in_contents = 1 }
    /<!-- contents -->/ { in_contents = 0 }
    !in_contents { next }
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
      visible = text
      gsub(/<[^>]*>/, "", visible)
      if (match(visible, /[(\[{](\342\201\240)? \\[(\[]/))  # (a word joiner that postprocess.py left)
        { print name ": a space between a bracket and a formula (docs/site/postprocess.py joins them): …" substr(visible, RSTART > 40 ? RSTART - 40 : 1, 80); problems++ }
      if (match(visible, /\\f[$\[\]]/))
        { print name ": a formula Doxygen did not render (a \\f$ left in the text): …" substr(visible, RSTART > 40 ? RSTART - 40 : 1, 80); problems++ }
      gsub(/\\\(([^\\]|\\[^)])*\\\)|\\\[([^\\]|\\[^\]])*\\\]/, "", visible)  # formulas, for MathJax
      if (match(visible, /\]\(/))
        { print name ": raw Markdown link (a target Doxygen cannot link; docs/site/doxy_filter.py points links to repository files at files/): …" substr(visible, RSTART > 40 ? RSTART - 40 : 1, 80); problems++ }
      if (visible ~ /(^|[^ \t])\*|\*([^ \t]|$)/)
        { print name ": raw asterisk (emphasis Doxygen did not render?): " substr(visible, 1, 120); problems++ }
    }
    END { exit problems > 0 }' "$page" || problems=$((problems + 1))
done
# the figures: no line of text on or against the bottom edge (its descenders are cut, and the
# caption below sits on it); text placed through a transform (the plots) is not checked
figures=0
for svg in "$root"/docs/figures/*.svg; do
  [ -e "$svg" ] || continue
  figures=$((figures + 1))
  awk -v name="docs/figures/$(basename "$svg")" '
    function attr(tag, a,   v) {
      if (!match(tag, " " a "=\"[-0-9.]+\"")) return ""
      v = substr(tag, RSTART + length(a) + 3, RLENGTH - length(a) - 4)
      return v + 0
    }
    BEGIN { bad = 0 }
    /<svg[ >]/ && height == "" { height = attr($0, "height") }
    {
      line = $0
      while (match(line, /<text[^>]*>/)) {
        tag = substr(line, RSTART, RLENGTH)
        line = substr(line, RSTART + RLENGTH)
        y = attr(tag, "y")
        if (height != "" && y != "" && tag !~ /transform=/ && y > height - 8) {
          print name ":" FNR ": text at y=" y " of a " height " px high figure: leave 8 px below the last line (the caption follows)"
          bad++
        }
      }
    }
    END { exit bad > 0 }' "$svg" || problems=$((problems + 1))
done
echo "docs check: $sources Markdown sources, $pages pages, $figures figures, $([ "$problems" -eq 0 ] && echo "no problems" || echo "PROBLEMS above")"

# 3. the links
python3 "$here/check_site.py" "$dir" "$(dirname "$dir")/site.tag" || problems=$((problems + 1))

# 4. a real browser
if [ "${CHECK_BROWSER:-1}" = 0 ]; then
  echo "browser check: SKIPPED (CHECK_BROWSER=0)"
else
  out=$(python3 "$here/check_browser.py" "$dir")
  status=$?
  if [ "$status" -eq 77 ]; then
    echo "browser check: SKIPPED: $out"
  else
    echo "$out"
  fi
  if [ "$status" -ne 0 ] && [ "$status" -ne 77 ]; then
    problems=$((problems + 1))
  fi
fi
[ "$problems" -eq 0 ]
