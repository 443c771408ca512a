// Browser test of the dashboard: Debian's chromium, headless, driven by playwright-core.
// NVMOND_URL: a running daemon (demo mode); ARTIFACTS: where screenshots go.
// MODE=many: the daemon serves many demo drives ([daemon] demo_drives): the overview's
// table, its load time and its screenshots only.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { chromium } = require("playwright-core");

const base = process.env.NVMOND_URL;
const out = process.env.ARTIFACTS;
const probed = Number(process.env.PROBED_DEVICE); // a drive with finished probe runs
const HOT_MARGIN_C = 5; // the overview's "hot": within 5 °C of WCTEMP (web/figures.js)
const LOAD_LIMIT_MS = 2000;

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
  const expected = []; // console errors a step provokes on purpose (the browser logs every 4xx)
  const page = ctx.pages()[0] || (await ctx.newPage());
  page.on("pageerror", (e) => errors.push("page error: " + e.message));
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    const loc = m.location() && m.location().url;
    const msg = m.text() + (loc ? " (" + loc + ")" : "");
    if (!expected.some((re) => re.test(msg))) errors.push("console: " + msg);
  });
  const close = async () => {
    await ctx.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  };
  return { ctx, page, errors, expected, close };
}

// Call @fn in the page with @fns (page functions) as its arguments. The page's
// Content-Security-Policy allows no eval (docs/security.md#static-files), so the
// functions go in as the source of one expression, which the browser's devtools
// evaluate as the test's own code, outside the page's policy.
function callWith(page, fn, ...fns) {
  return page.evaluate("(" + fn + ")(" + fns.map((f) => "(" + f + ")").join(", ") + ")");
}

// The dashboard's modules share no global: a test reads their state by importing
// state.js into the page (the same module instance as the page's). Wait until
// @pred(state) holds (a page function, polled every 100 ms).
async function waitForState(page, pred, timeout) {
  for (const end = Date.now() + timeout; ;) {
    if (await callWith(page, async (p) => p((await import("/state.js")).state), pred)) return;
    if (Date.now() > end) fail("timed out waiting for " + pred);
    await page.waitForTimeout(100);
  }
}

// The overview's rows (drive ids, in order) and the GET /devices answer the page drew
// them from, read at one instant: the page refreshes itself every 10 s.
const ROWS = () => [...document.querySelectorAll("table.drives tbody tr[data-device]")].map((r) => ({
  id: Number(r.dataset.device), health: r.dataset.health, throttling: r.dataset.throttling, text: r.textContent,
}));

async function tableSnapshot(page) {
  return callWith(page, async (rows) => ({ rows: rows(), devices: (await import("/state.js")).state.overview.devices,
    sort: document.querySelector('th[aria-sort]:not([aria-sort="none"]) button').dataset.sort,
    dir: document.querySelector('th[aria-sort]:not([aria-sort="none"])').getAttribute("aria-sort") }), ROWS);
}

// Sorting by temperature orders the rows as the API's temperatures say: hottest first,
// then coolest first on a second click; unknown temperatures last; ties by id.
async function checkTemperatureSort(page, apiDevices) {
  for (const want of ["descending", "ascending"]) {
    await page.click('button[data-sort="temp"]');
    const snap = await tableSnapshot(page);
    if (snap.sort !== "temp" || snap.dir !== want) fail("temperature header: " + snap.sort + " " + snap.dir + ", want " + want);
    const sameSet = JSON.stringify(snap.devices.map((d) => d.serial).sort()) === JSON.stringify(apiDevices.map((d) => d.serial).sort());
    if (!sameSet) fail("the overview drew other drives than GET /devices lists");
    const t = (d) => (d.latest ? d.latest.temperature_c : null);
    const sign = want === "descending" ? -1 : 1;
    const order = snap.devices.slice().sort((a, b) => {
      const ta = t(a), tb = t(b);
      if (ta === null || tb === null) return (ta === null) - (tb === null) || a.id - b.id;
      return (ta - tb) * sign || a.id - b.id;
    }).map((d) => d.id);
    const got = snap.rows.map((r) => r.id);
    if (JSON.stringify(got) !== JSON.stringify(order))
      fail(`sorted by temperature (${want}): rows ${got} but the API's temperatures give ${order} (` +
        snap.devices.map((d) => d.id + ":" + t(d)).join(" ") + ")");
    for (const r of snap.rows) {
      const d = snap.devices.find((x) => x.id === r.id);
      if (t(d) !== null && !r.text.includes(t(d) + " °C")) fail(`row ${r.id} does not show ${t(d)} °C: ${r.text}`);
    }
  }
}

// "Problems only" hides exactly the healthy drives: health ok, risk verdict ok, online,
// not throttling now, more than HOT_MARGIN_C below WCTEMP. Return: how many it hid.
async function checkProblemFilter(page) {
  const f = await callWith(page, async (read) => {
    const { state } = await import("/state.js");
    const box = () => document.getElementById("problems-only"); // each click redraws it
    if (box().checked) box().click();
    const all = read();
    box().click(); // redraws at once from the fetched data
    const shown = read();
    const empty = document.querySelector("table.drives tbody").textContent;
    const label = box().parentElement.textContent;
    box().click();
    return { all, shown, empty, devices: state.overview.devices, label, off: !box().checked && localStorage.getItem("nvmond.problems") === "0" };
  }, ROWS);
  const healthy = (r) => {
    const d = f.devices.find((x) => x.id === r.id);
    const temp = d.latest ? d.latest.temperature_c : null;
    return r.health === "ok" && d.online && !r.throttling && (temp === null || d.wctemp_c === null || temp < d.wctemp_c - HOT_MARGIN_C) &&
      (!d.risk || d.risk.verdict === "ok"); // issue 27: a risk verdict other than ok needs a look
  };
  const want = f.all.filter((r) => !healthy(r)).map((r) => r.id);
  const got = f.shown.map((r) => r.id);
  if (JSON.stringify(got) !== JSON.stringify(want)) fail(`problems only shows ${got}, want ${want}`);
  if (!f.off) fail("the problem filter does not switch off");
  if (!f.label.includes("(" + want.length + ")")) fail("the filter's count: " + f.label + ", want " + want.length);
  if (!want.length && !/No drive has a problem/.test(f.empty)) fail("an empty filter says nothing: " + f.empty);
  return f.all.length - want.length;
}

