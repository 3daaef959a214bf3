// strobe diff's compare page (compare.html): reads the comparison embedded
// in #strobe-diff (docs/FORMATS.md, "strobe diff", html) and shows both
// runs' timelines, the differential flame graph (the merged call tree:
// widths of the new run, work only in the base at its base size; colour by
// the verdict on each frame's total, deeper for larger changes) and the
// table of functions, sortable by any column (its first rows; a button shows
// all). The buttons above switch to any run's own viewer page, embedded
// whole (a JSON string in a script element per run, after this script, so
// that the page is drawn before the browser reads them) and opened in a
// frame only when asked for. Every recorded string reaches the page through
// textContent or canvas text only.
"use strict";
(function () {
  var C = window.strobeCodec, Reader = C.Reader, grouped = C.grouped, duration = C.duration;
  var data = JSON.parse(document.getElementById("strobe-diff").textContent);
  var meta = data.meta, S = data.strings;
  var TIME = meta.unit === "nanoseconds", UNIT = meta.value_unit || 1;
  function $(id) { return document.getElementById(id); }
  function amount(v) {
    var a = Math.abs(v);
    return TIME ? duration(a) : grouped(Math.round(a)) + " " + (meta.count_unit || "events");
  }
  function signed(v) { return v === 0 ? "0" : (v > 0 ? "+" : "-") + amount(v); }
  function changePct(b, n) {
    if (b === 0) return n === 0 ? "" : "new";
    var p = 100 * (n - b) / b;
    return (p >= 0 ? "+" : "") + p.toFixed(1) + "%";
  }
  var VERDICTS = ["same", "slower", "faster"];

  // ---- the tree -------------------------------------------------------------
  var nF = data.frame_count, nN = data.node_count;
  var fName = new Int32Array(nF), fModule = new Int32Array(nF), fFile = new Int32Array(nF);
  var fLine = new Int32Array(nF), fFlags = new Int32Array(nF), fFn = new Int32Array(nF);
  var r = new Reader(data.frames, "frame data");
  for (var f = 0; f < nF; f++) {
    fName[f] = r.next(); fModule[f] = r.next(); fFile[f] = r.next();
    fLine[f] = r.next(); fFlags[f] = r.next(); fFn[f] = r.next();
  }
  var parent = new Int32Array(nN), frame = new Int32Array(nN), verdict = new Uint8Array(nN);
  var depth = new Int32Array(nN);
  var baseSelf = new Float64Array(nN), newSelf = new Float64Array(nN);
  r = new Reader(data.nodes, "tree data");
  var maxDepth = 0;
  for (var n = 0; n < nN; n++) {
    var back = r.next();
    parent[n] = n === 0 ? -1 : n - back;
    frame[n] = r.next(); verdict[n] = r.next();
    baseSelf[n] = r.next() * UNIT; newSelf[n] = r.next() * UNIT;
    depth[n] = n === 0 ? 0 : depth[parent[n]] + 1;
    if (depth[n] > maxDepth) maxDepth = depth[n];
  }
  var baseTotal = baseSelf.slice(), newTotal = newSelf.slice(), width = new Float64Array(nN);
  for (n = nN - 1; n > 0; n--) { baseTotal[parent[n]] += baseTotal[n]; newTotal[parent[n]] += newTotal[n]; }
  var below = new Float64Array(nN);
  for (n = nN - 1; n >= 0; n--) {
    width[n] = newTotal[n] > 0 ? newSelf[n] + below[n] : baseTotal[n];
    if (n > 0) below[parent[n]] += width[n];
  }
  // Children in CSR form, widest first.
  var childStart = new Int32Array(nN + 1), childList = new Int32Array(Math.max(nN - 1, 0));
  for (n = 1; n < nN; n++) childStart[parent[n] + 1]++;
  for (n = 1; n <= nN; n++) childStart[n] += childStart[n - 1];
  (function () {
    var fill = childStart.slice(0, nN);
    for (var x = 1; x < nN; x++) childList[fill[parent[x]]++] = x;
    for (var p = 0; p < nN; p++) {
      var lo = childStart[p], hi = childStart[p + 1];
      if (hi - lo > 1) {
        var part = Array.prototype.slice.call(childList, lo, hi);
        part.sort(function (a, b) { return width[b] - width[a] || a - b; });
        childList.set(part, lo);
      }
    }
  })();
  function nodeName(x) { return x === 0 ? "all" : S[fName[frame[x]]] + (fFlags[frame[x]] & 1 ? " [inlined]" : ""); }

  // ---- header and modes ---------------------------------------------------
  $("command").textContent = meta.title || "";
  document.title = "strobe diff: " + (meta.title || "");
  $("diff-summary").textContent = meta.lines.join("\n");
  var modes = $("modes"), frames = {};
  function addMode(id, label, title) {
    var b = document.createElement("button");
    b.type = "button";
    b.id = "mode-" + id;
    b.setAttribute("role", "tab");
    b.textContent = label;
    b.title = title;
    b.addEventListener("click", function () { show(id); });
    modes.appendChild(b);
  }
  addMode("compare", "Compare", "both runs side by side: timelines, differential flame graph, table");
  meta.runs.forEach(function (run, k) {
    addMode("run-" + k, run.side + ": " + run.name, "the views of " + run.name + " alone (" + run.side + ")");
  });
  var current = "";
  function show(id) {
    current = id;
    Array.prototype.forEach.call(modes.children, function (b) {
      b.classList.toggle("active", b.id === "mode-" + id);
      b.setAttribute("aria-selected", b.id === "mode-" + id ? "true" : "false");
    });
    $("compare").hidden = id !== "compare";
    $("run-section").hidden = id === "compare";
    document.body.setAttribute("data-mode", id);
    if (id === "compare") { drawAll(); return; }
    var k = Number(id.slice(4)), frameEl = frames[k];
    Array.prototype.forEach.call($("run-section").children, function (el) { el.hidden = true; });
    if (!frameEl) {
      // The run's own page, made from its JSON string on first use (once
      // the browser has read it: it comes after this script).
      var source = document.getElementById(meta.runs[k].page);
      if (!source) {
        document.addEventListener("DOMContentLoaded", function () { if (current === id) show(id); });
        return;
      }
      frameEl = document.createElement("iframe");
      frameEl.id = "run-frame-" + k;
      frameEl.className = "run-frame";
      frameEl.title = "The views of " + meta.runs[k].name;
      $("run-section").appendChild(frameEl);
      // Written into the frame's own document: a third of the time srcdoc takes.
      var doc = frameEl.contentDocument;
      doc.open();
      doc.write(JSON.parse(source.textContent));
      doc.close();
      frames[k] = frameEl;
    }
    frameEl.hidden = false;
  }

  // ---- timelines ------------------------------------------------------------
  var tip = $("timeline-tip"), ROW = 16;
  var timelines = data.timelines.map(function (tl) {
    var run = meta.runs[tl.run];
    var box = document.createElement("div");
    box.className = "run-timeline";
    box.setAttribute("data-side", run.side);
    var h = document.createElement("h3");
    h.textContent = run.side + ": " + run.name + " (" + duration(tl.duration_ns) + ")";
    box.appendChild(h);
    var rows = document.createElement("div");
    rows.className = "rows";
    var names = document.createElement("div");
    names.className = "names";
    var canvas = document.createElement("canvas");
    var bins = tl.threads.map(function (t) {
      var b = new Float64Array(tl.bins), rd = new Reader(t.data, "timeline data");
      for (var i = 0; i < tl.bins; i++) b[i] = rd.next() * UNIT;
      var el = document.createElement("div");
      el.textContent = t.name;
      el.title = t.name;
      names.appendChild(el);
      return b;
    });
    canvas.style.height = Math.max(1, bins.length) * ROW + "px";
    rows.appendChild(names);
    rows.appendChild(canvas);
    box.appendChild(rows);
    $("timelines").appendChild(box);
    var entry = { tl: tl, run: run, canvas: canvas, bins: bins };
    canvas.addEventListener("mousemove", function (e) {
      var rect = canvas.getBoundingClientRect();
      var k = Math.floor((e.clientY - rect.top) / ROW), i = Math.floor((e.clientX - rect.left) / rect.width * tl.bins);
      if (k < 0 || k >= bins.length || i < 0 || i >= tl.bins) { tip.textContent = "\u00a0"; return; }
      var binNs = tl.duration_ns / tl.bins;
      tip.textContent = run.side + " " + run.name + ", " + tl.threads[k].name + ", at " + duration(i * binNs) +
        ": " + (binNs > 0 ? (100 * bins[k][i] / binNs).toFixed(0) : "0") + "% of a CPU";
    });
    canvas.addEventListener("mouseleave", function () { tip.textContent = "\u00a0"; });
    return entry;
  });
  function drawTimeline(e) {
    var w = e.canvas.clientWidth, h = Math.max(1, e.bins.length) * ROW;
    if (w <= 0) return;
    var c = canvasContext(e.canvas, w, h, "11px ui-monospace, monospace");
    var binNs = e.tl.duration_ns / e.tl.bins, bw = w / e.tl.bins;
    c.fillStyle = e.run.side === "base" ? "rgb(110,110,190)" : "rgb(52,110,200)";
    e.bins.forEach(function (b, k) {
      for (var i = 0; i < b.length; i++) {
        if (!(b[i] > 0)) continue;
        var u = Math.min(1, binNs > 0 ? b[i] / binNs : 0), bh = Math.max(1, u * (ROW - 2));
        c.fillRect(i * bw, k * ROW + ROW - 1 - bh, Math.max(bw, 1), bh);
      }
      c.fillStyle = e.run.side === "base" ? "rgb(110,110,190)" : "rgb(52,110,200)";
    });
  }

  // ---- the differential flame graph ----------------------------------------
  var FROW = 17, MIN_PX = 0.4, zoomNode = 0, hover = -1, focusFn = -1;
  var canvas = $("diff-flame-canvas"), details = $("diff-flame-details"), resetBtn = $("diff-flame-reset");
  var bx = [], bw = [], bn = [];
  function canvasContext(cv, w, h, font) {
    var dpr = window.devicePixelRatio || 1;
    cv.width = Math.round(w * dpr); cv.height = Math.round(h * dpr);
    var c = cv.getContext("2d");
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    c.clearRect(0, 0, w, h);
    c.font = font;
    c.textBaseline = "middle";
    return c;
  }
  // Reds for slower, blues for faster, deeper for larger changes against
  // the frame's own time; grey for the same.
  function color(x) {
    var larger = Math.max(baseTotal[x], newTotal[x]);
    var rel = larger > 0 ? Math.abs(newTotal[x] - baseTotal[x]) / larger : 0;
    var s = 0.25 + 0.75 * Math.min(1, 2 * rel), fade = Math.round(215 * (1 - s));
    if (verdict[x] === 1) return "rgb(255," + fade + "," + fade + ")";
    if (verdict[x] === 2) return "rgb(" + fade + "," + fade + ",255)";
    return "rgb(218,218,212)";
  }
  function layout(w) {
    bx.length = bw.length = bn.length = 0;
    var path = [];
    for (var x = zoomNode; x > 0; x = parent[x]) path.push(x);
    bx.push(0); bw.push(w); bn.push(0);
    for (var i = path.length - 1; i >= 0; i--) { bx.push(0); bw.push(w); bn.push(path[i]); }
    if (!(width[zoomNode] > 0)) return;
    var scale = w / width[zoomNode], stack = [zoomNode, 0];
    while (stack.length) {
      var left = stack.pop(), y = stack.pop(), cx = left;
      for (var j = childStart[y]; j < childStart[y + 1]; j++) {
        var ch = childList[j], cw = width[ch] * scale;
        if (cw >= MIN_PX) { bx.push(cx); bw.push(cw); bn.push(ch); stack.push(ch, cx); }
        cx += cw;
      }
    }
  }
  var rows = 1;
  function rowY(d) { return (rows - 1 - d) * FROW; }
  function drawFlame() {
    var w = canvas.clientWidth;
    if (w <= 0) return;
    layout(w);
    rows = 1;
    for (var i = 0; i < bn.length; i++) if (depth[bn[i]] + 1 > rows) rows = depth[bn[i]] + 1;
    var h = rows * FROW + 2;
    canvas.style.height = h + "px";
    var c = canvasContext(canvas, w, h, "11px ui-monospace, monospace");
    var cw = c.measureText("M").width || 7;
    for (i = 0; i < bn.length; i++) {
      var x = bn[i], y = rowY(depth[x]);
      c.fillStyle = color(x);
      c.fillRect(bx[i], y, Math.max(bw[i] - (bw[i] > 2 ? 1 : 0), 0.5), FROW - 1);
      var focused = focusFn >= 0 && x > 0 && fFn[frame[x]] === focusFn;
      if (x === hover || focused || (x > 0 && newTotal[x] === 0)) {
        c.strokeStyle = focused ? "rgb(200,60,0)" : x === hover ? "#000" : "rgb(60,60,60)";
        c.lineWidth = focused ? 2 : 1;
        c.setLineDash(x !== hover && !focused ? [3, 2] : []);
        c.strokeRect(bx[i] + 0.5, y + 0.5, Math.max(bw[i] - 2, 1), FROW - 2);
        c.setLineDash([]);
        c.lineWidth = 1;
      }
      var fit = Math.floor((bw[i] - 6) / cw);
      if (fit >= 3) {
        var name = nodeName(x);
        c.fillStyle = "#000";
        c.fillText(name.length <= fit ? name : name.slice(0, fit - 2) + "..", bx[i] + 3, y + FROW / 2);
      }
    }
    resetBtn.disabled = zoomNode === 0;
  }
  function boxAt(e) {
    var rect = canvas.getBoundingClientRect(), px = e.clientX - rect.left, py = e.clientY - rect.top;
    var d = rows - 1 - Math.floor(py / FROW);
    for (var i = 0; i < bn.length; i++) {
      if (depth[bn[i]] === d && px >= bx[i] && px < bx[i] + bw[i]) return bn[i];
    }
    return -1;
  }
  // Both sides' times and the verdict, as the SVG's hover text has them.
  function describe(x) {
    var text = nodeName(x) + ": " + VERDICTS[verdict[x]] + " (total: base " + amount(baseTotal[x]) + ", new " +
      amount(newTotal[x]) + ", " + signed(newTotal[x] - baseTotal[x]) + " " +
      changePct(baseTotal[x], newTotal[x]) + "; self: base " + amount(baseSelf[x]) + ", new " + amount(newSelf[x]) + ")";
    if (x > 0 && newTotal[x] === 0) text += " only in the base";
    if (x > 0) {
      var fr = frame[x];
      text += "  " + (fFile[fr] ? S[fFile[fr]] + (fLine[fr] ? ":" + fLine[fr] : "") : S[fModule[fr]]);
    }
    return text;
  }
  canvas.addEventListener("mousemove", function (e) {
    var x = boxAt(e);
    if (x === hover) return;
    hover = x;
    details.textContent = x < 0 ? "\u00a0" : describe(x);
    drawFlame();
  });
  canvas.addEventListener("mouseleave", function () { hover = -1; details.textContent = "\u00a0"; drawFlame(); });
  canvas.addEventListener("click", function (e) {
    var x = boxAt(e);
    if (x < 0) return;
    zoomNode = x;
    drawFlame();
  });
  resetBtn.addEventListener("click", function () { zoomNode = 0; drawFlame(); });
  (function legend() {
    [["slower", "rgb(255,54,54)"], ["faster", "rgb(54,54,255)"], ["same", "rgb(218,218,212)"]].forEach(function (l) {
      var item = document.createElement("span");
      item.className = "kind";
      var sw = document.createElement("span");
      sw.className = "swatch";
      sw.style.background = l[1];
      item.appendChild(sw);
      item.appendChild(document.createTextNode(l[0]));
      $("diff-legend").appendChild(item);
    });
    var note = document.createElement("span");
    note.className = "kind";
    note.textContent = "dashed outline: only in the base";
    $("diff-legend").appendChild(note);
  })();

  // ---- the table ----------------------------------------------------------
  // rows: [name, module, file, line, verdict, base self, new self, self
  // detectable, base total, new total, function] (strings as indices).
  var ROWS = data.rows, totalBase = meta.total.base, totalNew = meta.total.new;
  function share(v, t) { return t > 0 ? 100 * v / t : 0; }
  var COLUMNS = [
    { id: "verdict", label: "VERDICT", key: function (x) { return x[4]; }, text: function (x) { return VERDICTS[x[4]]; } },
    { id: "base", label: "SELF-BASE", num: true, key: function (x) { return x[5]; }, text: function (x) { return amount(x[5]); } },
    { id: "new", label: "SELF-NEW", num: true, key: function (x) { return x[6]; }, text: function (x) { return amount(x[6]); } },
    { id: "change", label: "CHANGE", num: true, key: function (x) { return Math.abs(x[6] - x[5]); }, text: function (x) { return signed(x[6] - x[5]); } },
    { id: "pct", label: "CHANGE%", num: true,
      key: function (x) { return x[5] > 0 ? (x[6] - x[5]) / x[5] : x[6] > 0 ? Infinity : 0; },
      text: function (x) { return changePct(x[5], x[6]); } },
    { id: "noise", label: "NOISE", num: true, key: function (x) { return x[7]; }, text: function (x) { return "±" + amount(x[7]); } },
    { id: "share", label: "SHARE", num: true, key: function (x) { return share(x[6], totalNew) - share(x[5], totalBase); },
      text: function (x) { var d = share(x[6], totalNew) - share(x[5], totalBase); return (d >= 0 ? "+" : "") + d.toFixed(1) + "pp"; } },
    { id: "tbase", label: "TOTAL-BASE", num: true, key: function (x) { return x[8]; }, text: function (x) { return amount(x[8]); } },
    { id: "tnew", label: "TOTAL-NEW", num: true, key: function (x) { return x[9]; }, text: function (x) { return amount(x[9]); } },
    { id: "tpct", label: "TOTAL%", num: true,
      key: function (x) { return x[8] > 0 ? (x[9] - x[8]) / x[8] : x[9] > 0 ? Infinity : 0; },
      text: function (x) { return changePct(x[8], x[9]); } },
    { id: "name", label: meta.heading || "FUNCTION", key: function (x) { return S[x[0]]; }, text: function (x) { return S[x[0]]; } },
    { id: "loc", label: "LOCATION", key: function (x) { return S[x[2]] || S[x[1]]; },
      text: function (x) { return x[2] ? S[x[2]].replace(/^.*\//, "") + (x[3] ? ":" + x[3] : "") : S[x[1]]; } },
  ];
  var sortBy = "change", descending = true, head = $("diff-table").tHead.rows[0], body = $("diff-table").tBodies[0];
  COLUMNS.forEach(function (col) {
    var th = document.createElement("th");
    th.textContent = col.label;
    th.className = "sortable" + (col.num ? " num" : "");
    th.setAttribute("data-column", col.id);
    th.addEventListener("click", function () {
      if (sortBy === col.id) descending = !descending; else { sortBy = col.id; descending = col.id !== "name" && col.id !== "loc"; }
      drawTable();
    });
    head.appendChild(th);
    col.th = th;
  });
  // The first rows only until asked for all: thousands of rows cost the
  // page its first second.
  var FIRST_ROWS = 200, allRows = false;
  $("diff-table-all").addEventListener("click", function () { allRows = !allRows; drawTable(); });
  function drawTable() {
    var col = COLUMNS.filter(function (c) { return c.id === sortBy; })[0];
    var order = ROWS.map(function (_, i) { return i; });
    order.sort(function (a, b) {
      var ka = col.key(ROWS[a]), kb = col.key(ROWS[b]);
      var c = ka < kb ? -1 : ka > kb ? 1 : 0;
      return (descending ? -c : c) || a - b;
    });
    COLUMNS.forEach(function (c) {
      c.th.classList.toggle("sorted", c === col);
      if (c === col) c.th.setAttribute("aria-sort", descending ? "descending" : "ascending"); else c.th.removeAttribute("aria-sort");
    });
    body.textContent = "";
    order.slice(0, allRows ? ROWS.length : FIRST_ROWS).forEach(function (i) {
      var row = ROWS[i], tr = document.createElement("tr");
      tr.setAttribute("data-row", String(i));
      COLUMNS.forEach(function (c) {
        var td = document.createElement("td");
        td.textContent = c.text(row);
        td.className = c.id === "name" ? "name" : c.id === "loc" ? "loc" : c.num ? "num" : "";
        if (c.id === "verdict" && row[4]) td.className = VERDICTS[row[4]];
        tr.appendChild(td);
      });
      if (row[10] >= 0 && row[10] === focusFn) tr.className = "focus";
      tr.addEventListener("click", function () {
        focusFn = focusFn === row[10] ? -1 : row[10];
        drawTable();
        drawFlame();
      });
      body.appendChild(tr);
    });
    var cut = !allRows && ROWS.length > FIRST_ROWS;
    $("diff-table-note").textContent = cut ? "the first " + FIRST_ROWS + " of " + grouped(ROWS.length) + " rows" : "";
    $("diff-table-all").hidden = ROWS.length <= FIRST_ROWS;
    $("diff-table-all").textContent = allRows ? "Show the first " + FIRST_ROWS : "Show all " + grouped(ROWS.length);
  }

  // ---- theme ----------------------------------------------------------------
  var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)"), picked = null;
  function applyTheme() {
    var isDark = picked !== null ? picked === "dark" : !!(dark && dark.matches);
    document.documentElement.setAttribute("data-theme", isDark ? "dark" : "light");
    $("theme").textContent = isDark ? "Light theme" : "Dark theme";
  }
  $("theme").addEventListener("click", function () {
    picked = document.documentElement.getAttribute("data-theme") === "dark" ? "light" : "dark";
    applyTheme();
  });
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "t") $("theme").click();
    if (e.key === "Escape" && zoomNode !== 0) { zoomNode = 0; drawFlame(); }
  });
  if (dark && dark.addEventListener) dark.addEventListener("change", applyTheme);
  applyTheme();

  function drawAll() {
    timelines.forEach(drawTimeline);
    drawFlame();
  }
  window.addEventListener("resize", function () { if (!$("compare").hidden) drawAll(); });
  window.strobeCompare = {
    show: show, nodes: nN, frames: nF, rows: ROWS.length,
    describe: describe, boxAt: boxAt,
    node: function (name) {
      for (var x = 1; x < nN; x++) if (S[fName[frame[x]]] === name) return x;
      return -1;
    },
    box: function (x) {
      var i = bn.indexOf(x);
      return i < 0 ? null : { x: bx[i], y: rowY(depth[x]), w: bw[i], h: FROW };
    },
    color: color, verdict: function (x) { return VERDICTS[verdict[x]]; },
  };
  drawTable();
  show("compare");
  // When it became interactive, ms since the navigation began.
  window.strobeCompare.readyAt = performance.now();
  document.body.setAttribute("data-ready", "1");
})();
