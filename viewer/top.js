// strobe's HTML viewer, the top functions of the selection: one row per
// function (by identity: two functions with one name are two rows) with
// SELF%, TOTAL% (a sample once however often the function is on its
// stack), SELF-TIME, FUNCTION, MODULE, LOCATION (file:line), TOTAL-TIME and
// SAMPLES; sorted by any column (click its header; again to reverse),
// heaviest self first. A share resting on fewer than few_samples samples
// is marked and the note under the table says how uncertain it is. Click
// a row to select its function.
"use strict";
(function () {
  var V = window.strobeViewer, $ = V.$;
  var TOP_ROWS = 100, FEW = V.FEW, S = V.strings;
  var COLUMNS = ["self", "total", "selfTime", "name", "module", "location", "totalTime", "samples"];
  var sortBy = "self", descending = true;
  var heads = document.querySelectorAll("#top-table thead th");
  if (!V.TIME) heads[2].textContent = "SELF";
  if (!V.TIME) heads[6].textContent = "TOTAL";
  heads.forEach(function (th, i) {
    th.classList.add("sortable");
    th.setAttribute("data-column", COLUMNS[i]);
    th.addEventListener("click", function () {
      if (sortBy === COLUMNS[i]) descending = !descending;
      else { sortBy = COLUMNS[i]; descending = i < 3 || i > 5; }
      draw();
    });
  });
  function draw() {
    var t = V.functionTotals(), self = t.self, total = t.total, selfN = t.selfN, totalN = t.totalN;
    var all = V.rootTotal(), allN = V.rootSamples(), fnFrame = V.fnFrame;
    var rows = [];
    for (var i = 0; i < V.nFn; i++) if (total[i] > 0) rows.push(i);
    var key = {
      self: function (f) { return self[f]; }, selfTime: function (f) { return self[f]; },
      total: function (f) { return total[f]; }, totalTime: function (f) { return total[f]; },
      samples: function (f) { return totalN[f]; },
      name: function (f) { return S[V.fName[fnFrame[f]]]; },
      module: function (f) { return S[V.fModule[fnFrame[f]]]; },
      location: function (f) { return V.location(fnFrame[f]); },
    }[sortBy];
    rows.sort(function (p, q) {
      var a = key(p), b = key(q), c = a < b ? -1 : a > b ? 1 : 0;
      if (descending) c = -c;
      return c || self[q] - self[p] || total[q] - total[p];
    });
    heads.forEach(function (th, i) {
      th.classList.toggle("sorted", COLUMNS[i] === sortBy);
      th.setAttribute("aria-sort", COLUMNS[i] !== sortBy ? "none" : descending ? "descending" : "ascending");
    });
    var body = document.querySelector("#top-table tbody");
    body.textContent = "";
    var worst = -1;  // the largest standard error of a marked row, in points
    rows.slice(0, TOP_ROWS).forEach(function (fn) {
      var fr = fnFrame[fn], nm = V.fName[fr];
      // A share resting on few samples is uncertain: marked, and the note
      // under the table says by how much (one binomial standard error).
      var basis = selfN[fn] > 0 ? selfN[fn] : totalN[fn], few = basis < FEW;
      var tr = document.createElement("tr");
      if (V.fnMatches(fn)) tr.className = "match";
      if (fn === V.focusFn) tr.classList.add("focus");
      if (few) {
        // Agresti-Coull: honest also at 0% and 100% of a few samples.
        var n = allN + 4, q = (Math.min(basis, allN) + 2) / n;
        var se = 100 * Math.sqrt(q * (1 - q) / n);
        if (se > worst) worst = se;
        tr.classList.add("few");
      }
      [[V.pct(self[fn], all) + (few ? "*" : ""), "num"], [V.pct(total[fn], all), "num"],
        [V.amount(self[fn]), "num"], [S[nm], "name"], [S[V.fModule[fr]], "loc"], [V.location(fr), "loc"],
        [V.amount(total[fn]), "num"], [V.grouped(totalN[fn]), "num"]].forEach(function (cell) {
        var td = document.createElement("td");
        td.textContent = cell[0];
        td.className = cell[1];
        tr.appendChild(td);
      });
      tr.title = S[nm] + (few ? " (" + basis + " samples: uncertain share)" : "");
      tr.addEventListener("click", function () { V.focus(fn); });
      body.appendChild(tr);
    });
    $("table-note").textContent = worst < 0 ? "" :
      "* fewer than " + FEW + " samples: such a share is uncertain by about \u00b1" +
      worst.toFixed(1) + " points (one binomial standard error)";
  }
  V.addView({ id: "top", key: "6", label: "Top functions", section: $("top-section"), draw: draw });
})();
