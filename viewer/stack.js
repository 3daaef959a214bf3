// strobe's HTML viewer, the stack chart: one thread's samples in time order
// (x = time over the selected range, the whole recording when none; y =
// stack depth, root on top), consecutive samples with the same frame at a
// depth drawn as one box; above them the thread's off-CPU intervals and its
// spans on the same time axis. Pick the thread in the list (the first
// selected thread, else the busiest). Hover for the frame and its time;
// click a frame to select its function. Each pixel column shows the stack
// most of its samples have (a pattern faster than a column shows as its
// majority; select a shorter range to see each sample), so drawing costs
// one pass over the range's samples and the width times the depth.
"use strict";
(function () {
  var V = window.strobeViewer, $ = V.$, ROOT = V.ROOT;
  var ROW = 16, BAND = 14;
  var canvas = $("stack-canvas"), details = $("stack-details"), pick = $("stack-thread");
  var busiest = 0;
  V.threads.forEach(function (t, k) {
    var o = document.createElement("option");
    o.value = String(k);
    o.textContent = V.threadLabel(k);
    pick.appendChild(o);
    if (V.tStart[k + 1] - V.tStart[k] > V.tStart[busiest + 1] - V.tStart[busiest]) busiest = k;
  });
  var chosen = -1;  // the thread picked in the list, -1: follow the selection
  pick.addEventListener("change", function () { chosen = Number(pick.value); draw(); });
  function thread() {
    if (chosen >= 0) return chosen;
    var sel = V.selection();
    if (sel.any) for (var k = 0; k < V.nT; k++) if (sel.threads[k]) return k;
    return busiest;
  }
  var boxes = [];  // [x0, x1, y, node or -1, label]
  function draw() {
    var w = canvas.clientWidth;
    if (w <= 0) return;
    if (V.nT === 0) { details.textContent = "No thread has samples."; canvas.style.height = "0px"; return; }
    var k = thread(), sel = V.selection();
    pick.value = String(k);
    var from = sel.from, to = sel.to === Infinity ? V.endUs : Math.min(sel.to, V.endUs);
    if (!(to > from)) { from = 0; to = V.endUs; }
    var perPx = (to - from) / w, lo = V.tStart[k], hi = V.tStart[k + 1];
    var track = (V.spanTracks || []).find(function (tr) { return tr.k === k; });
    var lanes = track ? Math.min(track.maxDepth + 1, 4) : 0;
    var top = BAND + lanes * BAND + 4;
    // Per column: the stack most of its samples have (none when the thread
    // was idle there). A sample counts in the column its start falls in.
    var cols = new Int32Array(Math.ceil(w)).fill(-1), deepest = 0;
    var cand = new Int32Array(8), cnt = new Float64Array(8);
    var i = V.lowerBound(lo, hi, from, V.sTime);
    // a sample that began before the range but covers its start
    if (i > lo && V.sTime[i - 1] + V.sWeight[i - 1] / 1000 > from) i--;
    for (var px = 0; px < cols.length; px++) {
      var colEnd = from + (px + 1) * perPx, nc = 0;
      for (; i < hi && V.sTime[i] < colEnd; i++) {
        var x = V.sNode[i];
        if (x < 0) continue;
        var c0 = 0;
        while (c0 < nc && cand[c0] !== x) c0++;
        if (c0 === nc) { if (nc === 8) continue; cand[nc] = x; cnt[nc++] = 0; }
        cnt[c0] += V.sWeight[i];
      }
      var best = -1;
      for (var c1 = 0; c1 < nc; c1++) if (best < 0 || cnt[c1] > cnt[best]) best = c1;
      if (best >= 0) {
        cols[px] = cand[best];
        if (V.depth[cand[best]] > deepest) deepest = V.depth[cand[best]];
      } else if (px > 0 && cols[px - 1] >= 0 && i > lo && V.sTime[i - 1] + V.sWeight[i - 1] / 1000 > colEnd - perPx) {
        cols[px] = cols[px - 1];  // a sample wider than a column goes on
      }
    }
    var h = top + Math.max(1, deepest) * ROW + 2;
    canvas.style.height = h + "px";
    var c = V.canvasContext(canvas, w, h, "11px ui-monospace, monospace");
    boxes = [];
    // Off-CPU intervals: the first band.
    c.fillStyle = V.css("--row-b");
    c.fillRect(0, 0, w, BAND);
    c.fillStyle = V.OFF_COLOR;
    for (var o = V.oStart[k]; o < V.oStart[k + 1]; o++) {
      var a = (V.oTime[o] - from) / perPx, b = (V.oTime[o] + V.oWeight[o] / 1000 - from) / perPx;
      if (b < 0 || a > w) continue;
      c.fillRect(a, 1, Math.max(1, b - a), BAND - 2);
      boxes.push([a, b, 0, -1, "off-CPU " + V.duration(V.oWeight[o]) + " at " + V.duration(V.oTime[o] * 1000)]);
    }
    // Spans: the next bands, one per depth.
    if (track) {
      for (var s = 0; s < track.start.length; s++) {
        var d = Math.min(track.depth[s], lanes - 1);
        var x0 = (track.start[s] - from) / perPx, x1 = (track.start[s] + track.dur[s] - from) / perPx;
        if (x1 < 0 || x0 > w) continue;
        var y = BAND + d * BAND + 2;
        c.fillStyle = "rgb(120,170,215)";
        c.fillRect(x0, y, Math.max(1, x1 - x0 - 1), BAND - 2);
        var text = V.strings[track.name[s]];
        boxes.push([x0, x1, y, -1, "span " + text + "  " + V.duration(track.dur[s] * 1000)]);
        if (x1 - x0 > 40) { c.fillStyle = "#000"; c.fillText(text, Math.max(0, x0) + 2, y + BAND / 2 - 1); }
      }
    }
    // The samples: per depth, runs of columns with the same node.
    var cw = c.measureText("M").width || 7;
    var anc = new Int32Array(deepest + 1), prev = new Int32Array(deepest + 1).fill(-1);
    var start = new Int32Array(deepest + 1);
    function flush(dd, endPx) {
      var x = prev[dd];
      if (x < 0) return;
      var bx = start[dd], bw = endPx - bx, by = top + (dd - 1) * ROW;
      c.fillStyle = V.frameColor(x);
      c.fillRect(bx, by, Math.max(0.5, bw - (bw > 2 ? 1 : 0)), ROW - 1);
      if (V.focusFn >= 0 && V.fFn[V.frame[x]] === V.focusFn) {
        c.strokeStyle = V.css("--focus"); c.lineWidth = 2;
        c.strokeRect(bx + 1, by + 1, Math.max(1, bw - 2), ROW - 3); c.lineWidth = 1;
      }
      var fit = Math.floor((bw - 6) / cw);
      if (fit >= 3) {
        var name = V.label(x);
        c.fillStyle = "#000";
        c.fillText(name.length <= fit ? name : name.slice(0, fit - 2) + "..", bx + 3, by + ROW / 2);
      }
      boxes.push([bx, endPx, by, x, ""]);
    }
    for (px = 0; px <= cols.length; px++) {
      var leaf = px < cols.length ? cols[px] : -1;
      anc.fill(-1);
      for (x = leaf; x >= 0; x = V.parent[x]) anc[V.depth[x]] = x;
      for (d = 1; d <= deepest; d++) {
        if (anc[d] !== prev[d]) {
          flush(d, px);
          prev[d] = anc[d];
          start[d] = px;
        }
      }
    }
    details.setAttribute("data-thread", String(V.threads[k].tid));
  }
  canvas.addEventListener("mousemove", function (e) {
    var rect = canvas.getBoundingClientRect(), px = e.clientX - rect.left, py = e.clientY - rect.top;
    var hit = null;
    for (var i = 0; i < boxes.length; i++) {
      var b = boxes[i], bh = b[3] >= 0 ? ROW : BAND;
      if (px >= b[0] && px < b[1] && py >= b[2] && py < b[2] + bh) hit = b;
    }
    details.textContent = !hit ? "\u00a0" : hit[3] >= 0
      ? V.label(hit[3]) + "  " + V.location(V.frame[hit[3]]) : hit[4];
  });
  canvas.addEventListener("click", function (e) {
    var rect = canvas.getBoundingClientRect(), px = e.clientX - rect.left, py = e.clientY - rect.top;
    for (var i = 0; i < boxes.length; i++) {
      var b = boxes[i];
      if (b[3] >= 0 && px >= b[0] && px < b[1] && py >= b[2] && py < b[2] + ROW) { V.focus(V.fFn[V.frame[b[3]]]); return; }
    }
  });
  V.addView({ id: "stack", key: "7", label: "Stack chart", section: $("stack-section"), draw: draw });
})();
