// strobe's HTML viewer: reads the profile embedded in #strobe-data (see
// docs/FORMATS.md, "html") and draws the header, the per-thread timeline,
// the flame graph (icicle: root on top) and the top-functions table for the
// current selection (threads and a time range). Off-CPU intervals (record
// --off-cpu) are drawn on the timeline in their own colour and counted in the
// flame graph and table with the CPU samples. Aggregation works on typed
// arrays indexed by stack node, so a selection costs one pass over its
// samples and one over the nodes. Every recorded string reaches the page
// through textContent or canvas text only, never as markup.
"use strict";
(function () {
  // ---- decoding -----------------------------------------------------------
  var ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  var DIGIT = new Int8Array(128).fill(-1);
  for (var a = 0; a < 64; a++) DIGIT[ALPHABET.charCodeAt(a)] = a;

  // Unsigned numbers, 5 bits a character, least significant group first;
  // 32 in a digit means "more follows". Exact up to 2^53.
  function Reader(s) { this.s = s; this.i = 0; }
  Reader.prototype.next = function () {
    var s = this.s, i = this.i, v = 0, mul = 1, d;
    do {
      d = DIGIT[s.charCodeAt(i++)];
      if (!(d >= 0)) throw new Error("malformed profile data at offset " + (i - 1));
      v += (d & 31) * mul;
      mul *= 32;
    } while (d & 32);
    this.i = i;
    return v;
  };
  function unzigzag(v) { return v % 2 === 1 ? -(v + 1) / 2 : v / 2; }

  var data = JSON.parse(document.getElementById("strobe-data").textContent);
  var S = data.strings;
  var meta = data.meta;

  var nF = data.frame_count;
  var fName = new Int32Array(nF), fFile = new Int32Array(nF), fLine = new Int32Array(nF);
  var fModule = new Int32Array(nF), fFlags = new Int32Array(nF), fFn = new Int32Array(nF);
  var r = new Reader(data.frames);
  for (var f = 0; f < nF; f++) {
    fName[f] = r.next(); fFile[f] = r.next(); fLine[f] = r.next();
    fModule[f] = r.next(); fFlags[f] = r.next(); fFn[f] = r.next();
  }
  // Functions are counted by identity (fFn), never by name: two functions
  // that share a name stay two rows.
  var nFn = data.function_count, FEW = data.few_samples;
  var INLINED = 1, UNRESOLVED = 2;

  // Stack nodes: a trie, parents before children. ROOT is the virtual "all".
  var nN = data.node_count, ROOT = nN;
  var parent = new Int32Array(nN), frame = new Int32Array(nN), depth = new Int32Array(nN + 1);
  var maxDepth = 0;
  r = new Reader(data.nodes);
  for (var n = 0; n < nN; n++) {
    parent[n] = n - r.next();
    frame[n] = r.next();
    depth[n] = parent[n] < 0 ? 1 : depth[parent[n]] + 1;
    if (depth[n] > maxDepth) maxDepth = depth[n];
  }
  function parentOf(x) { return parent[x] < 0 ? ROOT : parent[x]; }

  // Children, in CSR form, sorted by name (a stable layout across selections).
  var nameRank = new Int32Array(S.length);
  (function () {
    var order = S.map(function (_, i) { return i; });
    order.sort(function (x, y) { return S[x] < S[y] ? -1 : S[x] > S[y] ? 1 : 0; });
    for (var i = 0; i < order.length; i++) nameRank[order[i]] = i;
  })();
  var childStart = new Int32Array(nN + 2), childList = new Int32Array(nN);
  for (n = 0; n < nN; n++) childStart[parentOf(n) + 1]++;
  for (n = 1; n <= nN + 1; n++) childStart[n] += childStart[n - 1];
  (function () {
    var fill = childStart.slice(0, nN + 1);
    for (var x = 0; x < nN; x++) childList[fill[parentOf(x)]++] = x;
    for (var p = 0; p <= nN; p++) {
      var lo = childStart[p], hi = childStart[p + 1];
      if (hi - lo > 1) {
        var part = Array.prototype.slice.call(childList, lo, hi);
        part.sort(function (x, y) { return nameRank[fName[frame[x]]] - nameRank[fName[frame[y]]]; });
        childList.set(part, lo);
      }
    }
  })();

  // dup[n]: a caller of n is the same function (TOTAL counts a sample once).
  var dup = new Uint8Array(nN);
  (function () {
    var onPath = new Int32Array(nFn);
    var stN = new Int32Array(maxDepth + 2), stI = new Int32Array(maxDepth + 2), sp = 0;
    stN[0] = ROOT; stI[0] = childStart[ROOT];
    while (sp >= 0) {
      var x = stN[sp];
      if (stI[sp] < childStart[x + 1]) {
        var c = childList[stI[sp]++], nm = fFn[frame[c]];
        dup[c] = onPath[nm] > 0 ? 1 : 0;
        onPath[nm]++;
        sp++; stN[sp] = c; stI[sp] = childStart[c];
      } else {
        if (x !== ROOT) onPath[fFn[frame[x]]]--;
        sp--;
      }
    }
  })();

  // Samples: per thread, in time order (µs since the start), one array each;
  // off-CPU intervals the same way in their own arrays (o*).
  var threads = data.threads, nT = threads.length, nS = 0, nO = 0;
  threads.forEach(function (t) { nS += t.samples; nO += t.off_samples || 0; });
  var sTime = new Float64Array(nS), sNode = new Int32Array(nS), sWeight = new Float64Array(nS);
  var tStart = new Int32Array(nT + 1);
  var oTime = new Float64Array(nO), oNode = new Int32Array(nO), oWeight = new Float64Array(nO);
  var oStart = new Int32Array(nT + 1);
  var unit = data.time_unit_ns / 1000;  // time unit in µs
  var endUs = meta.duration_ns / 1000;
  function decode(k, text, count, at, T, N, W) {
    var rd = new Reader(text || ""), t = 0, node = 0, w = 0;
    for (var j = 0; j < count; j++, at++) {
      t += rd.next(); node += unzigzag(rd.next()); w += unzigzag(rd.next());
      T[at] = t * unit; N[at] = node - 1; W[at] = w;
      var e = T[at] + w / 1000;
      if (e > endUs) endUs = e;
    }
    return at;
  }
  (function () {
    var i = 0, o = 0;
    for (var k = 0; k < nT; k++) {
      tStart[k] = i; oStart[k] = o;
      i = decode(k, threads[k].data, threads[k].samples, i, sTime, sNode, sWeight);
      o = decode(k, threads[k].off_data, threads[k].off_samples || 0, o, oTime, oNode, oWeight);
    }
    tStart[nT] = i; oStart[nT] = o;
  })();
  if (!(endUs > 0)) endUs = 1;
  // What weights measure: "CPU", "off-CPU", "wall" (ns), or an event's count.
  var LABEL = meta.label || "CPU", TIME = (meta.unit || "nanoseconds") === "nanoseconds";
  var CPU_COLOR = "rgb(52,110,200)", OFF_COLOR = "rgb(235,150,40)";  // the timeline's

  // ---- formatting ---------------------------------------------------------
  function grouped(x) { return String(x).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }
  function duration(ns) {
    if (ns >= 1e9) return (ns / 1e9).toFixed(2) + " s";
    if (ns >= 1e6) return (ns / 1e6).toFixed(1) + " ms";
    if (ns >= 1e3) return (ns / 1e3).toFixed(1) + " µs";
    return Math.round(ns) + " ns";
  }
  function pct(x, total) { return total > 0 ? (100 * x / total).toFixed(2) + "%" : "0.00%"; }
  function amount(w) { return TIME ? duration(w) : grouped(w) + " " + (meta.count_unit || "events"); }
  function label(x) {
    if (x === ROOT) return "all";
    var fr = frame[x];
    return S[fName[fr]] + (fFlags[fr] & INLINED ? " [inlined]" : "");
  }
  function location(fr) {
    if (fFile[fr] !== 0) return S[fFile[fr]] + (fLine[fr] ? ":" + fLine[fr] : "");
    return S[fModule[fr]];
  }
  function threadLabel(k) {
    if (threads[k].role) return threads[k].role + " (tid " + threads[k].tid + ")";
    return (threads[k].name || "thread") + " (" + threads[k].tid + ")";
  }
  function $(id) { return document.getElementById(id); }

  // ---- selection and aggregation -----------------------------------------
  var selThreads = new Uint8Array(nT), anyThread = false;  // none picked: all threads
  var selFrom = 0, selTo = Infinity;                       // µs, [from, to)
  var nodeSelf = new Float64Array(nN), nodeTotal = new Float64Array(nN);
  var nodeOff = new Float64Array(nN);  // the off-CPU part of nodeTotal
  var nodeSelfN = new Float64Array(nN), nodeTotalN = new Float64Array(nN);
  var rootTotal = 0, rootSamples = 0, allWeight = 0, cpuWeight = 0;
  for (var s = 0; s < nS; s++) allWeight += sWeight[s];
  cpuWeight = allWeight;  // the CPU samples; off-CPU intervals are the o* arrays
  for (s = 0; s < nO; s++) allWeight += oWeight[s];

  function lowerBound(lo, hi, t, T) {
    T = T || sTime;
    while (lo < hi) {
      var mid = (lo + hi) >>> 1;
      if (T[mid] < t) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  function aggregate() {
    nodeSelf.fill(0); nodeSelfN.fill(0); nodeOff.fill(0);
    rootTotal = 0; rootSamples = 0;
    function add(from, to, T, N, W, off) {
      var i0 = lowerBound(from, to, selFrom, T);
      var i1 = selTo === Infinity ? to : lowerBound(i0, to, selTo, T);
      for (var i = i0; i < i1; i++) {
        var x = N[i], w = W[i];
        if (x >= 0) { nodeSelf[x] += w; nodeSelfN[x]++; if (off) nodeOff[x] += w; }
        rootTotal += w;
      }
      rootSamples += i1 - i0;
    }
    for (var k = 0; k < nT; k++) {
      if (anyThread && !selThreads[k]) continue;
      add(tStart[k], tStart[k + 1], sTime, sNode, sWeight, false);
      add(oStart[k], oStart[k + 1], oTime, oNode, oWeight, true);
    }
    nodeTotal.set(nodeSelf); nodeTotalN.set(nodeSelfN);
    for (var y = nN - 1; y >= 0; y--) {
      var p = parent[y];
      if (p >= 0) { nodeTotal[p] += nodeTotal[y]; nodeTotalN[p] += nodeTotalN[y]; nodeOff[p] += nodeOff[y]; }
    }
  }
  function totalOf(x) { return x === ROOT ? rootTotal : nodeTotal[x]; }
  function samplesOf(x) { return x === ROOT ? rootSamples : nodeTotalN[x]; }

  // ---- header -------------------------------------------------------------
  var command = meta.target || (meta.command || []).join(" ") || meta.source || "profile";
  $("command").textContent = command;
  document.title = "strobe: " + command;
  $("summary").textContent = [
    "duration " + duration(meta.duration_ns),
    grouped(nS) + " samples",
    nO ? grouped(nO) + " off-CPU intervals" : "",
    nT + (nT === 1 ? " thread" : " threads"),
    amount(allWeight) + (TIME ? " " + LABEL : "") + (meta.view === "wall" && nO ? " (CPU + off-CPU)" : TIME ? " sampled" : "") +
      // The target's own CPU (cpu-clock and task-clock recordings) next to
      // the CPU part of what was sampled, so a gap shows.
      (meta.target_cpu_ns && !nO && meta.view !== "off-cpu" ? " of " + duration(meta.target_cpu_ns) + " used" : ""),
    meta.target_cpu_ns && nO && meta.view !== "off-cpu"
      ? duration(cpuWeight) + " CPU sampled of " + duration(meta.target_cpu_ns) + " used" : "",
    meta.event + (meta.frequency ? " at " + meta.frequency + " Hz" : ""),
    meta.lost_samples ? grouped(meta.lost_samples) + " lost" : "",
    meta.start_unix_ms ? "started " + new Date(meta.start_unix_ms).toISOString() : "",
  ].filter(Boolean).join(" · ");
  // Both clocks of the start, to line the timeline up with the program's logs.
  if (meta.start_monotonic_ns) {
    $("summary").title = "time 0 is CLOCK_REALTIME " + meta.start_realtime_ns +
      " ns, CLOCK_MONOTONIC " + meta.start_monotonic_ns + " ns";
  }

  // ---- timeline -----------------------------------------------------------
  var ROW = 18;
  var tlCanvas = $("timeline-canvas"), names = $("thread-names");
  var nameEls = [];
  threads.forEach(function (t, k) {
    var el = document.createElement("div");
    el.textContent = threadLabel(k);
    el.title = threadLabel(k) + ": " + grouped(t.samples) + " samples" +
      (t.off_samples ? ", " + grouped(t.off_samples) + " off-CPU intervals" : "");
    el.addEventListener("click", function () {
      selThreads[k] ^= 1;
      anyThread = selThreads.some(function (v) { return v !== 0; });
      selectionChanged();
    });
    names.appendChild(el);
    nameEls.push(el);
  });
  // The legend: what the timeline's colours mean, when there is off-CPU time.
  if (nO > 0) {
    [["CPU", CPU_COLOR], ["off-CPU (blocked or waiting for a CPU)", OFF_COLOR]].forEach(function (l) {
      var sw = document.createElement("span");
      sw.className = "swatch";
      sw.style.background = l[1];
      var tx = document.createElement("span");
      tx.textContent = l[0];
      $("legend").appendChild(sw);
      $("legend").appendChild(tx);
    });
  }
  if (!TIME) document.querySelector("#top-table thead th:nth-child(3)").textContent = "SELF";
  var axisEl = document.createElement("div");
  axisEl.className = "axis";
  names.appendChild(axisEl);
  tlCanvas.style.height = (nT + 1) * ROW + "px";

  // Per thread, weight per pixel column: CPU samples (bins) and off-CPU
  // intervals (offBins), each a colour of its own.
  var bins = null, offBins = null, nBins = 0;
  function spread(into, from, to, T, W, row, perUs) {
    // Each sample covers [time, time + weight): spread it over its columns.
    for (var i = from; i < to; i++) {
      var x0 = T[i] * perUs, x1 = (T[i] + W[i] / 1000) * perUs;
      var b = Math.floor(x0), last = Math.min(nBins - 1, Math.floor(x1));
      if (b >= last) { into[row + Math.min(b, nBins - 1)] += W[i]; continue; }
      var perCol = W[i] / (x1 - x0);
      into[row + b] += (b + 1 - x0) * perCol;
      for (b++; b < last; b++) into[row + b] += perCol;
      into[row + last] += (x1 - last) * perCol;
    }
  }
  function binSamples(width) {
    nBins = Math.max(1, Math.floor(width));
    bins = new Float64Array(nT * nBins);
    offBins = new Float64Array(nT * nBins);
    var perUs = nBins / endUs;
    for (var k = 0; k < nT; k++) {
      spread(bins, tStart[k], tStart[k + 1], sTime, sWeight, k * nBins, perUs);
      spread(offBins, oStart[k], oStart[k + 1], oTime, oWeight, k * nBins, perUs);
    }
  }
  function niceStep(span, count) {
    var raw = span / count, p = Math.pow(10, Math.floor(Math.log10(raw)));
    var m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }
  function drawTimeline() {
    var dpr = window.devicePixelRatio || 1, w = tlCanvas.clientWidth, h = (nT + 1) * ROW;
    if (w <= 0) return;
    if (nBins !== Math.floor(w)) binSamples(w);
    tlCanvas.width = Math.round(w * dpr); tlCanvas.height = Math.round(h * dpr);
    var c = tlCanvas.getContext("2d");
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    c.clearRect(0, 0, w, h);
    var binNs = endUs * 1000 / nBins;
    for (var k = 0; k < nT; k++) {
      var y = k * ROW;
      var on = !anyThread || selThreads[k];
      c.fillStyle = k % 2 ? "#f6f6f6" : "#fff";
      c.fillRect(0, y, w, ROW);
      for (var b = 0; b < nBins; b++) {
        // CPU from the bottom of the row, off-CPU time stacked above it.
        var v = bins[k * nBins + b], o = offBins[k * nBins + b], bh = 0;
        if (v > 0) {
          bh = Math.max(1, Math.min(1, v / binNs) * (ROW - 3));
          c.fillStyle = on ? CPU_COLOR : "rgb(170,180,195)";
          c.fillRect(b * w / nBins, y + ROW - 1 - bh, Math.max(1, w / nBins), bh);
        }
        if (o > 0) {
          var oh = Math.max(1, Math.min(1, o / binNs) * (ROW - 3 - bh));
          c.fillStyle = on ? OFF_COLOR : "rgb(215,200,180)";
          c.fillRect(b * w / nBins, y + ROW - 1 - bh - oh, Math.max(1, w / nBins), oh);
        }
      }
    }
    // The time axis.
    var ay = nT * ROW, step = niceStep(endUs, Math.max(2, Math.floor(w / 110)));
    c.fillStyle = "#555"; c.font = "11px sans-serif"; c.textBaseline = "middle";
    for (var t = 0; t <= endUs; t += step) {
      var x = t / endUs * w;
      c.fillRect(x, ay, 1, 4);
      if (x < w - 40) c.fillText(t === 0 ? "0" : duration(t * 1000), x + 3, ay + ROW / 2 + 2);
    }
    // The selected range: everything else is shaded.
    var a0 = dragFrom !== null ? Math.min(dragFrom, dragTo) : selFrom / endUs * w;
    var a1 = dragFrom !== null ? Math.max(dragFrom, dragTo)
      : (selTo === Infinity ? w : selTo / endUs * w);
    if (a0 > 0 || a1 < w) {
      c.fillStyle = "rgba(0,0,0,0.18)";
      c.fillRect(0, 0, Math.max(0, a0), nT * ROW);
      c.fillRect(a1, 0, Math.max(0, w - a1), nT * ROW);
      c.strokeStyle = "rgb(200,60,0)";
      c.strokeRect(a0 + 0.5, 0.5, Math.max(1, a1 - a0 - 1), nT * ROW - 1);
    }
    nameEls.forEach(function (el, k) { el.className = anyThread && selThreads[k] ? "selected" : ""; });
  }
  var dragFrom = null, dragTo = null;
  function canvasX(e) {
    var rect = tlCanvas.getBoundingClientRect();
    return Math.max(0, Math.min(rect.width, e.clientX - rect.left));
  }
  tlCanvas.addEventListener("mousedown", function (e) {
    if (e.button !== 0) return;
    e.preventDefault();
    dragFrom = dragTo = canvasX(e);
    drawTimeline();
    function move(ev) { dragTo = canvasX(ev); drawTimeline(); }
    function up(ev) {
      window.removeEventListener("mousemove", move);
      window.removeEventListener("mouseup", up);
      dragTo = canvasX(ev);
      var w = tlCanvas.clientWidth, x0 = Math.min(dragFrom, dragTo), x1 = Math.max(dragFrom, dragTo);
      dragFrom = dragTo = null;
      if (x1 - x0 < 3) { selFrom = 0; selTo = Infinity; }  // a click clears the range
      else { selFrom = x0 / w * endUs; selTo = x1 / w * endUs; }
      selectionChanged();
    }
    window.addEventListener("mousemove", move);
    window.addEventListener("mouseup", up);
  });
  $("clear-selection").addEventListener("click", function () {
    selThreads.fill(0); anyThread = false; selFrom = 0; selTo = Infinity;
    selectionChanged();
  });

  function showSelection() {
    var parts = [grouped(rootSamples) + " of " + grouped(nS + nO) + " samples (" +
      pct(rootTotal, allWeight) + " of the " + (TIME ? LABEL + " time" : meta.event || "events") + "), " +
      amount(rootTotal) + (TIME ? " " + LABEL : "")];
    if (selTo !== Infinity || selFrom > 0) {
      parts.push("from " + duration(selFrom * 1000) + " to " +
        duration(Math.min(selTo, endUs) * 1000));
    }
    if (anyThread) {
      parts.push("threads: " + threads.map(function (_, k) { return k; })
        .filter(function (k) { return selThreads[k]; }).map(threadLabel).join(", "));
    }
    var el = $("selection");
    el.textContent = "Selection: " + parts.join(" · ");
    el.setAttribute("data-samples", String(rootSamples));
  }

  // ---- flame graph --------------------------------------------------------
  var FROW = 17, MIN_PX = 0.4;
  var flame = $("flame-canvas"), details = $("details");
  var zoomNode = ROOT, hover = -1;
  var bx = [], bw = [], bd = [], bn = [];  // boxes drawn: x, width, depth, node
  var nameMatch = new Uint8Array(S.length), searching = false;

  function hashName(str) {
    var h = 2166136261;
    for (var i = 0; i < str.length; i++) h = Math.imul(h ^ str.charCodeAt(i), 16777619);
    return h >>> 0;
  }
  function color(x) {
    if (x === ROOT) return "rgb(200,200,200)";
    var fr = frame[x];
    if (searching && nameMatch[fName[fr]]) return "rgb(230,0,230)";
    var h = hashName(S[fName[fr]]);
    var v1 = (h & 255) / 255, v2 = ((h >>> 8) & 255) / 255, v3 = ((h >>> 16) & 255) / 255;
    // Frames whose time is mostly off CPU: blues, as in the SVG flame graph.
    if (2 * nodeOff[x] > nodeTotal[x]) return "rgb(" + Math.round(40 + 50 * v1) + "," + Math.round(90 + 70 * v2) + "," + Math.round(220 + 35 * v3) + ")";
    if (fFlags[fr] & UNRESOLVED) { var gr = Math.round(170 + 50 * v1); return "rgb(" + gr + "," + gr + "," + gr + ")"; }
    if (fFlags[fr] & INLINED) return "rgb(" + Math.round(50 + 60 * v1) + "," + Math.round(165 + 55 * v2) + "," + Math.round(165 + 55 * v2) + ")";
    return "rgb(" + Math.round(205 + 50 * v3) + "," + Math.round(230 * v1) + "," + Math.round(55 * v2) + ")";
  }

  function layout(width) {
    bx.length = bw.length = bd.length = bn.length = 0;
    var base = totalOf(zoomNode);
    function box(x, left, w) { bx.push(left); bw.push(w); bd.push(x === ROOT ? 0 : depth[x]); bn.push(x); }
    // The zoomed node and its callers span the whole width.
    var path = [];
    for (var x = zoomNode; x !== ROOT; x = parentOf(x)) path.push(x);
    box(ROOT, 0, width);
    for (var i = path.length - 1; i >= 0; i--) box(path[i], 0, width);
    if (!(base > 0)) return;
    var scale = width / base, stack = [zoomNode, 0];
    while (stack.length) {
      var left = stack.pop(), y = stack.pop(), cx = left;
      for (var j = childStart[y]; j < childStart[y + 1]; j++) {
        var c = childList[j], w = nodeTotal[c] * scale;
        if (w >= MIN_PX) { box(c, cx, w); stack.push(c, cx); }
        cx += w;
      }
    }
  }
  function drawFlame() {
    var dpr = window.devicePixelRatio || 1, w = flame.clientWidth;
    if (w <= 0) return;
    layout(w);
    var rows = 1;
    for (var i = 0; i < bd.length; i++) if (bd[i] + 1 > rows) rows = bd[i] + 1;
    var h = rows * FROW + 2;
    flame.style.height = h + "px";
    flame.width = Math.round(w * dpr); flame.height = Math.round(h * dpr);
    var c = flame.getContext("2d");
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    c.clearRect(0, 0, w, h);
    c.font = "11px ui-monospace, monospace";
    c.textBaseline = "middle";
    var cw = c.measureText("M").width || 7;
    for (i = 0; i < bn.length; i++) {
      var x = bn[i], y = bd[i] * FROW;
      c.fillStyle = color(x);
      c.fillRect(bx[i], y, Math.max(bw[i] - (bw[i] > 2 ? 1 : 0), 0.5), FROW - 1);
      if (x === hover) { c.strokeStyle = "#000"; c.strokeRect(bx[i] + 0.5, y + 0.5, Math.max(bw[i] - 2, 1), FROW - 2); }
      var fit = Math.floor((bw[i] - 6) / cw);
      if (fit >= 3) {
        var name = x === ROOT ? "all" : label(x);
        c.fillStyle = "#000";
        c.fillText(name.length <= fit ? name : name.slice(0, fit - 2) + "..", bx[i] + 3, y + FROW / 2);
      }
    }
  }
  function boxAt(e) {
    var rect = flame.getBoundingClientRect(), x = e.clientX - rect.left, d = Math.floor((e.clientY - rect.top) / FROW);
    for (var i = 0; i < bn.length; i++) {
      if (bd[i] === d && x >= bx[i] && x < bx[i] + bw[i]) return bn[i];
    }
    return -1;
  }
  function describe(x) {
    var text = label(x) + "  (" + grouped(samplesOf(x)) + " samples, " + pct(totalOf(x), rootTotal) +
      ", " + amount(totalOf(x)) + (TIME ? " " + LABEL : "") + ")";
    if (x !== ROOT) text += "  " + location(frame[x]);
    return text;
  }
  flame.addEventListener("mousemove", function (e) {
    var x = boxAt(e);
    if (x === hover) return;
    hover = x;
    details.textContent = x < 0 ? "\u00a0" : describe(x);
    drawFlame();
  });
  flame.addEventListener("mouseleave", function () {
    hover = -1; details.textContent = "\u00a0"; drawFlame();
  });
  flame.addEventListener("click", function (e) {
    var x = boxAt(e);
    if (x < 0) return;
    zoomNode = x;
    $("reset-zoom").disabled = x === ROOT;
    drawFlame();
  });
  $("reset-zoom").addEventListener("click", function () {
    zoomNode = ROOT; $("reset-zoom").disabled = true; drawFlame();
  });

  // ---- search -------------------------------------------------------------
  var searchBox = $("search"), matchedEl = $("matched");
  function runSearch() {
    var term = searchBox.value;
    searching = term !== "";
    nameMatch.fill(0);
    if (searching) {
      var re = null;
      try { re = new RegExp(term); } catch (err) { re = null; }
      for (var i = 0; i < S.length; i++) {
        if (re ? re.test(S[i]) : S[i].indexOf(term) >= 0) nameMatch[i] = 1;
      }
    }
    showMatched();
    drawFlame();
    drawTable();
  }
  // The matched share: samples with a match anywhere on the stack, once.
  function showMatched() {
    if (!searching) { matchedEl.textContent = ""; return; }
    var under = new Uint8Array(nN), sum = 0;
    for (var x = 0; x < nN; x++) {
      under[x] = nameMatch[fName[frame[x]]] || (parent[x] >= 0 && under[parent[x]]) ? 1 : 0;
      if (under[x]) sum += nodeSelf[x];
    }
    matchedEl.textContent = "Matched: " + (rootTotal > 0 ? (100 * sum / rootTotal).toFixed(1) : "0.0") + "%";
  }
  searchBox.addEventListener("input", runSearch);

  // ---- top functions ------------------------------------------------------
  var TOP_ROWS = 100;
  function drawTable() {
    var self = new Float64Array(nFn), total = new Float64Array(nFn), where = new Int32Array(nFn).fill(-1);
    var selfN = new Float64Array(nFn), totalN = new Float64Array(nFn);
    for (var x = 0; x < nN; x++) {
      if (nodeTotal[x] === 0) continue;
      var fn = fFn[frame[x]];
      self[fn] += nodeSelf[x]; selfN[fn] += nodeSelfN[x];
      if (!dup[x]) { total[fn] += nodeTotal[x]; totalN[fn] += nodeTotalN[x]; }
      if (where[fn] < 0) where[fn] = frame[x];
    }
    var rows = [];
    for (var i = 0; i < nFn; i++) if (total[i] > 0) rows.push(i);
    rows.sort(function (p, q) { return self[q] - self[p] || total[q] - total[p]; });
    var body = document.querySelector("#top-table tbody");
    body.textContent = "";
    var worst = -1;  // the largest standard error of a marked row, in points
    rows.slice(0, TOP_ROWS).forEach(function (fn) {
      var nm = fName[where[fn]];
      // A share resting on few samples is uncertain: marked, and the note
      // under the table says by how much (one binomial standard error).
      var basis = selfN[fn] > 0 ? selfN[fn] : totalN[fn], few = basis < FEW;
      var tr = document.createElement("tr");
      if (searching && nameMatch[nm]) tr.className = "match";
      if (few) {
        // Agresti-Coull: honest also at 0% and 100% of a few samples.
        var n = rootSamples + 4, q = (Math.min(basis, rootSamples) + 2) / n;
        var se = 100 * Math.sqrt(q * (1 - q) / n);
        if (se > worst) worst = se;
        tr.classList.add("few");
      }
      [[pct(self[fn], rootTotal) + (few ? "*" : ""), "num"], [pct(total[fn], rootTotal), "num"],
        [amount(self[fn]), "num"], [S[nm], "name"], [location(where[fn]), "loc"]].forEach(function (cell) {
        var td = document.createElement("td");
        td.textContent = cell[0];
        td.className = cell[1];
        tr.appendChild(td);
      });
      tr.title = S[nm] + (few ? " (" + basis + " samples: uncertain share)" : "");
      tr.addEventListener("click", function () {
        searchBox.value = "^" + S[nm].replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "$";
        runSearch();
      });
      body.appendChild(tr);
    });
    $("table-note").textContent = worst < 0 ? "" :
      "* fewer than " + FEW + " samples: such a share is uncertain by about \u00b1" +
      worst.toFixed(1) + " points (one binomial standard error)";
  }

  // ---- wiring -------------------------------------------------------------
  function selectionChanged() {
    aggregate();
    // The zoomed frame may have no sample in the new selection: zoom out to
    // its nearest caller that has some (the root at worst), never showing a
    // zoomed frame of 0 samples.
    while (zoomNode !== ROOT && !(nodeTotal[zoomNode] > 0)) zoomNode = parentOf(zoomNode);
    $("reset-zoom").disabled = zoomNode === ROOT;
    showSelection();
    drawTimeline();
    showMatched();
    drawFlame();
    drawTable();
    viewer.listeners.forEach(function (f) { f(); });
  }
  window.addEventListener("resize", function () { drawTimeline(); drawFlame(); });

  // What the viewer's other parts (spans.js) may use: the data, the time
  // axis, formatting, and the selection (one thread and a time range).
  var viewer = window.strobeViewer = {
    data: data, strings: S, endUs: endUs, duration: duration, grouped: grouped,
    threadLabel: threadLabel,
    select: function (k, fromUs, toUs) {
      selThreads.fill(0); selThreads[k] = 1; anyThread = true;
      selFrom = fromUs; selTo = toUs;
      selectionChanged();
    },
    selection: function () { return { threads: selThreads, any: anyThread, from: selFrom, to: selTo }; },
    listeners: [],
  };
  selectionChanged();
})();
