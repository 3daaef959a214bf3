// strobe diff's pictures in headless Chromium (Debian's /usr/bin/chromium,
// driven by playwright-core), on two synthetic recordings whose change is
// known (strobe-synth and strobe-synth --changed: synth::hot_loop() 50%
// slower, synth::helper(int) 50% faster, the hostile function gone, the
// rest the same):
//   - the differential flame graph SVG: frames coloured by direction (red
//     slower, blue faster, grey same, read back from the rendered page),
//     the vanished function drawn from the base (dashed), the hover text
//     with both times and the verdict, its hostile name as text;
//   - the compare page: both runs' timelines, the differential flame graph
//     on its canvas (its pixels' colours where the frames are), the hover
//     text, the table sorted by change and re-sorted by a click, and the
//     switch to each run's own viewer (ready, its flame graph drawn) and
//     back; nothing fetched.
// Fails on any console error, page error or dialog (the hostile name must
// never run). Screenshots go to BUILD/tests/browser/artifacts.
// Usage: node diff.test.mjs BUILD_DIR
import { chromium } from "playwright-core";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const build = path.resolve(process.argv[2] || "build");
const work = path.join(build, "tests", "browser", "diff");
const artifacts = path.join(build, "tests", "browser", "artifacts");
fs.mkdirSync(work, { recursive: true });
fs.mkdirSync(artifacts, { recursive: true });
const base = path.join(work, "base.db");
const next = path.join(work, "new.db");
const svg = path.join(work, "diff.svg");
const html = path.join(work, "diff.html");
execFileSync(path.join(build, "strobe-synth"), [base, "6000"]);
execFileSync(path.join(build, "strobe-synth"), [next, "6000", "--changed"]);
execFileSync(path.join(build, "strobe"), ["diff", base, next, "-o", svg]);
execFileSync(path.join(build, "strobe"), ["diff", base, next, "-o", html]);
// What strobe diff itself says of each function (the pages must agree).
const verdicts = {};
const json = JSON.parse(spawnSync(path.join(build, "strobe"),
  ["diff", base, next, "-f", "json", "--top", "0"]).stdout.toString());
for (const r of json.rows) verdicts[r.name] = r.verdict;
const HOSTILE = `<script>alert(1)</script>&"'`;

let failures = 0;
function check(ok, what) {
  console.log(`${ok ? "ok" : "FAIL"}: ${what}`);
  if (!ok) failures++;
}
check(verdicts["synth::hot_loop()"] === "slower" && verdicts["synth::helper(int)"] === "faster" &&
  verdicts[HOSTILE] === "faster" && verdicts["libc.so.6+0x9a0f0"] === "same",
  `strobe diff's verdicts are the synthetic change's (${JSON.stringify(verdicts)})`);

function watch(page, name) {
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  page.on("dialog", async (d) => {
    errors.push(`unexpected ${d.type()} dialog: ${d.message()}`);
    await d.dismiss();
  });
  page.on("request", (r) => { if (!r.url().startsWith("file://")) errors.push(`fetched ${r.url()}`); });
  return () => check(errors.length === 0, `${name}: no console errors, page errors, dialogs or fetches` +
    (errors.length ? `\n  ${errors.join("\n  ")}` : ""));
}

// "rgb(r,g,b)" -> [r, g, b].
const rgb = (s) => (s.match(/\d+/g) || []).slice(0, 3).map(Number);
const isRed = ([r, g, b]) => r > 200 && r - b > 60 && Math.abs(g - b) < 20;
const isBlue = ([r, g, b]) => b > 200 && b - r > 60 && Math.abs(r - g) < 20;
const isGrey = ([r, g, b]) => Math.max(r, g, b) - Math.min(r, g, b) < 12 && r > 150;

const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "strobe-chromium-"));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1280, height: 900 },
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});

