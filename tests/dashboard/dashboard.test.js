// Browser test of the dashboard: Debian's chromium, headless, driven by playwright-core.
// NVMOND_URL: a running daemon (demo mode); ARTIFACTS: where screenshots go.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { chromium } = require("playwright-core");

const base = process.env.NVMOND_URL;
const out = process.env.ARTIFACTS;
const probed = Number(process.env.PROBED_DEVICE); // a drive with finished probe runs

function fail(msg) {
  console.error("FAIL: " + msg);
  process.exit(1);
}

async function main() {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "nvmond-chromium-"));
  const ctx = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--no-first-run"],
    viewport: { width: 1280, height: 900 },
  });
  const errors = [];
  const expected = []; // console errors a step provokes on purpose (the browser logs every 4xx)
  const page = ctx.pages()[0] || (await ctx.newPage());
  page.on("pageerror", (e) => errors.push("page error: " + e.message));
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    const loc = m.location() && m.location().url;
    const msg = m.text() + (loc ? " (" + loc + ")" : "");
    if (!expected.some((re) => re.test(msg))) errors.push("console: " + msg);
  });

  const devices = (await (await fetch(base + "/api/v1/devices")).json()).devices;
  if (devices.length < 2) fail("the demo daemon should have two drives, has " + devices.length);

  // Overview: a card per drive with its model and serial.
  await page.goto(base + "/");
  await page.waitForFunction((n) => document.querySelectorAll(".card").length === n, devices.length, { timeout: 15000 });
  for (const d of devices) {
    const text = await page.textContent(`.card[data-device="${d.id}"]`);
    if (!text.includes(d.model) || !text.includes(d.serial)) fail(`card of device ${d.id} lacks model/serial: ${text}`);
    if (!/Temperature/.test(text) || !/Written/.test(text)) fail(`card of device ${d.id} lacks temperature/writes`);
  }
  // The 950 PRO has a built-in rating: "of 400 TB rated".
  const hot = devices.find((d) => /950 PRO/.test(d.model));
  const hotText = await page.textContent(`.card[data-device="${hot.id}"]`);
  if (!/400 TB rated/.test(hotText)) fail("950 PRO card does not show its 400 TB rating: " + hotText);
  const probedText = await page.textContent(`.card[data-device="${probed}"]`);
  if (!/Last probe\s*sustained-write/.test(probedText)) fail("the card does not show the last probe: " + probedText);
  await page.screenshot({ path: path.join(out, "overview-light.png"), fullPage: true });

  // Probe history and the last run's own series with its cliff.
  await page.goto(base + "/#/drive/" + probed);
  await page.waitForSelector("#chart-probes canvas", { timeout: 15000 });
  await page.waitForSelector("#chart-probe-run canvas", { timeout: 5000 });
  const probe = await page.evaluate(() => ({
    runs: state.charts.find((c) => c.root.parentElement.id === "chart-probes").data[0].length,
    points: state.charts.find((c) => c.root.parentElement.id === "chart-probe-run").data[0].length,
    events: document.getElementById("chart-probe-run").dataset.events,
  }));
  if (probe.runs !== 2 || probe.points < 3 || !/cliff/.test(probe.events))
    fail("probe charts: " + JSON.stringify(probe));
  await page.screenshot({ path: path.join(out, "drive-probes-light.png"), fullPage: true });

  // Run a probe from the page. The token is asked once (a prompt); a refusal
  // shows the daemon's reason; a started probe shows its progress; Cancel ends it.
  let prompts = 0;
  page.on("dialog", (d) => { prompts++; d.accept(process.env.NVMOND_TOKEN); });
  expected.push(new RegExp("status of 429 .*/api/v1/devices/" + probed + "/probes\\)$"));
  await page.selectOption("#probe-control select", "sustained-write");
  await page.click("#probe-control button");
  await page.waitForFunction(() => /probe not started: .*sustained_every/.test(document.getElementById("error").textContent),
    null, { timeout: 10000 });
  await page.selectOption("#probe-control select", "seq1m-q8");
  await page.click("#probe-control button");
  await page.waitForFunction(() => Number((document.getElementById("probe-control") || {}).dataset?.fraction) > 0,
    null, { timeout: 10000 });
  const running = await page.evaluate(() => ({
    head: document.querySelector('[aria-label="run a probe"] h3').textContent,
    text: document.querySelector("#probe-control .probe-progress").textContent,
    error: document.getElementById("error").hidden,
  }));
  if (running.head !== "Probe running" || !/^seq1m-q8 · (read|write) \(\d of 2\) · \d+ % · \d+ MB\/s/.test(running.text) || !running.error)
    fail("probe progress: " + JSON.stringify(running));
  await page.screenshot({ path: path.join(out, "drive-probe-running-light.png"), fullPage: true });
  await page.click("#probe-control button");
  await page.waitForSelector("#probe-control select", { timeout: 10000 });
  const runs = (await (await fetch(base + "/api/v1/devices/" + probed + "/probes")).json()).probes;
  if (runs[0].preset !== "seq1m-q8" || runs[0].state !== "aborted" || runs[0].reason !== "cancelled through the API")
    fail("the cancelled run: " + JSON.stringify(runs[0]));
  if (prompts !== 1) fail("the token was asked " + prompts + " times, not once");
  await page.goto(base + "/");
  await page.waitForSelector(".card");

  // Drive page: the temperature chart draws points.
  await page.click(`.card[data-device="${hot.id}"] h2 a`);
  await page.waitForSelector('button[data-range="1h"]', { timeout: 15000 });
  // A fresh daemon: the last hour at raw resolution has points (live updates add more).
  await page.click('button[data-range="1h"]');
  await page.waitForFunction(() => state.charts.length && state.charts[0].data[0].length >= 3 &&
    document.querySelector("#chart-temp canvas"), null, { timeout: 30000 });
  const drawn = await page.evaluate(() => {
    const u = state.charts[0];
    const pts = u.data[0].length;
    const c = document.querySelector("#chart-temp canvas");
    const img = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let blue = 0; // the composite series is drawn in #2f81f7
    for (let i = 0; i < img.length; i += 4)
      if (Math.abs(img[i] - 0x2f) < 40 && Math.abs(img[i + 1] - 0x81) < 40 && Math.abs(img[i + 2] - 0xf7) < 40 && img[i + 3] > 200) blue++;
    return { pts, blue, series: u.series.length };
  });
  if (drawn.pts < 2) fail("temperature chart has " + drawn.pts + " points");
  if (drawn.blue < 20) fail("temperature chart drew no composite line (" + drawn.blue + " pixels)");
  await page.waitForSelector("#chart-writes canvas", { timeout: 5000 });

  // The range picker asks for a year and still draws.
  const seriesReq = page.waitForRequest((r) => /\/series\?/.test(r.url()) && /points=/.test(r.url()));
  await page.click('button[data-range="1y"]');
  const req = await seriesReq;
  const u = new URL(req.url());
  const span = Number(u.searchParams.get("to")) - Number(u.searchParams.get("from"));
  if (Math.abs(span - 365 * 86400000) > 60000) fail("1 y range asked for " + span + " ms");
  await page.waitForFunction(() => document.querySelector('button[data-range="1y"]').getAttribute("aria-pressed") === "true");
  await page.waitForSelector("#chart-temp canvas");

  // Live updates: the page refreshes itself.
  await page.click('button[data-range="1h"]');
  await page.waitForSelector("#chart-temp canvas");
  const before = await page.evaluate(() => state.charts[0].data[0].length);
  const status0 = await page.textContent("#status");
  await page.waitForFunction((s) => document.getElementById("status").textContent !== s, status0, { timeout: 15000 });
  await page.waitForSelector("#chart-temp canvas");
  const after = await page.evaluate(() => state.charts[0].data[0].length);
  if (after < before) fail(`live update lost points: ${before} → ${after}`);

  // Phone, dark.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.click("#theme");
  await page.waitForFunction(() => document.documentElement.dataset.theme !== undefined);
  await page.waitForSelector("#chart-temp canvas");
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  if (overflow > 2) fail("the drive page is " + overflow + " px wider than a phone screen");
  await page.screenshot({ path: path.join(out, "drive-phone-dark.png"), fullPage: true });

  if (errors.length) fail("browser errors:\n  " + errors.join("\n  "));
  await ctx.close();
  fs.rmSync(userDataDir, { recursive: true, force: true });
  console.log(`ok: ${devices.length} cards, chart ${drawn.pts} points / ${drawn.series - 1} series, ` +
    `live ${before} → ${after} points; screenshots in ${out}`);
}

main().catch((e) => fail(e.stack || String(e)));