// A drive's health is the daemon's (GET /devices "health", docs/dashboard.md#health), the
// rule /metrics' nvmond_device_health shares: each card's badge and tooltip are the
// state and reasons of the answer the page drew from; a routed answer's health (a
// critical and an unknown drive the daemon never made) shows on the cards, in the
// table (its reasons, problems first) and on the drive page, so the page computes none.
async function checkHealthFromApi(page, devices) {
  const drawn = await page.evaluate(async () => ({ devices: (await import("/state.js")).state.overview.devices,
    badges: Object.fromEntries([...document.querySelectorAll(".card[data-device]")].map((c) => {
      const b = c.querySelector("h2 .badge:not(.demo)");
      return [c.dataset.device, { text: b.textContent, title: b.title }];
    })) }));
  for (const d of drawn.devices) {
    const b = drawn.badges[d.id];
    if (!d.health || !b || b.text !== d.health.state || b.title !== (d.health.why.join("; ") || "healthy"))
      fail(`card of device ${d.id}: badge ${JSON.stringify(b)}, the API's health ${JSON.stringify(d.health)}`);
  }
  const [crit, unk] = devices.slice(-2).map((d) => d.id);
  const routed = { [crit]: { state: "critical", why: ["routed: the API's verdict", "and its second reason"] },
    [unk]: { state: "unknown", why: ["no sample yet"] } };
  await page.route("**/api/v1/devices", async (route) => {
    const res = await route.fetch();
    const json = await res.json();
    for (const d of json.devices) if (routed[d.id]) d.health = routed[d.id];
    await route.fulfill({ response: res, json });
  });
  await page.route(/\/api\/v1\/devices\/\d+$/, async (route) => {
    const res = await route.fetch();
    const json = await res.json();
    await route.fulfill({ response: res, json: Object.assign(json, routed[json.id] ? { health: routed[json.id] } : {}) });
  });
  await page.reload();
  await page.waitForSelector(".card");
  const card = await page.evaluate((id) => {
    const b = document.querySelector(`.card[data-device="${id}"] h2 .badge:not(.demo)`);
    return { text: b.textContent, title: b.title, cls: b.className };
  }, crit);
  if (card.text !== "critical" || card.title !== "routed: the API's verdict; and its second reason" || !/\bbad\b/.test(card.cls))
    fail("the card does not show the API's health: " + JSON.stringify(card));
  await page.click("#layout-table");
  await page.waitForSelector("table.drives");
  await page.click('button[data-sort="health"]');
  const rows = await page.evaluate(() => [...document.querySelectorAll("table.drives tbody tr[data-device]")]
    .map((r) => ({ id: Number(r.dataset.device), health: r.dataset.health, why: r.querySelector("td.health small")?.textContent ?? "" })));
  const rank = { ok: 0, unknown: 1, offline: 2, warning: 3, critical: 4 };
  const sorted = rows.every((r, i) => i === 0 || rank[rows[i - 1].health] >= rank[r.health]);
  const c = rows.find((r) => r.id === crit);
  if (rows[0].health !== "critical" || c.health !== "critical" || c.why !== "routed: the API's verdict; and its second reason" ||
      !sorted || rows.find((r) => r.id === unk).health !== "unknown")
    fail("the table, problems first, does not follow the API's health: " + JSON.stringify(rows));
  await page.goto(base + "/#/drive/" + crit);
  await page.waitForSelector("#verdict");
  const v = await page.evaluate(() => ({ level: document.getElementById("verdict").dataset.health,
    text: document.getElementById("verdict").textContent }));
  if (v.level !== "critical" || !v.text.startsWith("Health: criticalrouted: the API's verdict; and its second reason."))
    fail("the drive page's verdict is not the API's health: " + JSON.stringify(v));
  await page.unrouteAll();
  await page.goto(base + "/");
  await page.waitForSelector("table.drives");
}

// A demo badge on a drive (and the banner) iff GET /devices says "demo": true.
async function checkDemoMarks(page, devices, where) {
  const marks = await page.evaluate(() => ({
    badges: [...document.querySelectorAll("[data-device]")].filter((e) => e.querySelector(".badge.demo")).map((e) => Number(e.dataset.device)),
    banner: !!document.querySelector(".demo-banner"),
    marked: document.querySelectorAll("[data-device]").length,
    html: document.getElementById("view").innerHTML.slice(0, 600),
  }));
  const want = devices.filter((d) => d.demo === true).map((d) => d.id);
  if (JSON.stringify(marks.badges.sort((a, b) => a - b)) !== JSON.stringify(want.sort((a, b) => a - b)))
    fail(`${where}: demo badges on ${marks.badges}, the API marks ${want} (${marks.marked} drives drawn: ${marks.html})`);
  if (marks.banner !== want.length > 0) fail(`${where}: demo banner ${marks.banner}, the API marks ${want.length} drives`);
}

async function shot(page, name, width, height, dark) {
  await page.setViewportSize({ width, height });
  await page.emulateMedia({ colorScheme: dark ? "dark" : "light" });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.waitForTimeout(300); // charts follow the resize
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  if (overflow > 2) fail(`${name}: the page is ${overflow} px wider than the ${width} px window`);
  await page.screenshot({ path: path.join(out, name + ".png"), fullPage: true });
}

// The drive page's error log table against GET …/errors: one row per entry, its class,
// benign rows in the muted colour, media / io rows that alerted highlighted (and only
// those): the demo 950 PRO's log holds refused admin commands and two unrecovered
// reads, all there before nvmond watched it.
async function checkErrors(page, drive) {
  await page.waitForSelector("#errors table.errors tbody tr", { timeout: 10000 });
  const api = (await (await fetch(base + "/api/v1/devices/" + drive.id + "/errors")).json());
  if (!api.read || api.counts.benign < 1 || api.counts.media !== 2 || api.counts.io !== 0)
    fail("the demo 950 PRO's error log: " + JSON.stringify(api.counts));
  const look = () => page.evaluate(() => {
    const muted = getComputedStyle(document.documentElement).getPropertyValue("--muted").trim();
    const probe = document.createElement("span");
    probe.style.color = muted;
    document.body.append(probe);
    const mutedRgb = getComputedStyle(probe).color;
    probe.remove();
    return { mutedRgb, summary: document.getElementById("errors-summary").textContent,
      rows: [...document.querySelectorAll("#errors table.errors tbody tr")].map((r) => ({
        cls: r.dataset.class, count: r.dataset.count, alert: r.classList.contains("err-alert"), text: r.textContent,
        color: getComputedStyle(r.querySelector("td.details")).color,
        bg: getComputedStyle(r.querySelector("td.details")).backgroundColor })) };
  });
  let seen = await look();
  const inRange = api.entries.filter((e) => Date.parse(e.seen) >= Date.now() - 3600e3);
  if (seen.rows.length !== inRange.length) fail(`error table: ${seen.rows.length} rows, the API has ${inRange.length} in the hour`);
  for (const [i, r] of seen.rows.entries()) {
    const e = inRange[i];
    if (r.cls !== e.class || r.count !== String(e.error_count)) fail("error row " + i + ": " + JSON.stringify(r) + " vs " + JSON.stringify(e));
    if (!r.text.includes(e.status_name)) fail("error row without its status name: " + r.text);
    if (r.cls === "benign" && (r.color !== seen.mutedRgb || r.alert)) fail("a benign entry is not greyed: " + JSON.stringify(r));
    // Highlighted when it alerts: a media entry from before nvmond watched never did.
    if (r.alert !== e.alerts) fail("error row " + i + " highlighted " + r.alert + ", alerts " + e.alerts);
    if (r.cls === "media" && (!/Unrecovered Read Error \(SCT 2h, SC 81h\)/.test(r.text) || !/I\/O 2/.test(r.text) || !/LBA \d+/.test(r.text)))
      fail("a media entry is not named: " + JSON.stringify(r));
  }
  if (seen.rows.filter((r) => r.cls === "media").length !== inRange.filter((e) => e.class === "media").length)
    fail("the media entries are not all listed");
  if (!/benign/.test(seen.summary) || !new RegExp(api.counts.benign + " benign").test(seen.summary)) fail("error summary: " + seen.summary);

  await page.route("**/api/v1/devices/" + drive.id + "/errors?*", async (route) => {
    const res = await route.fetch();
    const json = await res.json();
    const media = Object.assign({}, json.entries[0], { error_count: 99, class: "media", alerts: true, before_watch: false,
      sqid: 1, cid: 99, sct: 2, sc: 129, status_name: "Unrecovered Read Error", nsid: 1, lba: 4096, seen: new Date().toISOString() });
    json.entries.unshift(media);
    json.counts.media += 1;
    await route.fulfill({ response: res, json });
  });
  await page.click('button[data-range="24h"]');
  await page.waitForFunction(() => document.querySelector('#errors tr[data-count="99"]'), null, { timeout: 10000 });
  seen = await look();
  const m = seen.rows[0];
  if (m.cls !== "media" || !m.alert || !/Unrecovered Read Error \(SCT 2h, SC 81h\)/.test(m.text) || !/I\/O 1/.test(m.text) ||
      !/LBA 4096/.test(m.text) || m.bg === seen.rows[1].bg)
    fail("a media entry is not highlighted: " + JSON.stringify(m) + " vs " + JSON.stringify(seen.rows[1]));
  if (seen.rows.slice(1).some((r) => r.alert)) fail("a row that never alerted is highlighted");
  await page.unrouteAll();
  await page.click('button[data-range="1h"]');
  await page.waitForFunction(() => !document.querySelector('#errors tr[data-count="99"]'), null, { timeout: 10000 });
}

