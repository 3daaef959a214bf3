// strobe's HTML viewer, the timeline: a row per thread with its CPU use over
// time (off-CPU intervals stacked above in their own colour), threads with
// a role first, then by name; beyond the 32 busiest, threads are hidden
// until "Show all threads". The time axis sits below the rows and stays in
// sight when they scroll. Drag across it to select a time range, click a
// thread's name to pick threads; the wheel zooms the time axis around the
// mouse (shift+wheel, or a sideways wheel, pans; Esc or "Whole recording"
// zooms out), and the span tracks follow. Hovering says the time and the
// function on CPU there; a search paints the samples whose stack matches
// in the match colour, so the timeline shows when the matched code ran.
"use strict";
(function () {
  var V = window.strobeViewer, $ = V.$;
  var nT = V.nT, threads = V.threads, endUs = V.endUs;
  var sTime = V.sTime, sWeight = V.sWeight, sNode = V.sNode, tStart = V.tStart;
  var oTime = V.oTime, oWeight = V.oWeight, oStart = V.oStart;
  var ROW = 18, MAX_SHOWN = 32;
  var tlCanvas = $("timeline-canvas"), axis = $("timeline-axis"), names = $("thread-names"), tip = $("timeline-tip");

  // Rows: threads with a role first (by role), then the others by name.
  var busy = threads.map(function (t, k) { return V.tStart[k + 1] - V.tStart[k] + oStart[k + 1] - oStart[k]; });
  var order = threads.map(function (_, k) { return k; }).sort(function (a, b) {
    var ta = threads[a], tb = threads[b];
    if (!!ta.role !== !!tb.role) return ta.role ? -1 : 1;
    var na = ta.role || ta.name || "", nb = tb.role || tb.name || "";
    return na < nb ? -1 : na > nb ? 1 : ta.tid - tb.tid;
  });
  var idle = new Uint8Array(nT);  // beyond the MAX_SHOWN busiest
  if (nT > MAX_SHOWN) {
    threads.map(function (_, k) { return k; }).sort(function (a, b) { return busy[b] - busy[a] || a - b; })
      .slice(MAX_SHOWN).forEach(function (k) { idle[k] = 1; });
  }
  var showAll = false, rows = [], nameEls = [];
  var toggle = $("show-threads");
  function layoutRows() {
    rows = order.filter(function (k) { return showAll || !idle[k]; });
    names.textContent = "";
    nameEls = [];
    rows.forEach(function (k) {
      var t = threads[k], el = document.createElement("div");
      el.textContent = V.threadLabel(k);
      el.title = V.threadLabel(k) + ": " + V.grouped(t.samples) + " samples" +
        (t.off_samples ? ", " + V.grouped(t.off_samples) + " off-CPU intervals" : "");
      el.addEventListener("click", function () { V.toggleThread(k); });
      names.appendChild(el);
      nameEls.push(el);
    });
    tlCanvas.style.height = Math.max(1, rows.length) * ROW + "px";
    var hidden = nT - rows.length, n = 0;
    for (var k = 0; k < nT; k++) n += idle[k];
    toggle.hidden = n === 0;
    toggle.textContent = showAll ? "Hide the " + n + " least busy threads" : "Show all " + nT + " threads";
    $("hidden-threads").textContent = hidden > 0 ? hidden + " threads with the fewest samples hidden" : "";
    nBins = 0;
  }
  toggle.addEventListener("click", function () { showAll = !showAll; layoutRows(); draw(); });

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

  // The visible time window, µs; the span tracks use it too.
  var winFrom = 0, winTo = endUs;
  V.timeWindow = function () { return { from: winFrom, to: winTo }; };
  function setWindow(from, to) {
    var span = Math.max(to - from, Math.min(endUs, 10));  // at most 10 µs a screen
    from = Math.max(0, Math.min(from, endUs - span));
    winFrom = from; winTo = Math.min(endUs, from + span);
    nBins = 0;
    $("whole-recording").disabled = winFrom <= 0 && winTo >= endUs;
    V.listeners.forEach(function (f) { f(); });
  }
  $("whole-recording").addEventListener("click", function () { setWindow(0, endUs); });
  V.timelineReset = function () {
    if (winFrom <= 0 && winTo >= endUs) return false;
    setWindow(0, endUs);
    return true;
  };

  // Per row, weight per pixel column: CPU samples (bins), off-CPU
  // intervals (offBins), and the samples a search matches (matchBins).
  var bins = null, offBins = null, matchBins = null, nBins = 0, matchedFor = null;
  function spread(into, from, to, T, W, row, perUs, only) {
    // Each sample covers [time, time + weight): spread it over its columns.
    var i = V.lowerBound(from, to, winFrom - 1e6, T);
    for (; i < to && T[i] < winTo; i++) {
      if (only && !(sNode[i] >= 0 && only[sNode[i]])) continue;
      var x0 = (T[i] - winFrom) * perUs, x1 = (T[i] + W[i] / 1000 - winFrom) * perUs;
      if (x1 <= 0) continue;
      if (x0 < 0) x0 = 0;
      var b = Math.floor(x0), last = Math.min(nBins - 1, Math.floor(x1));
      if (b >= nBins) continue;
      if (b >= last) { into[row + b] += W[i] * Math.min(1, (x1 - x0) / Math.max(1e-9, (W[i] / 1000) * perUs)); continue; }
      var perCol = W[i] / ((W[i] / 1000) * perUs);
      into[row + b] += (b + 1 - x0) * perCol;
      for (b++; b < last; b++) into[row + b] += perCol;
      into[row + last] += (x1 - last) * perCol;
    }
  }
  function binSamples(width) {
    nBins = Math.max(1, Math.floor(width));
    bins = new Float64Array(rows.length * nBins);
    offBins = new Float64Array(rows.length * nBins);
    var perUs = nBins / (winTo - winFrom);
    rows.forEach(function (k, r) {
      spread(bins, tStart[k], tStart[k + 1], sTime, sWeight, r * nBins, perUs, null);
      spread(offBins, oStart[k], oStart[k + 1], oTime, oWeight, r * nBins, perUs, null);
    });
    matchedFor = null;
  }
  // The search's samples: those whose stack holds a match (V.under).
  function binMatches() {
    var key = V.searching() ? V.searchVersion : -1;
    if (key === matchedFor) return;
    matchedFor = key;
    matchBins = null;
    if (!V.searching()) return;
    matchBins = new Float64Array(rows.length * nBins);
    var perUs = nBins / (winTo - winFrom);
    rows.forEach(function (k, r) {
      spread(matchBins, tStart[k], tStart[k + 1], sTime, sWeight, r * nBins, perUs, V.under);
    });
  }
  function niceStep(span, count) {
    var raw = span / count, p = Math.pow(10, Math.floor(Math.log10(raw)));
    var m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }
  function x2t(x, w) { return winFrom + x / w * (winTo - winFrom); }
  function t2x(t, w) { return (t - winFrom) / (winTo - winFrom) * w; }
  function draw() {
    var dpr = window.devicePixelRatio || 1, w = tlCanvas.clientWidth, h = Math.max(1, rows.length) * ROW;
    if (w <= 0) return;
    if (nBins !== Math.floor(w)) binSamples(w);
    binMatches();
    tlCanvas.width = Math.round(w * dpr); tlCanvas.height = Math.round(h * dpr);
    var c = tlCanvas.getContext("2d"), sel = V.selection();
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    c.clearRect(0, 0, w, h);
    var binNs = (winTo - winFrom) * 1000 / nBins, rowA = V.css("--row-a"), rowB = V.css("--row-b");
    rows.forEach(function (k, r) {
      var y = r * ROW, on = !sel.any || sel.threads[k];
      c.fillStyle = r % 2 ? rowB : rowA;
      c.fillRect(0, y, w, ROW);
      for (var b = 0; b < nBins; b++) {
        // CPU from the bottom of the row, off-CPU time stacked above it.
        var v = bins[r * nBins + b], o = offBins[r * nBins + b], bh = 0;
        if (v > 0) {
          bh = Math.max(1, Math.min(1, v / binNs) * (ROW - 3));
          c.fillStyle = on ? V.CPU_COLOR : "rgb(170,180,195)";
          c.fillRect(b * w / nBins, y + ROW - 1 - bh, Math.max(1, w / nBins), bh);
          var mv = matchBins ? matchBins[r * nBins + b] : 0;
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
    });
    // The selected range: everything else is shaded.
    var a0 = dragFrom !== null ? Math.min(dragFrom, dragTo) : t2x(sel.from, w);
    var a1 = dragFrom !== null ? Math.max(dragFrom, dragTo) : (sel.to === Infinity ? w : t2x(sel.to, w));
    a0 = Math.max(0, a0); a1 = Math.min(w, a1);
    if (a0 > 0 || a1 < w) {
      c.fillStyle = "rgba(0,0,0,0.18)";
      c.fillRect(0, 0, Math.max(0, a0), h);
      c.fillRect(a1, 0, Math.max(0, w - a1), h);
      c.strokeStyle = "rgb(200,60,0)";
      c.strokeRect(a0 + 0.5, 0.5, Math.max(1, a1 - a0 - 1), h - 1);
    }
    nameEls.forEach(function (el, r) { el.className = sel.any && sel.threads[rows[r]] ? "selected" : ""; });
    drawAxis(w);
  }
  // The time axis, its own canvas below the (scrolling) rows.
  function drawAxis(w) {
    var dpr = window.devicePixelRatio || 1, h = ROW;
    axis.width = Math.round(w * dpr); axis.height = Math.round(h * dpr);
    var c = axis.getContext("2d"), span = winTo - winFrom;
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    c.clearRect(0, 0, w, h);
    var step = niceStep(span, Math.max(2, Math.floor(w / 110)));
    c.fillStyle = V.css("--muted"); c.font = "11px sans-serif"; c.textBaseline = "middle";
    for (var t = Math.ceil(winFrom / step) * step; t <= winTo; t += step) {
      var x = t2x(t, w);
      c.fillRect(x, 0, 1, 4);
      if (x < w - 40) c.fillText(t === 0 ? "0" : V.duration(t * 1000), x + 3, h / 2 + 2);
    }
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
      else V.setRange(x2t(x0, w), x2t(x1, w));
    }
    window.addEventListener("mousemove", move);
    window.addEventListener("mouseup", up);
  });
  // The wheel: zoom around the mouse; sideways (or with shift): pan.
  function wheel(e) {
    var rect = tlCanvas.getBoundingClientRect(), w = rect.width, span = winTo - winFrom;
    var dx = e.shiftKey ? e.deltaY : e.deltaX, dy = e.shiftKey ? 0 : e.deltaY;
    if (Math.abs(dx) > Math.abs(dy)) {
      e.preventDefault();
      setWindow(winFrom + dx / w * span, winTo + dx / w * span);
      return;
    }
    if (!dy) return;
    e.preventDefault();
    var at = x2t(Math.max(0, Math.min(w, e.clientX - rect.left)), w), f = Math.pow(1.0015, dy);
    setWindow(at - (at - winFrom) * f, at + (winTo - at) * f);
  }
  tlCanvas.addEventListener("wheel", wheel, { passive: false });
  axis.addEventListener("wheel", wheel, { passive: false });
  // Hover: the time, and on a thread's row the function it ran then.
  tlCanvas.addEventListener("mousemove", function (e) {
    var rect = tlCanvas.getBoundingClientRect(), w = rect.width;
    var t = x2t(e.clientX - rect.left, w), r = Math.floor((e.clientY - rect.top) / ROW);
    var text = V.duration(t * 1000);
    if (r >= 0 && r < rows.length) {
      var k = rows[r], i = V.lowerBound(tStart[k], tStart[k + 1], t, sTime), near = -1;
      var slack = 2 / w * (winTo - winFrom);
      [i - 1, i].forEach(function (j) {
        if (j >= tStart[k] && j < tStart[k + 1] && sTime[j] - slack <= t && t <= sTime[j] + sWeight[j] / 1000 + slack) near = j;
      });
      text += "  " + V.threadLabel(k) + (near >= 0 && sNode[near] >= 0 ? "  " + V.label(sNode[near]) : "  (no sample)");
    }
    tip.textContent = text;
  });
  tlCanvas.addEventListener("mouseleave", function () { tip.textContent = "\u00a0"; });
  layoutRows();
  V.listeners.push(draw);
})();
