// strobe's HTML viewer, the core: reads the profile embedded in
// #strobe-data (see docs/FORMATS.md, "html"), decodes it into typed arrays
// indexed by stack node, keeps the state every view shares (the selection of
// threads and a time range, the selected function, the search, the view on
// screen) and aggregates a selection in one pass over its samples and one
// over the nodes. It exposes all of that as window.strobeViewer (V); each
// view is a file of its own that registers itself with V.addView, and only
// the view on screen is drawn. Every recorded string reaches the page
// through textContent or canvas text only, never as markup.
"use strict";
(function () {
  // ---- decoding -----------------------------------------------------------
  // The numbers of the data (codec.js): 5 bits a base64 digit.
  var C = window.strobeCodec, Reader = C.Reader, unzigzag = C.unzigzag;

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

  // Stack nodes: the trie of (frame, line) nodes the samples point to
  // (line nodes, l*), and the trie of frames alone the views draw (display
  // nodes), each line node mapped to its display node (lDisp). Parents come
  // before children in both. ROOT is the virtual "all".
  var nL = data.node_count, nN = data.display_node_count, ROOT = nN;
  var lParent = new Int32Array(nL), lLine = new Int32Array(nL), lDisp = new Int32Array(nL);
  var parent = new Int32Array(nN), frame = new Int32Array(nN), depth = new Int32Array(nN + 1);
  var maxDepth = 0, nd = 0;
  r = new Reader(data.nodes);
  for (var n = 0; n < nL; n++) {
    lParent[n] = n - r.next();
    var fr = r.next();
    lLine[n] = r.next();
    var back = r.next();
    if (back === 0) {
      var d = nd++;
      parent[d] = lParent[n] < 0 ? -1 : lDisp[lParent[n]];
      frame[d] = fr;
      depth[d] = parent[d] < 0 ? 1 : depth[parent[d]] + 1;
      if (depth[d] > maxDepth) maxDepth = depth[d];
      lDisp[n] = d;
    } else {
      lDisp[n] = nd - back;
    }
  }
  if (nd !== nN) throw new Error("malformed profile data: " + nd + " display nodes, not " + nN);
  function parentOf(x) { return parent[x] < 0 ? ROOT : parent[x]; }
  // The kind of each frame, for its colour and the legend.
  var KIND_USER = 0, KIND_INLINED = 1, KIND_KERNEL = 2, KIND_JIT = 3, KIND_UNRESOLVED = 4, KIND_PYTHON = 5;
  var fKind = new Uint8Array(nF);
  for (f = 0; f < nF; f++) {
    var mod = S[fModule[f]];
    fKind[f] = mod.lastIndexOf("[kernel", 0) === 0 ? KIND_KERNEL
      : mod === "[JIT]" || mod === "[anon]" ? KIND_JIT
        : mod === "[python]" ? KIND_PYTHON
        : fFlags[f] & UNRESOLVED ? KIND_UNRESOLVED : fFlags[f] & INLINED ? KIND_INLINED : KIND_USER;
  }

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
  var sLnode = new Int32Array(nS), oLnode = new Int32Array(nO);  // their line nodes
  var tStart = new Int32Array(nT + 1);
  var oTime = new Float64Array(nO), oNode = new Int32Array(nO), oWeight = new Float64Array(nO);
  var oStart = new Int32Array(nT + 1);
  var unit = data.time_unit_ns / 1000;  // time unit in µs
  var endUs = meta.duration_ns / 1000;
  function decode(k, text, count, at, T, N, L, W) {
    var rd = new Reader(text || ""), t = 0, node = 0, w = 0;
    for (var j = 0; j < count; j++, at++) {
      t += rd.next(); node += unzigzag(rd.next()); w += unzigzag(rd.next());
      T[at] = t * unit; L[at] = node - 1; N[at] = node > 0 ? lDisp[node - 1] : -1; W[at] = w;
      var e = T[at] + w / 1000;
      if (e > endUs) endUs = e;
    }
    return at;
  }
  (function () {
    var i = 0, o = 0;
    for (var k = 0; k < nT; k++) {
      tStart[k] = i; oStart[k] = o;
      i = decode(k, threads[k].data, threads[k].samples, i, sTime, sNode, sLnode, sWeight);
      o = decode(k, threads[k].off_data, threads[k].off_samples || 0, o, oTime, oNode, oLnode, oWeight);
    }
    tStart[nT] = i; oStart[nT] = o;
  })();
  if (!(endUs > 0)) endUs = 1;
  // What weights measure: "CPU", "off-CPU", "wall" (ns), or an event's count.
  var LABEL = meta.label || "CPU", TIME = (meta.unit || "nanoseconds") === "nanoseconds";
  var CPU_COLOR = "rgb(52,110,200)", OFF_COLOR = "rgb(235,150,40)";  // the timeline's

  // ---- formatting ---------------------------------------------------------
  var grouped = C.grouped, duration = C.duration;
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


  // ---- shared state -------------------------------------------------------
  // The selected function (by identity, -1: none): the sandwich, the source
  // view and the highlighted rows follow it. The search marks names.
  var nameMatch = new Uint8Array(S.length), searching = false, searchTerm = "", searchRegex = false;
  var V = window.strobeViewer = {
    data: data, meta: meta, strings: S, endUs: endUs, ROOT: ROOT,
    nF: nF, nN: nN, nT: nT, nS: nS, nO: nO, nFn: nFn, FEW: FEW, TIME: TIME, LABEL: LABEL,
    fName: fName, fFile: fFile, fLine: fLine, fModule: fModule, fFlags: fFlags, fFn: fFn, fKind: fKind,
    parent: parent, frame: frame, depth: depth, maxDepth: maxDepth, childStart: childStart,
    childList: childList, dup: dup, parentOf: parentOf,
    sTime: sTime, sNode: sNode, sWeight: sWeight, tStart: tStart,
    nL: nL, lParent: lParent, lLine: lLine, lDisp: lDisp, sources: data.sources || [],
    oTime: oTime, oNode: oNode, oWeight: oWeight, oStart: oStart,
    nodeSelf: nodeSelf, nodeTotal: nodeTotal, nodeOff: nodeOff, nodeSelfN: nodeSelfN, nodeTotalN: nodeTotalN,
    threads: threads, selThreads: selThreads,
    CPU_COLOR: CPU_COLOR, OFF_COLOR: OFF_COLOR,
    KIND_USER: KIND_USER, KIND_INLINED: KIND_INLINED, KIND_KERNEL: KIND_KERNEL, KIND_JIT: KIND_JIT,
    KIND_UNRESOLVED: KIND_UNRESOLVED, KIND_PYTHON: KIND_PYTHON,
    grouped: grouped, duration: duration, pct: pct, amount: amount, label: label, location: location,
    threadLabel: threadLabel, lowerBound: lowerBound, $: $,
    rootTotal: function () { return rootTotal; },
    rootSamples: function () { return rootSamples; },
    allWeight: allWeight, totalOf: totalOf, samplesOf: samplesOf,
    nameMatch: nameMatch, searching: function () { return searching; },
    focusFn: -1,        // the selected function
    focusName: "",      // its name, as the URL keeps it
    listeners: [],      // called after the selection changes (the timeline, spans)
    views: [], current: null,
  };
  V.selection = function () { return { threads: selThreads, any: anyThread, from: selFrom, to: selTo }; };
  V.inRange = function () { return selFrom > 0 || selTo !== Infinity; };
  V.anyThread = function () { return anyThread; };
  V.setRange = function (fromUs, toUs) { selFrom = fromUs; selTo = toUs; V.selectionChanged(); };
  V.toggleThread = function (k) {
    selThreads[k] ^= 1;
    anyThread = selThreads.some(function (v) { return v !== 0; });
    V.selectionChanged();
  };
  V.select = function (k, fromUs, toUs) {
    selThreads.fill(0); selThreads[k] = 1; anyThread = true;
    selFrom = fromUs; selTo = toUs;
    V.selectionChanged();
  };
  V.clearSelection = function () {
    selThreads.fill(0); anyThread = false; selFrom = 0; selTo = Infinity;
    V.selectionChanged();
  };

  // Per line node, the selection's weight (self, then total: the node and
  // all below it), for the source view; computed when asked.
  V.lineTotals = function () {
    var self = new Float64Array(nL), selfN = new Float64Array(nL);
    function add(from, to, T, L, W) {
      var i0 = lowerBound(from, to, selFrom, T);
      var i1 = selTo === Infinity ? to : lowerBound(i0, to, selTo, T);
      for (var i = i0; i < i1; i++) if (L[i] >= 0) { self[L[i]] += W[i]; selfN[L[i]]++; }
    }
    for (var k = 0; k < nT; k++) {
      if (anyThread && !selThreads[k]) continue;
      add(tStart[k], tStart[k + 1], sTime, sLnode, sWeight);
      add(oStart[k], oStart[k + 1], oTime, oLnode, oWeight);
    }
    var total = self.slice(), totalN = selfN.slice();
    for (var y = nL - 1; y >= 0; y--) {
      var p = lParent[y];
      if (p >= 0) { total[p] += total[y]; totalN[p] += totalN[y]; }
    }
    return { self: self, total: total, selfN: selfN, totalN: totalN };
  };

  // The function of a frame, and a name for it (the first frame seen).
  var fnFrame = new Int32Array(nFn).fill(-1);
  for (f = 0; f < nF; f++) if (fnFrame[fFn[f]] < 0) fnFrame[fFn[f]] = f;
  V.fnFrame = fnFrame;
  // Sizes a canvas to w x h CSS pixels at the screen's pixel ratio and
  // returns its cleared 2D context, in CSS pixels, with `font` set.
  V.canvasContext = function (canvas, w, h, font) {
    var dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(w * dpr); canvas.height = Math.round(h * dpr);
    var c = canvas.getContext("2d");
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    c.clearRect(0, 0, w, h);
    c.font = font;
    c.textBaseline = "middle";
    return c;
  };
  V.fnName = function (fn) { return S[fName[fnFrame[fn]]]; };
  V.fnMatches = function (fn) { return searching && nameMatch[fName[fnFrame[fn]]] === 1; };
  V.focus = function (fn) {
    V.focusFn = fn;
    V.focusName = fn >= 0 ? V.fnName(fn) : "";
    V.redraw();
  };

  // Per function over the selection: self, total (a sample once however
  // often the function is on its stack), their sample counts and a frame.
  V.functionTotals = function () {
    var self = new Float64Array(nFn), total = new Float64Array(nFn);
    var selfN = new Float64Array(nFn), totalN = new Float64Array(nFn);
    for (var x = 0; x < nN; x++) {
      if (nodeTotal[x] === 0) continue;
      var fn = fFn[frame[x]];
      self[fn] += nodeSelf[x]; selfN[fn] += nodeSelfN[x];
      if (!dup[x]) { total[fn] += nodeTotal[x]; totalN[fn] += nodeTotalN[x]; }
    }
    return { self: self, total: total, selfN: selfN, totalN: totalN };
  };

  // ---- search -------------------------------------------------------------
  // Case-insensitive text by default; with the regex toggle a regular
  // expression (case-insensitive too). The matched share counts a sample
  // once when any frame of its stack matches.
  var searchBox = $("search"), regexBox = $("search-regex"), matchedEl = $("matched");
  var under = new Uint8Array(nN);  // a node at or below a matching frame
  V.under = under;
  V.searchVersion = 0;
  function runSearch() {
    searchTerm = searchBox.value;
    searchRegex = regexBox.checked;
    searching = searchTerm !== "";
    nameMatch.fill(0);
    var bad = false;
    if (searching) {
      var re = null, low = searchTerm.toLowerCase();
      if (searchRegex) {
        try { re = new RegExp(searchTerm, "i"); } catch (err) { bad = true; }
      }
      for (var i = 1; i < S.length; i++) {
        if (re ? re.test(S[i]) : !bad && S[i].toLowerCase().indexOf(low) >= 0) nameMatch[i] = 1;
      }
    }
    V.searchVersion++;
    searchBox.classList.toggle("bad", bad);
    searchBox.title = bad ? "not a regular expression" : "";
    V.redraw();
  }
  V.search = function (term, regex) {
    searchBox.value = term;
    regexBox.checked = !!regex;
    runSearch();
  };
  V.matchedShare = function () { return matchedShare; };
  var matchedShare = 0;
  function showMatched() {
    if (!searching) { matchedEl.textContent = ""; matchedShare = 0; return; }
    var sum = 0;
    for (var x = 0; x < nN; x++) {
      under[x] = nameMatch[fName[frame[x]]] || (parent[x] >= 0 && under[parent[x]]) ? 1 : 0;
      if (under[x]) sum += nodeSelf[x];
    }
    matchedShare = rootTotal > 0 ? sum / rootTotal : 0;
    matchedEl.textContent = "Matched: " + (100 * matchedShare).toFixed(1) + "%";
  }
  searchBox.addEventListener("input", runSearch);
  regexBox.addEventListener("change", runSearch);

  // ---- the selection line -------------------------------------------------
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
    if (V.focusFn >= 0) parts.push("function: " + V.focusName);
    var el = $("selection");
    el.textContent = "Selection: " + parts.join(" · ");
    el.setAttribute("data-samples", String(rootSamples));
  }

  // ---- views --------------------------------------------------------------
  // A view: {id, key, label, section (element), draw(), reset() (Esc:
  // undo its zoom; true when it had one)}. Its tab is a button named by the
  // label; the key (1-8) shows it too.
  var tabs = $("tabs");
  V.addView = function (view) {
    V.views.push(view);
    var b = document.createElement("button");
    b.type = "button";
    b.id = "tab-" + view.id;
    b.setAttribute("role", "tab");
    b.setAttribute("data-key", view.key);
    b.title = view.label + " (key " + view.key + ")";
    var k = document.createElement("kbd");
    k.textContent = view.key;
    b.appendChild(k);
    b.appendChild(document.createTextNode(" " + view.label));
    b.addEventListener("click", function () { V.show(view.id); });
    tabs.appendChild(b);
    view.tab = b;
    view.section.hidden = true;
  };
  V.show = function (id) {
    var view = null;
    V.views.forEach(function (v) { if (v.id === id) view = v; });
    if (!view) return;
    V.current = view;
    V.views.forEach(function (v) {
      v.section.hidden = v !== view;
      v.tab.classList.toggle("active", v === view);
      v.tab.setAttribute("aria-selected", v === view ? "true" : "false");
    });
    document.body.setAttribute("data-view", id);
    view.draw();
    saveHash();
  };
  // After a change of the search or the selected function: the view on
  // screen and the timeline.
  V.redraw = function () {
    showMatched();
    showSelection();
    V.listeners.forEach(function (f) { f(); });
    if (V.current) V.current.draw();
    saveHash();
  };
  V.selectionChanged = function () {
    aggregate();
    V.views.forEach(function (v) { if (v.selectionChanged) v.selectionChanged(); });
    V.redraw();
  };
  $("clear-selection").addEventListener("click", function () { V.clearSelection(); });

  // ---- the URL hash: view, selection and search ---------------------------
  // #view=ID&fn=NAME&q=TERM&re=1&from=US&to=US&threads=TID,TID
  var restoring = false;
  function saveHash() {
    if (restoring || !V.current) return;
    var p = ["view=" + V.current.id];
    if (V.focusFn >= 0) p.push("fn=" + encodeURIComponent(V.focusName));
    if (searching) p.push("q=" + encodeURIComponent(searchTerm));
    if (searchRegex) p.push("re=1");
    if (selFrom > 0 || selTo !== Infinity) {
      p.push("from=" + Math.round(selFrom));
      if (selTo !== Infinity) p.push("to=" + Math.round(selTo));
    }
    if (anyThread) {
      p.push("threads=" + threads.filter(function (_, k) { return selThreads[k]; })
        .map(function (t) { return t.tid; }).join(","));
    }
    var h = "#" + p.join("&");
    if (window.location.hash === h) return;
    // A page shown inside strobe diff's compare page (srcdoc) has no address of its own.
    try { history.replaceState(null, "", h); } catch (err) { /* no address to keep */ }
  }
  function restoreHash() {
    var h = {}, view = V.views[0].id;
    window.location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
      var i = kv.indexOf("=");
      if (i > 0) {
        try { h[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1)); } catch (err) { /* ignored */ }
      }
    });
    restoring = true;
    selFrom = Number(h.from) > 0 ? Number(h.from) : 0;
    selTo = Number(h.to) > selFrom ? Number(h.to) : Infinity;
    selThreads.fill(0);
    (h.threads || "").split(",").forEach(function (tid) {
      threads.forEach(function (t, k) { if (String(t.tid) === tid) selThreads[k] = 1; });
    });
    anyThread = selThreads.some(function (v) { return v !== 0; });
    V.focusFn = -1; V.focusName = "";
    if (h.fn) {
      for (var fn = 0; fn < nFn; fn++) if (V.fnName(fn) === h.fn) { V.focusFn = fn; V.focusName = h.fn; break; }
    }
    searchBox.value = h.q || "";
    regexBox.checked = h.re === "1";
    searchTerm = searchBox.value; searchRegex = regexBox.checked;
    V.views.forEach(function (v) { if (v.id === h.view) view = v.id; });
    aggregate();
    restoring = false;
    runSearchQuiet();
    V.show(view);
    V.redraw();
  }
  function runSearchQuiet() {
    restoring = true;
    var cur = V.current;
    V.current = null;
    runSearch();
    V.current = cur;
    restoring = false;
  }
  window.addEventListener("hashchange", restoreHash);

  // ---- keys ---------------------------------------------------------------
  // / search, Esc clear, 1-8 views, t theme, ? the keys; arrows in the call
  // tree (calltree.js). Keys typed into the search box stay there.
  V.keyHandlers = [];  // (event) -> true when handled, for the view on screen
  V.clearAll = function () {
    var zoomed = false;
    V.views.forEach(function (v) { if (v.reset && v.reset()) zoomed = true; });
    if (V.timelineReset && V.timelineReset()) zoomed = true;
    if (zoomed) { V.redraw(); return; }
    if (V.focusFn >= 0) { V.focus(-1); return; }
    if (anyThread || selFrom > 0 || selTo !== Infinity) { V.clearSelection(); return; }
    if (searching) V.search("", regexBox.checked);
  };
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var tag = e.target && e.target.tagName;
    var inField = tag === "TEXTAREA" || tag === "SELECT" || (tag === "INPUT" && e.target.type !== "checkbox");
    if (e.key === "Escape") {
      if (!$("help").hidden) { $("help").hidden = true; return; }
      if (inField) { if (searchBox.value) V.search("", regexBox.checked); e.target.blur(); return; }
      V.clearAll();
      return;
    }
    if (inField) return;
    if (e.key === "/") { e.preventDefault(); searchBox.focus(); searchBox.select(); return; }
    if (e.key === "?") { $("help").hidden = !$("help").hidden; return; }
    if (e.key === "t") { toggleTheme(); return; }
    if (e.key === "r") { regexBox.checked = !regexBox.checked; runSearch(); return; }
    for (var i = 0; i < V.views.length; i++) {
      if (V.views[i].key === e.key) { V.show(V.views[i].id); return; }
    }
    if (V.current && V.current.key && V.current.onKey && V.current.onKey(e)) e.preventDefault();
  });
  $("help-button").addEventListener("click", function () { $("help").hidden = !$("help").hidden; });
  $("help").addEventListener("click", function () { $("help").hidden = true; });

  // ---- themes -------------------------------------------------------------
  // Light or dark as the system prefers (prefers-color-scheme), until the
  // toggle picks one. Canvas colours come from CSS variables.
  var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)");
  var picked = null;
  function applyTheme() {
    var isDark = picked !== null ? picked === "dark" : !!(dark && dark.matches);
    document.documentElement.setAttribute("data-theme", isDark ? "dark" : "light");
    $("theme").textContent = isDark ? "Light theme" : "Dark theme";
    var cs = getComputedStyle(document.documentElement);
    V.css = function (name) { return cs.getPropertyValue(name).trim(); };
    V.dark = isDark;
    if (V.current) { V.listeners.forEach(function (f) { f(); }); V.current.draw(); }
  }
  function toggleTheme() { picked = V.dark ? "light" : "dark"; applyTheme(); }
  if (dark && dark.addEventListener) dark.addEventListener("change", applyTheme);
  $("theme").addEventListener("click", toggleTheme);
  applyTheme();

  // ---- frame colours by kind, and the legend ------------------------------
  function hashName(str) {
    var h = 2166136261;
    for (var i = 0; i < str.length; i++) h = Math.imul(h ^ str.charCodeAt(i), 16777619);
    return h >>> 0;
  }
  V.hashName = hashName;
  var MATCH = "rgb(230,0,230)";
  V.MATCH = MATCH;
  // A frame's colour: its kind's hue, varied by its name; magenta when the
  // search matches it; blues when its time is mostly off CPU.
  V.frameColor = function (x) {
    if (x === ROOT) return "rgb(200,200,200)";
    var fr = frame[x];
    if (searching && nameMatch[fName[fr]]) return MATCH;
    var h = hashName(S[fName[fr]]);
    var v1 = (h & 255) / 255, v2 = ((h >>> 8) & 255) / 255, v3 = ((h >>> 16) & 255) / 255;
    if (2 * nodeOff[x] > nodeTotal[x]) return "rgb(" + Math.round(40 + 50 * v1) + "," + Math.round(90 + 70 * v2) + "," + Math.round(220 + 35 * v3) + ")";
    return kindColor(fKind[fr], v1, v2, v3);
  };
  function kindColor(kind, v1, v2, v3) {
    switch (kind) {
      case KIND_UNRESOLVED: { var g = Math.round(170 + 50 * v1); return "rgb(" + g + "," + g + "," + g + ")"; }
      case KIND_INLINED: return "rgb(" + Math.round(50 + 60 * v1) + "," + Math.round(165 + 55 * v2) + "," + Math.round(165 + 55 * v2) + ")";
      case KIND_KERNEL: return "rgb(" + Math.round(190 + 40 * v1) + "," + Math.round(120 + 40 * v2) + "," + Math.round(200 + 40 * v3) + ")";
      case KIND_JIT: return "rgb(" + Math.round(90 + 50 * v1) + "," + Math.round(190 + 50 * v2) + "," + Math.round(70 + 40 * v3) + ")";
      case KIND_PYTHON: return "rgb(" + Math.round(235 + 20 * v1) + "," + Math.round(205 + 30 * v2) + "," + Math.round(90 + 45 * v3) + ")";
      default: return "rgb(" + Math.round(205 + 50 * v3) + "," + Math.round(230 * v1) + "," + Math.round(55 * v2) + ")";
    }
  }
  V.kindColor = kindColor;
  (function legend() {
    var el = $("kinds");
    [["user code", kindColor(KIND_USER, 0.5, 0.5, 0.5)], ["inlined", kindColor(KIND_INLINED, 0.5, 0.5, 0.5)],
      ["kernel", kindColor(KIND_KERNEL, 0.5, 0.5, 0.5)], ["JIT", kindColor(KIND_JIT, 0.5, 0.5, 0.5)],
      ["Python", kindColor(KIND_PYTHON, 0.5, 0.5, 0.5)],
      ["off-CPU", "rgb(65,125,237)"], ["unresolved", kindColor(KIND_UNRESOLVED, 0.5, 0.5, 0.5)],
      ["search match", MATCH]].forEach(function (l) {
      var item = document.createElement("span");
      item.className = "kind";
      var sw = document.createElement("span");
      sw.className = "swatch";
      sw.style.background = l[1];
      item.appendChild(sw);
      item.appendChild(document.createTextNode(l[0]));
      el.appendChild(item);
    });
  })();

  // After every view has registered (start.js): the state of the URL.
  V.start = function () {
    restoreHash();
    document.body.setAttribute("data-ready", "1");
  };
  window.addEventListener("resize", function () {
    V.listeners.forEach(function (f) { f(); });
    if (V.current) V.current.draw();
  });
})();
