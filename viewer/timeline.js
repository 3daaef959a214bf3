// strobe's HTML viewer, the timeline: a row per thread with its CPU use over
// time (off-CPU intervals stacked above in their own colour), the time axis
// below. Drag across it to select a time range, click a thread's name to
// pick threads. Hovering says the time and the function on CPU there; a
// search paints the samples whose stack matches in the match colour, so
// the timeline shows when the matched code ran.
"use strict";
(function () {
  var V = window.strobeViewer, $ = V.$;
  var nT = V.nT, threads = V.threads, endUs = V.endUs;
  var sTime = V.sTime, sWeight = V.sWeight, sNode = V.sNode, tStart = V.tStart;
  var oTime = V.oTime, oWeight = V.oWeight, oStart = V.oStart;
  var ROW = 18;
  var tlCanvas = $("timeline-canvas"), names = $("thread-names"), tip = $("timeline-tip");
  var nameEls = [];
  threads.forEach(function (t, k) {
    var el = document.createElement("div");
    el.textContent = V.threadLabel(k);
    el.title = V.threadLabel(k) + ": " + V.grouped(t.samples) + " samples" +
      (t.off_samples ? ", " + V.grouped(t.off_samples) + " off-CPU intervals" : "");
    el.addEventListener("click", function () { V.toggleThread(k); });
    names.appendChild(el);
    nameEls.push(el);
  });
  // The legend: what the timeline's colours mean.
  [["CPU", V.CPU_COLOR], V.nO > 0 ? ["off-CPU (blocked or waiting for a CPU)", V.OFF_COLOR] : null,
    ["search match", V.MATCH]].forEach(function (l) {
    if (!l) return;
    var sw = document.createElement("span");
    sw.className = "swatch";
    sw.style.background = l[1];
    var tx = document.createElement("span");
    tx.textContent = l[0];
    $("legend").appendChild(sw);
    $("legend").appendChild(tx);
  });
  var axisEl = document.createElement("div");
  axisEl.className = "axis";
  names.appendChild(axisEl);
  tlCanvas.style.height = (nT + 1) * ROW + "px";

  // Per thread, weight per pixel column: CPU samples (bins), off-CPU
  // intervals (offBins), and the samples a search matches (matchBins).
  var bins = null, offBins = null, matchBins = null, nBins = 0, matchedFor = null;
  function spread(into, from, to, T, W, row, perUs, only) {
    // Each sample covers [time, time + weight): spread it over its columns.
    for (var i = from; i < to; i++) {
      if (only && !(sNode[i] >= 0 && only[sNode[i]])) continue;
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
      spread(bins, tStart[k], tStart[k + 1], sTime, sWeight, k * nBins, perUs, null);
      spread(offBins, oStart[k], oStart[k + 1], oTime, oWeight, k * nBins, perUs, null);
    }
    matchedFor = null;
  }
  // The search's samples: those whose stack holds a match (V.under).
  function binMatches() {
    var key = V.searching() ? V.searchVersion : -1;
    if (key === matchedFor) return;
    matchedFor = key;
    matchBins = null;
    if (!V.searching()) return;
    matchBins = new Float64Array(nT * nBins);
    var perUs = nBins / endUs;
    for (var k = 0; k < nT; k++) {
      spread(matchBins, tStart[k], tStart[k + 1], sTime, sWeight, k * nBins, perUs, V.under);
    }
  }
  function niceStep(span, count) {
    var raw = span / count, p = Math.pow(10, Math.floor(Math.log10(raw)));
    var m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }
  function draw() {
    var dpr = window.devicePixelRatio || 1, w = tlCanvas.clientWidth, h = (nT + 1) * ROW;
    if (w <= 0) return;
    if (nBins !== Math.floor(w)) binSamples(w);
    binMatches();
    tlCanvas.width = Math.round(w * dpr); tlCanvas.height = Math.round(h * dpr);
    var c = tlCanvas.getContext("2d"), sel = V.selection();
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    c.clearRect(0, 0, w, h);
    var binNs = endUs * 1000 / nBins, rowA = V.css("--row-a"), rowB = V.css("--row-b");
    for (var k = 0; k < nT; k++) {
      var y = k * ROW;
      var on = !sel.any || sel.threads[k];
      c.fillStyle = k % 2 ? rowB : rowA;
      c.fillRect(0, y, w, ROW);
      for (var b = 0; b < nBins; b++) {
        // CPU from the bottom of the row, off-CPU time stacked above it.
        var v = bins[k * nBins + b], o = offBins[k * nBins + b], bh = 0;
        if (v > 0) {
          bh = Math.max(1, Math.min(1, v / binNs) * (ROW - 3));
          c.fillStyle = on ? V.CPU_COLOR : "rgb(170,180,195)";
          c.fillRect(b * w / nBins, y + ROW - 1 - bh, Math.max(1, w / nBins), bh);
          var mv = matchBins ? matchBins[k * nBins + b] : 0;
          if (mv > 0) {
            c.fillStyle = V.MATCH;
            c.fillRect(b * w / nBins, y + ROW - 1 - bh, Math.max(1, w / nBins), Math.max(1, bh * Math.min(1, mv / v)));
          }
        }
        if (o > 0) {
          var oh = Math.max(1, Math.min(1, o / binNs) * (ROW - 3 - bh));
          c.fillStyle = on ? V.OFF_COLOR : "rgb(215,200,180)";
          c.fillRect(b * w / nBins, y + ROW - 1 - bh - oh, Math.max(1, w / nBins), oh);
        }
      }
    }
    // The time axis.
    var ay = nT * ROW, step = niceStep(endUs, Math.max(2, Math.floor(w / 110)));
    c.fillStyle = V.css("--muted"); c.font = "11px sans-serif"; c.textBaseline = "middle";
    for (var t = 0; t <= endUs; t += step) {
      var x = t / endUs * w;
      c.fillRect(x, ay, 1, 4);
      if (x < w - 40) c.fillText(t === 0 ? "0" : V.duration(t * 1000), x + 3, ay + ROW / 2 + 2);
    }
    // The selected range: everything else is shaded.
    var a0 = dragFrom !== null ? Math.min(dragFrom, dragTo) : sel.from / endUs * w;
    var a1 = dragFrom !== null ? Math.max(dragFrom, dragTo) : (sel.to === Infinity ? w : sel.to / endUs * w);
    if (a0 > 0 || a1 < w) {
      c.fillStyle = "rgba(0,0,0,0.18)";
      c.fillRect(0, 0, Math.max(0, a0), nT * ROW);
      c.fillRect(a1, 0, Math.max(0, w - a1), nT * ROW);
      c.strokeStyle = "rgb(200,60,0)";
      c.strokeRect(a0 + 0.5, 0.5, Math.max(1, a1 - a0 - 1), nT * ROW - 1);
    }
    nameEls.forEach(function (el, k) { el.className = sel.any && sel.threads[k] ? "selected" : ""; });
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
    draw();
    function move(ev) { dragTo = canvasX(ev); draw(); }
    function up(ev) {
      window.removeEventListener("mousemove", move);
      window.removeEventListener("mouseup", up);
      dragTo = canvasX(ev);
      var w = tlCanvas.clientWidth, x0 = Math.min(dragFrom, dragTo), x1 = Math.max(dragFrom, dragTo);
      dragFrom = dragTo = null;
      if (x1 - x0 < 3) V.setRange(0, Infinity);  // a click clears the range
      else V.setRange(x0 / w * endUs, x1 / w * endUs);
    }
    window.addEventListener("mousemove", move);
    window.addEventListener("mouseup", up);
  });
  // Hover: the time, and on a thread's row the function it ran then.
  tlCanvas.addEventListener("mousemove", function (e) {
    var rect = tlCanvas.getBoundingClientRect(), w = rect.width;
    var t = (e.clientX - rect.left) / w * endUs, k = Math.floor((e.clientY - rect.top) / ROW);
    var text = V.duration(t * 1000);
    if (k >= 0 && k < nT) {
      var i = V.lowerBound(tStart[k], tStart[k + 1], t, sTime), near = -1, slack = 2 / w * endUs;
      [i - 1, i].forEach(function (j) {
        if (j >= tStart[k] && j < tStart[k + 1] && sTime[j] - slack <= t && t <= sTime[j] + sWeight[j] / 1000 + slack) near = j;
      });
      text += "  " + V.threadLabel(k) + (near >= 0 && sNode[near] >= 0 ? "  " + V.label(sNode[near]) : "  (no sample)");
    }
    tip.textContent = text;
  });
  tlCanvas.addEventListener("mouseleave", function () { tip.textContent = "\u00a0"; });
  V.listeners.push(draw);
})();