// The drives' notes (GET /devices "notes": the demo 980 PRO's Sensor 2 reads
// above WCTEMP while the composite is cool) show on the card, as information,
// and never make the drive unhealthy; a drive without notes shows none.
async function checkSensorNotes(page, devices) {
  const noted = devices.filter((d) => (d.notes || []).length);
  if (!noted.some((d) => /980 PRO/.test(d.model) && d.notes.some((n) => n.kind === "sensor_over_wctemp" && n.sensor === 2)))
    fail("the demo 980 PRO has no Sensor 2 note in GET /devices: " + JSON.stringify(devices.map((d) => d.notes)));
  for (const d of devices) {
    const got = await page.evaluate((id) => [...document.querySelectorAll(`.card[data-device="${id}"] .notes li`)]
      .map((li) => ({ kind: li.dataset.kind, sensor: Number(li.dataset.sensor), text: li.textContent })), d.id);
    // The page and this test read the devices a poll apart: the demo's
    // temperatures move every second, so the figures in a message may have
    // moved by then, and a sensor within 3 °C of WCTEMP may have crossed it
    // (its note come or gone); nothing else may differ.
    const same = (text) => text.replace(/-?\d+ °C/g, "N °C");
    // (The 980 PRO's Sensor 2 is stuck: its note never moves.)
    const edge = (text) => {
      const m = /reads (-?\d+) °C, above WCTEMP (-?\d+) °C/.exec(text);
      return !/980 PRO/.test(d.model) && m && Number(m[1]) - Number(m[2]) <= 3;
    };
    // A sensor at the edge in either read is left out of both: 73 °C on the page
    // and 74 °C in the API a poll later, with WCTEMP 70, is the same note.
    const key = (kind, sensor) => `${kind}/${sensor}`;
    const edgy = new Set([...(d.notes || []).filter((n) => edge(n.message)).map((n) => key(n.kind, n.sensor)),
      ...got.filter((g) => edge(g.text)).map((g) => key(g.kind, g.sensor))]);
    const want = (d.notes || []).filter((n) => !edgy.has(key(n.kind, n.sensor)));
    const shown = got.filter((g) => !edgy.has(key(g.kind, g.sensor)));
    if (shown.length !== want.length || shown.some((g, i) => g.kind !== want[i].kind || g.sensor !== want[i].sensor || !same(g.text).includes(same(want[i].message))))
      fail(`card of device ${d.id}: notes ${JSON.stringify(got)}, the API has ${JSON.stringify(d.notes)}`);
  }
  const s2 = noted.find((d) => /980 PRO/.test(d.model));
  const badge = await page.textContent(`.card[data-device="${s2.id}"] .badge:not(.demo)`);
  if (badge !== "ok") fail("a sensor note made the 980 PRO " + badge + ", it is information only");
}

// ---- device self-tests (issue 12) ------------------------------------------------

// The self-test table shows the newest ten results, and Show all the rest (issue 26).
const SELFTESTS_SHOWN = 10;

// What the drive page's Self-tests panel shows, read from the DOM.
const SELFTEST_VIEW = () => {
  const p = document.getElementById("selftests-panel");
  const css = (v) => {
    const s = document.createElement("span");
    s.style.color = getComputedStyle(document.documentElement).getPropertyValue(v).trim();
    document.body.append(s);
    const c = getComputedStyle(s).color;
    s.remove();
    return c;
  };
  const ctl = document.getElementById("selftest-control");
  const button = (t) => {
    const b = document.querySelector(`#selftests button[data-selftest="${t}"]`);
    return b ? { disabled: b.disabled, visible: !!b.offsetParent } : null;
  };
  return p && {
    supported: p.dataset.supported,
    capability: p.querySelector(".row").textContent,
    text: p.textContent,
    bad: css("--bad"), warn: css("--warn"),
    rows: [...document.querySelectorAll("#selftest-history tbody tr")].map((r) => ({
      id: Number(r.dataset.id), code: Number(r.dataset.resultCode), cells: [...r.cells].map((c) => c.textContent),
      color: getComputedStyle(r.cells[2]).color })),
    running: ctl ? ctl.dataset.running : null,
    percent: ctl && ctl.dataset.percent !== undefined ? Number(ctl.dataset.percent) : null,
    progress: (document.querySelector("#selftest-control .selftest-progress") || {}).textContent || null,
    bar: (document.querySelector("#selftest-control .meter > span") || { style: {} }).style.width || null,
    next: [...p.querySelectorAll(".row")].map((r) => r.textContent).find((t) => t.startsWith("Next scheduled")) || null,
    skips: [...document.querySelectorAll("#selftest-skips li")].map((li) => li.textContent),
    showAll: (document.getElementById("selftest-all") || {}).textContent || null,
    skipsNote: (document.querySelector("#selftest-skips .legend-note") || {}).textContent || null,
    short: button("short"), extended: button("extended"), abort: button("abort"),
  };
};

// The panel against GET …/selftests: the capability with its reason, one history row
// per result (newest first, the first one's result and colour), and for a drive that
// takes self-tests the buttons, enabled as what runs allows. Read again (the page
// rebuilt) while the daemon's answer moves under the page, e.g. a result arriving.
async function checkSelftestPanel(page, id) {
  let api, v, why;
  for (let attempt = 0; attempt < 5; attempt++) {
    await page.goto(base + "/#/drive/" + id);
    await page.waitForSelector("#selftests-panel", { timeout: 15000 });
    v = await page.evaluate("(" + SELFTEST_VIEW + ")()");
    api = await (await fetch(base + "/api/v1/devices/" + id + "/selftests?limit=50")).json();
    why = null;
    const want = api.supported === true ? "supported" : api.supported === false ? "not supported" : "unknown";
    if (v.supported !== String(api.supported) || !v.capability.startsWith("Device self-test" + want) ||
        (api.unsupported_reason && !v.capability.includes(api.unsupported_reason)))
      why = "capability";
    else if (v.rows.length !== Math.min(SELFTESTS_SHOWN, api.history.length) ||
        (api.history.length > SELFTESTS_SHOWN) !== !!v.showAll)
      why = "rows: the newest " + SELFTESTS_SHOWN + ", and Show all when there are more";
    else if (api.history.length) {
      const h = api.history[0], r = v.rows[0];
      const color = h.failed ? v.bad : [1, 2, 3, 4, 8, 9].includes(h.result_code) ? v.warn : null;
      if (r.id !== h.id || r.cells[2] !== h.result || r.cells[1] !== h.type || (color && r.color !== color) ||
          r.cells[6] !== (h.origin || "other tool") || r.cells[5] !== String(h.poh))
        why = "first row";
    } else if (!/No self-test result stored/.test(v.text))
      why = "empty history";
    if (!why && api.supported === true) {
      const running = !!api.running;
      if (!v.short || !v.extended || !v.abort || !v.short.visible || v.short.disabled !== running ||
          v.extended.disabled !== running || v.abort.disabled === running || v.running !== (running ? api.running.type : ""))
        why = "buttons";
    } else if (!why && (v.short || v.extended || v.abort))
      why = "buttons on a drive that takes no self-test";
    if (!why) return { api, v };
    await page.waitForTimeout(1000);
  }
  fail(`self-test panel of drive ${id} (${why}): ${JSON.stringify(v)} vs the API's ${JSON.stringify(api)}`);
}

