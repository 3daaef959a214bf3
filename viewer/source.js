// strobe's HTML viewer, the source view: the selected function's lines
// (the hottest function by self time when none is selected) with the
// selection's self and total time per line, the hottest line highlighted.
// A line's self time is the samples taken on it; its total time, those
// with the function's outermost frame on it (a sample once). The text of
// the lines comes from the page when `strobe report` could read the file
// (it embeds the functions that hold most of the samples); otherwise the
// view shows line numbers alone and says so.
"use strict";
(function () {
  var V = window.strobeViewer, $ = V.$;
  var body = $("source-table").querySelector("tbody"), head = $("source-function"), note = $("source-note");
  var MARGIN = 2;

  // The embedded text of `file` at line n, or null.
  function textOf(file, n) {
    for (var i = 0; i < V.sources.length; i++) {
      var s = V.sources[i];
      if (s.file === file && n >= s.first && n < s.first + s.lines.length) return s.lines[n - s.first];
    }
    return null;
  }
  function hottestFunction() {
    var t = V.functionTotals(), best = -1;
    for (var fn = 0; fn < V.nFn; fn++) if (t.self[fn] > 0 && (best < 0 || t.self[fn] > t.self[best])) best = fn;
    return best;
  }
  function draw() {
    body.textContent = "";
    var F = V.focusFn >= 0 ? V.focusFn : hottestFunction();
    if (F < 0) { head.textContent = "No samples in the selection."; note.textContent = ""; return; }
    var lt = V.lineTotals(), all = V.rootTotal(), nL = V.nL;
    // Per line node: is its frame F's, and is there an F frame above it?
    var isF = new Uint8Array(nL), underF = new Uint8Array(nL);
    var self = new Map(), total = new Map(), selfN = new Map(), fnTotal = 0, fnSelf = 0, unknown = 0;
    for (var n = 0; n < nL; n++) {
      var p = V.lParent[n], d = V.lDisp[n];
      isF[n] = V.fFn[V.frame[d]] === F ? 1 : 0;
      underF[n] = p >= 0 && (isF[p] || underF[p]) ? 1 : 0;
      if (!isF[n] || !(lt.total[n] > 0)) continue;
      var line = V.lLine[n];
      if (lt.self[n] > 0) {
        self.set(line, (self.get(line) || 0) + lt.self[n]);
        selfN.set(line, (selfN.get(line) || 0) + lt.selfN[n]);
        fnSelf += lt.self[n];
      }
      if (!underF[n]) {
        total.set(line, (total.get(line) || 0) + lt.total[n]);
        fnTotal += lt.total[n];
        if (line === 0) unknown += lt.total[n];
      }
    }
    var fr = V.fnFrame[F], file = V.fFile[fr], start = V.fLine[fr];
    var lines = Array.from(total.keys()).filter(function (l) { return l > 0; }).sort(function (a, b) { return a - b; });
    head.textContent = "";
    var strong = document.createElement("strong");
    strong.textContent = V.fnName(F);
    head.appendChild(strong);
    head.appendChild(document.createTextNode("  total " + V.pct(fnTotal, all) + ", self " + V.pct(fnSelf, all) +
      "  " + (file ? V.strings[file] : "(no source file)") + (V.focusFn < 0 ? "  (the hottest function; select another in any view)" : "")));
    // The hottest line: the most self time, else the most total time.
    var hot = -1, hotSelf = -1, hotTotal = -1;
    lines.forEach(function (l) {
      var sv = self.get(l) || 0, tv = total.get(l) || 0;
      if (sv > hotSelf || (sv === hotSelf && tv > hotTotal)) { hot = l; hotSelf = sv; hotTotal = tv; }
    });
    var first = lines.length ? Math.min(lines[0], start || lines[0]) : 0, last = lines.length ? lines[lines.length - 1] : 0;
    var withText = file && lines.length && textOf(file, lines[0]) !== null;
    var shown = [];
    if (withText) {
      for (var l = Math.max(1, first - MARGIN); l <= last + MARGIN; l++) if (textOf(file, l) !== null) shown.push(l);
    } else {
      shown = lines;
    }
    var frag = document.createDocumentFragment();
    shown.forEach(function (l) {
      var tr = document.createElement("tr"), sv = self.get(l) || 0, tv = total.get(l) || 0;
      if (l === hot) tr.className = "hot";
      if (!tv) tr.classList.add("cold");
      [[String(l), "num"], [sv ? V.amount(sv) : "", "num"], [sv ? V.pct(sv, all) : "", "num"],
        [tv ? V.amount(tv) : "", "num"], [tv ? V.pct(tv, all) : "", "num"],
        [withText ? textOf(file, l) : "", "src"]].forEach(function (c) {
        var td = document.createElement("td");
        td.textContent = c[0];
        td.className = c[1];
        tr.appendChild(td);
      });
      tr.setAttribute("data-line", String(l));
      frag.appendChild(tr);
    });
    body.appendChild(frag);
    note.textContent = (withText ? "" : "The page holds no source text for this function (strobe report embeds " +
      "that of the functions holding most samples, when it can read their files): line numbers only. ") +
      (unknown > 0 ? V.pct(unknown, all) + " of the time is on lines strobe does not know (no line table, or another file)." : "");
  }
  V.addView({ id: "source", key: "8", label: "Source", section: $("source-section"), draw: draw });
})();
