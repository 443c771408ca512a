// Browser test of the dashboard's issue-13 views on a demo year (MODE=year, run by
// test_dashboard_year.sh): the cache-recovery chart, the group runs on each member's
// page and the group view's bars, each against the API, and a copy-to started from
// the probe picker with its "to" drive; issue 27's risk verdict, power, HCTM, C0h and
// event-log views. NVMOND_URL, NVMOND_TOKEN, ARTIFACTS.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { chromium } = require("playwright-core");

const base = process.env.NVMOND_URL;
const out = process.env.ARTIFACTS;

function fail(msg) {
  console.error("FAIL: " + msg);
  process.exit(1);
}

const get = async (p) => (await fetch(base + p)).json();
const near = (a, b) => Math.abs(a - b) < 1e-6 * Math.max(1, Math.abs(b));

async function main() {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "nvmond-chromium-"));
  const ctx = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
    viewport: { width: 1280, height: 900 },
  });
  const page = ctx.pages()[0] || (await ctx.newPage());
  const errors = [];
  page.on("pageerror", (e) => errors.push("page error: " + e.message));
  page.on("dialog", (d) => d.accept(process.env.NVMOND_TOKEN));
  const devs = (await get("/api/v1/devices")).devices;
  const id = (name) => devs.find((d) => d.name === name).id;

  // 1. The recovery chart of demo1 (980 PRO): its newest study, as the API has it.
  const d1 = id("demo1");
  const runs1 = (await get("/api/v1/devices/" + d1 + "/probes?limit=1000")).probes;
  const study = runs1.find((r) => r.preset === "cache-recovery");
  if (!study) fail("demo1 has no cache-recovery run in its demo year");
  const rec = (await get("/api/v1/probes/" + study.series_id)).recovery;
  await page.goto(base + "/#/drive/" + d1);
  await page.waitForSelector("#chart-recovery canvas", { timeout: 15000 });
  const got = await page.evaluate(async () => {
    const { state } = await import("/state.js");
    const box = document.getElementById("chart-recovery");
    const u = state.charts.find((c) => c.root.parentElement === box);
    return { points: box.dataset.points, study: box.dataset.study, data: u.data.map((c) => Array.from(c)),
      labels: u.series.map((s) => s.label), dash: u.series[3].dash,
      verdict: document.querySelector("#recovery .recovery-verdict").textContent };
  });
  if (got.points !== String(rec.points.length) || got.data[0].length !== rec.points.length + 1)
    fail("recovery chart points: " + got.points + ", the API has " + rec.points.length);
  if (got.study !== String(rec.series_id)) fail("recovery chart study " + got.study + ", not " + rec.series_id);
  rec.points.forEach((p, i) => {
    if (!near(got.data[0][i + 1], p.idle_min) || !near(got.data[1][i + 1], p.mb_s))
      fail("recovery point " + i + ": " + got.data[0][i + 1] + " min " + got.data[1][i + 1] + " MB/s, API " + JSON.stringify(p));
  });
  if (!got.data[2].every((v) => near(v, rec.pre_cliff_mb_s)) || !got.data[3].every((v) => near(v, rec.pre_cliff_mb_s * 0.95)))
    fail("recovery chart lines: " + JSON.stringify(got.data.slice(2)) + ", pre-cliff " + rec.pre_cliff_mb_s);
  if (!got.dash || got.labels[3] !== "95 %") fail("the 95 % line is not dashed: " + JSON.stringify(got));
  if (!rec.verdict || got.verdict !== rec.verdict) fail("recovery verdict: '" + got.verdict + "', API '" + rec.verdict + "'");
  // The Firmware and PCIe link card holds its year (a firmware change, three links)
  // within its box: no part of it runs past the card or scrolls sideways in it, wide or
  // on a phone. Its firmware table used to run 68 px past a 1400 px window's card.
  const facts = await get("/api/v1/devices/" + d1 + "/facts");
  if (!facts.firmware_history.some((h) => h.event === "firmware_changed") || facts.link_history.length < 2)
    fail("demo1's year has no firmware change or link change: " + JSON.stringify(facts));
  for (const w of [1400, 1000, 390]) {
    await page.setViewportSize({ width: w, height: 900 });
    await page.waitForTimeout(300);
    const fit = await page.evaluate(() => {
      const card = document.querySelector('[aria-label="firmware and link"]');
      const box = card.getBoundingClientRect();
      const out = [card, ...card.querySelectorAll("*")].filter((e) => e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0 ||
        e.getBoundingClientRect().right > box.right + 0.5).map((e) => e.tagName + "." + e.className + ": " + e.textContent.slice(0, 40));
      return { out, rows: document.querySelectorAll("#firmware-history tbody tr").length };
    });
    if (fit.out.length || fit.rows !== facts.firmware_history.length)
      fail(`the Firmware and PCIe link card at ${w} px: ${fit.rows} rows; past its box: ${fit.out.join(" | ")}`);
  }
  await page.setViewportSize({ width: 1400, height: 900 });
  await (await page.$('[aria-label="firmware and link"]')).screenshot({ path: path.join(out, "year-facts-light.png") });
  await page.screenshot({ path: path.join(out, "year-recovery-light.png"), fullPage: true });
  await (await page.$("#recovery")).screenshot({ path: path.join(out, "year-recovery-chart-light.png") });
  await (await page.$("#groups")).screenshot({ path: path.join(out, "year-group-list-light.png") });

  // 2. The group run on both members' pages, then its view's bars.
  const gr = runs1.find((r) => r.group_id);
  if (!gr) fail("demo1 has no group run in its demo year");
  const g = (await get("/api/v1/probes/" + gr.id)).group;
  for (const m of g.members) {
    await page.goto(base + "/#/drive/" + m.device_id);
    await page.waitForSelector(`#groups li[data-group="${g.id}"]`, { timeout: 15000 });
    const li = await page.evaluate((gid) => {
      const e = document.querySelector(`#groups li[data-group="${gid}"]`);
      return { text: e.querySelector(".group-text").textContent, all: e.textContent };
    }, g.id);
    if (li.text !== g.text) fail(m.device + "'s group run text: '" + li.text + "', API '" + g.text + "'");
    for (const o of g.members)
      for (const p of o.phases)
        if (p.ratio !== null && !li.all.includes(o.device + " (") && !li.all.includes(Math.round(p.ratio * 100) + " % of solo"))
          fail(m.device + "'s group run does not give " + o.device + "'s ratio: " + li.all);
  }
  await page.click(`#groups li[data-group="${g.id}"] a`);
  await page.waitForSelector("#group .bar-row", { timeout: 15000 });
  const bars = await page.evaluate(() => [...document.querySelectorAll("#group .group-phase")].map((p) => ({
    name: p.dataset.phase,
    rows: [...p.querySelectorAll(".bar-row")].map((r) => ({ cls: r.className, mbs: r.dataset.mbs, label: r.querySelector(".bar-label").textContent,
      width: parseFloat(r.querySelector(".bar-fill").style.width) })),
  })));
  const phases = g.members[0].phases.map((p) => p.name);
  if (JSON.stringify(bars.map((b) => b.name)) !== JSON.stringify(phases)) fail("group view phases: " + JSON.stringify(bars));
  bars.forEach((b, k) => {
    if (b.rows.length !== g.members.length * 2 + 1) fail("group view " + b.name + ": " + b.rows.length + " bars");
    g.members.forEach((m, i) => {
      const p = m.phases[k];
      if (!near(Number(b.rows[2 * i].mbs), p.solo_mb_s) || !near(Number(b.rows[2 * i + 1].mbs), p.mb_s))
        fail("group view " + b.name + " " + m.device + ": " + JSON.stringify(b.rows.slice(2 * i, 2 * i + 2)) + ", API " + JSON.stringify(p));
    });
    const agg = g.aggregate.find((a) => a.name === b.name), last = b.rows[b.rows.length - 1];
    if (!/aggregate/.test(last.cls) || !near(Number(last.mbs), agg.mb_s))
      fail("group view " + b.name + " aggregate: " + JSON.stringify(last) + ", API " + agg.mb_s);
    // Bar lengths in proportion to MB/s, the longest full.
    const max = Math.max(...b.rows.map((r) => Number(r.mbs)));
    for (const r of b.rows)
      if (Math.abs(r.width - (Number(r.mbs) / max) * 100) > 0.2) fail("group view bar " + JSON.stringify(r) + " of " + max);
    // A member in the group is shorter than alone (75 %), as the API's ratio says.
    const m0 = b.rows[1].width / b.rows[0].width;
    if (Math.abs(m0 - g.members[0].phases[k].ratio) > 0.01) fail("group view bar ratio " + m0 + ", API " + g.members[0].phases[k].ratio);
  });
  await page.screenshot({ path: path.join(out, "year-group-light.png"), fullPage: true });

  // 3. copy-to from the picker: the drive written is asked for, only the others offered.
  const d2 = id("demo2");
  await page.goto(base + "/#/drive/" + d1);
  await page.waitForSelector("#probe-control select", { timeout: 15000 });
  const hidden = await page.evaluate(() => document.querySelector('#probe-control select[aria-label="copy to"]').hidden);
  if (!hidden) fail("the copy-to drive choice shows before copy-to is picked");
  await page.selectOption('#probe-control select[aria-label="preset"]', "copy-to");
  const offered = await page.evaluate(() => {
    const s = document.querySelector('#probe-control select[aria-label="copy to"]');
    return { hidden: s.hidden, ids: [...s.options].map((o) => Number(o.value)) };
  });
  const want = devs.map((d) => d.id).filter((x) => x !== d1);
  if (offered.hidden || JSON.stringify(offered.ids) !== JSON.stringify(want))
    fail("copy-to offers " + JSON.stringify(offered) + ", want the other drives " + JSON.stringify(want));
  await page.selectOption('#probe-control select[aria-label="copy to"]', String(d2));
  const before = (await get("/api/v1/devices/" + d2 + "/probes")).probes[0].id;
  await page.click("#probe-control button");
  let run = null;
  for (let t = 0; t < 300 && !run; t++) {
    const r = (await get("/api/v1/devices/" + d2 + "/probes")).probes[0];
    if (r.id !== before) run = r;
    else await new Promise((res) => setTimeout(res, 100));
  }
  if (!run || run.preset !== "copy-to" || run.source_device_id !== d1)
    fail("the page's copy-to: " + JSON.stringify(run) + ", page error: " + (await page.textContent("#error")));
  await page.screenshot({ path: path.join(out, "year-copy-to-light.png"), fullPage: true });
  // 4. Issue 27 on demo0's page over the year, against the API: the risk verdict with
  // each reason and its source, every rule; the power-state chart; the host's TMT1 /
  // TMT2 as lines on the temperature chart; write amplification and bad blocks from
  // C0h; the drive's event log among the events. demo1: another vendor's C0h, APST on.
  const d0 = id("demo0");
  const dev0 = await get("/api/v1/devices/" + d0);
  const hv = await get("/api/v1/devices/" + d0 + "/risk");
  await page.goto(base + "/#/drive/" + d0);
  await page.evaluate(() => localStorage.setItem("nvmond.range", "1y"));
  await page.reload();
  await page.waitForSelector('button[data-range="1y"][aria-pressed="true"]', { timeout: 15000 });
  await page.waitForSelector("#chart-wa canvas", { timeout: 15000 });
  await page.waitForSelector("#chart-power canvas", { timeout: 15000 });
  const v = await page.evaluate(async (dev) => {
    const { state } = await import("/state.js");
    const { hctmLines } = await import("/drivelogs.js");
    const risk = document.getElementById("risk");
    const chart = (id) => state.charts.find((c) => c.root.parentElement.id === id);
    const data = (id) => (chart(id) ? chart(id).data.map((c) => Array.from(c)) : null);
    return { verdict: risk.dataset.verdict, reasons: [...risk.querySelectorAll(".risk-reasons li")].map((li) => ({ rule: li.dataset.rule, text: li.textContent })),
      rules: [...risk.querySelectorAll(".risk-rules tbody tr")].map((r) => r.dataset.rule),
      wa: data("chart-wa"), bb: data("chart-bad-blocks"), pw: data("chart-power"),
      hctm: hctmLines(dev).map((l) => l.v),
      pel: [...document.querySelectorAll("tr.pel")].map((r) => ({ kind: r.dataset.kind, late: r.dataset.late === "true" })),
      note: document.querySelector('[aria-label="temperature"] .legend-note').textContent,
      power: document.getElementById("power").textContent };
  }, dev0);
  if (v.verdict !== "watch" || v.verdict !== dev0.risk.verdict) fail("demo0's risk verdict on the page: " + v.verdict + ", API " + dev0.risk.verdict);
  if (JSON.stringify(v.reasons.map((r) => r.rule)) !== JSON.stringify(dev0.risk.reasons.map((r) => r.rule))) fail("risk reasons: " + JSON.stringify(v.reasons));
  dev0.risk.reasons.forEach((r, i) => {
    if (!v.reasons[i].text.includes(r.reason) || !v.reasons[i].text.includes(r.source)) fail("a reason without its words or source: " + v.reasons[i].text);
  });
  if (JSON.stringify(v.rules) !== JSON.stringify(hv.rules.map((r) => r.rule))) fail("the rules table: " + JSON.stringify(v.rules));
  const tm = dev0.thermal_management;
  if (JSON.stringify(v.hctm) !== JSON.stringify([tm.tmt1_c, tm.tmt2_c]) || !/TMT1 \/ TMT2/.test(v.note)) fail("HCTM lines: " + JSON.stringify(v.hctm) + " " + v.note);
  const bb = v.bb, wa = v.wa;
  if (!bb || bb[0].length < 300 || bb[1][bb[1].length - 1] !== dev0.ocp.bad_user_blocks || !bb[1].every((x, i) => !i || x >= bb[1][i - 1]))
    fail("bad blocks chart: " + (bb ? bb[0].length + " points, last " + bb[1][bb[1].length - 1] : "none") + ", API " + dev0.ocp.bad_user_blocks);
  const iv = wa[1].filter((x) => x !== null);
  if (iv.length < 100 || !iv.every((x) => x >= 1 && x < 3) || Math.abs(wa[2][wa[2].length - 1] - dev0.ocp.write_amplification) > 0.011)
    fail("write amplification chart: " + iv.length + " interval points from " + Math.min(...iv) + " to " + Math.max(...iv) + ", life " + wa[2][wa[2].length - 1] + ", API " + dev0.ocp.write_amplification);
  const states = new Set(dev0.power.states.map((s) => s.state));
  if (!v.pw || v.pw[0].length < 2 || !v.pw[1].every((s) => states.has(s))) fail("power chart: " + JSON.stringify(v.pw && v.pw[1].slice(0, 9)));
  if (!/APST.*off/.test(v.power)) fail("demo0's APST is off: " + v.power);
  const kinds = new Set(v.pel.map((e) => e.kind));
  if (!kinds.has("thermal_excursion") || !kinds.has("power_on_reset") || !v.pel.some((e) => !e.late)) fail("event log rows: " + JSON.stringify([...kinds]));
  await page.screenshot({ path: path.join(out, "year-drive-logs-light.png"), fullPage: true });
  await (await page.$("#risk")).screenshot({ path: path.join(out, "year-risk-light.png") });
  await (await page.$("#ocp")).screenshot({ path: path.join(out, "year-ocp-light.png") });
  await page.goto(base + "/#/drive/" + d1);
  await page.waitForSelector("#ocp-absent", { timeout: 15000 });
  const v1 = await page.evaluate(() => ({ ocp: document.getElementById("ocp-absent").textContent, power: document.getElementById("power").textContent,
    risk: document.getElementById("risk").dataset.verdict }));
  if (!v1.ocp.includes("another vendor's C0h page") || !/APST.*on/.test(v1.power) || v1.risk !== "ok") fail("demo1's page: " + JSON.stringify(v1));

  if (errors.length) fail(errors.join("; "));
  await ctx.close();
  fs.rmSync(userDataDir, { recursive: true, force: true });
  console.log(`recovery chart ${rec.points.length} points "${rec.verdict}", group ${g.id} "${g.text}", copy-to run ${run.id}; screenshots in ${out}`);
}

main().catch((e) => fail(e.stack || String(e)));