try {
  // The differential flame graph SVG.
  {
    const page = await context.newPage();
    const done = watch(page, "diff flame graph");
    await page.goto(`file://${svg}`);
    await page.waitForSelector("#frames > g");
    const frame = async (name) => page.evaluate((n) => {
      const g = [...document.querySelectorAll("#frames > g")].find((x) => x.getAttribute("data-name") === n);
      if (!g) return null;
      return { verdict: g.getAttribute("data-verdict"), fill: getComputedStyle(g.querySelector("rect")).fill,
        cls: g.getAttribute("class") || "", base: Number(g.getAttribute("data-base")),
        next: Number(g.getAttribute("data-new")) };
    }, name);
    const hot = await frame("synth::hot_loop()");
    check(hot && hot.verdict === "slower" && isRed(rgb(hot.fill)),
      `synth::hot_loop() is slower, drawn red (${JSON.stringify(hot)})`);
    const helper = await frame("synth::helper(int)");
    check(helper && helper.verdict === "faster" && isBlue(rgb(helper.fill)),
      `synth::helper(int) is faster, drawn blue (${JSON.stringify(helper)})`);
    const libc = await frame("libc.so.6+0x9a0f0");
    check(libc && libc.verdict === "same" && isGrey(rgb(libc.fill)),
      `libc.so.6+0x9a0f0 is the same, drawn grey (${JSON.stringify(libc)})`);
    const gone = await frame(HOSTILE);
    check(gone && gone.next === 0 && gone.base > 0 && gone.cls.includes("base-only") &&
      isBlue(rgb(gone.fill)), `the function only in the base is drawn, dashed and blue (${JSON.stringify(gone)})`);
    // Deeper red for a larger change against the frame: hot_loop (+50%)
    // more than compute (its caller, +11%).
    const compute = await frame("synth::compute(int)");
    check(compute && isRed(rgb(compute.fill)) && rgb(compute.fill)[1] > rgb(hot.fill)[1],
      `the caller's smaller change is a lighter red (${compute && compute.fill} against ${hot.fill})`);
    await page.locator('#frames > g[data-name="synth::hot_loop()"]').first().hover();
    const details = await page.textContent("#details");
    check(/^synth::hot_loop\(\): slower \(total: base [\d.]+ s, new [\d.]+ s, \+[\d.]+ s \+50\.0%; self: base/.test(details),
      `hovering shows both times and the verdict ("${details}")`);
    await page.screenshot({ path: path.join(artifacts, "diff-flamegraph.png") });
    check(await page.evaluate(() => document.querySelectorAll("script").length === 1),
      "the SVG has only its own script");
    done();
    await page.close();
  }
  // The compare page.
  {
    const page = await context.newPage();
    const done = watch(page, "compare page");
    await page.goto(`file://${html}`);
    await page.waitForSelector("body[data-ready]", { timeout: 30000 });
    const sides = await page.$$eval(".run-timeline", (els) => els.map((e) => e.getAttribute("data-side")));
    check(JSON.stringify(sides) === JSON.stringify(["base", "new"]), `both runs' timelines (${sides})`);
    const threads = await page.$$eval(".run-timeline .names div", (els) => els.map((e) => e.textContent));
    check(threads.filter((t) => t === "worker-1 (1001)").length === 2,
      `each timeline has the runs' threads (${threads.join(", ")})`);
    // The flame graph's pixels where hot_loop, helper and libc are drawn.
    const pixel = async (name) => page.evaluate((n) => {
      const C = window.strobeCompare, x = C.node(n), b = x < 0 ? null : C.box(x);
      if (!b) return null;
      const c = document.getElementById("diff-flame-canvas"), dpr = window.devicePixelRatio || 1;
      const d = c.getContext("2d").getImageData(Math.round((b.x + 1) * dpr), Math.round((b.y + 2) * dpr), 1, 1).data;
      return { rgb: [d[0], d[1], d[2]], verdict: C.verdict(x), box: b };
    }, name);
    const hot = await pixel("synth::hot_loop()");
    check(hot && hot.verdict === "slower" && isRed(hot.rgb), `the canvas draws hot_loop red (${JSON.stringify(hot)})`);
    const helper = await pixel("synth::helper(int)");
    check(helper && helper.verdict === "faster" && isBlue(helper.rgb),
      `the canvas draws helper blue (${JSON.stringify(helper)})`);
    const libc = await pixel("libc.so.6+0x9a0f0");
    check(libc && libc.verdict === "same" && isGrey(libc.rgb), `the canvas draws libc grey (${JSON.stringify(libc)})`);
    const gone = await pixel(HOSTILE);
    check(gone && gone.verdict === "faster" && gone.box.w > 10,
      `the function only in the base is drawn (${JSON.stringify(gone)})`);
    // Hover over hot_loop: both times and the verdict.
    const canvas = await page.$("#diff-flame-canvas");
    const r = await canvas.boundingBox();
    await page.mouse.move(r.x + hot.box.x + hot.box.w / 2, r.y + hot.box.y + hot.box.h / 2);
    await page.waitForTimeout(100);
    const details = await page.textContent("#diff-flame-details");
    check(/^synth::hot_loop\(\): slower \(total: base [\d.]+ m?s, new [\d.]+ m?s, \+[\d.]+ m?s \+50\.0%/.test(details),
      `hovering the canvas shows both times and the verdict ("${details}")`);
    // The table: by the size of the change, re-sorted by a click.
    const firstRows = async () => page.$$eval("#diff-table tbody tr", (trs) =>
      trs.slice(0, 3).map((tr) => tr.querySelectorAll("td")[10].textContent));
    const byChange = await firstRows();
    check(byChange[0] === "synth::hot_loop()" && byChange[1] === "synth::helper(int)",
      `the table starts with the largest changes (${byChange})`);
    check((await page.$$eval("#diff-table tbody tr td.name", (tds) => tds.map((t) => t.textContent)))
      .includes(HOSTILE), "the hostile name is in the table as text");
    await page.click('#diff-table th[data-column="pct"]');
    const byPct = await firstRows();
    check(byPct[0] === "synth::hot_loop()", `a click sorts by CHANGE%, largest first (${byPct})`);
    await page.click('#diff-table th[data-column="pct"]');
    const byPctUp = await firstRows();
    check(byPctUp[0] === HOSTILE || byPctUp[0] === "synth::helper(int)",
      `a second click sorts the other way (${byPctUp})`);
    await page.screenshot({ path: path.join(artifacts, "diff-compare.png"), fullPage: true });
    // Either run's own views, and back.
    for (const [k, side] of [[0, "base"], [1, "new"]]) {
      await page.click(`#mode-run-${k}`);
      const inner = await (await page.waitForSelector(`#run-frame-${k}`)).contentFrame();
      await inner.waitForSelector("body[data-ready]", { timeout: 30000 });
      const samples = await inner.evaluate(() => window.strobeViewer.nS);
      const want = side === "base" ? 6000 : json.new.runs[0].samples;
      check(samples === want && await page.isHidden("#compare"),
        `the ${side} run's own viewer is shown (${samples} samples, want ${want})`);
      await page.screenshot({ path: path.join(artifacts, `diff-run-${side}.png`) });
    }
    await page.click("#mode-compare");
    check(await page.isVisible("#diff-flame-canvas") && await page.isHidden("#run-section"),
      "Compare shows the comparison again");
    check(await page.evaluate(() => window.__strobe_xss === undefined), "no injected script ran");
    done();
    await page.close();
  }
} finally {
  await context.close();
  fs.rmSync(userDataDir, { recursive: true, force: true });
}
if (failures > 0) {
  console.log(`${failures} check(s) failed`);
  process.exit(1);
}
console.log("strobe diff's pages work in Chromium");
