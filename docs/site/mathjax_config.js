MathJax.Hub.Config({
  // The TeX web fonts that make docs copies into html/mathjax: no font looked for on the reader's
  // machine, no image fonts (Debian's package has none), no request leaves the site.
  "HTML-CSS": { availableFonts: [], preferredFont: null, webFont: "TeX", imageFont: null },
  MathMenu: { showFontMenu: false, showRenderer: false },
  menuSettings: { zoom: "None" },
  messageStyle: "none"
});
