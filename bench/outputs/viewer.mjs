// node bench/outputs/viewer.mjs PAGE.html: opens strobe's HTML viewer in
// headless Chromium (tests/browser's playwright-core) and prints how long
// the page takes until it is interactive (its data decoded and the first
// view drawn: body[data-ready]), how long each view switch (keys 1-8) and
// each change of the selection (a time range, a search, a thread, a
// selected function) takes inside the page (performance.now around the
// page's own handlers, which draw synchronously), and the JS heap after
// all of that (performance.memory, with precise memory info). Each figure
// is the median of five.
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, "..", "..", "tests", "browser", "package.json"));
const { chromium } = require("playwright-core");
const file = path.resolve(process.argv[2]);
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--enable-precise-memory-info"] });
const median = (v) => v.sort((a, b) => a - b)[Math.floor(v.length / 2)];
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on("pageerror", (e) => { console.error(`page error: ${e.message}`); process.exitCode = 1; });
  const load = [];
  for (let i = 0; i < 5; i++) {
    const t0 = Date.now();
    await page.goto(`file://${file}`);
    await page.waitForSelector("body[data-ready]", { timeout: 120000 });
    load.push(Date.now() - t0);
  }
  // One action, timed inside the page.
  const timed = (what) => page.evaluate((w) => {
    const t0 = performance.now();
    const V = window.strobeViewer;
    if (w === "range" || w === "clear") {
      const c = document.getElementById("timeline-canvas"), r = c.getBoundingClientRect();
      const at = (f) => ({ clientX: r.left + r.width * f, clientY: r.top + 5, bubbles: true, button: 0 });
      c.dispatchEvent(new MouseEvent("mousedown", at(w === "range" ? 0.3 : 0.5)));
      window.dispatchEvent(new MouseEvent("mouseup", at(w === "range" ? 0.6 : 0.5)));
    } else if (w === "search" || w === "unsearch") {
      const s = document.getElementById("search");
      s.value = w === "search" ? "fn_1" : "";
      s.dispatchEvent(new Event("input"));
    } else if (w === "thread") {
      document.querySelector("#thread-names div").click();
    } else if (w === "focus" || w === "unfocus") {
      V.focus(w === "focus" ? V.fFn[V.frame[V.childList[V.childStart[V.ROOT]]]] : -1);
    } else {
      document.dispatchEvent(new KeyboardEvent("keydown", { key: w, bubbles: true }));
    }
    return performance.now() - t0;
  }, what);
  const figures = { range: [], search: [], thread: [], focus: [] };
  const views = { 1: [], 2: [], 3: [], 4: [], 5: [], 6: [], 7: [], 8: [] };
  for (let i = 0; i < 5; i++) {
    for (const k of Object.keys(views)) views[k].push(await timed(k));
    await timed("1");
    figures.range.push(await timed("range"));
    await timed("clear");
    figures.search.push(await timed("search"));
    await timed("unsearch");
    figures.thread.push(await timed("thread"));
    await timed("thread");
    figures.focus.push(await timed("focus"));
    await timed("unfocus");
  }
  // The slowest view under a selection change: the call tree's.
  await timed("3");
  const treeRange = [];
  for (let i = 0; i < 5; i++) { treeRange.push(await timed("range")); await timed("clear"); }
  const heap = await page.evaluate(() => performance.memory ? performance.memory.usedJSHeapSize : 0);
  const names = { 1: "flame graph", 2: "icicle", 3: "call tree", 4: "inverted", 5: "sandwich", 6: "top", 7: "stack chart", 8: "source" };
  console.log(`load (to interactive) ${median(load)} ms`);
  console.log("view switch: " + Object.keys(views).map((k) => `${names[k]} ${median(views[k]).toFixed(0)} ms`).join(", "));
  console.log(`selection (flame graph on screen): time range ${median(figures.range).toFixed(0)} ms, ` +
    `search ${median(figures.search).toFixed(0)} ms, thread pick ${median(figures.thread).toFixed(0)} ms, ` +
    `function pick ${median(figures.focus).toFixed(0)} ms; time range with the call tree on screen ` +
    `${median(treeRange).toFixed(0)} ms`);
  console.log(`JS heap ${(heap / 1e6).toFixed(0)} MB`);
} finally {
  await browser.close();
}
