// strobe's HTML viewer, the sandwich: the selected function (click it in
// any view, or in the list here) with its callers above and its callees
// below, each with its share of the function's total time, as speedscope's
// sandwich and pprof's peek. A sample counts once for the function however
// often it recursed (its outermost frame), and its callers are those of
// that frame; callees are the frames right below each of its frames.
"use strict";
(function () {
  var V = window.strobeViewer, $ = V.$, ROOT = V.ROOT;
  var section = $("sandwich-section");
  var callersBody = $("sandwich-callers").querySelector("tbody");
  var calleesBody = $("sandwich-callees").querySelector("tbody");
  var centerEl = $("sandwich-function"), pickEl = $("sandwich-pick");

  function row(body, cells, fn) {
    var tr = document.createElement("tr");
    cells.forEach(function (c) {
      var td = document.createElement("td");
      td.textContent = c[0];
      td.className = c[1];
      tr.appendChild(td);
    });
    if (fn >= 0) {
      if (V.fnMatches(fn)) tr.classList.add("match");
      tr.addEventListener("click", function () { V.focus(fn); });
    }
    body.appendChild(tr);
  }
  function fill(body, by, base, fnTotal) {
    body.textContent = "";
    var list = Array.from(by.entries()).sort(function (a, b) { return b[1] - a[1]; });
    list.slice(0, 100).forEach(function (e) {
      var fn = e[0];
      var name = fn === -1 ? "(root: no caller)" : fn === -2 ? "(self)" : V.fnName(fn);
      row(body, [[V.pct(e[1], fnTotal), "num"], [V.pct(e[1], base), "num"], [V.amount(e[1]), "num"],
        [name, "name"], [fn >= 0 ? V.location(V.fnFrame[fn]) : "", "loc"]], fn);
    });
    if (!list.length) row(body, [["", "num"], ["", "num"], ["", "num"], ["none in the selection", "name"], ["", "loc"]], -1);
  }
  function draw() {
    var F = V.focusFn, all = V.rootTotal();
    pickEl.hidden = F >= 0;
    $("sandwich-body").hidden = F < 0;
    if (F < 0) { drawPicker(); return; }
    var total = 0, self = 0, count = 0, callers = new Map(), callees = new Map();
    for (var x = 0; x < V.nN; x++) {
      if (!(V.nodeTotal[x] > 0) || V.fFn[V.frame[x]] !== F) continue;
      self += V.nodeSelf[x];
      if (V.nodeSelf[x] > 0) callees.set(-2, (callees.get(-2) || 0) + V.nodeSelf[x]);
      for (var j = V.childStart[x]; j < V.childStart[x + 1]; j++) {
        var c = V.childList[j], cf = V.fFn[V.frame[c]];
        if (cf !== F && V.nodeTotal[c] > 0) callees.set(cf, (callees.get(cf) || 0) + V.nodeTotal[c]);
      }
      if (V.dup[x]) continue;  // counted at its outermost frame
      total += V.nodeTotal[x]; count += V.nodeTotalN[x];
      var p = V.parent[x], pf = p < 0 ? -1 : V.fFn[V.frame[p]];
      callers.set(pf, (callers.get(pf) || 0) + V.nodeTotal[x]);
    }
    centerEl.textContent = "";
    var name = document.createElement("strong");
    name.textContent = V.focusName;
    centerEl.appendChild(name);
    centerEl.appendChild(document.createTextNode("  total " + V.pct(total, all) + " (" + V.amount(total) +
      ", " + V.grouped(count) + " samples), self " + V.pct(self, all) + " (" + V.amount(self) + ")  " +
      V.location(V.fnFrame[F])));
    centerEl.setAttribute("data-total", String(all > 0 ? total / all : 0));
    centerEl.classList.toggle("match", V.fnMatches(F));
    fill(callersBody, callers, all, total);
    fill(calleesBody, callees, all, total);
  }
  // No function selected: the heaviest ones, to pick from.
  function drawPicker() {
    var t = V.functionTotals(), list = [];
    for (var fn = 0; fn < V.nFn; fn++) if (t.total[fn] > 0) list.push(fn);
    list.sort(function (a, b) { return t.total[b] - t.total[a]; });
    var body = $("sandwich-list").querySelector("tbody");
    body.textContent = "";
    list.slice(0, 30).forEach(function (fn) {
      row(body, [[V.pct(t.total[fn], V.rootTotal()), "num"], [V.pct(t.self[fn], V.rootTotal()), "num"],
        [V.fnName(fn), "name"], [V.location(V.fnFrame[fn]), "loc"]], fn);
    });
  }
  V.addView({ id: "sandwich", key: "5", label: "Sandwich", section: section, draw: draw });
})();