// A drive that takes self-tests, routed in (whatever the demo drives do): the running
// test's progress, refreshed while it runs, the next scheduled test, the history
// with failures red and aborts amber, the skips with their reasons; the buttons post
// with the token, a refusal shows the daemon's reason, and the end of the test
// rebuilds the panel with its result.
async function checkSelftestsRouted(page, expected, drive) {
  const now = Date.now();
  const iso = (ms) => new Date(ms).toISOString();
  const result = (id, type, code, rc, name, extra, origin, ago) => Object.assign({
    id, type, code, result: name, result_code: rc, passed: rc === 0, failed: rc >= 5 && rc <= 7, segment: null,
    valid: [], nsid: null, lba: null, sct: null, sc: null, poh: 1000 + id, seen: iso(now - ago), seen_ms: now - ago, origin }, extra);
  const history = [
    result(12, "extended", 2, 7, "completed with one or more failed segments",
      { segment: 3, valid: ["nsid", "lba", "sct", "sc"], nsid: 1, lba: 123456, sct: 2, sc: 129 }, "schedule", 3600e3),
    result(11, "short", 1, 2, "aborted by a controller level reset", {}, null, 7200e3),
    result(10, "short", 1, 0, "no error", {}, "api", 9000e3),
  ];
  const skips = Array.from({ length: 7 }, (_, i) => ({ ts: iso(now - (i + 1) * 86400e3), ts_ms: now - (i + 1) * 86400e3,
    type: "short", origin: "schedule", reason: i ? "the drive is asleep" : "a probe is running on this drive" }));
  let answer = { device_id: drive, supported: true, unsupported_reason: null, edstt_min: 10,
    running: { type: "short", code: 1, percent: 42, since: iso(now - 50e3), since_ms: now - 50e3, nsid: 4294967295 },
    schedule: "weekly Sun 02:00 short, monthly 1 03:00 extended",
    next: { type: "extended", at: iso(now + 86400e3), at_ms: now + 86400e3 },
    last: { short: history[1], extended: history[0] }, history, skips };
  const posts = [], limits = [];
  let refuse = null;
  await page.route(new RegExp("/api/v1/devices/" + drive + "/selftests(/abort)?(\\?.*)?$"), async (route) => {
    const req = route.request();
    if (req.method() === "GET") {
      const limit = Number(new URL(req.url()).searchParams.get("limit") || 50);
      limits.push(limit);
      return route.fulfill({ json: Object.assign({}, answer, { history: answer.history.slice(0, limit) }) });
    }
    posts.push({ url: req.url(), auth: req.headers()["authorization"], body: req.postData() });
    if (refuse) return route.fulfill({ status: 409, json: { error: refuse } });
    return route.fulfill({ status: /abort$/.test(req.url()) ? 200 : 202,
      json: /abort$/.test(req.url()) ? { aborted: { type: "short", code: 1 } } : { started: { type: "short", code: 1, nsid: 4294967295 } } });
  });
  await page.goto(base + "/#/drive/" + drive);
  await page.waitForSelector("#selftest-control[data-percent]", { timeout: 15000 });
  let v = await page.evaluate("(" + SELFTEST_VIEW + ")()");
  if (v.supported !== "true" || !v.capability.startsWith("Device self-testsupported") || v.running !== "short" || v.percent !== 42 ||
      !/^short self-test running · 42 % · since /.test(v.progress) || v.bar !== "42%" || !/^Next scheduledextended, /.test(v.next) ||
      !v.text.includes(answer.schedule) || !/extended: about 10 min/.test(v.text))
    fail("self-tests, a short test running: " + JSON.stringify(v));
  if (v.rows.length !== 3 || v.rows.map((r) => r.id).join() !== "12,11,10") fail("self-test history rows: " + JSON.stringify(v.rows));
  const [failed, aborted, passed] = v.rows;
  if (failed.color !== v.bad || failed.cells[3] !== "3" || failed.cells[4] !== "123456 (NSID 1)" || failed.cells[6] !== "schedule")
    fail("a failed self-test is not red with its segment and LBA: " + JSON.stringify(failed) + " bad " + v.bad);
  if (aborted.color !== v.warn || aborted.cells[6] !== "other tool") fail("an aborted self-test is not amber: " + JSON.stringify(aborted));
  if (passed.color === v.bad || passed.color === v.warn || passed.cells[6] !== "api") fail("a passed self-test: " + JSON.stringify(passed));
  if (v.skips.length !== 5 || !v.skips[0].includes("short (schedule): a probe is running on this drive") ||
      !/the newest 5 of 7 shown/.test(v.skipsNote))
    fail("self-test skips: " + JSON.stringify([v.skips, v.skipsNote]));
  if (!v.short.disabled || !v.extended.disabled || v.abort.disabled) fail("buttons while a test runs: " + JSON.stringify(v));
  await page.screenshot({ path: path.join(out, "drive-selftest-running-light.png"), fullPage: true });

  // The progress follows the daemon while the test runs, without a rebuild.
  answer = Object.assign({}, answer, { running: Object.assign({}, answer.running, { percent: 80 }) });
  await page.waitForFunction(() => (document.getElementById("selftest-control") || {}).dataset?.percent === "80", null, { timeout: 10000 });
  if (!/· 80 % ·/.test(await page.textContent("#selftest-control .selftest-progress"))) fail("the progress text did not follow");

  // Abort: posted with the token, then the page rebuilt (the old panel marked to tell).
  const mark = () => page.evaluate(() => { document.getElementById("selftests-panel").dataset.old = "1"; });
  const rebuilt = () => page.waitForFunction(() => {
    const p = document.getElementById("selftests-panel");
    return p && !p.dataset.old;
  }, null, { timeout: 10000 });
  const posted = async (n) => {
    for (let i = 0; i < 100 && posts.length < n; i++) await page.waitForTimeout(100);
  };
  await mark();
  await page.click('#selftests button[data-selftest="abort"]');
  await posted(1);
  await rebuilt();
  if (posts.length !== 1 || !/\/selftests\/abort$/.test(posts[0].url) || posts[0].auth !== "Bearer " + process.env.NVMOND_TOKEN)
    fail("the abort was not posted with the token: " + JSON.stringify(posts));
  // The test ends: the panel is rebuilt with its result first.
  answer = Object.assign({}, answer, { running: null, history: [result(13, "short", 1, 1, "aborted by a Device Self-test command", {}, "api", 1000)].concat(history) });
  await page.waitForFunction(() => document.querySelector('#selftest-history tbody tr[data-id="13"]') &&
    document.getElementById("selftest-control").dataset.running === "", null, { timeout: 10000 });
  v = await page.evaluate("(" + SELFTEST_VIEW + ")()");
  if (v.rows.length !== 4 || v.rows[0].color !== v.warn || v.short.disabled || v.extended.disabled || !v.abort.disabled || v.progress !== null)
    fail("self-tests after the test ended: " + JSON.stringify(v));

  // Start a short test (the body says which); a refusal shows the daemon's reason.
  await mark();
  await page.click('#selftests button[data-selftest="short"]');
  await posted(2);
  await rebuilt();
  if (posts.length !== 2 || JSON.parse(posts[1].body).type !== "short" || posts[1].auth !== "Bearer " + process.env.NVMOND_TOKEN)
    fail("the start was not posted: " + JSON.stringify(posts));
  refuse = "demo0 (Samsung SSD 950 PRO 512GB DEMO950PRO00001) is running a probe: no self-test now";
  expected.push(new RegExp("status of 409 .*/api/v1/devices/" + drive + "/selftests\\)$"));
  await page.click('#selftests button[data-selftest="extended"]');
  await page.waitForFunction((msg) => document.getElementById("error").textContent === "self-test not started: " + msg, refuse, { timeout: 10000 });
  await posted(3);
  if (JSON.parse(posts[2].body).type !== "extended") fail("the extended start: " + JSON.stringify(posts[2]));

  // A year of results (weekly short, monthly extended: 64): the newest ten, and Show
  // all, which asks for every one and shows them; a rebuild of the page keeps them all.
  const year = Array.from({ length: 64 }, (_, i) => result(100 + 64 - i, i % 5 ? "short" : "extended", i % 5 ? 1 : 2, 0, "no error", {}, "schedule", (i + 1) * 7 * 86400e3 / 1.25));
  answer = Object.assign({}, answer, { running: null, history: year });
  await page.goto(base + "/");
  await page.waitForSelector(".card");
  await page.goto(base + "/#/drive/" + drive);
  await page.waitForSelector("#selftest-history", { timeout: 15000 });
  v = await page.evaluate("(" + SELFTEST_VIEW + ")()");
  if (v.rows.length !== SELFTESTS_SHOWN || v.rows.map((r) => r.id).join() !== year.slice(0, SELFTESTS_SHOWN).map((r) => r.id).join() ||
      v.showAll !== "Show all")
    fail(`a year of self-tests: ${v.rows.length} rows (${v.rows.map((r) => r.id)}), "${v.showAll}"; want the newest ${SELFTESTS_SHOWN} and Show all`);
  limits.length = 0;
  await page.click("#selftest-all");
  await page.waitForFunction((n) => document.querySelectorAll("#selftest-history tbody tr").length === n, year.length, { timeout: 10000 });
  if (!limits.length || Math.max(...limits) < year.length) fail("Show all asked for limits " + JSON.stringify(limits));
  await page.click('button[data-range="24h"]');
  await page.waitForFunction(() => document.querySelector('button[data-range="24h"][aria-pressed="true"]'), null, { timeout: 10000 });
  await page.waitForSelector("#selftest-history", { timeout: 10000 });
  v = await page.evaluate("(" + SELFTEST_VIEW + ")()");
  if (v.rows.length !== year.length || v.showAll !== "Show the newest " + SELFTESTS_SHOWN) fail("all results after a rebuild: " + v.rows.length + ", " + v.showAll);
  await page.click("#selftest-all");
  await page.waitForFunction((n) => document.querySelectorAll("#selftest-history tbody tr").length === n, SELFTESTS_SHOWN, { timeout: 10000 });
  await page.click('button[data-range="1h"]');
  await page.waitForFunction(() => document.querySelector('button[data-range="1h"][aria-pressed="true"]'), null, { timeout: 10000 });
  await page.unrouteAll();
}

