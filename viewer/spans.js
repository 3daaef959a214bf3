// strobe's HTML viewer, the spans: for every thread with spans, a track of
// its spans (nested by depth) on the timeline's time axis. Hovering a span
// shows its name and duration; clicking it selects its time range on its
// thread (the flame graph and the tables follow); the slowest spans are
// listed, each a click away. Uses only window.strobeViewer (viewer.js) and
// the #spans-section markup; names reach the page as text only. The
// decoded tracks are V.spanTracks, for the stack chart.
"use strict";
(function () {
  var V = window.strobeViewer;
  if (!V) return;
  var threads = V.data.threads, S = V.strings;
  function $(id) { return document.getElementById(id); }

  // ---- decoding: per thread, (start delta, duration, name, depth) in ns ----
  function numbers(s, count) {
    var out = new Float64Array(count), r = new window.strobeCodec.Reader(s, "span data");
    for (var n = 0; n < count; n++) out[n] = r.next();
    return out;
  }

  var tracks = [], all = [];  // all: every span as [track, index]
  threads.forEach(function (t, k) {
    if (!t.span_count) return;
    var v = numbers(t.spans, t.span_count * 4), n = t.span_count;
    var tr = { k: k, start: new Float64Array(n), dur: new Float64Array(n), name: new Int32Array(n),
      depth: new Int32Array(n), maxDepth: 0, y: 0, h: 0 };
    var at = 0;
    for (var i = 0; i < n; i++) {
      at += v[4 * i];
      tr.start[i] = at / 1000;  // µs, as the timeline
      tr.dur[i] = v[4 * i + 1] / 1000;
      tr.name[i] = v[4 * i + 2];
      tr.depth[i] = v[4 * i + 3];
      if (tr.depth[i] > tr.maxDepth) tr.maxDepth = tr.depth[i];
      all.push([tracks.length, i]);
    }
    tracks.push(tr);
  });
  V.spanTracks = tracks;
  if (!tracks.length) return;  // the section stays hidden
  $("spans-section").hidden = false;
  $("span-summary").textContent = V.grouped(all.length) + " spans" +
    (V.data.meta.dropped_spans ? ", " + V.grouped(V.data.meta.dropped_spans) +
      " dropped by the program (its span buffer was full)" : "");

  // ---- layout: a lane per nesting depth ---------------------------------
  var LANE = 14, MAX_LANES = 6;
  var canvas = $("span-canvas"), namesEl = $("span-names"), details = $("span-details");
  var height = 0;
  tracks.forEach(function (tr) {
    tr.y = height;
    tr.h = Math.min(tr.maxDepth + 1, MAX_LANES) * LANE + 4;
    height += tr.h;
    var el = document.createElement("div");
    el.textContent = V.threadLabel(tr.k);
    el.title = V.threadLabel(tr.k) + ": " + V.grouped(tr.start.length) + " spans";
    el.style.height = tr.h + "px";
    el.style.lineHeight = LANE + "px";
    el.setAttribute("data-track", String(tracks.indexOf(tr)));
    namesEl.appendChild(el);
  });
  canvas.style.height = height + "px";

  function hashName(str) {
    var h = 2166136261;
    for (var i = 0; i < str.length; i++) h = Math.imul(h ^ str.charCodeAt(i), 16777619);
    return h >>> 0;
  }
  function color(nm) {
    var h = hashName(S[nm]);
    return "rgb(" + (90 + (h & 63)) + "," + (150 + ((h >>> 8) & 63)) + "," + (200 + ((h >>> 16) & 55)) + ")";
  }
  function isSelected(tr, i) {
    var sel = V.selection();
    return sel.any && sel.threads[tr.k] && Math.abs(sel.from - tr.start[i]) < 1e-6 &&
      Math.abs(sel.to - (tr.start[i] + tr.dur[i])) < 1e-6;
  }

  function draw() {
    var w = canvas.clientWidth;
    if (w <= 0) return;
    var c = V.canvasContext(canvas, w, height, "10px sans-serif");
    var win = V.timeWindow(), scale = w / (win.to - win.from), chosen = null;
    tracks.forEach(function (tr, ti) {
      c.fillStyle = ti % 2 ? V.css("--row-b") : V.css("--row-a");
      c.fillRect(0, tr.y, w, tr.h);
      for (var i = 0; i < tr.start.length; i++) {
        var d = Math.min(tr.depth[i], MAX_LANES - 1);
        var x0 = (tr.start[i] - win.from) * scale, x1 = (tr.start[i] + tr.dur[i] - win.from) * scale;
        if (x1 < 0 || x0 > w) continue;
        var y = tr.y + 2 + d * LANE;
        c.fillStyle = color(tr.name[i]);
        c.fillRect(x0, y, Math.max(1, x1 - x0 - (x1 - x0 > 3 ? 1 : 0)), LANE - 2);
        if (x1 - x0 > 40) {
          c.fillStyle = "#000";
          var text = S[tr.name[i]], fit = Math.floor((x1 - x0 - 4) / 6);
          c.fillText(text.length <= fit ? text : text.slice(0, Math.max(1, fit - 2)) + "..", x0 + 2, y + LANE / 2 - 1);
        }
        if (isSelected(tr, i)) chosen = [x0, y, x1];
      }
    });
    if (chosen) {
      c.strokeStyle = "rgb(200,60,0)";
      c.lineWidth = 2;
      c.strokeRect(chosen[0], chosen[1], Math.max(2, chosen[2] - chosen[0]), LANE - 2);
    }
    markRows();
  }

  // The span under the mouse: its track and index, or null.
  function spanAt(e) {
    var rect = canvas.getBoundingClientRect(), x = e.clientX - rect.left, y = e.clientY - rect.top;
    var win = V.timeWindow(), w = canvas.clientWidth, span = win.to - win.from;
    var t = win.from + x / w * span, slack = 2 / w * span;
    for (var ti = 0; ti < tracks.length; ti++) {
      var tr = tracks[ti];
      if (y < tr.y || y >= tr.y + tr.h) continue;
      var d = Math.floor((y - tr.y - 2) / LANE), best = -1;
      for (var i = 0; i < tr.start.length; i++) {
        if (Math.min(tr.depth[i], MAX_LANES - 1) !== d) continue;
        if (tr.start[i] - slack <= t && t < tr.start[i] + tr.dur[i] + slack) {
          if (tr.start[i] <= t && t < tr.start[i] + tr.dur[i]) return [ti, i];
          if (best < 0) best = i;
        }
      }
      return best >= 0 ? [ti, best] : null;
    }
    return null;
  }
  function describe(ti, i) {
    var tr = tracks[ti];
    return S[tr.name[i]] + "  " + V.duration(tr.dur[i] * 1000) + "  " + V.threadLabel(tr.k) +
      "  from " + V.duration(tr.start[i] * 1000) + " to " + V.duration((tr.start[i] + tr.dur[i]) * 1000);
  }
  function choose(ti, i) {
    var tr = tracks[ti];
    V.select(tr.k, tr.start[i], tr.start[i] + tr.dur[i]);
  }
  canvas.addEventListener("mousemove", function (e) {
    var hit = spanAt(e);
    details.textContent = hit ? describe(hit[0], hit[1]) : "\u00a0";
    canvas.title = hit ? describe(hit[0], hit[1]) : "";
  });
  canvas.addEventListener("mouseleave", function () { details.textContent = "\u00a0"; });
  canvas.addEventListener("click", function (e) {
    var hit = spanAt(e);
    if (hit) choose(hit[0], hit[1]);
  });

  // ---- the slowest spans --------------------------------------------------
  var SLOWEST = 20, rows = [];
  var slowest = all.slice().sort(function (p, q) {
    return tracks[q[0]].dur[q[1]] - tracks[p[0]].dur[p[1]] || tracks[p[0]].start[p[1]] - tracks[q[0]].start[q[1]];
  }).slice(0, SLOWEST);
  var body = document.querySelector("#slowest-spans tbody");
  slowest.forEach(function (s) {
    var tr = tracks[s[0]], i = s[1], row = document.createElement("tr");
    [[S[tr.name[i]], "name"], [V.duration(tr.dur[i] * 1000), "num"], [V.threadLabel(tr.k), "name"],
      [V.duration(tr.start[i] * 1000), "num"]].forEach(function (cell) {
      var td = document.createElement("td");
      td.textContent = cell[0];
      td.className = cell[1];
      row.appendChild(td);
    });
    row.setAttribute("data-track", String(s[0]));
    row.setAttribute("data-index", String(i));
    row.addEventListener("click", function () {
      choose(s[0], i);
      $("timeline-section").scrollIntoView({ block: "nearest" });
    });
    body.appendChild(row);
    rows.push(row);
  });
  function markRows() {
    rows.forEach(function (row, r) {
      row.className = isSelected(tracks[slowest[r][0]], slowest[r][1]) ? "selected" : "";
    });
  }

  // Where a span is drawn, for tests and tools: {x, y} in CSS pixels of the canvas.
  V.spanPosition = function (ti, i) {
    var tr = tracks[ti], w = canvas.clientWidth, win = V.timeWindow();
    return { x: (tr.start[i] + tr.dur[i] / 2 - win.from) / (win.to - win.from) * w,
      y: tr.y + 2 + Math.min(tr.depth[i], MAX_LANES - 1) * LANE + LANE / 2 };
  };
  V.listeners.push(draw);
})();
