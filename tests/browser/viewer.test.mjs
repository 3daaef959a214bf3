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
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const build = path.resolve(process.argv[2] || "build");
const work = path.join(build, "tests", "browser");
const artifacts = path.join(work, "artifacts");
fs.mkdirSync(artifacts, { recursive: true });

// The profile's functions are in a source file that `strobe report` reads
// (phases.html embeds its lines); noSource.html is of the same profile with
// its functions in a file that does not exist (line numbers only).
const db = path.join(work, "phases.db");
const html = path.join(work, "phases.html");
const source = path.join(work, "phases_src", "work.cpp");
fs.mkdirSync(path.dirname(source), { recursive: true });
const text = [];
for (let l = 1; l <= 70; l++) text.push(`// line ${l}`);
Object.assign(text, { 9: "void hot_a() {", 10: "  step_one();", 11: "  for (;;) spin();  // the hot line",
  12: "  step_three();", 13: "}", 19: "void warm_b() {", 29: "void cold_c() {", 39: "void phase_one() {",
  49: "void phase_two() {", 59: "int main() {" });
fs.writeFileSync(source, text.join("\n") + "\n");
execFileSync(path.join(build, "strobe-synth"), [db, "10000", "--phases", `--source=${source}`]);
execFileSync(path.join(build, "strobe"), ["report", db, "-o", html]);
const noSourceDb = path.join(work, "phases-nosource.db");
const noSource = path.join(work, "phases-nosource.html");
execFileSync(path.join(build, "strobe-synth"), [noSourceDb, "10000", "--phases", "--source=/nonexistent/phases/work.cpp"]);
execFileSync(path.join(build, "strobe"), ["report", noSourceDb, "-o", noSource]);
// With 40 idle threads more: 41 threads, the busiest 32 shown.
const manyDb = path.join(work, "phases-threads.db");
const many = path.join(work, "phases-threads.html");
execFileSync(path.join(build, "strobe-synth"), [manyDb, "10000", "--phases", "--idle-threads=40"]);
execFileSync(path.join(build, "strobe"), ["report", manyDb, "-o", many]);
// The synthetic recording with off-CPU time (worker-2 off CPU from the middle).
const offDb = path.join(work, "viewer-offcpu.db");
const off = path.join(work, "viewer-offcpu.html");
execFileSync(path.join(build, "strobe-synth"), [offDb, "6000", "--off-cpu"]);
execFileSync(path.join(build, "strobe"), ["report", offDb, "-o", off]);
// And a recording without a sample.
const emptyDb = path.join(work, "empty.db");
const empty = path.join(work, "empty.html");
execFileSync(path.join(build, "strobe-synth"), [emptyDb, "0"]);
execFileSync(path.join(build, "strobe"), ["report", emptyDb, "-o", empty]);

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

async function open(name, hash = "", scheme = "light", file = html) {
  const page = await context.newPage();
  await page.emulateMedia({ colorScheme: scheme });
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  page.on("dialog", async (d) => { errors.push(`unexpected ${d.type()} dialog`); await d.dismiss(); });
  page.on("request", (r) => { if (!r.url().startsWith("file://")) errors.push(`request: ${r.url()}`); });
  await page.goto(`file://${file}${hash}`);
  await page.waitForSelector("body[data-ready]");
  page.done = () => check(errors.length === 0, `${name}: no console errors, page errors, dialogs or requests` +
    (errors.length ? `\n  ${errors.join("\n  ")}` : ""));
  return page;
}