// For real, on a drive that takes self-tests (the demo drives do once the demo
// supports them; until then this is skipped): Short test starts one, its progress
// shows, Abort ends it, and the history's newest result is that abort, started by
// the API.
async function checkSelftestRun(page, drive) {
  const get = async () => (await fetch(base + "/api/v1/devices/" + drive + "/selftests?limit=50")).json();
  let api = await get();
  if (api.supported !== true) return false;
  await page.goto(base + "/#/drive/" + drive);
  await page.waitForSelector("#selftests-panel");
  if (api.running) { // a test of the demo's own: end it first
    await page.click('#selftests button[data-selftest="abort"]');
    await page.waitForFunction(() => (document.getElementById("selftest-control") || {}).dataset?.running === "", null, { timeout: 30000 });
  }
  const before = (await get()).history.map((r) => r.id);
  await page.click('#selftests button[data-selftest="short"]');
  await page.waitForFunction(() => (document.getElementById("selftest-control") || {}).dataset?.running === "short", null, { timeout: 30000 });
  const v = await page.evaluate("(" + SELFTEST_VIEW + ")()");
  if (!/^short self-test running · \d+ % · since /.test(v.progress) || v.abort.disabled || !v.short.disabled)
    fail("a real short self-test: " + JSON.stringify(v));
  await page.click('#selftests button[data-selftest="abort"]');
  await page.waitForFunction((ids) => {
    const c = document.getElementById("selftest-control");
    const first = document.querySelector("#selftest-history tbody tr");
    return c && c.dataset.running === "" && first && !ids.includes(Number(first.dataset.id));
  }, before, { timeout: 30000 });
  api = await get();
  const h = api.history[0];
  if (api.running || h.type !== "short" || h.result_code !== 1 || h.origin !== "api")
    fail("the aborted short self-test: " + JSON.stringify(h));
  await checkSelftestPanel(page, drive);
  return true;
}

