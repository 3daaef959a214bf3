// node bench/outputs/viewer.mjs PAGE.html: opens strobe's HTML viewer in
// headless Chromium (tests/browser's playwright-core) and prints how long
// the page takes to show its table, and how long the page's own handlers
// take (performance.now around them) to apply a time range, a search and a
// thread pick. Each figure is the median of five.
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, "..", "..", "tests", "browser", "package.json"));
const { chromium } = require("playwright-core");
const file = path.resolve(process.argv[2]);
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu"] });
const median = (v) => v.sort((a, b) => a - b)[Math.floor(v.length / 2)];
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on("pageerror", (e) => { console.error(`page error: ${e.message}`); process.exitCode = 1; });
  const load = [];
  for (let i = 0; i < 5; i++) {
    const t0 = Date.now();
    await page.goto(`file://${file}`);
    await page.waitForSelector("#top-table tbody tr", { timeout: 120000 });
    load.push(Date.now() - t0);
  }
  const timed = (what) => page.evaluate((w) => {
    const t0 = performance.now();
    if (w === "range" || w === "clear") {
      const c = document.getElementById("timeline-canvas"), r = c.getBoundingClientRect();
      const at = (f) => ({ clientX: r.left + r.width * f, clientY: r.top + 5, bubbles: true, button: 0 });
      c.dispatchEvent(new MouseEvent("mousedown", at(w === "range" ? 0.3 : 0.5)));
      window.dispatchEvent(new MouseEvent("mouseup", at(w === "range" ? 0.6 : 0.5)));
    } else if (w === "search" || w === "unsearch") {
      const s = document.getElementById("search");
      s.value = w === "search" ? "fn_1" : "";
      s.dispatchEvent(new Event("input"));
    } else {
      document.querySelector("#thread-names div").click();
    }
    return performance.now() - t0;
  }, what);
  const figures = { range: [], search: [], thread: [] };
  for (let i = 0; i < 5; i++) {
    figures.range.push(await timed("range"));
    await timed("clear");
    figures.search.push(await timed("search"));
    await timed("unsearch");
    figures.thread.push(await timed("thread"));
    await timed("thread");
  }
  console.log(`load (to the table) ${median(load)} ms; time range ${median(figures.range).toFixed(0)} ms; ` +
    `search ${median(figures.search).toFixed(0)} ms; thread pick ${median(figures.thread).toFixed(0)} ms`);
} finally {
  await browser.close();
}
