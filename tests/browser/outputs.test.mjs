// Opens strobe's outputs in headless Chromium (Debian's /usr/bin/chromium,
// driven by playwright-core): the speedscope file and the chrome trace in
// speedscope's own page (the npm package, served from localhost), and the
// flame graph SVG and the HTML viewer directly from file:// (also that of a
// recording with off-CPU time: its timeline draws off-CPU intervals in their
// own colour). Fails on any console error, page error
// or dialog other than the SVG's search prompt (the hostile function name
// must never run), and checks that thread names and the hot function are on
// screen, that search highlights it, and (viewer) that a time range or a
// thread picked on the timeline narrows the flame graph and the table;
// that speedscope opens on the busiest thread, and that its importer nests
// the chrome trace's stacks the right way up (root on top).
// Screenshots go to BUILD/tests/browser/artifacts.
// Usage: node outputs.test.mjs BUILD_DIR
import { chromium } from "playwright-core";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const build = path.resolve(process.argv[2] || "build");
const work = path.join(build, "tests", "browser");
const artifacts = path.join(work, "artifacts");
fs.mkdirSync(artifacts, { recursive: true });

const db = path.join(work, "synth.db");
const unevenDb = path.join(work, "uneven.db");
const speedscopeFile = path.join(work, "profile.speedscope.json");
const unevenFile = path.join(work, "uneven.speedscope.json");
const chromeFile = path.join(work, "profile.trace.json");
const svgFile = path.join(work, "flame.svg");
const htmlFile = path.join(work, "profile.html");
execFileSync(path.join(build, "strobe-synth"), [db, "6000"]);
execFileSync(path.join(build, "strobe"), ["report", db, "-f", "speedscope", "-o", speedscopeFile]);
// worker-2 (1002), the last thread, is the busiest of the uneven profile.
execFileSync(path.join(build, "strobe-synth"), [unevenDb, "6000", "--uneven"]);
execFileSync(path.join(build, "strobe"), ["report", unevenDb, "-o", unevenFile]);
execFileSync(path.join(build, "strobe"), ["report", db, "-o", chromeFile]);
execFileSync(path.join(build, "strobe"), ["report", db, "--per-thread", "-o", svgFile]);
execFileSync(path.join(build, "strobe"), ["report", db, "-o", htmlFile]);
// The same with spans and thread roles, and what strobe report says of its
// slowest spans (the viewer must agree).
const spansDb = path.join(work, "synth-spans.db");
const spansHtml = path.join(work, "spans.html");
execFileSync(path.join(build, "strobe-synth"), [spansDb, "6000", "--spans"]);
execFileSync(path.join(build, "strobe"), ["report", spansDb, "-o", spansHtml]);
const samplesIn = (args) => JSON.parse(execFileSync(path.join(build, "strobe"),
  ["report", spansDb, "-f", "json", ...args]).toString()).total_samples;
const slowestSamples = samplesIn(["--span", "request", "--slowest", "1"]);
const secondSamples = samplesIn(["--span", "request", "--longer-than", "100ms", "--tid", "1002"]);

const offDb = path.join(work, "synth-offcpu.db");
const offHtmlFile = path.join(work, "profile-offcpu.html");
execFileSync(path.join(build, "strobe-synth"), [offDb, "6000", "--off-cpu"]);
execFileSync(path.join(build, "strobe"), ["report", offDb, "-o", offHtmlFile]);

let failures = 0;
function check(ok, what) {
  console.log(`${ok ? "ok" : "FAIL"}: ${what}`);
  if (!ok) failures++;
}

// speedscope's release files and the profile, from 127.0.0.1 only.
const release = path.join(here, "node_modules", "speedscope", "dist", "release");
const types = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css",
  ".json": "application/json", ".wasm": "application/wasm", ".png": "image/png",
  ".woff2": "font/woff2", ".ico": "image/x-icon", ".txt": "text/plain" };
const served = { "/profile.speedscope.json": speedscopeFile, "/uneven.speedscope.json": unevenFile,
  "/profile.trace.json": chromeFile };