// What a flame view ("flame": root at the bottom, "icicle": root on top)
// shows at depth `depth` (0: the root, "all") and fraction `at` of its
// width, hovering it: "name  (N samples, P%, ...)  file:line", or "".
async function flameAt(page, depth, at, view = "flame") {
  const box = await page.locator(`#${view}-canvas`).boundingBox();
  const rows = Math.round((box.height - 2) / 17);
  const row = view === "icicle" ? depth : rows - 1 - depth;
  await page.mouse.move(box.x + box.width * at, box.y + row * 17 + 8);
  return (await page.textContent(`#${view}-details`)).trim();
}
// What a canvas view says under the mouse at each of `n` evenly spaced
// points of a row `fromBottom` px above its bottom (or `fromTop` below its
// top): the page's own mousemove handler, driven in one round trip.
function scanRow(page, canvas, details, n, { fromBottom, fromTop }) {
  return page.evaluate(([cid, did, count, bottom, top]) => {
    const c = document.getElementById(cid), r = c.getBoundingClientRect(), out = [];
    const y = top !== undefined ? r.top + top : r.bottom - bottom;
    for (let i = 0; i < count; i++) {
      c.dispatchEvent(new MouseEvent("mousemove", { clientX: r.left + r.width * (i + 0.5) / count, clientY: y, bubbles: true }));
      out.push(document.getElementById(did).textContent.trim());
    }
    return out;
  }, [canvas, details, n, fromBottom, fromTop]);
}
function flameRow(page, view, depth, n) {
  return page.evaluate(([v, d]) => {
    const c = document.getElementById(`${v}-canvas`), rows = Math.round((c.clientHeight - 2) / 17);
    return (v === "icicle" ? d : rows - 1 - d) * 17 + 8;
  }, [view, depth]).then((top) => scanRow(page, `${view}-canvas`, `${view}-details`, n, { fromTop: top }));
}
// The share of a flame view's width where `name` is drawn at `depth`,
// found by hovering every 0.5% of it.
async function flameWidth(page, depth, name, view = "flame") {
  const seen = await flameRow(page, view, depth, 200);
  return seen.filter((t) => t.startsWith(name + "  (")).length / 200;
}
// The names a flame view shows per depth, left to right, hovering every
// 1% of its width: what a user would read off it.
async function frameRows(page, view, depths) {
  const out = [];
  for (let d = 0; d < depths; d++) {
    const seen = [];
    for (const t of await flameRow(page, view, d, 100)) {
      const name = t.split("  (")[0];
      if (name && seen[seen.length - 1] !== name) seen.push(name);
    }
    out.push(seen.join(" | "));
  }
  return out;
}
// A table's rows as arrays of cell texts.
const tableRows = (page, id) => page.$$eval(`#${id} tbody tr`, (trs) => trs.map((tr) =>
  Array.from(tr.children).map((td) => td.textContent.replace(/^[\u25b8\u25be\u00a0]/, "").trim())));
const percent = (text) => parseFloat(String(text).replace(/[^\d.]/g, ""));
const near = (got, want, tol) => Math.abs(got - want) <= tol;


