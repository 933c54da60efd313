/* Full-text search over the course's pages, inside the results frame of Doxygen's search box
   (docs/site/site_search.py installs it as search/course_search.js, after search.js and
   course_text.js). Before Doxygen's createResults() builds its rows, this puts one row per page
   that has the query in front of Doxygen's own rows (searchData), ranked by where the page has
   it (rankOf(): a lesson's title, a heading, its text; the other pages' the same; last, a page
   that only lists it under "Further reading"), in reading order within a rank, so that the
   chapter that teaches a term comes first. A row links the best section that has the query
   (its heading, else its text) and shows the words around it.
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

  function snippetOf(text, start, end) {
    var from = Math.max(0, start - 50), to = Math.min(text.length, end + 60);
    return (from > 0 ? "\u2026" : "") + escapeHtml(text.slice(from, start)) + "<b>" +
           escapeHtml(text.slice(start, end)) + "</b>" + escapeHtml(text.slice(end, to)) +
           (to < text.length ? "\u2026" : "");
  }
  // where a page has the query, best first: its title, a section's heading, the text of its
  // question or idea (a chapter's own subject), the text of another section, the text of its
  // list of further reading (a mention, not the lesson)
  var TITLE = 0, HEADING = 1, CORE = 2, TEXT = 3, READING = 4;
  var READING_HEADING = /^(further reading|references)\b/i;

  function find(squash) {
    var q = normalize(query, squash)[0].replace(/^ | $/g, "");
    if (q.replace(/ /g, "").length < 3) return [];
    var rows = [];
    for (var p = 0; p < courseText.length; ++p) {
      var page = courseText[p], best = null, count = 0;
      for (var s = 0; s < page.s.length; ++s) {
        var section = page.s[s], text = section[2], hit;
        if (normalize(section[1], squash)[0].indexOf(q) >= 0) {
          hit = { where: HEADING, section: section,
                  snippet: escapeHtml(text.slice(0, 110)) + (text.length > 110 ? "\u2026" : "") };
        } else {
          var norm = normalize(text, squash), k = norm[0].indexOf(q);
          if (k < 0) continue;
          hit = { where: READING_HEADING.test(section[1]) ? READING : section[3] ? CORE : TEXT,
                  section: section,
                  snippet: snippetOf(text, norm[1][k], norm[1][k + q.length - 1] + 1) };
        }
        ++count;
        if (!best || hit.where < best.where) best = hit;
      }
      // a page whose title has the query ranks by its title, and links its best section (its
      // top, if that is only its further reading)
      if (normalize(page.t, squash)[0].indexOf(q) >= 0)
        best = best && best.where !== READING
          ? { where: TITLE, section: best.section, snippet: best.snippet }
          : { where: TITLE, section: ["", "", ""], snippet: "" };
      if (best)
        rows.push({ page: page, first: best, count: count,
                    rank: rankOf(best.where, page.k), order: rows.length });
    }
    rows.sort(function (a, b) { return a.rank - b.rank || a.order - b.order; });
    return rows;
  }

  // the lessons (chapters, primer) that have the query in their title, then in a heading, then
  // in their own question or idea, then elsewhere in their text; then the other pages (logs,
  // guides) that have it in their title or a heading, then in their text; last, pages that only
  // list it among further reading (a lesson first). Within a rank, reading order (courseText is
  // in that order already).
  function rankOf(where, lesson) {
    if (where === READING) return lesson ? 6 : 7;
    if (lesson) return where;  // 0 to 3
    return where === TITLE || where === HEADING ? 4 : 5;
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
