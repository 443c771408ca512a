// Browser test of the Fleet page (#/fleet): Debian's chromium, headless, driven by
// playwright-core, against a daemon whose [fleet] query_url names a real engine.
// Env: FLEET_URL (the daemon showing the page), HOSTS and DRIVES (what the engine holds),
// HOST_LABELS (JSON: host name → {label: value}), ARTIFACTS (screenshots), and for the
// steps that change the world: STOP_PID and STOP_HOST (a host to stop: SIGTERM, then the
// page must show it not reporting within STOP_LIMIT_MS), ENGINE_PID (SIGSTOP for
// ENGINE_DOWN_MS, then SIGCONT: the page must say so and keep the last good answer),
// SETUP_URL (a daemon without query_url: the page must say how to set it up).
// MODE=bench: only time the first render and a filter keystroke (LIMIT_MS each).
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { chromium } = require("playwright-core");

const base = process.env.FLEET_URL;
const out = process.env.ARTIFACTS;
const HOSTS = Number(process.env.HOSTS), DRIVES = Number(process.env.DRIVES);
const RANK = { ok: 0, unknown: 2, offline: 4, warning: 6, critical: 8 }; // web/fleet.js hostRank()
const VERDICT = { ok: 0, unknown: 1, offline: 2, warning: 3, critical: 4 }; // HEALTH_RANK

function fail(msg) {
  console.error("FAIL: " + msg);
  process.exit(1);
}

async function launch(width, height) {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "nvmond-chromium-"));
  const ctx = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--no-first-run"],
    viewport: { width, height },
  });
  const errors = [];
  const page = ctx.pages()[0] || (await ctx.newPage());
  page.on("pageerror", (e) => errors.push("page error: " + e.message));
  page.on("console", (m) => { if (m.type() === "error") errors.push("console: " + m.text()); });
  const close = async () => {
    await ctx.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  };
  return { page, errors, close };
}

// Every row of the table, in order, read by scrolling through it (only those in view
// are in the DOM): hosts with their state and labels, drives with their identity; with the
// answer they were drawn from. The page refreshes itself: a read during which a new answer
// came is read again.
async function readRows(page) {
  for (let i = 0; i < 10; i++) {
    const r = await readRowsOnce(page);
    if (r.stable) return r;
  }
  fail("the page changed during every read of its rows");
}

async function readRowsOnce(page) {
  return page.evaluate(async () => {
    const { state } = await import("/state.js");
    const data = state.fleet.data;
    const box = document.getElementById("fleet-scroll");
    const seen = new Map();
    const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    for (let top = 0; ; top += box.clientHeight / 2) {
      box.scrollTop = top;
      await frame();
      for (const tr of document.querySelectorAll("#fleet-body tr[aria-rowindex]")) {
        const i = Number(tr.getAttribute("aria-rowindex"));
        if (seen.has(i)) continue;
        seen.set(i, tr.classList.contains("host-row")
          ? { kind: "host", host: tr.dataset.host, name: tr.dataset.name, reporting: tr.dataset.reporting === "1",
            labels: [...tr.querySelectorAll(".chip")].map((c) => c.textContent),
            link: (tr.querySelector("a.host-link") || {}).href || null, text: tr.textContent }
          : { kind: "drive", host: tr.dataset.host, device: tr.dataset.device, serial: tr.dataset.serial,
            verdict: tr.dataset.verdict, problem: tr.dataset.problem === "1",
            badge: (tr.querySelector("td.health .badge") || {}).textContent,
            temp: tr.dataset.temp === "" ? null : Number(tr.dataset.temp), text: tr.textContent });
      }
      if (top + box.clientHeight >= box.scrollHeight) break;
    }
    box.scrollTop = 0;
    await frame();
    const max = document.querySelectorAll("#fleet-body tr[aria-rowindex]").length;
    return { rows: [...seen.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]), domRows: max,
      data, stable: state.fleet.data === data };
  });
}