// The sweep chart of a drive with two finished sweeps: the newer one's points, read
// and write, at the API's transfer sizes and MB/s, and the older one's under them.
const fmtTop = (b) => (b >= 1 << 20 ? b / (1 << 20) + " MiB" : b >= 1024 ? b / 1024 + " KiB" : b + " B");
async function checkSweepChart(page, drive) {
  const runs = (await (await fetch(base + "/api/v1/devices/" + drive + "/probes")).json()).probes
    .filter((r) => r.preset === "sweep" && r.state === "done");
  if (runs.length < 2) fail("the test needs two sweeps of drive " + drive + ": " + JSON.stringify(runs));
  const [now, prev] = await Promise.all(runs.slice(0, 2).map(async (r) => (await (await fetch(base + "/api/v1/probes/" + r.id)).json()).sweep));
  await page.goto(base + "/");
  await page.waitForSelector(".card");
  await page.goto(base + "/#/drive/" + drive);
  await page.waitForSelector("#chart-sweep canvas", { timeout: 15000 });
  const got = await page.evaluate(async () => {
    const { state } = await import("/state.js");
    const box = document.getElementById("chart-sweep");
    const u = state.charts.find((c) => c.root.parentElement === box);
    return { points: Number(box.dataset.points), previous: box.dataset.previous, data: u.data,
      distr: u.scales.x.distr, log: u.scales.x.log, ticks: u.axes[0]._values,
      widths: u.series.slice(1).map((x) => x.width),
      strokes: u.series.slice(1).map((x, i) => (typeof x.stroke === "function" ? x.stroke(u, i + 1) : x.stroke)),
      note: box.parentElement.querySelector(".legend-note").textContent };
  });
  if (got.points !== now.read.length + now.write.length || got.points < 2)
    fail("sweep chart points: " + got.points + ", the API has " + (now.read.length + now.write.length));
  if (got.previous !== String(runs[1].id)) fail("sweep chart previous run: " + got.previous + ", not " + runs[1].id);
  if (got.distr !== 3 || got.log !== 2) fail("sweep chart x scale: distr " + got.distr + ", log " + got.log);
  const col = (k, pts) => {
    for (const p of pts) {
      const i = got.data[0].indexOf(p.block_size);
      if (i < 0 || Math.abs(got.data[k][i] - p.mb_s) > 1e-9) fail("sweep chart column " + k + " at " + p.block_size + ": " + got.data[k][i] + ", API " + p.mb_s);
    }
    if (got.data[k].filter((v) => v !== null).length !== pts.length) fail("sweep chart column " + k + " has extra points");
  };
  col(1, now.read); col(2, now.write); col(3, prev.read); col(4, prev.write);
  // The previous sweep is thinner and see-through.
  if (!(got.widths[2] < got.widths[0] && got.widths[3] < got.widths[1]) || !/^#[0-9a-f]{8}$/i.test(got.strokes[2]))
    fail("the previous sweep is not drawn faintly: " + JSON.stringify({ w: got.widths, s: got.strokes }));
  if (!/faint: the previous sweep/.test(got.note)) fail("sweep chart note: " + got.note);
  // A log2 axis labelled in binary units, up to the largest transfer.
  const top = Math.max(...now.read.map((p) => p.block_size));
  if (!got.ticks || got.ticks[got.ticks.length - 1] !== fmtTop(top) || got.ticks.some((t) => !/^\d+ (B|KiB|MiB)$/.test(t)))
    fail("sweep chart ticks: " + JSON.stringify(got.ticks));
}

// A copy-to run (issue 13 §5) from @from onto the cool 970 EVO (demo2): on both
// drives' pages, the probe chart names it by direction and the other drive, and
// the last-probe panel shows the API's copy_to line.
async function checkCopyTo(page, from, devices) {
  const to = devices.find((d) => d.name === "demo2"), src = devices.find((d) => d.id === from);
  if (!to) fail("the copy-to check needs demo2 (demo_drives = 3)");
  const res = await fetch(base + "/api/v1/devices/" + from + "/probes", { method: "POST",
    headers: { Authorization: "Bearer " + process.env.NVMOND_TOKEN }, body: JSON.stringify({ preset: "copy-to", to: to.id }) });
  if (res.status !== 202) fail("POST copy-to: " + res.status + " " + (await res.text()));
  const id = (await res.json()).id;
  let run;
  for (let t = 0; ; t++) {
    run = await (await fetch(base + "/api/v1/probes/" + id)).json();
    if (run.state === "done") break;
    if (run.state !== "running" || t > 600) fail("copy-to " + id + ": " + run.state + " " + run.reason);
    await new Promise((ok) => setTimeout(ok, 100));
  }
  for (const [drive, label] of [[from, "copy-to → " + to.name], [to.id, "copy-to ← " + src.name]]) {
    await page.goto(base + "/");
    await page.waitForSelector(".card");
    await page.goto(base + "/#/drive/" + drive);
    await page.waitForSelector(".copy-to", { timeout: 15000 });
    await page.waitForSelector("#chart-probes canvas", { timeout: 5000 });
    const got = await page.evaluate(async () => ({
      labels: (await import("/state.js")).state.charts.find((c) => c.root.parentElement.id === "chart-probes").series.map((x) => x.label),
      head: document.querySelector('[aria-label="last probe"] h3').textContent,
      line: document.querySelector('[aria-label="last probe"] .copy-to').textContent,
    }));
    if (!got.labels.includes(label) || got.labels.includes("copy-to") || !got.head.startsWith("Last probe: " + label + ", ") ||
        got.line !== run.copy_to.text)
      fail("copy-to on drive " + drive + "'s page (want " + label + "): " + JSON.stringify(got));
    // The last probe's chart spans the copy from its start to its end (it used to run
    // between its two samples only, one diagonal line), each interval's MB/s over its own
    // length (the last one is short): the steps hold what the copy wrote.
    const ph = run.phases.filter((p) => p.series && p.series.length).sort((a, b) => b.series.length - a.series.length)[0];
    const c = await page.evaluate(async () => {
      const { state } = await import("/state.js");
      const u = state.charts.find((x) => x.root.parentElement.id === "chart-probe-run");
      return u && { min: u.scales.x.min, max: u.scales.x.max, t: Array.from(u.data[0]), v: Array.from(u.data[1]) };
    });
    const wrote = ph.series.reduce((n, p) => n + p[2], 0) / 1e6;
    const drawn = c ? c.v.slice(1).reduce((n, v, i) => n + v * (c.t[i + 1] - c.t[i]), 0) : null;
    if (!c || c.min !== 0 || Math.abs(c.max - ph.elapsed_ms / 1000) > 0.002 || c.t[0] !== 0 || Math.abs(drawn - wrote) > wrote * 1e-6)
      fail("copy-to's last probe chart on drive " + drive + ": x " + (c && c.min) + " to " + (c && c.max) + " s, the phase took " +
        ph.elapsed_ms + " ms; " + drawn + " MB drawn, " + wrote + " MB written: " + JSON.stringify({ chart: c, series: ph.series }));
  }
}

// The dashboard's scripts are ES modules (index.html): none writes to the global
// scope. The window's own keys are those of a page of the same origin without a script
// (uPlot's CSS) plus uPlot alone (vendor/, a classic script); and no name a module
// exports is a global (a classic script's top-level const or let would be one without
// being a key of window).
async function checkNoGlobals(page, expected) {
  expected.push(/status of 404 .*\/favicon\.ico\)$/); // the CSS page's icon: the dashboard's is a data: URL
  await page.goto(base + "/vendor/uPlot.min.css");
  const blank = new Set(await page.evaluate(() => Object.keys(window)));
  await page.goto(base + "/");
  await page.waitForSelector(".card", { timeout: 15000 });
  const got = await page.evaluate(async () => {
    const modules = [...new Set(performance.getEntriesByType("resource").map((e) => new URL(e.name))
      .filter((u) => u.origin === location.origin && u.pathname.endsWith(".js") && !u.pathname.startsWith("/vendor/"))
      .map((u) => u.pathname))];
    const names = [];
    for (const m of modules) names.push(...Object.keys(await import(m)));
    return { keys: Object.keys(window), modules, names };
  });
  // Each exported name reachable as a global binding? One typeof per name, in one
  // expression the devtools evaluate (the page's policy allows no eval). An element's
  // id is a name too (window.view: the page's #view); charts.js re-exports uPlot.
  const asked = got.names.filter((n) => n !== "uPlot" && n !== "default" && /^[A-Za-z_$][\w$]*$/.test(n));
  got.leaked = await page.evaluate("[" + asked.map((n) =>
    `typeof ${n} !== "undefined" && !document.getElementById(${JSON.stringify(n)}) ? ${JSON.stringify(n)} : ""`).join(", ") +
    "].filter(Boolean)");
  const extra = got.keys.filter((k) => !blank.has(k));
  if (extra.join() !== "uPlot") fail("globals beyond uPlot: " + extra.join(", "));
  if (got.modules.length < 10 || got.names.length < 50 || got.leaked.length)
    fail(`${got.modules.length} modules, ${got.names.length} exported names, reachable as globals: ${got.leaked.join(", ")}`);
  return got.modules.length;
}

