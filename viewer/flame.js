// strobe's HTML viewer, the flame graph (root at the bottom) and the icicle
// (root on top): the selection's stacks, width = share. Both views share one
// zoom: click a frame to zoom into it (and select its function), "Reset
// zoom" or Esc to go back. When a new selection leaves the zoomed frame
// without samples, the zoom falls back to its nearest caller that has some
// (the root at worst), so a zoomed frame never shows 0 samples.
"use strict";
(function () {
  var V = window.strobeViewer, $ = V.$, ROOT = V.ROOT;
  var FROW = 17, MIN_PX = 0.4;
  var zoomNode = ROOT;

  function make(id, key, label, rootOnTop) {
    var canvas = $(id + "-canvas"), details = $(id + "-details"), resetBtn = $(id + "-reset");
    // A deep flame graph scrolls; root at the bottom, it stays anchored there.
    var scroller = $(id + "-scroll"), fromBottom = 0;
    scroller.addEventListener("scroll", function () {
      fromBottom = scroller.scrollHeight - scroller.clientHeight - scroller.scrollTop;
    });
    var bx = [], bw = [], bd = [], bn = [], hover = -1, rows = 1;
    function layout(width) {
      bx.length = bw.length = bd.length = bn.length = 0;
      var base = V.totalOf(zoomNode);
      function box(x, left, w) { bx.push(left); bw.push(w); bd.push(x === ROOT ? 0 : V.depth[x]); bn.push(x); }
      // The zoomed node and its callers span the whole width.
      var path = [];
      for (var x = zoomNode; x !== ROOT; x = V.parentOf(x)) path.push(x);
      box(ROOT, 0, width);
      for (var i = path.length - 1; i >= 0; i--) box(path[i], 0, width);
      if (!(base > 0)) return;
      var scale = width / base, stack = [zoomNode, 0];
      while (stack.length) {
        var left = stack.pop(), y = stack.pop(), cx = left;
        for (var j = V.childStart[y]; j < V.childStart[y + 1]; j++) {
          var c = V.childList[j], w = V.nodeTotal[c] * scale;
          if (w >= MIN_PX) { box(c, cx, w); stack.push(c, cx); }
          cx += w;
        }
      }
    }
    function rowY(d) { return rootOnTop ? d * FROW : (rows - 1 - d) * FROW; }
    function draw() {
      var w = canvas.clientWidth;
      if (w <= 0) return;
      layout(w);
      rows = 1;
      for (var i = 0; i < bd.length; i++) if (bd[i] + 1 > rows) rows = bd[i] + 1;
      var h = rows * FROW + 2;
      canvas.style.height = h + "px";
      var c = V.canvasContext(canvas, w, h, "11px ui-monospace, monospace");
      var cw = c.measureText("M").width || 7, focus = V.focusFn;
      for (i = 0; i < bn.length; i++) {
        var x = bn[i], y = rowY(bd[i]);
        c.fillStyle = V.frameColor(x);
        c.fillRect(bx[i], y, Math.max(bw[i] - (bw[i] > 2 ? 1 : 0), 0.5), FROW - 1);
        var focused = focus >= 0 && x !== ROOT && V.fFn[V.frame[x]] === focus;
        if (x === hover || focused) {
          c.strokeStyle = focused ? V.css("--focus") : "#000";
          c.lineWidth = focused ? 2 : 1;
          c.strokeRect(bx[i] + 0.5, y + 0.5, Math.max(bw[i] - 2, 1), FROW - 2);
          c.lineWidth = 1;
        }
        var fit = Math.floor((bw[i] - 6) / cw);
        if (fit >= 3) {
          var name = x === ROOT ? "all" : V.label(x);
          c.fillStyle = "#000";
          c.fillText(name.length <= fit ? name : name.slice(0, fit - 2) + "..", bx[i] + 3, y + FROW / 2);
        }
      }
      resetBtn.disabled = zoomNode === ROOT;
      if (!rootOnTop) scroller.scrollTop = Math.max(0, scroller.scrollHeight - scroller.clientHeight - fromBottom);
    }
    function boxAt(e) {
      var rect = canvas.getBoundingClientRect(), px = e.clientX - rect.left, py = e.clientY - rect.top;
      var d = rootOnTop ? Math.floor(py / FROW) : rows - 1 - Math.floor(py / FROW);
      for (var i = 0; i < bn.length; i++) {
        if (bd[i] === d && px >= bx[i] && px < bx[i] + bw[i]) return bn[i];
      }
      return -1;
    }
    function describe(x) {
      var text = V.label(x) + "  (" + V.grouped(V.samplesOf(x)) + " samples, " + V.pct(V.totalOf(x), V.rootTotal()) +
        ", " + V.amount(V.totalOf(x)) + (V.TIME ? " " + V.LABEL : "") + ")";
      if (x !== ROOT) text += "  " + V.location(V.frame[x]);
      return text;
    }
    canvas.addEventListener("mousemove", function (e) {
      var x = boxAt(e);
      if (x === hover) return;
      hover = x;
      details.textContent = x < 0 ? "\u00a0" : describe(x);
      draw();
    });
    canvas.addEventListener("mouseleave", function () {
      hover = -1; details.textContent = "\u00a0"; draw();
    });
    canvas.addEventListener("click", function (e) {
      var x = boxAt(e);
      if (x < 0) return;
      zoomNode = x;
      V.focus(x === ROOT ? -1 : V.fFn[V.frame[x]]);
    });
    resetBtn.addEventListener("click", function () { zoomNode = ROOT; draw(); });
    V.addView({
      id: id, key: key, label: label, section: $(id + "-section"), draw: draw,
      reset: function () { if (zoomNode === ROOT) return false; zoomNode = ROOT; return true; },
      selectionChanged: function () {
        // The zoomed frame may have no sample in the new selection: fall
        // back to its nearest caller that has some.
        while (zoomNode !== ROOT && !(V.totalOf(zoomNode) > 0)) zoomNode = V.parentOf(zoomNode);
      },
    });
  }
  make("flame", "1", "Flame graph", false);
  make("icicle", "2", "Icicle", true);
})();