// The rows must be the API's hosts and drives, problems first: hosts by rank, each
// followed by its drives by verdict.
function checkOrder(rows, api, where) {
  const hosts = rows.filter((r) => r.kind === "host");
  const drives = rows.filter((r) => r.kind === "drive");
  if (hosts.length !== api.hosts.length) fail(`${where}: ${hosts.length} host rows, the API has ${api.hosts.length}`);
  const nApi = api.hosts.reduce((n, h) => n + h.drives.length, 0);
  if (drives.length !== nApi) fail(`${where}: ${drives.length} drive rows, the API has ${nApi}`);
  const rank = (h) => (h.reporting ? RANK[h.worst] : Math.max(RANK[h.worst], 7));
  let last = Infinity, cur = null, lastVerdict = Infinity;
  for (const r of rows) {
    if (r.kind === "host") {
      const h = api.hosts.find((x) => x.instance === r.host);
      if (!h) fail(`${where}: host row ${r.host} is not in the API`);
      if (rank(h) > last) fail(`${where}: host ${r.host} (rank ${rank(h)}) after a host of rank ${last}: problems are not first`);
      last = rank(h);
      cur = h;
      lastVerdict = Infinity;
      continue;
    }
    if (!cur || r.host !== cur.instance) fail(`${where}: drive ${r.device} of ${r.host} is not under its host`);
    const d = cur.drives.find((x) => x.device === r.device && x.serial === r.serial);
    if (!d) fail(`${where}: drive ${r.host}/${r.device} is not in the API`);
    if (r.verdict !== d.verdict) fail(`${where}: ${r.host}/${r.device} shows ${r.verdict}, the API says ${d.verdict}`);
    if (VERDICT[d.verdict] > lastVerdict) fail(`${where}: ${r.host}/${r.device} (${d.verdict}) below a better drive`);
    lastVerdict = VERDICT[d.verdict];
  }
}

async function api(p) {
  const r = await fetch(base + p, { cache: "no-store" });
  if (!r.ok) fail(`GET ${p}: HTTP ${r.status}`);
  return r.json();
}

async function shot(page, name) {
  if (!out) return;
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.screenshot({ path: path.join(out, "fleet-" + name + ".png") });
}

// MODE=bench: the first render (navigation start → table drawn) and one filter keystroke.
async function bench() {
  const limit = Number(process.env.LIMIT_MS || 1000);
  const b = await launch(1400, 900);
  const res = { first: [], key: [] };
  for (let round = 0; round < Number(process.env.ROUNDS || 5); round++) {
    await b.page.goto("about:blank"); // a new document each round, not a hash change
    await b.page.goto(base + "/#/fleet");
    await b.page.waitForSelector("#fleet-body tr.host-row", { timeout: 30000 });
    const t = await b.page.evaluate(() => Number(document.getElementById("view").dataset.renderedMs));
    res.first.push(t);
    const k = await b.page.evaluate(async () => {
      const input = document.getElementById("fleet-filter");
      input.focus();
      const t0 = performance.now();
      input.value = "prod";
      input.dispatchEvent(new Event("input"));
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      return { ms: performance.now() - t0, shown: document.getElementById("fleet-shown").textContent,
        dom: document.querySelectorAll("#fleet-body tr").length };
    });
    res.key.push(k.ms);
    if (round === 0) console.log("after the keystroke: " + k.shown + ", " + k.dom + " rows in the DOM");
  }
  if (b.errors.length) fail("page errors: " + b.errors.join("; "));
  await b.close();
  const p = (v, q) => v.slice().sort((x, y) => x - y)[Math.min(v.length - 1, Math.floor(q * v.length))];
  console.log("first render ms: " + res.first.map((x) => x.toFixed(0)).join(" ") + " (p50 " + p(res.first, 0.5).toFixed(0) + ")");
  console.log("filter keystroke ms: " + res.key.map((x) => x.toFixed(0)).join(" ") + " (p50 " + p(res.key, 0.5).toFixed(0) + ")");
  if (Math.max(...res.first) > limit || Math.max(...res.key) > limit) fail("over " + limit + " ms");
}

