/* The course site's own script (docs/Doxyfile, HTML_EXTRA_FILES; docs/site/postprocess.py loads it
   into every page, after Doxygen's and doxygen-awesome's scripts).
   - A table, a code block or a formula of the text wider than its box scrolls inside it
     (course.css); it gets a line above it that says so, and a shadow on the side where its
     columns or its lines' ends are hidden; a wide table's first column, if narrow, stays in view.
   - A long name in the side tree breaks after an underscore.
   - A link to a line of a source listing (file_source.html#l00042) shows that line a third of
     the way down the window, below the page's top, highlighted (course.css: .course-target),
     instead of against the top edge, half cut, where Doxygen's navtree.js puts an anchor. */
(function () {
  "use strict";

  var HINTS = {
    table: "Scroll sideways for more columns \u2192",
    code: "Scroll sideways for the ends of the lines \u2192",
    formula: "Scroll sideways for the rest of the formula \u2192"
  };
  // a first column at most this share of the box's width stays in view while a table scrolls
  var STICKY_SHARE = 0.4;

  // the box that scrolls: doxygen-awesome makes a table's body the scroller (an inline block
  // with overflow-x: auto); else the table itself (course.css)
  function scrollBox(table) {
    var body = table.tBodies[0];
    return body && /auto|scroll/.test(getComputedStyle(body).overflowX) ? body : table;
  }

  // what may be wider than its box: [element the hint goes above, box that scrolls, kind, width
  // of what is inside]
  function wideThings() {
    var things = [], i;
    var tables = document.querySelectorAll(".textblock table.markdownTable, .textblock table.doxtable");
    for (i = 0; i < tables.length; ++i) {
      var table = tables[i], box = scrollBox(table), inner = box.scrollWidth;
      // (Doxygen's tables are blocks around their rows: a row can be wider than the box's
      // scroll width says)
      for (var r = 0; r < table.rows.length; ++r)
        inner = Math.max(inner, table.rows[r].getBoundingClientRect().width);
      things.push([table, box, "table", inner]);
    }
    // the notes' code blocks (doxygen-awesome's copy button wraps each in a div), their formulas
    var blocks = document.querySelectorAll(".textblock div.fragment");
    for (i = 0; i < blocks.length; ++i) {
      var wrapper = blocks[i].parentNode.classList.contains("doxygen-awesome-fragment-wrapper")
        ? blocks[i].parentNode : blocks[i];
      things.push([wrapper, blocks[i], "code", blocks[i].scrollWidth]);
    }
    var formulas = document.querySelectorAll(".textblock div.MathJax_Display");
    for (i = 0; i < formulas.length; ++i)
      things.push([formulas[i], formulas[i], "formula", formulas[i].scrollWidth]);
    return things;
  }

  function markWide() {
    var things = wideThings();
    for (var i = 0; i < things.length; ++i) {
      var above = things[i][0], box = things[i][1], kind = things[i][2];
      var wide = things[i][3] > box.clientWidth + 2;
      var hint = above.previousElementSibling;
      var hasHint = hint && hint.classList.contains("course-scroll-hint");
      box.classList.toggle("course-scrolls", wide);
      if (wide && !hasHint) {
        hint = document.createElement("div");
        hint.className = "course-scroll-hint";
        hint.textContent = HINTS[kind];
        above.parentNode.insertBefore(hint, above);
      } else if (!wide && hasHint) {
        hint.parentNode.removeChild(hint);
      }
      if (kind === "table") {
        var row = above.rows[0], first = row && row.cells[0];
        box.classList.toggle("course-sticky-first", wide && !!first && row.cells.length > 2 &&
                             first.getBoundingClientRect().width <= STICKY_SHARE * box.clientWidth);
      }
      if (wide && !box.courseScrollWatched) {
        box.courseScrollWatched = true;
        box.addEventListener("scroll", shadeBox, { passive: true });
      }
      shadeBox.call(box);
    }
  }

  // the shadow shows on the side that has columns out of sight
  function shadeBox() {
    var wide = this.classList.contains("course-scrolls");
    var left = this.scrollLeft > 1;
    var right = this.scrollLeft + this.clientWidth < this.scrollWidth - 1;
    this.classList.toggle("course-more-left", left && wide);
    this.classList.toggle("course-more-right", right && wide);
  }

  // a listing's line anchor (id "l00042"): its line, or null
  function sourceLine(id) {
    if (!/^l\d+$/.test(id || "")) return null;
    var anchor = document.getElementById(id);
    return anchor && anchor.parentNode && anchor.parentNode.classList.contains("line")
      ? anchor.parentNode : null;
  }

  function showLine(line) {
    var old = document.querySelectorAll(".course-target");
    for (var i = 0; i < old.length; ++i) old[i].classList.remove("course-target");
    line.classList.add("course-target");
    var box = document.getElementById("doc-content");
    var scroller = box && box.scrollHeight > box.clientHeight + 1 &&
                   getComputedStyle(box).overflowY !== "visible" ? box : null;
    var top = line.getBoundingClientRect().top;
    if (scroller) {
      scroller.scrollTop += top - scroller.getBoundingClientRect().top - scroller.clientHeight / 3;
    } else {
      window.scrollBy(0, top - window.innerHeight / 3);
    }
  }

  function showTargetLine() {
    var line = sourceLine(decodeURIComponent(location.hash.slice(1)));
    if (line) showLine(line);
  }

  // Doxygen's navtree.js scrolls to an anchor with gotoAnchor(); for a listing's line, ours
  if (typeof window.gotoAnchor === "function") {
    var doxygenGotoAnchor = window.gotoAnchor;
    window.gotoAnchor = function (anchor, aname, updateLocation) {
      var line = anchor && anchor.length ? sourceLine(anchor.attr("id")) : null;
      if (!line) return doxygenGotoAnchor(anchor, aname, updateLocation);
      showLine(line);
      if (updateLocation) window.location.href = aname;
    };
  }

  // The side tree (navtree.js builds it as it opens): a long name of code may break after its
  // underscores (<wbr>), not anywhere ("warp_exclusive_from_" / "inclusive", not "..._in" /
  // "clusive"); course.css lets a label wrap.
  function breakTreeNames(root) {
    var links = root.querySelectorAll ? root.querySelectorAll("#nav-tree .label a") : [];
    for (var i = 0; i < links.length; ++i) {
      var a = links[i], text = a.textContent;
      if (a.courseBroken || a.children.length || text.length < 16 || text.indexOf("_") < 0) continue;
      a.courseBroken = true;
      a.textContent = "";
      var parts = text.split(/(?<=_)/);
      for (var k = 0; k < parts.length; ++k) {
        if (k) a.appendChild(document.createElement("wbr"));
        a.appendChild(document.createTextNode(parts[k]));
      }
    }
  }
  document.addEventListener("DOMContentLoaded", function () {
    var tree = document.getElementById("nav-tree");
    if (tree && window.MutationObserver) {
      new MutationObserver(function () { breakTreeNames(document); })
        .observe(tree, { childList: true, subtree: true });
    }
  });

  window.addEventListener("load", function () {
    markWide();
    // formulas change the tables' widths when MathJax has typeset them
    if (window.MathJax && window.MathJax.Hub && window.MathJax.Hub.Queue)
      window.MathJax.Hub.Queue(markWide);
    // after navtree.js, which scrolls to the anchor once the tree is drawn
    setTimeout(showTargetLine, 50);
  });
  window.addEventListener("hashchange", showTargetLine);
  var resizing = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizing);
    resizing = setTimeout(markWide, 100);
  });
})();
