// strobe's HTML viewer, the call tree: top-down (callers first, from the
// roots) and inverted (bottom-up: each function that ran with its own time
// at the top level, the callers that led to it below), as tables whose rows
// expand and collapse. Top-down shows TOTAL and SELF time with their share
// of the selection; inverted shows the self time of the top-level function
// that came through each path of callers. Click a row (or its triangle) to
// expand or collapse it and select its function; the arrow keys move the
// cursor (left and right collapse and expand), Enter selects. Children are
// built when a row is expanded, so a large profile costs what is on screen.
"use strict";
(function () {
  var V = window.strobeViewer, $ = V.$, ROOT = V.ROOT;
  var MAX_CHILDREN = 200, MAX_ROWS = 3000;

  // A tree node: {key, frame, total, self, count, entries, kids}. entries:
  // top-down, [trie node]; inverted, [trie node, weight, samples] triples.
  function topDownKids(node) {
    var out = [], src = node ? node.entries : [ROOT];
    src.forEach(function (x) {
      for (var j = V.childStart[x]; j < V.childStart[x + 1]; j++) {
        var c = V.childList[j];
        if (V.nodeTotal[c] > 0) {
          out.push({ key: (node ? node.key + "/" : "") + V.frame[c], frame: V.frame[c], total: V.nodeTotal[c],
            self: V.nodeSelf[c], count: V.nodeTotalN[c], entries: [c], kids: null });
        }
      }
    });
    return out;
  }
  function group(key, triples) {
    // triples: [node, weight, samples, fn] -> one child per function
    var by = new Map(), out = [];
    for (var i = 0; i < triples.length; i += 4) {
      var fn = triples[i + 3], g = by.get(fn);
      if (!g) {
        g = { key: key + V.fnFrame[fn], frame: V.fnFrame[fn], total: 0, self: 0, count: 0, entries: [], kids: null };
        by.set(fn, g);
        out.push(g);
      }
      g.total += triples[i + 1]; g.count += triples[i + 2];
      g.entries.push(triples[i], triples[i + 1], triples[i + 2]);
    }
    out.forEach(function (g) { g.self = g.total; });
    return out;
  }
  function invertedKids(node) {
    var t = [];
    if (!node) {
      for (var x = 0; x < V.nN; x++) {
        if (V.nodeSelf[x] > 0) t.push(x, V.nodeSelf[x], V.nodeSelfN[x], V.fFn[V.frame[x]]);
      }
      return group("", t);
    }
    for (var i = 0; i < node.entries.length; i += 3) {
      var p = V.parent[node.entries[i]];
      if (p >= 0) t.push(p, node.entries[i + 1], node.entries[i + 2], V.fFn[V.frame[p]]);
    }
    return group(node.key + "/", t);
  }

  function make(id, key, label, inverted) {
    var table = $(id + "-table"), body = table.querySelector("tbody");
    var expanded = new Set(), roots = null, cursor = null, rows = [];
    var kidsOf = inverted ? invertedKids : topDownKids;
    function kids(node) {
      if (!node.kids) {
        node.kids = kidsOf(node).sort(function (a, b) { return b.total - a.total; });
      }
      return node.kids;
    }
    function build() {
      roots = kidsOf(null).sort(function (a, b) { return b.total - a.total; });
      if (expanded.size === 0) {
        // First look: the heaviest path open.
        var n = roots[0];
        for (var d = 0; n && d < 40; d++) {
          expanded.add(n.key);
          var k = kids(n);
          n = k.length && k[0].total * 2 >= n.total * (inverted ? 0 : 1) ? k[0] : null;
        }
      }
    }
    function cell(tr, text, cls) {
      var td = document.createElement("td");
      td.textContent = text;
      if (cls) td.className = cls;
      tr.appendChild(td);
      return td;
    }
    function draw() {
      if (!roots) build();
      var all = V.rootTotal(), frag = document.createDocumentFragment();
      rows = [];
      function emit(list, depth) {
        var shown = Math.min(list.length, MAX_CHILDREN);
        for (var i = 0; i < shown && rows.length < MAX_ROWS; i++) {
          var n = list[i], open = expanded.has(n.key), fr = n.frame, fn = V.fFn[fr];
          var leaf = inverted ? !hasCaller(n) : V.childStart[n.entries[0] + 1] === V.childStart[n.entries[0]];
          var tr = document.createElement("tr");
          tr.node = n; tr.depth = depth;
          if (V.fnMatches(fn)) tr.classList.add("match");
          if (fn === V.focusFn) tr.classList.add("focus");
          if (cursor === n.key) tr.classList.add("cursor");
          if (inverted) {
            cell(tr, V.amount(n.total), "num");
            cell(tr, V.pct(n.total, all), "num");
          } else {
            cell(tr, V.amount(n.total), "num");
            cell(tr, V.pct(n.total, all), "num");
            cell(tr, V.amount(n.self), "num");
            cell(tr, V.pct(n.self, all), "num");
          }
          var name = cell(tr, "", "name tree");
          name.style.paddingLeft = 4 + depth * 14 + "px";
          var tw = document.createElement("span");
          tw.className = "twisty";
          tw.textContent = leaf ? "\u00a0" : open ? "\u25be" : "\u25b8";
          name.appendChild(tw);
          name.appendChild(document.createTextNode(V.label(findNode(n))));
          cell(tr, V.location(fr), "loc");
          tr.setAttribute("data-key", n.key);
          frag.appendChild(tr);
          rows.push(tr);
          if (open && !leaf) emit(kids(n), depth + 1);
        }
        if (list.length > shown) {
          var more = document.createElement("tr");
          cell(more, "", "num");
          cell(more, "", "num");
          if (!inverted) { cell(more, "", "num"); cell(more, "", "num"); }
          var td = cell(more, "\u2026 " + V.grouped(list.length - shown) + " more, each below the above", "name more");
          td.style.paddingLeft = 4 + depth * 14 + "px";
          cell(more, "", "loc");
          frag.appendChild(more);
        }
      }
      emit(roots, 0);
      body.textContent = "";
      body.appendChild(frag);
    }
    function hasCaller(n) {
      for (var i = 0; i < n.entries.length; i += 3) if (V.parent[n.entries[i]] >= 0) return true;
      return false;
    }
    function findNode(n) { return inverted ? n.entries[0] : n.entries[0]; }
    function toggle(n, open) {
      if (open === undefined) open = !expanded.has(n.key);
      if (open) expanded.add(n.key); else expanded.delete(n.key);
    }
    body.addEventListener("click", function (e) {
      var tr = e.target.closest("tr");
      if (!tr || !tr.node) return;
      cursor = tr.node.key;
      toggle(tr.node);
      V.focus(V.fFn[tr.node.frame]);  // redraws
    });
    function move(by) {
      var i = rows.findIndex(function (r) { return r.node.key === cursor; });
      i = Math.max(0, Math.min(rows.length - 1, i < 0 ? 0 : i + by));
      if (rows[i]) { cursor = rows[i].node.key; draw(); rows[i].scrollIntoView({ block: "nearest" }); }
    }
    V.addView({
      id: id, key: key, label: label, section: $(id + "-section"), draw: draw,
      selectionChanged: function () { roots = null; },
      onKey: function (e) {
        var cur = rows.find(function (r) { return r.node.key === cursor; });
        if (e.key === "ArrowDown") { move(1); return true; }
        if (e.key === "ArrowUp") { move(-1); return true; }
        if (!cur) { if (e.key === "ArrowRight" || e.key === "ArrowLeft") { move(0); return true; } return false; }
        if (e.key === "ArrowRight") { toggle(cur.node, true); draw(); return true; }
        if (e.key === "ArrowLeft") {
          if (expanded.has(cur.node.key)) { toggle(cur.node, false); draw(); return true; }
          // to the parent row
          var i = rows.indexOf(cur);
          while (--i >= 0 && rows[i].depth >= cur.depth) { /* up */ }
          if (i >= 0) { cursor = rows[i].node.key; draw(); }
          return true;
        }
        if (e.key === "Enter") { V.focus(V.fFn[cur.node.frame]); return true; }
        return false;
      },
    });
  }
  make("calltree", "3", "Call tree", false);
  make("inverted", "4", "Inverted", true);
})();