async function main() {
  if (process.env.MODE === "bench") return bench();
  const labels = JSON.parse(process.env.HOST_LABELS || "{}");
  const b = await launch(1400, 900);
  const page = b.page;
  await page.goto(base + "/#/fleet");
  await page.waitForSelector("#fleet-body tr.host-row", { timeout: 20000 });
  // The rows and the answer the page drew them from, read together.
  let { rows, domRows, data: snap } = await readRows(page);
  if (snap.hosts_count !== HOSTS || snap.drives_count !== DRIVES)
    fail(`the page has ${snap.hosts_count} hosts and ${snap.drives_count} drives, want ${HOSTS} and ${DRIVES}`);
  checkOrder(rows, snap, "all drives");
  // Each drive's badge says its verdict (the five states of nvmond_device_health).
  const badBadge = rows.filter((r) => r.kind === "drive" && r.badge !== r.verdict);
  if (badBadge.length)
    fail(`${badBadge.length} badges are not the drive's verdict: ${JSON.stringify(badBadge.slice(0, 2).map((r) => [r.device, r.verdict, r.badge]))}`);
  if (domRows > 100) fail(`${domRows} rows in the DOM for ${rows.length}: the table is not virtualised`);
  for (const [name, want] of Object.entries(labels)) {
    const r = rows.find((x) => x.kind === "host" && x.name === name);
    if (!r) fail("no row for host " + name);
    for (const [k, v] of Object.entries(want))
      if (!r.labels.includes(k + "=" + v)) fail(`host ${name} shows labels ${r.labels}, not ${k}=${v}`);
    const h = snap.hosts.find((x) => x.instance === r.host);
    if (h.public_url && r.link !== h.public_url) fail(`host ${name} links to ${r.link}, not ${h.public_url}`);
  }
  console.log(`ok: ${rows.filter((r) => r.kind === "drive").length} drives under ${rows.filter((r) => r.kind === "host").length} hosts, problems first, ${domRows} rows in the DOM`);
  await shot(page, "all");
  // Every column in view at 1400 px, without scrolling sideways: a drive's list of alerts
  // is cut short (all of it in the tooltip), not a column pushing the others out of view.
  const wide = await page.evaluate(() => {
    const s = document.querySelector(".fleet-scroll");
    return { scroll: s.scrollWidth, client: s.clientWidth };
  });
  if (wide.scroll > wide.client)
    fail(`the table is ${wide.scroll} px wide in a ${wide.client} px page: columns out of view (screenshot fleet-all.png)`);

  // Filters: a host label, a model, text, problems only; each narrows to what the API says.
  const [labelInst, labelSet] = Object.entries(labels)[0] || [];
  if (labelSet) {
    const [k, v] = Object.entries(labelSet)[0];
    await page.selectOption("#fleet-label", k + "=" + v);
    ({ rows, data: snap } = await readRows(page));
    const want = snap.hosts.filter((h) => h.labels[k] === v).map((h) => h.instance).sort();
    const got = [...new Set(rows.map((r) => r.host))].sort();
    if (JSON.stringify(got) !== JSON.stringify(want)) fail(`label ${k}=${v} shows hosts ${got}, want ${want} (of ${labelInst})`);
    await page.selectOption("#fleet-label", "");
  }
  const model = snap.hosts[0].drives[0].model;
  await page.selectOption("#fleet-model", model);
  ({ rows, data: snap } = await readRows(page));
  const nModel = snap.hosts.reduce((n, h) => n + h.drives.filter((d) => d.model === model).length, 0);
  if (rows.filter((r) => r.kind === "drive").length !== nModel || rows.some((r) => r.kind === "drive" && !r.text.includes(model)))
    fail(`model ${model}: ${rows.filter((r) => r.kind === "drive").length} rows, want ${nModel}`);
  await page.selectOption("#fleet-model", "");
  // Text: every word must match (demo hosts share serials: the host's name tells them apart).
  const lastHost = snap.hosts[snap.hosts.length - 1], serial = lastHost.drives[0].serial;
  await page.fill("#fleet-filter", lastHost.host + " " + serial.toLowerCase());
  ({ rows } = await readRows(page));
  const textRows = rows.filter((r) => r.kind === "drive");
  if (textRows.length !== 1 || textRows[0].serial !== serial || textRows[0].host !== lastHost.instance)
    fail(`text "${lastHost.host} ${serial}": rows ${JSON.stringify(textRows)}`);
  await page.fill("#fleet-filter", "");
  await page.check("#fleet-problems");
  ({ rows, data: snap } = await readRows(page));
  const nProblems = snap.hosts.reduce((n, h) => n + h.drives.filter((d) => d.problem || !h.reporting).length, 0);
  if (rows.filter((r) => r.kind === "drive").length !== nProblems || rows.some((r) => r.kind === "drive" && !r.problem))
    fail(`problems only: ${rows.filter((r) => r.kind === "drive").length} rows, want ${nProblems}`);
  await shot(page, "problems");
  await page.uncheck("#fleet-problems");
  // Sorting by temperature: within each host, hottest first.
  await page.click('button[data-sort="temp"]');
  ({ rows } = await readRows(page));
  const temp = (r) => (r.temp === null ? -Infinity : r.temp); // unknown sorts last
  let prev = null;
  for (const r of rows) {
    if (r.kind === "host") { prev = null; continue; }
    if (prev !== null && temp(r) > prev) fail(`sorted by temperature: ${r.host}/${r.device} (${temp(r)} °C) after ${prev} °C`);
    if (r.temp !== null && !r.text.includes(r.temp + " °C")) fail(`${r.host}/${r.device} does not show ${r.temp} °C: ${r.text}`);
    prev = temp(r);
  }
  await page.click('button[data-sort="verdict"]'); // back to problems first (descending)
  console.log(`ok: filters (label, model ${model}: ${nModel}, text, problems only: ${nProblems}) and sorting`);

  if (process.env.STOP_PID) {
    // Stop a host: the page (left open, refreshing itself) must say it does not report.
    const limit = Number(process.env.STOP_LIMIT_MS);
    const t0 = Date.now();
    process.kill(Number(process.env.STOP_PID), "SIGTERM");
    const sel = `#fleet-body tr.host-row[data-name="${process.env.STOP_HOST}"][data-reporting="0"]`;
    await page.waitForSelector(sel, { timeout: limit + 30000 });
    const took = Date.now() - t0;
    const text = await page.textContent(sel);
    if (!/not reporting since/.test(text)) fail("the stopped host says: " + text);
    await shot(page, "stopped");
    if (took > limit) fail(`the page showed ${process.env.STOP_HOST} as not reporting after ${took} ms, over ${limit} ms`);
    console.log(`ok: ${process.env.STOP_HOST} stopped: shown as not reporting after ${took} ms (limit ${limit} ms): ${text.trim()}`);
  }

  if (process.env.ENGINE_PID) {
    // The engine hangs: the page says so and keeps the last good answer; then it answers again.
    const pid = Number(process.env.ENGINE_PID);
    const before = await page.evaluate(async () => (await import("/state.js")).state.fleet.data.drives_count);
    const t0 = Date.now();
    process.kill(pid, "SIGSTOP");
    try {
      await page.waitForSelector("#fleet-error", { timeout: Number(process.env.ENGINE_DOWN_MS || 20000) });
    } finally {
      if (!(await page.$("#fleet-error"))) process.kill(pid, "SIGCONT");
    }
    const msg = await page.textContent("#fleet-error");
    const kept = await page.evaluate(async () => ({ n: (await import("/state.js")).state.fleet.data.drives_count, rows: document.querySelectorAll("#fleet-body tr.drive-row").length }));
    await shot(page, "engine-down");
    process.kill(pid, "SIGCONT");
    if (!/does not answer/.test(msg) || !/last good answer/.test(msg)) fail("the engine's failure says: " + msg);
    if (kept.n !== before || !kept.rows) fail(`the last good answer is not kept: ${JSON.stringify(kept)}`);
    console.log(`ok: engine stopped: after ${Date.now() - t0} ms the page says "${msg.trim()}", ${kept.n} drives kept`);
    await page.waitForSelector("#fleet-error", { state: "detached", timeout: 30000 });
    console.log("ok: the engine answers again, the message is gone");
  }
  if (b.errors.length) fail("page errors: " + b.errors.join("; "));
  await b.close();

  if (process.env.SETUP_URL) {
    const s = await launch(1400, 900);
    await s.page.goto(process.env.SETUP_URL + "/#/fleet");
    await s.page.waitForSelector("#fleet-setup", { timeout: 10000 });
    const t = await s.page.textContent("#fleet-setup");
    if (!t.includes("query_url = http://HOST:PORT") || !t.includes("docs/fleet.md")) fail("the setup page says: " + t);
    if (out) await s.page.screenshot({ path: path.join(out, "fleet-setup.png") });
    await s.close();
    console.log("ok: without query_url the page says how to set it up");
  }
}

main().catch((e) => fail(e.stack || String(e)));
