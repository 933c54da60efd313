/* Full-text search over the course's pages, inside the results frame of Doxygen's search box
   (docs/site/site_search.py installs it as search/course_search.js, after search.js and
   course_text.js). Before Doxygen's createResults() builds its rows, this puts one row per page
   whose text has the query in front of Doxygen's own rows (searchData): the lessons (chapters,
   primer) whose title has it, then the lessons in reading order, then the other pages, so that
   the chapter that teaches a term first comes first. A row links the first section that has
   the query and shows the words around it.
   Query and text are compared lower-cased, apostrophes dropped and any run of other characters
   read as one space ("Little's law" finds "Little’s law"; "kogge stone" finds "Kogge-Stone";
   "cp.async" finds "cp.async"); if that finds nothing, once more with the spaces dropped too
   ("lookback" finds "look-back"). */
(function () {
  "use strict";
  if (typeof courseText === "undefined" || typeof searchData === "undefined") return;
  var query = unescape(window.location.search.substring(1)).replace(/^ +/, "").replace(/ +$/, "");
  if (!query) return;

  // text -> [normalized text, index in the text of each normalized character]
  function normalize(text, squash) {
    var out = [], at = [], space = true;
    for (var i = 0; i < text.length; ++i) {
      var c = text.charAt(i).toLowerCase();
      if (c === "'" || c === "\u2019") continue;
      if (/[a-z0-9\u00c0-\u024f]/.test(c)) {
        out.push(c);
        at.push(i);
        space = false;
      } else if (!space && !squash) {
        out.push(" ");
        at.push(i);
        space = true;
      }
    }
    return [out.join(""), at];
  }
  function escapeHtml(s) {
    return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  function find(squash) {
    var q = normalize(query, squash)[0].replace(/^ | $/g, "");
    if (q.replace(/ /g, "").length < 3) return [];
    var rows = [];
    for (var p = 0; p < courseText.length; ++p) {
      var page = courseText[p], first = null, count = 0;
      var inTitle = normalize(page.t, squash)[0].indexOf(q) >= 0;
      for (var s = 0; s < page.s.length; ++s) {
        var norm = normalize(page.s[s][2], squash), k = norm[0].indexOf(q);
        if (k < 0) continue;
        ++count;
        if (!first) {
          var start = norm[1][k], end = norm[1][k + q.length - 1] + 1, text = page.s[s][2];
          var from = Math.max(0, start - 50), to = Math.min(text.length, end + 60);
          first = {
            section: page.s[s],
            snippet: (from > 0 ? "\u2026" : "") + escapeHtml(text.slice(from, start)) + "<b>" +
                     escapeHtml(text.slice(start, end)) + "</b>" + escapeHtml(text.slice(end, to)) +
                     (to < text.length ? "\u2026" : "")
          };
        }
      }
      if (!first && inTitle)
        first = { section: ["", "", ""], snippet: "" };
      if (first)
        rows.push({ page: page, first: first, count: count,
                    rank: page.k && inTitle ? 0 : page.k ? 1 : 2, order: rows.length });
    }
    // the lessons that have the query in their title, then the lessons in reading order, then
    // the other pages (courseText is in that order already)
    rows.sort(function (a, b) { return a.rank - b.rank || a.order - b.order; });
    return rows;
  }

  var rows = find(false);
  if (!rows.length) rows = find(true);
  // Doxygen's Search() shows the rows whose id starts with the query as convertToId() spells it
  var prefix = convertToId(query.toLowerCase());
  var entries = [];
  for (var r = 0; r < rows.length; ++r) {
    var row = rows[r], section = row.first.section;
    var where = section[1] ? escapeHtml(section[1]) + ": " : "";
    var more = row.count > 1 ? " (and " + (row.count - 1) + " more section" +
                               (row.count > 2 ? "s" : "") + ")" : "";
    entries.push([prefix + "_course" + r,
                  [escapeHtml(row.page.t),
                   [row.page.u + (section[0] ? "#" + section[0] : ""), 1,
                    "<span class=\"course-hit\">" + where + row.first.snippet + more + "</span>"]]]);
  }
  searchData = entries.concat(searchData);
})();