async function main() {
  const { page, errors, expected, close } = await launch(1400, 900);
  const modules = await checkNoGlobals(page, expected);

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
  // Issue 24: a drive's [device] label and location on its card (the 950 PRO has them).
  const named = devices.filter((d) => d.label);
  if (!named.length) fail("no drive has a label: test_dashboard.sh gives the 950 PRO one");
  for (const d of named) {
    const text = await page.textContent(`.card[data-device="${d.id}"] .names`);
    if (text !== d.label + " · " + d.location) fail(`card of device ${d.id}: names "${text}"`);
  }
  // The 950 PRO has a built-in rating: "of 400 TB rated".
  const hot = devices.find((d) => /950 PRO/.test(d.model));
  const hotText = await page.textContent(`.card[data-device="${hot.id}"]`);
  if (!/400 TB rated/.test(hotText)) fail("950 PRO card does not show its 400 TB rating: " + hotText);
  const probedText = await page.textContent(`.card[data-device="${probed}"]`);
  if (!/Last probe\s*sustained-write/.test(probedText)) fail("the card does not show the last probe: " + probedText);
  await checkSensorNotes(page, devices);
  // A few drives: cards by default (overview-*.png); the demo marks follow the API.
  if (await page.getAttribute("#view", "data-layout") !== (devices.length > 8 ? "table" : "cards"))
    fail("default layout for " + devices.length + " drives: " + await page.getAttribute("#view", "data-layout"));
  await checkDemoMarks(page, devices, "overview cards");
  for (const w of [1400, 390]) for (const dark of [false, true])
    await shot(page, "overview" + (w === 1400 ? "" : "-" + w) + (dark ? "-dark" : "-light"), w, 900, dark);
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.emulateMedia({ colorScheme: "light" });

  // The table: one row per drive, sorted by the header clicked, filtered, remembered.
  await page.click("#layout-table");
  await page.waitForSelector("table.drives");
  const rows = (await tableSnapshot(page)).rows;
  if (rows.length !== devices.length) fail("the table lacks drives");
  for (const d of named)
    if (!rows.find((r) => r.id === d.id).text.includes(d.label + " · " + d.location))
      fail(`table row of device ${d.id} lacks its label and location`);
  await checkDemoMarks(page, devices, "overview table");
  await checkTemperatureSort(page, devices);
  const hidden = await checkProblemFilter(page);
  if (hidden < 1) fail("the cool demo 980 PRO should be healthy and hidden by the problem filter");
  await page.reload();
  await page.waitForSelector("table.drives");
  const snap = await tableSnapshot(page);
  if (snap.sort !== "temp" || snap.dir !== "ascending") fail("the sort is not remembered: " + snap.sort + " " + snap.dir);
  for (const w of [1400, 390]) for (const dark of [false, true])
    await shot(page, "overview-table" + (w === 1400 ? "" : "-" + w) + (dark ? "-dark" : "-light"), w, 900, dark);
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.emulateMedia({ colorScheme: "light" });

  // A server that marks a drive as demo data: its badge and the banner appear.
  await page.route("**/api/v1/devices", async (route) => {
    const res = await route.fetch();
    const json = await res.json();
    json.devices.forEach((d, i) => { if (i === 0) d.demo = true; else delete d.demo; });
    await route.fulfill({ response: res, json });
  });
  await page.reload();
  await page.waitForSelector("table.drives");
  const marked = await page.evaluate(async () => (await import("/state.js")).state.overview.devices);
  if (marked[0].demo !== true) fail("the route did not mark the first drive");
  await checkDemoMarks(page, marked, "overview with a drive marked demo");
  await page.unrouteAll();
  await page.click("#layout-cards");
  await page.waitForSelector(".card");
  await checkHealthFromApi(page, devices);
  await page.click("#layout-cards");
  await page.waitForSelector(".card");
  if (await page.evaluate(() => localStorage.getItem("nvmond.layout")) !== "cards") fail("the layout is not remembered");

  // Probe history and the last run's own series with its cliff.
  await page.goto(base + "/#/drive/" + probed);
  await page.waitForSelector("#chart-probes canvas", { timeout: 15000 });
  await page.waitForSelector("#chart-probe-run canvas", { timeout: 5000 });
  const probe = await page.evaluate(async () => {
    const { state } = await import("/state.js");
    return {
      runs: state.charts.find((c) => c.root.parentElement.id === "chart-probes").data[0].length,
      points: state.charts.find((c) => c.root.parentElement.id === "chart-probe-run").data[0].length,
      events: document.getElementById("chart-probe-run").dataset.events,
    };
  });
  if (probe.runs !== 2 || probe.points < 3 || !/cliff/.test(probe.events))
    fail("probe charts: " + JSON.stringify(probe));
  // The 980 PRO's page: its Sensor 2 note right under the verdict.
  const pageNotes = await page.evaluate(() => {
    const n = document.querySelector("#view > div > .notes");
    return n && { text: n.textContent, afterVerdict: n.previousElementSibling && n.previousElementSibling.id === "verdict" };
  });
  if (!pageNotes || !pageNotes.afterVerdict || !/Sensor 2 reads \d+ °C, above WCTEMP \d+ °C, while the composite is \d+ °C/.test(pageNotes.text))
    fail("drive page notes: " + JSON.stringify(pageNotes));
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
  if (running.head !== "Probe running" || !/^seq1m-q8 · (read|write) \(\d of 2\) · \d+ % · [\d.]+ MB\/s/.test(running.text) || !running.error)
    fail("probe progress: " + JSON.stringify(running));
  await page.screenshot({ path: path.join(out, "drive-probe-running-light.png"), fullPage: true });
  await page.click("#probe-control button");
  await page.waitForSelector("#probe-control select", { timeout: 10000 });
  const runs = (await (await fetch(base + "/api/v1/devices/" + probed + "/probes")).json()).probes;
  if (runs[0].preset !== "seq1m-q8" || runs[0].state !== "aborted" || runs[0].reason !== "cancelled through the API")
    fail("the cancelled run: " + JSON.stringify(runs[0]));
  if (prompts !== 1) fail("the token was asked " + prompts + " times, not once");
  // Two sweeps through the API (after the runs above: their writes would fill the
  // 980 PRO's cache before sustained-write), then the page's sweep chart.
  for (let i = 0; i < 2; i++) {
    const res = await fetch(base + "/api/v1/devices/" + probed + "/probes", { method: "POST",
      headers: { Authorization: "Bearer " + process.env.NVMOND_TOKEN }, body: JSON.stringify({ preset: "sweep" }) });
    if (res.status !== 202) fail("POST sweep: " + res.status + " " + (await res.text()));
    const id = (await res.json()).id;
    for (let t = 0; ; t++) {
      const r = await (await fetch(base + "/api/v1/probes/" + id)).json();
      if (r.state === "done") break;
      if (r.state !== "running" || t > 1200) fail("sweep " + id + ": " + r.state + " " + r.reason);
      await new Promise((ok) => setTimeout(ok, 100));
    }
  }
  await checkSweepChart(page, probed);
  await page.screenshot({ path: path.join(out, "drive-sweep-light.png"), fullPage: true });
  await checkCopyTo(page, probed, devices);
  await page.goto(base + "/");
  await page.waitForSelector(".card");

  // Drive page: the temperature chart draws points.
  await page.click(`.card[data-device="${hot.id}"] h2 a`);
  await page.waitForSelector('button[data-range="1h"]', { timeout: 15000 });
  // Its title names the drive's label (issue 24), the page's and the tab's.
  const h2 = await page.textContent(".drive-head h2");
  const title = await page.title();
  if (h2 !== hot.label + " · " + hot.model || !title.startsWith(hot.label + " · "))
    fail(`drive page title: h2 "${h2}", title "${title}"`);
  // A fresh daemon: the last hour at raw resolution has points (live updates add more).
  await page.click('button[data-range="1h"]');
  await waitForState(page, (state) => state.charts.length && state.charts[0].data[0].length >= 3 &&
    document.querySelector("#chart-temp canvas"), 30000);
  const drawn = await page.evaluate(async () => {
    const u = (await import("/state.js")).state.charts[0];
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

  // The error log: the 950 PRO's entries (admin commands its controller refused and two
  // unrecovered reads, there before nvmond watched it) are listed with their class as the
  // API gives them, benign ones greyed, media ones named; a media entry that alerts
  // (routed in) is highlighted and named.
  await checkErrors(page, hot);

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
  const before = await page.evaluate(async () => (await import("/state.js")).state.charts[0].data[0].length);
  const status0 = await page.textContent("#status");
  await page.waitForFunction((s) => document.getElementById("status").textContent !== s, status0, { timeout: 15000 });
  await page.waitForSelector("#chart-temp canvas");
  const after = await page.evaluate(async () => (await import("/state.js")).state.charts[0].data[0].length);
  if (after < before) fail(`live update lost points: ${before} → ${after}`);

  // The verdict is at the top of the drive page, before the charts, with its reasons.
  const top = await page.evaluate(() => {
    const v = document.getElementById("verdict");
    return v && { level: v.dataset.health, text: v.textContent,
      first: !!(v.compareDocumentPosition(document.getElementById("chart-temp") || document.querySelector(".panels")) & Node.DOCUMENT_POSITION_FOLLOWING) };
  });
  if (!top || !top.first || !/^Health: (OK|warning|critical|offline|unknown)/.test(top.text))
    fail("drive page verdict: " + JSON.stringify(top));
  if (top.level === "ok" && !/No problem found: \d+ °C/.test(top.text)) fail("an ok verdict says what was checked: " + top.text);
  if (top.level !== "ok" && top.text.length < 24) fail("a verdict without reasons: " + top.text);
  const one = (await (await fetch(base + "/api/v1/devices/" + hot.id)).json());
  await checkDemoMarks(page, [one], "drive page");
  // The marks follow the API both ways: flip the flag the daemon sends, then restore it.
  const real = one.demo === true;
  await page.route("**/api/v1/devices/" + hot.id, async (route) => {
    const res = await route.fetch();
    await route.fulfill({ response: res, json: Object.assign(await res.json(), { demo: !real }) });
  });
  await page.click('button[data-range="24h"]');
  await page.waitForFunction((want) => !!document.querySelector(".demo-banner") === want, !real);
  await checkDemoMarks(page, [Object.assign({}, one, { demo: !real })], "drive page, demo flag flipped");
  await page.unrouteAll();
  await page.click('button[data-range="1h"]');
  await page.waitForSelector("#chart-temp canvas");
  await page.waitForFunction((want) => !!document.querySelector(".demo-banner") === want, real);

  // Firmware and PCIe link (issue 11): the drive's link and its firmware baseline;
  // then, routed, a degraded link and a firmware change as the daemon reports them.
  const factsOf = () => page.evaluate(() => {
    const f = document.getElementById("facts");
    return f && { text: f.textContent, degraded: f.dataset.linkDegraded,
      rows: [...document.querySelectorAll("#firmware-history tbody tr")].map((r) => r.dataset.event + ": " + r.textContent) };
  });
  await page.waitForSelector("#facts");
  let facts = await factsOf();
  if (!facts || !one.link || !facts.text.includes(one.link.text) || facts.degraded !== "no" ||
      facts.rows.length !== 1 || !facts.rows[0].startsWith("baseline: ") || !facts.rows[0].includes(one.firmware))
    fail("firmware and link panel: " + JSON.stringify({ facts, link: one.link }));
  const degraded = { current_speed_gts: 8.0, current_width: 2, max_speed_gts: 16.0, max_width: 4, current_gen: 3, max_gen: 4,
    degraded: true, text: "PCIe 8.0 GT/s x2 (max 16.0 GT/s x4)" };
  await page.route("**/api/v1/devices/" + hot.id, async (route) => {
    const res = await route.fetch();
    await route.fulfill({ response: res, json: Object.assign(await res.json(), { link: degraded, firmware_pending: "2B0QBXX8" }) });
  });
  await page.route("**/api/v1/devices/" + hot.id + "/facts", async (route) => {
    const res = await route.fetch();
    const j = await res.json();
    j.firmware_history.unshift({ ts: new Date().toISOString(), ts_ms: Date.now(), event: "firmware_changed", old: "2B0QBXX6", new: one.firmware });
    await route.fulfill({ response: res, json: j });
  });
  await page.click('button[data-range="24h"]');
  await page.waitForFunction(() => (document.getElementById("facts") || {}).dataset?.linkDegraded === "yes");
  facts = await factsOf();
  if (!facts.text.includes("PCIe 8.0 GT/s x2 (max 16.0 GT/s x4) · degraded") || !facts.text.includes("2B0QBXX8 staged") ||
      facts.rows.length !== 2 || !facts.rows[0].startsWith("firmware_changed: ") ||
      !facts.rows[0].includes("2B0QBXX6 → " + one.firmware))
    fail("firmware and link panel, degraded and changed: " + JSON.stringify(facts));
  await page.unrouteAll();
  await page.click('button[data-range="1h"]');
  await page.waitForSelector("#chart-temp canvas");
  await page.waitForFunction(() => (document.getElementById("facts") || {}).dataset?.linkDegraded === "no");

  // Light and dark, wide and phone (no sideways scrolling on a phone).
  for (const w of [1400, 390]) for (const dark of [false, true])
    await shot(page, "drive" + (w === 1400 ? "" : "-" + w) + (dark ? "-dark" : "-light"), w, w === 1400 ? 900 : 844, dark);

  // Device self-tests (issue 12): the panel against GET …/selftests on every drive
  // (taking them or not); a drive that takes them routed in; and, where the demo
  // drives take them, a real short test started and aborted from the page.
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.emulateMedia({ colorScheme: "light" });
  for (const d of devices) await checkSelftestPanel(page, d.id);
  await checkSelftestsRouted(page, expected, hot.id);
  const ranSelftest = await checkSelftestRun(page, hot.id);
  await page.goto(base + "/#/drive/" + hot.id);
  await page.waitForSelector("#chart-temp canvas", { timeout: 15000 });

  // The theme switch overrides the system's scheme (and is remembered).
  await page.emulateMedia({ colorScheme: "light" });
  await page.click("#theme");
  await page.waitForFunction(() => document.documentElement.dataset.theme === "dark" &&
    getComputedStyle(document.body).backgroundColor !== "rgb(255, 255, 255)");
  await page.waitForSelector("#chart-temp canvas");

  if (errors.length) fail("browser errors:\n  " + errors.join("\n  "));
  await close();
  console.log(`ok: ${modules} modules and no global but uPlot, ${devices.length} cards, table sorted and filtered (${hidden} healthy hidden), chart ${drawn.pts} points / ${drawn.series - 1} series, ` +
    `live ${before} → ${after} points, self-tests ${ranSelftest ? "run and aborted on" : "not taken by"} the 950 PRO; screenshots in ${out}`);
}

// Many drives (MODE=many): the table by default, its load time, its sorting and filter.
async function many() {
  const devices = (await (await fetch(base + "/api/v1/devices")).json()).devices;
  const n = Number(process.env.DRIVES);
  if (devices.length !== n) fail(`the daemon should serve ${n} drives, serves ${devices.length}`);
  // Load time: navigation start (performance.now() = 0) to the table drawn with every
  // drive's figures (#view's data-rendered-ms), a fresh browser each time.
  const times = [];
  for (let i = 0; i < 3; i++) {
    const b = await launch(1400, 900);
    await b.page.goto(base + "/");
    await b.page.waitForSelector("#view[data-rendered-ms] table.drives", { timeout: 15000 });
    times.push(Number(await b.page.getAttribute("#view", "data-rendered-ms")));
    const rows = (await tableSnapshot(b.page)).rows.length;
    if (rows !== n) fail(`the table has ${rows} rows, not ${n}`);
    if (b.errors.length) fail("browser errors:\n  " + b.errors.join("\n  "));
    await b.close();
  }
  const median = times.slice().sort((a, b) => a - b)[1];
  console.log(`overview with ${n} drives: table rendered ${times.map((t) => Math.round(t) + " ms").join(", ")} ` +
    `after navigation start (median ${Math.round(median)} ms, limit ${LOAD_LIMIT_MS} ms)`);
  if (median > LOAD_LIMIT_MS) fail(`the overview with ${n} drives takes ${Math.round(median)} ms to load`);

  const { page, errors, close } = await launch(1400, 900);
  await page.goto(base + "/");
  await page.waitForSelector("table.drives");
  if (await page.getAttribute("#view", "data-layout") !== "table") fail("more than 8 drives should default to the table");
  await checkDemoMarks(page, devices, "overview table, many drives");
  await checkTemperatureSort(page, devices);
  const hidden = await checkProblemFilter(page);
  await page.click('button[data-sort="health"]');
  for (const w of [1400, 390]) for (const dark of [false, true])
    await shot(page, "many-overview" + (w === 1400 ? "" : "-" + w) + (dark ? "-dark" : "-light"), w, 900, dark);
  if (errors.length) fail("browser errors:\n  " + errors.join("\n  "));
  await close();
  console.log(`ok: ${n} drives in the table, sorted by temperature, problem filter hid ${hidden}; median load ${Math.round(median)} ms`);
}

(process.env.MODE === "many" ? many() : main()).catch((e) => fail(e.stack || String(e)));