const server = http.createServer((req, res) => {
  const url = new URL(req.url, "http://127.0.0.1");
  const profile = served[url.pathname];
  const file = profile
    || path.join(release, path.normalize(url.pathname === "/" ? "/index.html" : url.pathname));
  if (!file.startsWith(release) && !profile) { res.writeHead(403); res.end(); return; }
  fs.readFile(file, (err, data) => {
    if (err) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { "Content-Type": types[path.extname(file)] || "application/octet-stream" });
    res.end(data);
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const port = server.address().port;

const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "strobe-chromium-"));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1280, height: 800 },
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});

function watch(page, name, allowPrompt) {
  const errors = [];
  page.on("console", (m) => {
    // speedscope warns, and goes on, when trace events do not nest.
    const unbalanced = m.type() === "warning" && /Tried to end|still open at end|non-empty stack/.test(m.text());
    if (m.type() === "error" || unbalanced) errors.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  page.on("dialog", async (d) => {
    if (allowPrompt && d.type() === "prompt") { await d.accept("hot_loop"); return; }
    errors.push(`unexpected ${d.type()} dialog: ${d.message()}`);
    await d.dismiss();
  });
  return () => check(errors.length === 0, `${name}: no console errors, page errors or dialogs` +
    (errors.length ? `\n  ${errors.join("\n  ")}` : ""));
}

// Opens a profile served here in speedscope; resolves when its flame
// chart is drawn.
async function openInSpeedscope(page, file) {
  await page.goto(`http://127.0.0.1:${port}/#profileURL=${encodeURIComponent(
    `http://127.0.0.1:${port}${file}`)}`);
  await page.waitForSelector("canvas", { timeout: 20000 });
  await page.waitForFunction(() => /\(\d+\/\d+\)/.test(document.body.innerText), null,
    { timeout: 20000 }).catch(() => {});
}

// The frame name speedscope's hover tip shows at (x, y) of the page, "" when
// none. The tip is "<span>18.02ms (0.90%)</span> name".
async function hoverName(page, x, y) {
  await page.mouse.move(x, y);
  await page.waitForTimeout(150);
  return page.evaluate(() => {
    for (const span of document.querySelectorAll("span")) {
      if (!/^[\d.]+\s*\S*s \([\d.]+%\)$/.test(span.textContent)) continue;
      return span.parentElement.textContent.slice(span.textContent.length).trim();
    }
    return "";
  });
}

try {
  // speedscope
  {
    const page = await context.newPage();
    const done = watch(page, "speedscope", false);
    await page.goto(`http://127.0.0.1:${port}/#profileURL=${encodeURIComponent(
      `http://127.0.0.1:${port}/profile.speedscope.json`)}`);
    await page.waitForSelector("canvas", { timeout: 20000 });
    await page.waitForFunction(() => document.body.innerText.includes("main (1000)"),
      null, { timeout: 20000 }).catch(() => {});
    const text = await page.evaluate(() => document.body.innerText);
    check(text.includes("main (1000)"), "speedscope shows the thread main (1000)");
    await page.screenshot({ path: path.join(artifacts, "speedscope-time-order.png") });
    // The sandwich view lists functions as text, heaviest self first.
    await page.getByText("Sandwich").first().click();
    await page.waitForFunction(() => document.body.innerText.includes("synth::hot_loop()"),
      null, { timeout: 10000 }).catch(() => {});
    const sandwich = await page.evaluate(() => document.body.innerText);
    check(sandwich.includes("synth::hot_loop()"), "speedscope's sandwich view lists synth::hot_loop()");
    await page.screenshot({ path: path.join(artifacts, "speedscope-sandwich.png") });
    // The other threads are in the profile selector.
    await page.getByText("main (1000)").first().click().catch(() => {});
    await page.waitForTimeout(300);
    const menu = await page.evaluate(() => document.body.innerText);
    check(menu.includes("worker-1 (1001)") && menu.includes("worker-2 (1002)"),
      "speedscope lists the worker threads");
    await page.screenshot({ path: path.join(artifacts, "speedscope-threads.png") });
    done();
    await page.close();
  }
  // speedscope opens on the busiest thread
  {
    const page = await context.newPage();
    const done = watch(page, "speedscope (uneven threads)", false);
    await openInSpeedscope(page, "/uneven.speedscope.json");
    const text = await page.evaluate(() => document.body.innerText);
    check(text.includes("worker-2 (1002) (3/3)"),
      `speedscope opens on the busiest thread, worker-2 (1002) ("${text.split("\n").find((l) => /\(\d\/3\)/.test(l))}")`);
    await page.screenshot({ path: path.join(artifacts, "speedscope-busiest.png") });
    done();
    await page.close();
  }
  // speedscope's importer on the chrome trace: nested the right way up
  {
    const page = await context.newPage();
    const done = watch(page, "speedscope (chrome trace)", false);
    await openInSpeedscope(page, "/profile.trace.json");
    const text = await page.evaluate(() => document.body.innerText);
    check(text.includes("main (1000) (tid 1000)"), "speedscope imports the chrome trace's main thread");
    // main's first 10 ms: main -> synth::compute(int) -> synth::hot_loop(),
    // rows 0, 1, 2 of the flame chart (the lowest canvas; the one above is
    // the overview), 20 px each below a time ruler.
    const chart = (await page.$$eval("canvas", (cs) => cs.map((c) => {
      const r = c.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height };
    }))).sort((a, b) => b.y - a.y)[0];
    const rowsAt = [];
    for (let row = 0; row < 3; row++) {
      let name = "";
      for (let dx = 3; dx < 12 && !name; dx += 2) {
        name = await hoverName(page, chart.x + dx, chart.y + 24 + row * 20);
      }
      rowsAt.push(name);
    }
    check(JSON.stringify(rowsAt) === JSON.stringify(["main", "synth::compute(int)", "synth::hot_loop()"]),
      `the chrome trace's stacks are the right way up in speedscope (rows 0-2: ${JSON.stringify(rowsAt)})`);
    await page.screenshot({ path: path.join(artifacts, "speedscope-chrome-trace.png") });
    done();
    await page.close();
  }
  // the flame graph SVG, opened directly
  {
    const page = await context.newPage();
    const done = watch(page, "flame graph", true);
    await page.goto(`file://${svgFile}`);
    await page.waitForSelector("#frames > g");
    const names = await page.$$eval("#frames > g", (gs) => gs.map((g) => g.getAttribute("data-name")));
    for (const t of ["main (1000)", "worker-1 (1001)", "worker-2 (1002)", "synth::hot_loop()"]) {
      check(names.includes(t), `the flame graph has a frame ${t}`);
    }
    const hostile = `<script>alert(1)</script>&"'`;
    check(names.includes(hostile), "the hostile name is shown as text");
    check(await page.evaluate(() => document.querySelectorAll("script").length === 1),
      "the SVG has only its own script");
    await page.screenshot({ path: path.join(artifacts, "flamegraph.png") });

    const hot = page.locator('#frames > g[data-name="synth::hot_loop()"]').first();
    await hot.hover();
    const details = await page.textContent("#details");
    check(/synth::hot_loop\(\) \(\d+ samples, [\d.]+%, .+ CPU\)/.test(details),
      `hovering shows name, samples, share and CPU time ("${details}")`);

    await page.click("#search");  // the prompt answers "hot_loop"
    await page.waitForFunction(() => document.getElementById("matched").textContent.includes("%"));
    const matched = await page.textContent("#matched");
    const fills = await page.$$eval('#frames > g[data-name="synth::hot_loop()"] > rect',
      (rs) => rs.map((r) => r.getAttribute("fill")));
    check(fills.length > 0 && fills.every((f) => f === "rgb(230,0,230)"),
      "search highlights every synth::hot_loop() frame");
    const share = parseFloat(matched.replace(/[^\d.]/g, ""));
    check(Math.abs(share - 50) < 0.5, `search shows the matched share ("${matched}", want 50%)`);
    await page.screenshot({ path: path.join(artifacts, "flamegraph-search.png") });

    await page.locator('#frames > g[data-name="worker-1 (1001)"]').click();
    const unzoomShown = await page.evaluate(() => document.getElementById("unzoom").getAttribute("class") !== "hide");
    const hidden = await page.evaluate(() => getComputedStyle(
      document.querySelector('#frames > g[data-name="main (1000)"]')).display === "none");
    check(unzoomShown && hidden, "clicking a frame zooms into it");
    await page.screenshot({ path: path.join(artifacts, "flamegraph-zoom.png") });
    await page.click("#unzoom");
    const back = await page.evaluate(() => getComputedStyle(
      document.querySelector('#frames > g[data-name="main (1000)"]')).display !== "none");
    check(back, "Reset Zoom shows every frame again");
    check(await page.evaluate(() => window.__strobe_xss === undefined), "no injected script ran");
    done();
    await page.close();
  }
  // the HTML viewer, opened directly (it must fetch nothing)
  {
    const page = await context.newPage();
    const done = watch(page, "html viewer", false);
    const requests = [];
    page.on("request", (r) => { if (!r.url().startsWith("file://")) requests.push(r.url()); });
    await page.goto(`file://${htmlFile}#view=icicle`);
    await page.waitForSelector("body[data-ready]");
    const names = await page.textContent("#thread-names");
    for (const t of ["main (1000)", "worker-1 (1001)", "worker-2 (1002)"]) {
      check(names.includes(t), `the viewer's timeline names the thread ${t}`);
    }
    const summary = await page.textContent("#summary");
    check(summary.includes("6,000 samples") && summary.includes("3 threads"),
      `the header says samples and threads ("${summary}")`);
    check((await page.textContent("#command")) === "/opt/synth/bin/synth --work 1", "the header shows the command");
    // The top functions, read from their tab; then back to the icicle.
    const rows = async () => {
      await page.click("#tab-top");
      const got = await page.$$eval("#top-table tbody tr", (trs) => trs.map((tr) =>
        Array.from(tr.children).map((td) => td.textContent)));
      await page.click("#tab-icicle");
      return got;
    };
    const top = await rows();
    check(top[0][3] === "synth::hot_loop()" && top[0][0] === "50.00%",
      `the top table starts with synth::hot_loop() at 50% (${JSON.stringify(top[0])})`);
    const hostile = `<script>alert(1)</script>&"'`;
    check(top.some((r) => r[3] === hostile), "the hostile name is shown as text in the table");
    check(await page.evaluate(() => document.querySelectorAll("script").length === 2),
      "the viewer has only its own data and script elements");
    await page.screenshot({ path: path.join(artifacts, "viewer.png"), fullPage: true });

    // Hover: scan the row of hot_loop (depth 3: all, main, compute, hot_loop).
    const flame = await page.locator("#icicle-canvas").boundingBox();
    let details = "", hotX = -1;
    for (let x = 2; x < flame.width && hotX < 0; x += 8) {
      await page.mouse.move(flame.x + x, flame.y + 3 * 17 + 8);
      details = await page.textContent("#icicle-details");
      if (details.startsWith("synth::hot_loop()")) hotX = x;
    }
    check(/^synth::hot_loop\(\) +\(\d[\d,]* samples, [\d.]+%, .+ CPU\)/.test(details),
      `hovering shows name, samples, share and CPU time ("${details}")`);
    const pixel = (x, y) => page.evaluate(([px, py]) => {
      const c = document.getElementById("icicle-canvas"), r = window.devicePixelRatio || 1;
      return Array.from(c.getContext("2d").getImageData(Math.round(px * r), Math.round(py * r), 1, 1).data.slice(0, 3));
    }, [x, y]);

    // Search: highlights the frames and shows their share.
    await page.mouse.move(flame.x + flame.width / 2, flame.y + flame.height + 200);
    await page.locator("#search").pressSequentially("hot_loop");
    await page.waitForFunction(() => document.getElementById("matched").textContent.includes("%"));
    const matched = await page.textContent("#matched");
    const share = parseFloat(matched.replace(/[^\d.]/g, ""));
    check(share > 0 && Math.abs(share - 50) < 0.5, `search shows the matched share ("${matched}", want 50%)`);
    check(hotX >= 0 && JSON.stringify(await pixel(hotX + 4, 3 * 17 + 2)) === "[230,0,230]",
      "search paints synth::hot_loop() magenta");
    await page.click("#tab-top");
    check(await page.$eval("#top-table tbody tr.match td.name", (td) => td.textContent) === "synth::hot_loop()",
      "search marks the matching table row");
    await page.click("#tab-icicle");
    await page.screenshot({ path: path.join(artifacts, "viewer-search.png"), fullPage: true });
    await page.fill("#search", "");

    // Zoom into the first compute frame, then back.
    await page.mouse.click(flame.x + 20, flame.y + 2 * 17 + 8);
    check(await page.isEnabled("#icicle-reset"), "clicking a frame zooms into it");
    await page.click("#icicle-reset");
    check(!(await page.isEnabled("#icicle-reset")), "Reset zoom goes back");

    // A time range dragged on the timeline narrows the selection.
    const selected = () => page.$eval("#selection", (e) => Number(e.getAttribute("data-samples")));
    const hotSelf = async () => (await rows()).find((r) => r[3] === "synth::hot_loop()")[2];
    const before = await selected(), hotBefore = await hotSelf();
    const tl = await page.locator("#timeline-canvas").boundingBox();
    await page.mouse.move(tl.x + tl.width * 0.25, tl.y + 10);
    await page.mouse.down();
    await page.mouse.move(tl.x + tl.width * 0.5, tl.y + 30, { steps: 8 });
    await page.mouse.up();
    const inRange = await selected(), hotInRange = await hotSelf();
    check(before === 6000 && inRange > 6000 * 0.2 && inRange < 6000 * 0.3,
      `dragging a quarter of the timeline selects about a quarter of the samples (${before} -> ${inRange})`);
    check(hotInRange !== hotBefore, `the table follows the time range (hot_loop self ${hotBefore} -> ${hotInRange})`);
    await page.screenshot({ path: path.join(artifacts, "viewer-range.png"), fullPage: true });

    // A thread's name narrows it further; Clear selection undoes both.
    await page.locator("#thread-names").getByText("worker-1 (1001)", { exact: true }).click();
    const oneThread = await selected();
    check(oneThread > 0 && Math.abs(oneThread - inRange / 3) <= 2,
      `clicking a thread name keeps only its samples (${inRange} -> ${oneThread})`);
    const sel = await page.textContent("#selection");
    check(sel.includes("threads: worker-1 (1001)"), `the selection names the thread ("${sel}")`);
    // About 500 samples: the 5% rows rest on fewer than 30 and are marked.
    const few = await rows();
    const marked = few.filter((r) => r[0].endsWith("*")).map((r) => r[3]);
    const note = await page.evaluate(() => document.getElementById("table-note")?.textContent ?? "");
    check(marked.includes("libc.so.6+0x9a0f0") && !marked.includes("synth::hot_loop()"),
      `rows on fewer than 30 samples are marked (${JSON.stringify(marked)})`);
    check(/^\* fewer than 30 samples: such a share is uncertain by about ±\d+\.\d points/.test(note),
      `the table says how uncertain marked shares are ("${note}")`);
    await page.screenshot({ path: path.join(artifacts, "viewer-thread.png"), fullPage: true });
    await page.click("#clear-selection");
    check(await selected() === 6000, "Clear selection selects every sample again");

    check(await page.evaluate(() => window.__strobe_xss === undefined), "no injected script ran");
    check(requests.length === 0, `the viewer fetched nothing (${requests.join(", ")})`);
    done();
    await page.close();
  }
  // the viewer's span tracks: hover a span, click it, pick from the slowest list
  {
    const page = await context.newPage();
    const done = watch(page, "html viewer spans", false);
    await page.goto(`file://${spansHtml}`);
    await page.waitForSelector("#slowest-spans tbody tr");
    check(await page.isVisible("#span-canvas"), "the viewer shows the span tracks");
    const trackNames = await page.textContent("#span-names");
    check(trackNames.includes("worker 1 (tid 1001)") && trackNames.includes("worker 2 (tid 1002)"),
      `the span tracks are named by role ("${trackNames}")`);
    const timelineNames = await page.textContent("#thread-names");
    check(timelineNames.includes("worker 1 (tid 1001)"), "the timeline names threads by role");
    const slow = await page.$$eval("#slowest-spans tbody tr", (trs) => trs.map((tr) =>
      Array.from(tr.children).map((td) => td.textContent)));
    check(slow[0][0] === "request" && slow[0][1] === "200.0 ms" && slow[0][2] === "worker 1 (tid 1001)",
      `the slowest span comes first (${JSON.stringify(slow[0])})`);
    check(slow[1][1] === "150.0 ms" && slow[1][2] === "worker 2 (tid 1002)",
      `then the second slowest (${JSON.stringify(slow[1])})`);
    await page.screenshot({ path: path.join(artifacts, "viewer-spans.png"), fullPage: true });

    // Hover the slowest span on its track.
    const box = await page.locator("#span-canvas").boundingBox();
    const pos = await page.evaluate(() => {
      const row = document.querySelector("#slowest-spans tbody tr");
      return window.strobeViewer.spanPosition(Number(row.getAttribute("data-track")),
        Number(row.getAttribute("data-index")));
    });
    await page.mouse.move(box.x + pos.x, box.y + pos.y);
    const hover = await page.textContent("#span-details");
    check(/^request +200\.0 ms +worker 1 \(tid 1001\)/.test(hover),
      `hovering a span shows its name, duration and thread ("${hover}")`);

    // Click it: its time range on its thread is selected.
    await page.mouse.click(box.x + pos.x, box.y + pos.y);
    const selected = () => page.$eval("#selection", (e) => Number(e.getAttribute("data-samples")));
    const got = await selected();
    check(got === slowestSamples && got > 0,
      `clicking the slowest span selects its samples (${got}; strobe report --span request --slowest 1: ${slowestSamples})`);
    const sel = await page.textContent("#selection");
    check(sel.includes("threads: worker 1 (tid 1001)") && sel.includes("from 360.0 ms to 560.0 ms"),
      `the selection is the span's thread and range ("${sel}")`);
    check(await page.$eval("#slowest-spans tbody tr", (tr) => tr.className) === "selected",
      "the slowest-spans list marks the selected span");
    await page.screenshot({ path: path.join(artifacts, "viewer-span-selected.png"), fullPage: true });

    // The list jumps to the second slowest.
    await page.locator("#slowest-spans tbody tr").nth(1).click();
    const second = await selected();
    check(second === secondSamples && second > 0,
      `the slowest-spans list selects the second slowest (${second}; strobe report: ${secondSamples})`);
    check((await page.textContent("#selection")).includes("threads: worker 2 (tid 1002)"),
      "the second slowest is on worker 2");
    done();
    await page.close();
  }

  // the HTML viewer of a recording with off-CPU time (worker-2 is off CPU
  // from the middle of the recording on)
  {
    const page = await context.newPage();
    const done = watch(page, "html viewer, off-CPU", false);
    await page.goto(`file://${offHtmlFile}#view=icicle`);
    await page.waitForSelector("body[data-ready]");
    const summary = await page.textContent("#summary");
    check(summary.includes("1,000 off-CPU intervals") && summary.includes("wall (CPU + off-CPU)"),
      `the header counts off-CPU intervals and names the wall time ("${summary}")`);
    // The command's own CPU (the CPU samples' time plus 10% in the
    // recording) is set beside the CPU samples, never beside the wall time.
    const cpu = /(\d+\.\d+) (s|ms) CPU sampled of (\d+\.\d+) (s|ms) used/.exec(summary);
    const ns = (v, u) => Number(v) * (u === "s" ? 1e9 : 1e6);
    check(cpu !== null && Math.abs(ns(cpu[3], cpu[4]) / ns(cpu[1], cpu[2]) - 1.1) < 0.01,
      `the header sets the command's CPU beside the CPU samples only ("${summary}")`);
    const legend = await page.textContent("#legend");
    check(legend.includes("CPU") && legend.includes("off-CPU"), `the timeline has a legend ("${legend}")`);
    await page.screenshot({ path: path.join(artifacts, "viewer-offcpu.png"), fullPage: true });
    // The timeline: threads main, worker-1, worker-2, 18 px a row; bars grow
    // from the bottom of their row.
    const tl = await page.locator("#timeline-canvas").boundingBox();
    const tlPixel = (x, row) => page.evaluate(([px, py]) => {
      const c = document.getElementById("timeline-canvas"), r = window.devicePixelRatio || 1;
      return Array.from(c.getContext("2d").getImageData(Math.round(px * r), Math.round(py * r), 1, 1).data.slice(0, 3));
    }, [x, row * 18 + 14]);
    const cpuColor = "[52,110,200]", offColor = "[235,150,40]";
    const w2early = JSON.stringify(await tlPixel(tl.width * 0.25, 2));
    const w2late = JSON.stringify(await tlPixel(tl.width * 0.75, 2));
    const w1late = JSON.stringify(await tlPixel(tl.width * 0.75, 1));
    check(w2early === cpuColor, `worker-2 runs on CPU in the first half (${w2early})`);
    check(w2late === offColor, `worker-2's off-CPU half is drawn in the off-CPU colour (${w2late})`);
    check(w1late === cpuColor, `worker-1 stays on CPU (${w1late})`);
    // The flame graph and table count CPU and off-CPU time: all of it.
    const sel = await page.textContent("#selection");
    check(sel.includes("6,000 of 6,000 samples (100.00% of the wall time)"),
      `the selection covers CPU samples and off-CPU intervals ("${sel}")`);
    const flame = await page.locator("#icicle-canvas").boundingBox();
    await page.mouse.move(flame.x + 5, flame.y + 8);
    const details = await page.textContent("#icicle-details");
    check(/^all +\(6,000 samples, 100\.00%, .+ wall\)/.test(details),
      `hovering names the wall time ("${details}")`);
    // Only worker-2: its off-CPU intervals are half its samples.
    await page.locator("#thread-names").getByText("worker-2 (1002)", { exact: true }).click();
    const only = await page.$eval("#selection", (e) => Number(e.getAttribute("data-samples")));
    check(only === 2000, `worker-2 has its CPU samples and off-CPU intervals (${only})`);
    // Its last quarter is all off CPU: the flame graph's frames turn blue.
    const flamePixel = (x, y) => page.evaluate(([px, py]) => {
      const c = document.getElementById("icicle-canvas"), r = window.devicePixelRatio || 1;
      return Array.from(c.getContext("2d").getImageData(Math.round(px * r), Math.round(py * r), 1, 1).data.slice(0, 3));
    }, [x, y]);
    const before = await flamePixel(flame.width / 2, 17 + 8);
    await page.mouse.move(tl.x + tl.width * 0.75, tl.y + 10);
    await page.mouse.down();
    await page.mouse.move(tl.x + tl.width * 0.99, tl.y + 30, { steps: 8 });
    await page.mouse.up();
    const after = await flamePixel(flame.width / 2, 17 + 8);
    check(!(before[2] >= 220 && before[0] <= 90) && after[2] >= 220 && after[0] <= 90,
      `frames mostly off CPU are drawn in blues (${JSON.stringify(before)} -> ${JSON.stringify(after)})`);
    await page.screenshot({ path: path.join(artifacts, "viewer-offcpu-blue.png"), fullPage: true });
    done();
    await page.close();
  }
} finally {
  await context.close();
  server.close();
  fs.rmSync(userDataDir, { recursive: true, force: true });
}
console.log(failures === 0 ? "browser: all checks passed" : `browser: ${failures} checks failed`);
process.exit(failures === 0 ? 0 : 1);
