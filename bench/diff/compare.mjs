// node bench/diff/compare.mjs PAGE.html: opens strobe diff's compare page
// in headless Chromium (tests/browser's playwright-core) and prints how long
// it takes until it is interactive (data decoded, timelines, flame graph and
// table drawn: body[data-ready]), how long a sort of the table, a zoom of
// the flame graph and the switch to a run's own page (until that page is
// ready) take, and the JS heap afterwards (performance.memory). Each figure
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
  const load = [], sort = [], zoom = [], run = [];
  for (let i = 0; i < 5; i++) {
    // Interactive: from the start of the navigation to body[data-ready], by
    // the page's own clock (the browser goes on reading the runs' own pages,
    // which come after the script, and "load" waits for them).
    await page.goto(`file://${file}`, { waitUntil: "commit" });
    await page.waitForSelector("body[data-ready]", { timeout: 120000 });
    load.push(await page.evaluate(() => Math.round(window.strobeCompare.readyAt)));
    await page.waitForLoadState("load");
    sort.push(await page.evaluate(() => {
      const t = performance.now();
      document.querySelector('#diff-table th[data-column="pct"]').click();
      return performance.now() - t;
    }));
    zoom.push(await page.evaluate(() => {
      const c = document.getElementById("diff-flame-canvas");
      const r = c.getBoundingClientRect(), t = performance.now();
      c.dispatchEvent(new MouseEvent("click", { clientX: r.left + 5, clientY: r.bottom - 25, bubbles: true }));
      return performance.now() - t;
    }));
    const t1 = Date.now();
    await page.click("#mode-run-1");
    const frame = await (await page.waitForSelector("#run-frame-1")).contentFrame();
    await frame.waitForSelector("body[data-ready]", { timeout: 120000 });
    run.push(Date.now() - t1);
  }
  const heap = await page.evaluate(() => performance.memory.usedJSHeapSize);
  console.log(`interactive: ${median(load)} ms (median of 5: ${load.join(", ")})`);
  console.log(`sort by CHANGE%: ${median(sort).toFixed(1)} ms; zoom: ${median(zoom).toFixed(1)} ms`);
  console.log(`a run's own page, opened and ready: ${median(run)} ms`);
  console.log(`JS heap: ${(heap / 1e6).toFixed(0)} MB`);
} finally {
  await browser.close();
}