// What a user sees of a view, in words: the selected tab, the theme (and
// whether text is readable on it), whether the page fits 1280 px, and the
// view's content: frames by depth, or its table's rows.
async function describe(page, id) {
  const out = [];
  const look = await page.evaluate(() => {
    const rgb = (c) => (c.match(/[\d.]+/g) || []).slice(0, 3).map(Number);
    const lum = (c) => {
      const v = rgb(c).map((x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
      return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
    };
    const body = getComputedStyle(document.body);
    const bg = lum(body.backgroundColor), fg = lum(body.color);
    const panel = lum(getComputedStyle(document.querySelector("#timeline")).backgroundColor);
    return { bg, contrast: (Math.max(bg, fg) + 0.05) / (Math.min(bg, fg) + 0.05), panel,
      fits: document.documentElement.scrollWidth <= window.innerWidth,
      tab: document.querySelector("#tabs button.active").textContent.trim() };
  });
  out.push(`tab: ${look.tab}`);
  out.push(`theme: ${look.bg > 0.5 ? "light" : "dark"} page, ${look.panel > 0.5 ? "light" : "dark"} panels; ` +
    `text contrast ${look.contrast >= 7 ? "at least 7:1" : look.contrast >= 4.5 ? "at least 4.5:1" : "too low"}`);
  out.push(`fits 1280 px wide: ${look.fits ? "yes" : "no"}`);
  const clean = (r) => r.filter((c) => c !== "").join(" ");
  if (id === "flame" || id === "icicle") {
    (await frameRows(page, id, 4)).forEach((r, d) => out.push(`depth ${d}: ${r}`));
  } else if (id === "stack") {
    const box = await page.locator("#stack-canvas").boundingBox();
    for (let d = 1; d <= 3; d++) {
      const seen = [];
      for (const t of await scanRow(page, "stack-canvas", "stack-details", 100, { fromBottom: 2 + (3 - d) * 16 + 8 })) {
        const name = t.split("  ")[0];
        if (name && seen[seen.length - 1] !== name) seen.push(name);
      }
      out.push(`depth ${d}, left to right: ${seen.join(" | ")}`);
    }
    await page.mouse.move(box.x + box.width * 0.3, box.y + 14 + 8);
    out.push(`span band: ${(await page.textContent("#stack-details")).trim()}`);
  } else {
    const table = { calltree: "calltree-table", inverted: "inverted-table", top: "top-table",
      source: "source-table" }[id];
    if (id === "sandwich") {
      out.push(`function: ${(await page.textContent("#sandwich-function")).trim()}`);
      for (const part of ["callers", "callees"]) {
        for (const r of await tableRows(page, `sandwich-${part}`)) out.push(`${part}: ${clean(r)}`);
      }
    } else {
      if (id === "source") out.push(`function: ${(await page.textContent("#source-function")).trim()}`);
      const head = await page.$$eval(`#${table} thead th`, (ths) => ths.map((th) => th.textContent));
      out.push(`columns: ${head.join(" ")}`);
      const hot = await page.$$eval(`#${table} tbody tr`, (trs) => trs.map((tr) => tr.classList.contains("hot")));
      (await tableRows(page, table)).forEach((r, i) => out.push(`row: ${clean(r)}${hot[i] ? "  (highlighted)" : ""}`));
    }
  }
  return out;
}

// Drags across the timeline from fraction a to fraction b of its width.
async function dragTimeline(page, a, b) {
  const tl = await page.locator("#timeline-canvas").boundingBox();
  await page.mouse.move(tl.x + tl.width * a, tl.y + 10);
  await page.mouse.down();
  await page.mouse.move(tl.x + tl.width * b, tl.y + 10, { steps: 6 });
  await page.mouse.up();
}
// The colour of a canvas pixel at (x, y) in CSS pixels.
const pixel = (page, id, x, y) => page.evaluate(([cid, px, py]) => {
  const c = document.getElementById(cid), r = window.devicePixelRatio || 1;
  return Array.from(c.getContext("2d").getImageData(Math.round(px * r), Math.round(py * r), 1, 1).data.slice(0, 3));
}, [id, x, y]);
const selected = (page) => page.$eval("#selection", (e) => Number(e.getAttribute("data-samples")));

try {
  // The zoom bug of issue 21: zoom into phase_one(), then select a range of
  // phase two. The zoomed frame has no sample left in the selection, so the
  // flame graph must not show it (as a full-width frame of 0 samples).
  {
    const page = await open("zoom, then select");
    const one = await flameAt(page, 2, 0.25);
    check(one.startsWith("phase_one()"), `phase_one() is in row 2 at the left ("${one}")`);
    await page.mouse.down();
    await page.mouse.up();
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

  // hot_a() at 60% wherever a view shows its share (acceptance 1).
  {
    const page = await open("shares");
    const w = await flameWidth(page, 3, "hot_a()");
    check(near(100 * w, 60, 3), `the flame graph draws hot_a() over 60±3% of its width (${(100 * w).toFixed(1)}%)`);
    await page.keyboard.press("2");
    const wi2 = await flameWidth(page, 3, "hot_a()", "icicle");
    check(near(100 * wi2, 60, 3), `so does the icicle (${(100 * wi2).toFixed(1)}%)`);

    await page.keyboard.press("3");
    check(await page.isVisible("#calltree-table"), "key 3 shows the call tree");
    let tree = await tableRows(page, "calltree-table");
    const hotRow = tree.find((r) => r[4] === "hot_a()");
    check(hotRow && near(percent(hotRow[1]), 60, 3) && near(percent(hotRow[3]), 60, 3),
      `the call tree gives hot_a() 60±3% total and self (${JSON.stringify(hotRow)})`);
    check(tree.some((r) => r[4] === "phase_two()") && !tree.some((r) => r[4] === "warm_b()"),
      "the call tree opens the heaviest path, phase_two() closed");
    await page.locator("#calltree-table tbody tr", { hasText: "phase_two()" }).click();
    tree = await tableRows(page, "calltree-table");
    const warm = tree.find((r) => r[4] === "warm_b()");
    check(warm && near(percent(warm[1]), 30, 3), `clicking phase_two() opens it: warm_b() 30±3% (${JSON.stringify(warm)})`);
    await page.locator("#calltree-table tbody tr", { hasText: "phase_two()" }).click();
    tree = await tableRows(page, "calltree-table");
    check(!tree.some((r) => r[4] === "warm_b()"), "clicking it again closes it");
    // Keys: down to the next row, right opens it.
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowRight");
    const cursor = await page.$eval("#calltree-table tr.cursor", (tr) => tr.getAttribute("data-key")).catch(() => null);
    check(cursor !== null, "the arrow keys move a cursor in the call tree");

    await page.keyboard.press("4");
    const inv = await tableRows(page, "inverted-table");
    check(inv[0] && inv[0][2] === "hot_a()" && near(percent(inv[0][1]), 60, 3),
      `the inverted tree starts with hot_a() at 60±3% self (${JSON.stringify(inv[0])})`);
    const invNames = inv.map((r) => r[2]);
    check(invNames.includes("phase_one()") && invNames.indexOf("phase_one()") === 1,
      `below hot_a(), its caller phase_one() (${JSON.stringify(invNames)})`);

    await page.keyboard.press("6");
    const top = await tableRows(page, "top-table");
    check(top[0][3] === "hot_a()" && near(percent(top[0][0]), 60, 3) && near(percent(top[0][1]), 60, 3),
      `the top table starts with hot_a() at 60±3% (${JSON.stringify(top[0])})`);
    check(top[0][4] === "phases" && top[0][5] === `${source}:10`,
      `the top table gives module and file:line (${JSON.stringify(top[0].slice(4, 6))})`);
    // Sorted by any column: FUNCTION (A to Z), then SAMPLES (most first).
    await page.click("#top-table thead th[data-column=name]");
    const byName = (await tableRows(page, "top-table")).map((r) => r[3]);
    check(JSON.stringify(byName) === JSON.stringify([...byName].sort()), `FUNCTION sorts by name (${JSON.stringify(byName)})`);
    await page.click("#top-table thead th[data-column=name]");
    const byNameDown = (await tableRows(page, "top-table")).map((r) => r[3]);
    check(JSON.stringify(byNameDown) === JSON.stringify([...byName].reverse()), "again reverses it");
    await page.click("#top-table thead th[data-column=samples]");
    const bySamples = (await tableRows(page, "top-table")).map((r) => Number(r[7].replace(/,/g, "")));
    check(bySamples.every((v, i) => i === 0 || bySamples[i - 1] >= v) && bySamples[0] === 10000,
      `SAMPLES sorts most first (${JSON.stringify(bySamples)})`);

    // The sandwich of hot_a(), selected in the top table.
    await page.locator("#top-table tbody tr", { hasText: "hot_a()" }).click();
    await page.keyboard.press("5");
    const center = await page.textContent("#sandwich-function");
    check(/^hot_a\(\)  total 60\.\d\d%/.test(center) || near(percent(center.split("total ")[1]), 60, 3),
      `the sandwich shows hot_a() at 60±3% ("${center}")`);
    const callers = await tableRows(page, "sandwich-callers");
    check(callers.length === 1 && callers[0][3] === "phase_one()" && callers[0][0] === "100.00%" &&
      near(percent(callers[0][1]), 60, 3), `its caller phase_one(), 100% of it (${JSON.stringify(callers)})`);
    const callees = await tableRows(page, "sandwich-callees");
    check(callees.length === 1 && callees[0][3] === "(self)" && callees[0][0] === "100.00%",
      `below it only its own time (${JSON.stringify(callees)})`);
    // phase_two(): callers main, callees warm_b() 3/4 and cold_c() 1/4.
    await page.keyboard.press("6");
    await page.locator("#top-table tbody tr", { hasText: "phase_two()" }).click();
    await page.keyboard.press("5");
    const two = await tableRows(page, "sandwich-callees");
    check(two[0][3] === "warm_b()" && near(percent(two[0][0]), 75, 3) && two[1][3] === "cold_c()" &&
      near(percent(two[1][0]), 25, 3), `phase_two()'s callees: warm_b() 75%, cold_c() 25% (${JSON.stringify(two)})`);
    page.done();
    await page.close();
  }

  // Search: case-insensitive, a regex toggle, highlighted in the views and
  // on the timeline (hot_a ran in the first 60% of the time).
  {
    const page = await open("search");
    await page.keyboard.press("/");
    await page.keyboard.type("HOT_A");
    const matched = await page.textContent("#matched");
    check(near(percent(matched), 60, 0.5), `a case-insensitive search matches hot_a(): "${matched}"`);
    const tl = await page.locator("#timeline-canvas").boundingBox();
    const early = JSON.stringify(await pixel(page, "timeline-canvas", tl.width * 0.3, 14));
    const late = JSON.stringify(await pixel(page, "timeline-canvas", tl.width * 0.8, 14));
    check(early === "[230,0,230]" && late === "[52,110,200]",
      `the timeline paints when the match ran (at 30%: ${early}, at 80%: ${late})`);
    const fl = await page.locator("#flame-canvas").boundingBox();
    const hot = JSON.stringify(await pixel(page, "flame-canvas", fl.width * 0.3, fl.height - 2 - 3 * 17 - 9));
    check(hot === "[230,0,230]", `the flame graph paints hot_a() in the match colour (${hot})`);
    await page.keyboard.press("Escape");  // leaves the box, clears it
    check((await page.inputValue("#search")) === "" && (await page.textContent("#matched")) === "",
      "Esc in the search box clears the search");
    await page.fill("#search", "^(warm|cold)_");
    const plain = await page.textContent("#matched");
    check(plain === "Matched: 0.0%", `without the regex toggle, text is text ("${plain}")`);
    await page.check("#search-regex");
    const rx = await page.textContent("#matched");
    check(near(percent(rx), 40, 0.5), `with it, a regular expression ("${rx}")`);
    await page.focus("#search");
    await page.keyboard.press("6");  // typed into the box: no view switch
    check(await page.isVisible("#flame-canvas") && (await page.inputValue("#search")).endsWith("6"),
      "keys typed into the search box stay there");
    await page.keyboard.press("Backspace");
    await page.locator("#search").blur();
    await page.keyboard.press("6");
    const marked = await page.$$eval("#top-table tbody tr.match td.name", (tds) => tds.map((td) => td.textContent));
    check(JSON.stringify(marked.sort()) === JSON.stringify(["cold_c()", "warm_b()"]),
      `the top table marks the matches (${JSON.stringify(marked)})`);
    await page.keyboard.press("3");
    await page.locator("#calltree-table tbody tr", { hasText: "phase_two()" }).click();
    const treeMarked = await page.$$eval("#calltree-table tbody tr.match", (t) => t.length);
    check(treeMarked === 2, `the call tree marks them (${treeMarked} rows)`);
    page.done();
    await page.close();
  }

  // Esc, the keys list, and the URL hash that reopens the same state.
  {
    const page = await open("keys and hash");
    for (const [key, id, label] of [["1", "flame", "Flame graph"], ["2", "icicle", "Icicle"],
      ["3", "calltree", "Call tree"], ["4", "inverted", "Inverted"], ["5", "sandwich", "Sandwich"],
      ["6", "top", "Top functions"], ["7", "stack", "Stack chart"], ["8", "source", "Source"]]) {
      await page.keyboard.press(key);
      const tab = (await page.textContent(`#tab-${id}`)).trim();
      check(await page.isVisible(`#${id}-section`) && tab === `${key} ${label}` &&
        (await page.getAttribute(`#tab-${id}`, "aria-selected")) === "true",
        `key ${key} shows ${label}, its tab labelled "${tab}"`);
    }
    await page.click("#tab-calltree");
    check(await page.isVisible("#calltree-section"), "clicking a tab shows its view");
    await page.keyboard.press("?");
    const help = await page.textContent("#help");
    check(await page.isVisible("#help") && help.includes("Esc") && help.includes("search"), "? lists the keys");
    await page.keyboard.press("Escape");
    check(!(await page.isVisible("#help")), "Esc closes the list");

    // Zoom, then Esc.
    await page.keyboard.press("1");
    await flameAt(page, 2, 0.3);
    await page.mouse.down(); await page.mouse.up();
    check(await page.isEnabled("#flame-reset"), "a click zooms into phase_one()");
    await page.keyboard.press("Escape");
    check(await page.isDisabled("#flame-reset"), "Esc undoes the zoom");
    check((await page.textContent("#selection")).includes("function: phase_one()"), "the click selected phase_one()");
    await page.keyboard.press("Escape");
    check(!(await page.textContent("#selection")).includes("function:"), "Esc again clears the selected function");
    await dragTimeline(page, 0.7, 0.95);
    check(await selected(page) < 3000, "a time range is selected");
    await page.keyboard.press("Escape");
    check(await selected(page) === 10000, "Esc clears the time range");

    // A state, its address, and a fresh page on that address.
    await dragTimeline(page, 0.65, 0.95);
    await page.fill("#search", "warm");
    await page.locator("#search").blur();
    await page.keyboard.press("6");
    await page.locator("#top-table tbody tr", { hasText: "warm_b()" }).click();
    await page.keyboard.press("5");
    const url = page.url(), samples = await selected(page);
    const center = await page.textContent("#sandwich-function");
    check(/#view=sandwich&fn=warm_b\(\)&q=warm&from=\d+&to=\d+$/.test(url.split("phases.html")[1]),
      `the address keeps view, function, search and range (${url.split("phases.html")[1]})`);
    const again = await open("hash reopened", url.slice(url.indexOf("#")));
    check(await again.isVisible("#sandwich-section"), "the address reopens the sandwich");
    check((await again.textContent("#sandwich-function")) === center, `with warm_b() ("${center}")`);
    check(await selected(again) === samples, `the same range (${samples} samples)`);
    check((await again.inputValue("#search")) === "warm" && (await again.textContent("#matched")) !== "",
      "and the same search");
    again.done();
    await again.close();
    page.done();
    await page.close();
  }

  // Themes: the system's, and the toggle; the frame kinds' legend.
  {
    const page = await open("themes", "", "dark");
    const theme = () => page.getAttribute("html", "data-theme");
    const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    check(await theme() === "dark", `prefers-color-scheme: dark gives the dark theme (${await bg()})`);
    await page.click("#theme");
    check(await theme() === "light", `the toggle gives the light theme (${await bg()})`);
    await page.keyboard.press("t");
    check(await theme() === "dark", "key t toggles it back");
    const kinds = await page.textContent("#kinds");
    for (const k of ["user code", "inlined", "kernel", "JIT", "Python", "off-CPU", "unresolved"]) {
      check(kinds.includes(k), `the legend names the frame kind "${k}"`);
    }
    // cold_c() is inlined: drawn in the inlined colour, teal.
    const fl = await page.locator("#flame-canvas").boundingBox();
    const cold = await flameAt(page, 3, 0.62);
    const c = await pixel(page, "flame-canvas", fl.width * 0.62, fl.height - 2 - 3 * 17 - 9);
    check(cold.startsWith("cold_c() [inlined]") && c[1] > c[0] + 40 && c[2] > c[0] + 40,
      `inlined frames are teal ("${cold}": ${JSON.stringify(c)})`);
    page.done();
    await page.close();
  }

  // The stack chart: main's samples in time order, its span above them; it
  // follows the selected time range.
  {
    const page = await open("stack chart");
    await page.keyboard.press("7");
    const box = await page.locator("#stack-canvas").boundingBox();
    // Rows from the bottom: depth 3 (the leaves) is the last, 16 px each.
    const at = async (depth, x) => {
      await page.mouse.move(box.x + box.width * x, box.y + box.height - 2 - (3 - depth) * 16 - 8);
      return (await page.textContent("#stack-details")).trim();
    };
    const names = [await at(2, 0.3), await at(2, 0.8), await at(3, 0.3)];
    check(names[0].startsWith("phase_one()") && names[1].startsWith("phase_two()") && names[2].startsWith("hot_a()"),
      `phase_one() then phase_two() in time order, hot_a() below phase_one() (${JSON.stringify(names)})`);
    await page.mouse.move(box.x + box.width * 0.3, box.y + 14 + 8);
    const span = (await page.textContent("#stack-details")).trim();
    check(span.startsWith("span phase one"), `the thread's span is drawn above its samples ("${span}")`);
    await dragTimeline(page, 0.7, 0.95);
    const box2 = await page.locator("#stack-canvas").boundingBox();
    await page.mouse.move(box2.x + box2.width * 0.1, box2.y + box2.height - 2 - 16 - 8);
    const later = (await page.textContent("#stack-details")).trim();
    check(later.startsWith("phase_two()"), `it follows the selected time range ("${later}")`);
    await page.screenshot({ path: path.join(artifacts, "viewer-stack.png"), fullPage: true });
    page.done();
    await page.close();
  }

  // The source view: hot_a()'s lines, the hottest (12: 3/4 of its samples)
  // highlighted, with the text strobe report read from the file.
  {
    const page = await open("source");
    await page.keyboard.press("8");
    const rows = await tableRows(page, "source-table");
    const hot = await page.$$eval("#source-table tbody tr.hot", (trs) => trs.map((tr) => tr.getAttribute("data-line")));
    const head = await page.textContent("#source-function");
    check(head.startsWith("hot_a()") && head.includes("the hottest function"),
      `with no function selected it shows the hottest, hot_a() ("${head}")`);
    check(JSON.stringify(hot) === JSON.stringify(["12"]), `line 12 is highlighted (${JSON.stringify(hot)})`);
    const line = (n) => rows.find((r) => r[0] === String(n)) || [];
    check(near(percent(line(12)[2]), 45, 1) && near(percent(line(11)[2]), 10, 1) && near(percent(line(13)[2]), 5, 1),
      `self per line: 11 10%, 12 45%, 13 5% (${JSON.stringify([line(11), line(12), line(13)].map((r) => r[2]))})`);
    check(line(12)[5] === "for (;;) spin();  // the hot line" && line(10)[5] === "void hot_a() {",
      `the lines' text is embedded (${JSON.stringify(line(12)[5])})`);
    // Select phase_one(): its line 42 holds all of its total, none of its self.
    await page.keyboard.press("6");
    await page.locator("#top-table tbody tr", { hasText: "phase_one()" }).click();
    await page.keyboard.press("8");
    const one = await tableRows(page, "source-table");
    const l42 = one.find((r) => r[0] === "42") || [];
    check(l42[2] === "" && near(percent(l42[4]), 60, 1) && (await page.$eval("#source-table tr.hot", (tr) => tr.getAttribute("data-line"))) === "42",
      `the selected function's lines: phase_one() line 42 total 60% (${JSON.stringify(l42)})`);
    // A time range in phase two: phase_one() has nothing left.
    await dragTimeline(page, 0.7, 0.95);
    const none = await tableRows(page, "source-table");
    check(!none.some((r) => r[4] !== ""), "the lines follow the selection");
    await page.screenshot({ path: path.join(artifacts, "viewer-source.png"), fullPage: true });
    page.done();
    await page.close();

    const bare = await open("source, no file", "#view=source", "light", noSource);
    const bareRows = await tableRows(bare, "source-table");
    const note = await bare.textContent("#source-note");
    check(JSON.stringify(bareRows.map((r) => r[0])) === JSON.stringify(["11", "12", "13"]) &&
      bareRows.every((r) => r[5] === "") && note.includes("line numbers only"),
      `without the file: line numbers alone, said so (${JSON.stringify(bareRows.map((r) => r[0]))}, "${note}")`);
    check((await bare.$eval("#source-table tr.hot", (tr) => tr.getAttribute("data-line"))) === "12",
      "and the hottest line is still highlighted");
    bare.done();
    await bare.close();
  }


  // The timeline: the wheel zooms its time axis (the span track follows),
  // Esc zooms out; the axis stays in sight; the 32 busiest threads shown,
  // threads with a role first.
  {
    const page = await open("timeline");
    const tl = await page.locator("#timeline-canvas").boundingBox();
    const axisText = () => page.evaluate(() => document.getElementById("timeline-axis").toDataURL());
    const before = await axisText();
    const spanBox = await page.locator("#span-canvas").boundingBox();
    const spanAt80 = async () => {
      await page.mouse.move(spanBox.x + spanBox.width * 0.8, spanBox.y + 8);
      return (await page.textContent("#span-details")).trim();
    };
    const unzoomedSpan = await spanAt80();
    await page.mouse.move(tl.x + tl.width * 0.3, tl.y + 9);
    await page.mouse.wheel(0, -400);
    check(await page.isEnabled("#whole-recording") && (await axisText()) !== before,
      "the wheel zooms the time axis in");
    // Hovering at the left edge now says a time well after 0.
    await page.mouse.move(tl.x + 2, tl.y + 9);
    const leftTime = (await page.textContent("#timeline-tip")).trim().split("  ")[0];
    check(/^[\d.]+ s$/.test(leftTime) && parseFloat(leftTime) > 1, `its left edge is later than 0 ("${leftTime}")`);
    // The span "phase one" (0-6 s) reaches 80% of the track's width now.
    const zoomedSpan = await spanAt80();
    check(unzoomedSpan === "" && zoomedSpan.startsWith("phase one"),
      `the span track follows the zoom (at 80% of its width: "${unzoomedSpan}", then "${zoomedSpan}")`);
    await page.mouse.move(tl.x + tl.width * 0.5, tl.y + 9);
    await page.keyboard.down("Shift");
    await page.mouse.wheel(0, 300);
    await page.keyboard.up("Shift");
    await page.mouse.move(tl.x + 2, tl.y + 9);
    const panned = parseFloat((await page.textContent("#timeline-tip")).trim());
    check(panned > parseFloat(leftTime), `shift+wheel pans later (${leftTime} -> ${panned} s)`);
    await page.keyboard.press("Escape");
    check(await page.isDisabled("#whole-recording") && (await axisText()) === before, "Esc zooms the timeline out");
    page.done();
    await page.close();

    const crowd = await open("many threads", "", "light", many);
    const names = await crowd.$$eval("#thread-names div", (ds) => ds.map((d) => d.textContent));
    const hiddenNote = await crowd.textContent("#hidden-threads");
    check(names.length === 32 && hiddenNote === "9 threads with the fewest samples hidden",
      `41 threads: the 32 busiest shown ("${hiddenNote}")`);
    check(names[0] === "io worker (tid 3039)" && names[1] === "idle-09 (3009)" && !names.includes("idle-08 (3008)"),
      `threads with a role first, then by name; the least busy hidden (${JSON.stringify(names.slice(0, 3))})`);
    const box = await crowd.locator("#timeline").boundingBox();
    const axisBox = await crowd.locator("#timeline-axis").boundingBox();
    const scrolls = await crowd.$eval("#timeline", (e) => e.scrollHeight > e.clientHeight);
    check(scrolls && axisBox.y >= box.y + box.height - 1 && axisBox.y < box.y + box.height + 4 && axisBox.y + axisBox.height <= 800,
      "the rows scroll and the time axis stays in sight below them");
    await crowd.click("#show-threads");
    const all = await crowd.$$eval("#thread-names div", (ds) => ds.length);
    check(all === 41 && (await crowd.textContent("#show-threads")).startsWith("Hide"), `Show all threads shows ${all}`);
    crowd.done();
    await crowd.close();
  }


  // A recording without a sample: every view opens, without an error.
  {
    const page = await open("no samples", "", "light", empty);
    for (const k of ["1", "2", "3", "4", "5", "6", "7", "8"]) await page.keyboard.press(k);
    check((await page.textContent("#selection")).startsWith("Selection: 0 of 0 samples"),
      "a recording without samples opens, every view shown in turn");
    page.done();
    await page.close();
  }


  // The stack chart of a thread with off-CPU intervals: drawn in the band
  // above its samples where it was off CPU (worker-2's second half).
  {
    const page = await open("stack chart, off-CPU", "#view=stack&threads=1002", "light", off);
    // The band's text at fraction x of the width (one point of scanRow).
    const band = async (x) => {
      const n = 200, at = await scanRow(page, "stack-canvas", "stack-details", n, { fromTop: 7 });
      return at[Math.floor(x * n)];
    };
    const early = await band(0.25), late = await band(0.75);
    check(!early.startsWith("off-CPU") && /^off-CPU [\d.]+ [mµ]?s at /.test(late),
      `worker-2's off-CPU intervals are in the stack chart's band ("${early}", "${late}")`);
    check((await page.inputValue("#stack-thread")) === "2", "the stack chart shows the selected thread");
    // r toggles regular expressions.
    await page.fill("#search", "^synth::h");
    await page.locator("#search").blur();
    const plain = await page.textContent("#matched");
    await page.keyboard.press("r");
    const rx = await page.textContent("#matched");
    check(plain === "Matched: 0.0%" && percent(rx) > 0 && await page.isChecked("#search-regex"),
      `key r turns the search into a regular expression ("${plain}" -> "${rx}")`);
    page.done();
    await page.close();
  }

  // Acceptance 2: each view in each theme, screenshotted, and described in
  // words (what a user sees: the tab, the theme, the frames or rows) that
  // must match tests/browser/viewer-golden.txt. STROBE_UPDATE_GOLDEN=1
  // writes the file instead (review its diff).
  {
    const lines = [];
    for (const scheme of ["light", "dark"]) {
      for (const [id, hash] of [["flame", ""], ["icicle", ""], ["calltree", ""], ["inverted", ""],
        ["sandwich", "&fn=hot_a()"], ["top", ""], ["stack", ""], ["source", ""]]) {
        const page = await open(`${id} (${scheme})`, `#view=${id}${hash}`, scheme);
        await page.screenshot({ path: path.join(artifacts, `view-${id}-${scheme}.png`), fullPage: true });
        lines.push(`== ${id} (${scheme})`);
        lines.push(...await describe(page, id));
        page.done();
        await page.close();
      }
    }
    const golden = path.join(here, "viewer-golden.txt");
    // The fixture's source file is in the build tree: named $WORK here.
    const got = lines.join("\n").split(work).join("$WORK") + "\n";
    if (process.env.STROBE_UPDATE_GOLDEN === "1") {
      fs.writeFileSync(golden, got);
      console.log(`wrote ${golden}`);
    }
    const want = fs.readFileSync(golden, "utf8").split("\n");
    const diff = got.split("\n").map((l, i) => l === want[i] ? null : `  line ${i + 1}: want "${want[i]}", got "${l}"`)
      .filter(Boolean);
    check(diff.length === 0 && want.length === lines.length + 1,
      `every view in both themes matches its description in viewer-golden.txt${diff.length ? "\n" + diff.slice(0, 20).join("\n") : ""}`);
    fs.writeFileSync(path.join(artifacts, "viewer-described.txt"), got);
  }
} finally {
  await context.close();
  fs.rmSync(userDataDir, { recursive: true, force: true });
}
console.log(failures === 0 ? "viewer: all checks passed" : `viewer: ${failures} checks failed`);
process.exit(failures === 0 ? 0 : 1);
