// strobe's HTML viewer in headless Chromium (Debian's /usr/bin/chromium,
// driven by playwright-core) on the 6:3:1 profile of `strobe-synth
// --phases` (main -> phase_one() -> hot_a() for the first 60% of the time,
// then main -> phase_two() -> warm_b() 3/4 and cold_c() 1/4):
// driven as a user would, by mouse and keys. Fails on any console error,
// page error or request. Screenshots go to BUILD/tests/browser/artifacts.
// Usage: node viewer.test.mjs BUILD_DIR
import { chromium } from "playwright-core";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const build = path.resolve(process.argv[2] || "build");
const work = path.join(build, "tests", "browser");
const artifacts = path.join(work, "artifacts");
fs.mkdirSync(artifacts, { recursive: true });

const db = path.join(work, "phases.db");
const html = path.join(work, "phases.html");
execFileSync(path.join(build, "strobe-synth"), [db, "10000", "--phases"]);
execFileSync(path.join(build, "strobe"), ["report", db, "-o", html]);

let failures = 0;
function check(ok, what) {
  console.log(`${ok ? "ok" : "FAIL"}: ${what}`);
  if (!ok) failures++;
}

const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "strobe-chromium-"));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1280, height: 800 },
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});

async function open(name, hash = "") {
  const page = await context.newPage();
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  page.on("dialog", async (d) => { errors.push(`unexpected ${d.type()} dialog`); await d.dismiss(); });
  page.on("request", (r) => { if (!r.url().startsWith("file://")) errors.push(`request: ${r.url()}`); });
  await page.goto(`file://${html}${hash}`);
  await page.waitForSelector("#flame-canvas");
  page.done = () => check(errors.length === 0, `${name}: no console errors, page errors, dialogs or requests` +
    (errors.length ? `\n  ${errors.join("\n  ")}` : ""));
  return page;
}

// What the flame graph shows in row `row` at fraction `at` of its width
// (hovering it): "name  (N samples, P%, ...)", or "" for nothing.
async function flameAt(page, row, at) {
  const box = await page.locator("#flame-canvas").boundingBox();
  await page.mouse.move(box.x + box.width * at, box.y + row * 17 + 8);
  return (await page.textContent("#details")).trim();
}

// Drags across the timeline from fraction a to fraction b of its width.
async function dragTimeline(page, a, b) {
  const tl = await page.locator("#timeline-canvas").boundingBox();
  await page.mouse.move(tl.x + tl.width * a, tl.y + 10);
  await page.mouse.down();
  await page.mouse.move(tl.x + tl.width * b, tl.y + 10, { steps: 6 });
  await page.mouse.up();
}

try {
  // The zoom bug of issue 21: zoom into phase_one(), then select a range of
  // phase two. The zoomed frame has no sample left in the selection, so the
  // flame graph must not show it (as a full-width frame of 0 samples).
  {
    const page = await open("zoom, then select");
    const one = await flameAt(page, 2, 0.25);
    check(one.startsWith("phase_one()"), `phase_one() is in row 2 at the left ("${one}")`);
    const fb = await page.locator("#flame-canvas").boundingBox();
    await page.mouse.click(fb.x + fb.width * 0.2, fb.y + 2 * 17 + 8);
    const zoomed = await flameAt(page, 2, 0.9);
    check(zoomed.startsWith("phase_one()"), `clicking phase_one() zooms into it ("${zoomed}")`);
    await dragTimeline(page, 0.7, 0.95);
    const rows = [];
    for (let row = 0; row < 4; row++) rows.push(await flameAt(page, row, 0.5));
    check(rows.every((r) => !/\(0 samples/.test(r)) && !rows.some((r) => r.startsWith("phase_one()")),
      `after selecting a phase-two range no zero-sample phase_one() is shown (${JSON.stringify(rows)})`);
    check(rows.some((r) => r.startsWith("phase_two()")), "the flame graph shows phase_two() instead");
    await page.screenshot({ path: path.join(artifacts, "viewer-zoom-select.png"), fullPage: true });
    page.done();
    await page.close();
  }
} finally {
  await context.close();
  fs.rmSync(userDataDir, { recursive: true, force: true });
}
console.log(failures === 0 ? "viewer: all checks passed" : `viewer: ${failures} checks failed`);
process.exit(failures === 0 ? 0 : 1);
