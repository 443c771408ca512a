// nvmond dashboard: an overview card per drive and a page per drive with charts.
// Plain browser JavaScript, no build step; charts by uPlot (vendor/, copied from the
// npm package pinned in web/package.json). All text goes in through textContent.
"use strict";

const LIVE_MS = 10000;
const RANGES = [
  { key: "1h", label: "1 h", s: 3600 },
  { key: "24h", label: "24 h", s: 86400 },
  { key: "7d", label: "7 d", s: 7 * 86400 },
  { key: "30d", label: "30 d", s: 30 * 86400 },
  { key: "1y", label: "1 y", s: 365 * 86400 },
];
const RANGE_WORDS = { "1h": "hour", "24h": "24 hours", "7d": "7 days", "30d": "30 days", "1y": "year" };
const CHART_POINTS = 1000;
const WARNING_LABELS = {
  spare: "spare below threshold",
  temperature: "temperature",
  degraded: "reliability degraded",
  read_only: "read-only",
  volatile_backup: "volatile backup failed",
  pmr_read_only: "PMR read-only",
};

const state = {
  view: null, // "overview" | "drive"
  deviceId: null,
  range: localStorage.getItem("nvmond.range") || "24h",
  timer: null,
  charts: [],
  generation: 0, // bumped on every navigation: late answers of an old view are dropped
  overview: null, // the last GET /devices with each drive's extras (loadOverview)
  sort: sortSetting(),
  problemsOnly: localStorage.getItem("nvmond.problems") === "1",
};

function sortSetting() {
  try {
    const s = JSON.parse(localStorage.getItem("nvmond.sort"));
    if (s && typeof s.key === "string" && (s.dir === 1 || s.dir === -1)) return s;
  } catch (e) { /* a hand-edited setting: the default */ }
  return { key: "health", dir: -1 };
}

// ---- helpers ------------------------------------------------------------

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "onclick") e.addEventListener("click", v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function num(v) {
  return typeof v === "string" ? Number(v) : v;
}

// Bytes in decimal units: TB and PB with 2 decimals, smaller units with 3 significant
// digits. nominal: a configured size (a rating, a budget) without trailing zeros.
function fmtBytes(v, nominal) {
  const n = num(v);
  if (n === null || n === undefined || Number.isNaN(n)) return "–";
  const units = [["PB", 1e15], ["TB", 1e12], ["GB", 1e9], ["MB", 1e6], ["kB", 1e3]];
  for (const [u, f] of units) {
    if (n < f) continue;
    const x = n / f;
    const s = f >= 1e12 ? x.toFixed(2) : x.toFixed(x >= 100 ? 0 : x >= 10 ? 1 : 2);
    return (nominal ? String(Number(s)) : s) + " " + u;
  }
  return n + " B";
}

function fmtDate(iso) {
  return iso ? iso.slice(0, 10) : "–";
}

function fmtTime(iso) {
  if (!iso) return "–";
  const d = new Date(iso);
  return d.toLocaleString(undefined, { dateStyle: "short", timeStyle: "short" });
}

function fmtDuration(s) {
  if (s === null || s === undefined) return "–";
  if (s < 120) return s + " s";
  if (s < 7200) return Math.round(s / 60) + " min";
  return (s / 3600).toFixed(1) + " h";
}

// GET (or POST) a JSON endpoint. Optional features answer 404 when absent.
async function api(path, opts) {
  const res = await fetch(path, Object.assign({ cache: "no-store" }, opts || {}));
  const body = await res.json().catch(() => null);
  return { ok: res.ok, status: res.status, body };
}

function showError(msg) {
  const e = document.getElementById("error");
  e.textContent = msg || "";
  e.hidden = !msg;
}

function setStatus(msg) {
  document.getElementById("status").textContent = msg;
}

function cssVar(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

// ---- theme --------------------------------------------------------------

function applyTheme(t) {
  if (t) document.documentElement.dataset.theme = t;
  else delete document.documentElement.dataset.theme;
  const btn = document.getElementById("theme");
  const dark = t ? t === "dark" : matchMedia("(prefers-color-scheme: dark)").matches;
  btn.textContent = dark ? "Light" : "Dark";
  btn.setAttribute("aria-label", dark ? "Switch to the light theme" : "Switch to the dark theme");
}

function toggleTheme() {
  const cur = document.documentElement.dataset.theme ||
    (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");
  const next = cur === "dark" ? "light" : "dark";
  localStorage.setItem("nvmond.theme", next);
  applyTheme(next);
  render(); // charts take their colours from the theme
}

// ---- health -------------------------------------------------------------

// ok / warning / critical / offline, with the reasons.
function health(d, wear, alerts) {
  const s = d.latest;
  const why = [];
  let level = 0;
  const bump = (l, msg) => { level = Math.max(level, l); why.push(msg); };
  if (!d.online) return { level: "offline", why: ["not seen now"] };
  if (!s) return { level: "unknown", why: ["no sample yet"] };
  for (const b of s.critical_warning_bits || [])
    bump(b === "temperature" ? 1 : 2, WARNING_LABELS[b] || b);
  if (s.avail_spare < s.spare_thresh) bump(2, "spare below threshold");
  if (s.percent_used >= 100) bump(2, "rated life used up");
  else if (s.percent_used >= 80) bump(1, s.percent_used + " % used");
  if (d.cctemp_c !== null && s.temperature_c !== null && s.temperature_c >= d.cctemp_c) bump(2, "at CCTEMP");
  else if (d.wctemp_c !== null && s.temperature_c !== null && s.temperature_c >= d.wctemp_c) bump(1, "at WCTEMP");
  if (wear && wear.alert_level >= 100) bump(2, "rated TBW reached");
  else if (wear && wear.alert_level >= 80) bump(1, wear.alert_level + " % of rated TBW");
  for (const a of alerts || []) bump({ critical: 2, warning: 1 }[a.severity] || 0, a.message || a.rule);
  return { level: ["ok", "warning", "critical"][level], why };
}

function badge(h) {
  const cls = { ok: "ok", warning: "warn", critical: "bad", offline: "muted", unknown: "muted" }[h.level];
  return el("span", { class: "badge " + cls, title: h.why.join("; ") || "healthy" }, h.level);
}

function meter(frac, cls, marks) {
  const m = el("div", { class: "meter " + (cls || ""), role: "img" });
  const bar = el("span");
  bar.style.width = Math.max(0, Math.min(100, frac * 100)).toFixed(1) + "%";
  m.append(bar);
  for (const x of marks || []) {
    const i = el("i");
    i.style.left = Math.max(0, Math.min(100, x * 100)).toFixed(1) + "%";
    m.append(i);
  }
  return m;
}

function row(k, v, cls) {
  return el("div", { class: "row" }, el("span", { class: "k" }, k), el("span", { class: "v " + (cls || "") }, v));
}

// ---- overview -----------------------------------------------------------

function tempBlock(d) {
  const s = d.latest;
  const now = s ? s.temperature_c : null;
  const crit = d.cctemp_c || 85;
  const limits = "warn " + (d.wctemp_c ?? "–") + " · crit " + (d.cctemp_c ?? "–") + " °C";
  let cls = "";
  if (now !== null && d.cctemp_c !== null && now >= d.cctemp_c) cls = "bad";
  else if (now !== null && d.wctemp_c !== null && now >= d.wctemp_c) cls = "warn";
  const m = meter(now === null ? 0 : now / crit, cls, d.wctemp_c ? [d.wctemp_c / crit] : []);
  m.setAttribute("aria-label", "temperature " + (now ?? "unknown") + " °C; " + limits);
  return [row("Temperature", (now === null ? "–" : now + " °C") + " (" + limits + ")", cls), m];
}

function wearBlock(d, w) {
  const s = d.latest;
  if (!w) return [row("Written", s ? fmtBytes(s.data_written_bytes) : "–")];
  const rated = w.rating.rated_bytes;
  const out = [];
  if (rated) {
    const frac = num(w.bytes_written) / rated;
    const cls = frac >= 1 ? "bad" : frac >= 0.8 ? "warn" : "";
    out.push(row("Written", fmtBytes(w.bytes_written) + " of " + fmtBytes(rated, true) + " rated (" + (frac * 100).toFixed(1) + " %)", cls));
    const m = meter(frac, cls, [0.8, 0.9]);
    m.setAttribute("aria-label", "written " + (frac * 100).toFixed(1) + " % of the rated TBW");
    out.push(m);
    out.push(row("Rated TBW reached", w.tbw_reached ? "already" : w.tbw_date ? "≈ " + fmtDate(w.tbw_date) + " (" + w.projection_basis + " rate)" : w.projection_basis ? "not at the current rate" : "needs more history", w.tbw_reached ? "bad" : ""));
  } else {
    out.push(row("Written", fmtBytes(w.bytes_written) + " (rated TBW unknown: set rated_tbw)"));
  }
  return out;
}

function card(d, extra) {
  const s = d.latest;
  const h = extra.health || health(d, extra.wear, extra.alerts);
  const c = el("article", { class: "card", "data-device": d.id },
    el("h2", {}, el("a", { href: "#/drive/" + d.id }, d.model), d.demo === true ? demoBadge() : null, badge(h)),
    el("div", { class: "id" }, (d.name ? d.name + " · " : "") + "serial " + d.serial + " · firmware " + d.firmware),
    ...tempBlock(d),
    ...wearBlock(d, extra.wear),
    row("% used", s ? s.percent_used + " %" + (extra.wear && extra.wear.percent_used_100_date ? " (100 % ≈ " + fmtDate(extra.wear.percent_used_100_date) + ")" : "") : "–",
      s && s.percent_used >= 80 ? "warn" : ""),
    row("Spare", s ? s.avail_spare + " % (threshold " + s.spare_thresh + " %)" : "–", s && s.avail_spare < s.spare_thresh ? "bad" : ""),
    row("Throttle events, 24 h", extra.events === null ? el("span", { class: "na" }, "not available") :
      extra.events + (extra.throttling ? " (" + extra.throttling + " now)" : ""), extra.throttling === "heavy" ? "bad" : extra.events ? "warn" : ""),
    row("Last probe", extra.probe === null ? el("span", { class: "na" }, "not available") : extra.probe ?? "…"),
    el("a", { class: "btn", href: "#/drive/" + d.id }, "Charts and history →"),
  );
  return c;
}

// The optional endpoints (events, alerts, probes) may not exist: null then.
async function optional(path) {
  try {
    const r = await api(path);
    return r.ok ? r.body : null;
  } catch (e) {
    return null;
  }
}

// MB/s of a finished probe run: bytes moved over its duration.
function runMBps(r) {
  if (!r.ended) return null;
  const s = (Date.parse(r.ended) - r.started_ms) / 1000;
  return s > 0 ? (num(r.bytes_read) + num(r.bytes_written)) / s / 1e6 : null;
}

function lastProbeText(p) {
  const last = p.probes && p.probes[0]; // newest first
  if (!last) return "none yet";
  const mbps = runMBps(last);
  return last.preset + " · " + last.state + (mbps !== null ? " · " + fmtMBps(mbps) : "") + " · " + fmtTime(last.started);
}

// ---- overview: data ------------------------------------------------------

// Run fn over items, at most n at a time (the daemon serves a few threads; 64
// drives must not become 128 requests at once). Return: the results in order.
async function pool(items, n, fn) {
  const out = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const k = next++;
      out[k] = await fn(items[k]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  return out;
}

const THROTTLE_KINDS = new Set(["light", "heavy"]);
const EXTRAS_MS = 60000; // wear and events change slowly: fetched once a minute

// What the overview shows of one drive beyond GET /devices: wear, the last 24 h of
// throttling, and (cards only) the last probe.
async function fetchExtra(d, withProbe) {
  const from = new Date(Date.now() - 86400000).toISOString();
  const [wear, ev, pr] = await Promise.all([
    d.latest ? optional("/api/v1/devices/" + d.id + "/wear") : null,
    optional("/api/v1/devices/" + d.id + "/events?from=" + encodeURIComponent(from)),
    withProbe ? optional("/api/v1/devices/" + d.id + "/probes?limit=1") : undefined,
  ]);
  const throttles = ev ? ev.events.filter((e) => THROTTLE_KINDS.has(e.kind)) : null;
  const open = throttles ? throttles.filter((e) => e.ongoing) : [];
  return {
    wear,
    events: throttles ? throttles.length : null,
    throttling: open.some((e) => e.kind === "heavy") ? "heavy" : open.length ? "light" : null,
    probe: pr === undefined ? undefined : pr ? lastProbeText(pr) : null,
  };
}

// GET /devices and /alerts on every tick; each drive's extras once a minute (or
// when the cards need the probes the table did not ask for).
async function loadOverview(gen, live) {
  const [r, alerts] = await Promise.all([api("/api/v1/devices"), optional("/api/v1/alerts")]);
  if (gen !== state.generation) return null;
  if (!r.ok) throw new Error((r.body && r.body.error) || "HTTP " + r.status);
  const devices = r.body.devices;
  const old = state.overview;
  const withProbe = overviewLayout(devices.length) === "cards";
  const stale = !old || !live || Date.now() - old.extrasAt > EXTRAS_MS ||
    devices.some((d) => !old.extras.has(d.id)) || (withProbe && devices.some((d) => old.extras.get(d.id).probe === undefined));
  let extras = old && old.extras;
  if (stale) {
    const list = await pool(devices, 6, (d) => fetchExtra(d, withProbe));
    if (gen !== state.generation) return null;
    extras = new Map(devices.map((d, i) => [d.id, list[i]]));
  }
  for (const d of devices) {
    const x = extras.get(d.id);
    x.alerts = alerts ? alerts.active.filter((a) => a.device_id === d.id) : [];
    x.health = health(d, x.wear, x.alerts);
  }
  state.overview = { devices, extras, extrasAt: stale ? Date.now() : old.extrasAt };
  return state.overview;
}

async function renderOverview(gen, live) {
  const o = await loadOverview(gen, live);
  if (!o) return;
  drawOverview();
}

// ---- overview: table and cards -------------------------------------------

const HOT_MARGIN_C = 5; // "hot": within this many °C of WCTEMP (or above it)
const HEALTH_RANK = { ok: 0, unknown: 1, offline: 2, warning: 3, critical: 4 };

function overviewLayout(n) {
  const saved = localStorage.getItem("nvmond.layout");
  return saved === "table" || saved === "cards" ? saved : n > 8 ? "table" : "cards";
}

function isHot(d) {
  const t = d.latest ? d.latest.temperature_c : null;
  return t !== null && d.wctemp_c !== null && d.wctemp_c !== undefined && t >= d.wctemp_c - HOT_MARGIN_C;
}

// Not ok, throttling now, hot, or offline.
function hasProblem(d, x) {
  return x.health.level !== "ok" || x.throttling !== null || isHot(d) || !d.online;
}

// Bytes per day at the longest complete window the wear endpoint knows, else the longest known.
function writeRate(w) {
  if (!w || !w.rates) return null;
  const known = ["7d", "30d", "1d"].map((k) => w.rates[k]).filter((r) => r && r.known);
  const best = known.find((r) => r.complete) || known[0];
  return best ? num(best.bytes_per_day) : null;
}

function tbwPercent(w) {
  return w && w.rating && w.rating.rated_bytes ? num(w.bytes_written) / w.rating.rated_bytes * 100 : null;
}

// The sortable columns: key → value (null sorts last whatever the direction).
const SORTS = {
  name: { label: "Drive", value: (d) => (d.name || "") + " " + d.model, dir: 1 },
  health: { label: "Health", value: (d, x) => HEALTH_RANK[x.health.level], dir: -1 },
  temp: { label: "Temperature", value: (d) => (d.latest ? d.latest.temperature_c : null), dir: -1 },
  used: { label: "% used", value: (d) => (d.latest ? d.latest.percent_used : null), dir: -1 },
  rate: { label: "Written / day", value: (d, x) => writeRate(x.wear), dir: -1 },
  tbw: { label: "TBW", value: (d, x) => tbwPercent(x.wear), dir: -1 },
};

function sortDevices(devices, extras, sort) {
  const col = SORTS[sort.key] || SORTS.health;
  const key = (d) => col.value(d, extras.get(d.id));
  return devices.slice().sort((a, b) => {
    const va = key(a), vb = key(b);
    if (va === null || va === undefined || vb === null || vb === undefined)
      return (va === null || va === undefined) - (vb === null || vb === undefined) || a.id - b.id;
    const c = typeof va === "string" ? va.localeCompare(vb) : va - vb;
    return c * sort.dir || a.id - b.id;
  });
}

function fmtAgo(iso) {
  if (!iso) return "never";
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (s < 90) return s + " s ago";
  if (s < 5400) return Math.round(s / 60) + " min ago";
  if (s < 2 * 86400) return Math.round(s / 3600) + " h ago";
  return fmtTime(iso);
}

function fmtPercent(v, digits) {
  return v === null || v === undefined ? "–" : v.toFixed(digits || 0) + " %";
}

function demoBadge() {
  return el("span", { class: "badge demo", title: "simulated drive: demo data, not a real device" }, "demo");
}

function demoBanner(what) {
  return el("p", { class: "demo-banner", role: "note" }, el("strong", {}, "Demo data. "),
    what + " simulated by nvmond (demo mode), not read from a real NVMe controller.");
}

function tempCell(d) {
  const t = d.latest ? d.latest.temperature_c : null;
  if (t === null) return el("td", { class: "num muted" }, "–");
  const w = d.wctemp_c;
  const cls = d.cctemp_c !== null && t >= d.cctemp_c ? "bad" : w !== null && t >= w ? "warn" : isHot(d) ? "warn" : "";
  const margin = w === null ? "WCTEMP unknown" : w - t > 0 ? (w - t) + " below WCTEMP" : t === w ? "at WCTEMP" : (t - w) + " over WCTEMP";
  return el("td", { class: "num", title: "WCTEMP " + (w ?? "–") + " °C · CCTEMP " + (d.cctemp_c ?? "–") + " °C" },
    el("span", { class: cls }, t + " °C"), el("small", { class: "muted" }, margin));
}

function tableRow(d, x) {
  const s = d.latest;
  const rate = writeRate(x.wear), tbw = tbwPercent(x.wear);
  const reasons = x.health.why.join("; ");
  const throttle = x.events === null ? el("span", { class: "na" }, "n/a")
    : x.throttling ? el("span", { class: x.throttling === "heavy" ? "bad" : "warn" }, x.throttling + " now")
    : x.events ? el("span", { class: "warn" }, x.events + " in 24 h") : el("span", { class: "muted" }, "none");
  return el("tr", { "data-device": d.id, "data-health": x.health.level, "data-throttling": x.throttling || "" },
    el("th", { scope: "row", class: "drive" }, el("a", { href: "#/drive/" + d.id }, d.name || "drive " + d.id),
      d.demo === true ? demoBadge() : null, el("small", { class: "muted" }, d.model)),
    el("td", { class: "serial" }, d.serial),
    el("td", { class: "health" }, badge(x.health), x.health.level !== "ok" ? el("small", { class: "muted", title: reasons }, reasons) : null),
    tempCell(d),
    el("td", { class: "num " + (s && s.percent_used >= 80 ? "warn" : "") }, s ? s.percent_used + " %" : "–"),
    el("td", { class: "num", title: rate === null ? "needs more history" : null }, rate === null ? "–" : fmtBytes(rate) + "/day"),
    el("td", { class: "num " + (tbw >= 100 ? "bad" : tbw >= 80 ? "warn" : ""), title: x.wear && !x.wear.rating.rated_bytes ? "rated TBW unknown: set rated_tbw" : null },
      tbw === null ? "–" : fmtPercent(tbw, 1)),
    el("td", {}, throttle),
    el("td", { class: "seen " + (d.online ? "muted" : "bad") }, d.online ? fmtAgo(d.last_seen) : "offline · " + fmtAgo(d.last_seen)));
}

function driveTable(devices, extras) {
  const sort = state.sort;
  const head = ["name", null, "health", "temp", "used", "rate", "tbw", null, null].map((k, i) => {
    const label = k ? SORTS[k].label : ["", "Serial", "", "", "", "", "", "Throttling", "Last seen"][i];
    if (!k) return el("th", { scope: "col", class: ["", "serial", "", "", "", "", "", "", "seen"][i] }, label);
    const active = sort.key === k;
    const b = el("button", { type: "button", class: "sort", "data-sort": k }, label, el("span", { "aria-hidden": "true" }, active ? (sort.dir < 0 ? " ▼" : " ▲") : ""));
    b.addEventListener("click", () => {
      state.sort = { key: k, dir: active ? -sort.dir : SORTS[k].dir };
      localStorage.setItem("nvmond.sort", JSON.stringify(state.sort));
      drawOverview();
    });
    return el("th", { scope: "col", class: ["name", "health"].includes(k) ? "" : "num", "aria-sort": active ? (sort.dir < 0 ? "descending" : "ascending") : "none" }, b);
  });
  const rows = devices.map((d) => tableRow(d, extras.get(d.id)));
  const table = el("table", { class: "drives" }, el("thead", {}, el("tr", {}, head)),
    el("tbody", {}, rows.length ? rows : el("tr", {}, el("td", { colspan: 9, class: "muted" }, "No drive has a problem."))));
  return el("div", { class: "table-wrap" }, table);
}

function overviewToolbar(n, shown, problems, layout) {
  const seg = (key, label) => {
    const b = el("button", { type: "button", id: "layout-" + key, "aria-pressed": layout === key ? "true" : "false" }, label);
    b.addEventListener("click", () => {
      localStorage.setItem("nvmond.layout", key);
      const o = state.overview;
      if (key === "cards" && o.devices.some((d) => o.extras.get(d.id).probe === undefined)) render();
      else drawOverview();
    });
    return b;
  };
  const box = el("input", { type: "checkbox", id: "problems-only", checked: state.problemsOnly });
  box.addEventListener("change", () => {
    state.problemsOnly = box.checked;
    localStorage.setItem("nvmond.problems", box.checked ? "1" : "0");
    drawOverview();
  });
  return el("div", { class: "toolbar" },
    el("div", { class: "ranges", role: "group", "aria-label": "layout" }, seg("table", "Table"), seg("cards", "Cards")),
    el("label", { title: "health not ok, throttling now, within " + HOT_MARGIN_C + " °C of WCTEMP, or offline" },
      box, " Problems only (" + problems + ")"),
    el("span", { class: "muted", id: "shown" }, shown === n ? n + " drives" : "showing " + shown + " of " + n));
}

// Draw the overview from state.overview: no request, so sorting, filtering and
// switching the layout are instant with 64 drives.
function drawOverview() {
  const o = state.overview;
  if (!o) return;
  const main = document.getElementById("view");
  if (!o.devices.length) {
    main.replaceChildren(el("p", {}, "No NVMe devices known yet."));
    setStatus("0 drives · updated " + new Date().toLocaleTimeString());
    return;
  }
  const layout = overviewLayout(o.devices.length);
  const problems = o.devices.filter((d) => hasProblem(d, o.extras.get(d.id)));
  const shown = state.problemsOnly ? problems : o.devices;
  const demo = o.devices.filter((d) => d.demo === true).length;
  const body = layout === "table" ? driveTable(sortDevices(shown, o.extras, state.sort), o.extras)
    : el("section", { class: "cards", "aria-label": "drives" }, shown.map((d) => card(d, o.extras.get(d.id))));
  main.replaceChildren(
    demo ? demoBanner(demo === o.devices.length ? (demo === 1 ? "This drive is" : "All drives here are")
      : demo + " of these " + o.devices.length + " drives " + (demo === 1 ? "is" : "are")) : "",
    overviewToolbar(o.devices.length, shown.length, problems.length, layout),
    layout === "cards" && !shown.length ? el("p", { class: "muted" }, "No drive has a problem.") : body);
  main.dataset.layout = layout;
  main.dataset.renderedMs = performance.now().toFixed(1); // the browser test measures the load with it
  const n = o.devices.length;
  setStatus(n + " drive" + (n === 1 ? "" : "s") + " · " + problems.length + " with problems · updated " + new Date().toLocaleTimeString());
}

// ---- drive page ---------------------------------------------------------

function destroyCharts() {
  for (const c of state.charts) c.destroy();
  state.charts = [];
}

function chartSize(container, height) {
  return { width: Math.max(240, container.clientWidth - 4), height };
}

// Horizontal threshold lines and shaded throttle episodes, drawn under the series.
function overlayPlugin(lines, episodes) {
  return {
    hooks: {
      drawClear: [(u) => {
        const ctx = u.ctx;
        ctx.save();
        ctx.fillStyle = cssVar("--throttle");
        for (const [a, b] of episodes) {
          const x0 = u.valToPos(a, "x", true), x1 = u.valToPos(b, "x", true);
          const l = Math.max(u.bbox.left, x0), r = Math.min(u.bbox.left + u.bbox.width, Math.max(x1, x0 + 2));
          if (r > l) ctx.fillRect(l, u.bbox.top, r - l, u.bbox.height);
        }
        ctx.restore();
      }],
      draw: [(u) => {
        const ctx = u.ctx;
        ctx.save();
        ctx.setLineDash([6, 4]);
        ctx.lineWidth = 1.5;
        for (const { v, color, label, right } of lines) {
          if (v === null || v === undefined) continue;
          const y = u.valToPos(v, "y", true);
          if (y < u.bbox.top || y > u.bbox.top + u.bbox.height) continue;
          ctx.strokeStyle = color;
          ctx.beginPath();
          ctx.moveTo(u.bbox.left, y);
          ctx.lineTo(u.bbox.left + u.bbox.width, y);
          ctx.stroke();
          ctx.fillStyle = color;
          // Two close lines: one label at each end, so they never overlap.
          ctx.textAlign = right ? "right" : "left";
          ctx.textBaseline = "bottom";
          ctx.font = 12 * devicePixelRatio + "px sans-serif";
          ctx.fillText(label, right ? u.bbox.left + u.bbox.width - 4 : u.bbox.left + 4, y - 4);
        }
        ctx.restore();
      }],
    },
  };
}

const SERIES_COLORS = ["#2f81f7", "#a371f7", "#3fb950", "#db61a2", "#e3b341", "#56d4dd", "#f0883e", "#8b949e"];

// Time-axis labels by the tick spacing uPlot picked, in 24-hour local time:
// "14:30" (or "14:30:15" below a minute) with the date under the first tick and
// at midnight; "Mon 3" for single days, "Nov 3" for longer steps; "Jan" for months.
// The year shows under January, at a year change, and under the first tick unless it
// is this year.
const DAY_S = 86400;
function timeLabels(u, splits, axisIdx, space, incr) {
  const md = (x) => x.toLocaleDateString(undefined, { month: "short", day: "numeric" });
  const thisYear = new Date().getFullYear();
  return splits.map((t, i) => {
    const x = new Date(t * 1000), prev = i ? new Date(splits[i - 1] * 1000) : null;
    const newYear = prev ? prev.getFullYear() !== x.getFullYear() : x.getFullYear() !== thisYear;
    if (incr < DAY_S) {
      const hm = x.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", second: incr < 60 ? "2-digit" : undefined, hourCycle: "h23" });
      return !prev || prev.getDate() !== x.getDate() ? hm + "\n" + md(x) : hm;
    }
    let label;
    if (incr < 28 * DAY_S) label = incr <= DAY_S ? x.toLocaleDateString(undefined, { weekday: "short" }) + " " + x.getDate() : md(x);
    else label = x.toLocaleDateString(undefined, { month: "short" });
    return newYear || (incr >= 28 * DAY_S && x.getMonth() === 0) ? label + "\n" + x.getFullYear() : label;
  });
}

// Tick steps by the span shown: hours within 3 days, whole days up to 4 months,
// whole months beyond (uPlot aligns 30-day multiples to calendar months).
const TIME_INCRS = [1, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 14400, 21600, 43200,
  DAY_S, 2 * DAY_S, 3 * DAY_S, 7 * DAY_S, 14 * DAY_S, 30 * DAY_S, 60 * DAY_S, 90 * DAY_S, 180 * DAY_S, 365 * DAY_S];
function timeIncrs(u, axisIdx, min, max) {
  const span = max - min;
  const floor = span > 120 * DAY_S ? 30 * DAY_S : span > 3 * DAY_S ? DAY_S : 0;
  return TIME_INCRS.filter((i) => i >= floor);
}

// Axes in the theme's colours: x in time (or seconds), y with its unit on every tick.
function axes(yFmt, opts) {
  const fg = cssVar("--fg"), grid = cssVar("--line");
  const o = opts || {};
  const y = { stroke: fg, grid: { stroke: grid }, ticks: { stroke: grid }, size: o.ySize || 56 };
  if (yFmt) y.values = (u, splits) => splits.map(yFmt);
  const x = { stroke: fg, grid: { stroke: grid }, ticks: { stroke: grid }, space: 60 };
  x.values = o.xSeconds ? (u, splits) => splits.map((v) => v + " s") : timeLabels;
  if (!o.xSeconds) {
    x.size = 44; // two-line labels
    x.incrs = timeIncrs;
  }
  return [x, y];
}

// Megabytes per second with 3 significant digits: "4970 MB/s", "312 MB/s", "8.41 MB/s".
function fmtMBps(v) {
  return v === null || v === undefined ? "–" : Number(v.toPrecision(3)) + " MB/s";
}

function fmtMBpsTick(v) {
  return v >= 1000 ? Number((v / 1000).toPrecision(3)) + " GB/s" : v + " MB/s";
}

const legendC = (u, v) => v === null || v === undefined ? "–" : v + " °C";
const legendTime = (u, v) => v === null || v === undefined ? "–" :
  new Date(v * 1000).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short", hourCycle: "h23" });

// An axis tick of bytes: "500 GB", "1.5 TB".
function fmtBytesTick(v) {
  if (!v) return "0";
  const units = [["PB", 1e15], ["TB", 1e12], ["GB", 1e9], ["MB", 1e6], ["kB", 1e3]];
  for (const [u, f] of units) if (Math.abs(v) >= f) return Number((v / f).toPrecision(3)) + " " + u;
  return v + " B";
}

// Episodes from the events endpoint, else from the thermal counters rising.
function throttleEpisodes(series, events) {
  if (events) {
    // Only throttling: the temperature events overlap it and would stack the shading.
    return events.filter((e) => THROTTLE_KINDS.has(e.kind))
      .map((e) => [Date.parse(e.start) / 1000, e.end ? Date.parse(e.end) / 1000 : Date.now() / 1000]);
  }
  const out = [];
  const t = series.t, c1 = series.thm_temp1_trans_count, c2 = series.thm_temp2_trans_count;
  for (let i = 1; i < t.length; i++)
    if (c1[i] > c1[i - 1] || c2[i] > c2[i - 1]) out.push([t[i - 1], t[i]]);
  return out;
}

function tempChart(container, dev, series, events) {
  const data = tempData(series);
  const s = [
    { value: legendTime },
    { label: "Composite (avg)", stroke: SERIES_COLORS[0], width: 2, value: legendC },
    { label: "min", stroke: SERIES_COLORS[0] + "88", width: 1, dash: [2, 3], value: legendC },
    { label: "max", stroke: SERIES_COLORS[0] + "88", width: 1, dash: [2, 3], value: legendC },
  ];
  series.sensors.forEach((x, i) => {
    s.push({ label: "Sensor " + x.sensor, stroke: SERIES_COLORS[(i + 1) % SERIES_COLORS.length], width: 1.5, value: legendC });
  });
  const lines = [
    { v: dev.wctemp_c, color: cssVar("--warn"), label: "WCTEMP " + dev.wctemp_c + " °C", right: true },
    { v: dev.cctemp_c, color: cssVar("--bad"), label: "CCTEMP " + dev.cctemp_c + " °C" },
  ];
  const all = data.slice(1).flat().filter((v) => v !== null);
  const hi = Math.max(...all, dev.cctemp_c || 0) + 3;
  const lo = Math.min(...all, hi) - 3;
  const opts = Object.assign(chartSize(container, 260), {
    series: s,
    axes: axes((v) => v + " °C"),
    scales: {
      // From the first point (at most the selected range back) to now, at least a
      // minute: a few points must not stretch the axis over years.
      x: { time: true, range: (u, mn) => {
        const r = RANGES.find((x) => x.key === state.range) || RANGES[1], now = Date.now() / 1000;
        const lo = Math.max(now - r.s, mn == null ? now - r.s : mn);
        return [Math.min(lo, now - 60), now];
      } },
      y: { range: [Math.floor(lo), Math.ceil(hi)] },
    },
    plugins: [overlayPlugin(lines, throttleEpisodes(series, events))],
  });
  return new uPlot(opts, data, container);
}

function writesChart(container, wear) {
  const t = wear.daily.map((d) => Date.parse(d.date + "T12:00:00Z") / 1000);
  const bytes = wear.daily.map((d) => num(d.bytes));
  const opts = Object.assign(chartSize(container, 200), {
    series: [{ value: (u, v) => v == null ? "–" : new Date(v * 1000).toLocaleDateString(undefined, { dateStyle: "medium" }) },
      { label: "written / day", stroke: SERIES_COLORS[2], fill: SERIES_COLORS[2] + "66", paths: uPlot.paths.bars({ size: [0.7, 40] }), points: { show: false }, value: (u, v) => v === null ? "–" : fmtBytes(v) }],
    axes: axes(fmtBytesTick, { ySize: 64 }),
    scales: { x: { time: true }, y: { range: (u, mn, mx) => [0, Math.max(1e9, mx * 1.1)] } },
  });
  return new uPlot(opts, [t, bytes], container);
}

// MB/s of every finished run over time, one series per preset.
function probeChart(container, runs) {
  const list = runs.filter((r) => runMBps(r) !== null).reverse(); // oldest first
  const presets = [...new Set(list.map((r) => r.preset))];
  const data = [list.map((r) => r.started_ms / 1000),
    ...presets.map((pr) => list.map((r) => (r.preset === pr ? runMBps(r) : null)))];
  const opts = Object.assign(chartSize(container, 200), {
    series: [{ value: legendTime }, ...presets.map((pr, i) => ({ label: pr, stroke: SERIES_COLORS[i % SERIES_COLORS.length], width: 1, spanGaps: true, points: { show: true, size: 7 }, value: (u, v) => fmtMBps(v) }))],
    axes: axes(fmtMBpsTick, { ySize: 76 }),
  });
  return new uPlot(opts, data, container);
}

// One run's own series (its longest phase), MB/s per interval, cliffs and dips shaded.
function probeSeriesChart(container, run) {
  const ph = (run.phases || []).filter((p) => p.series && p.series.length)
    .sort((a, b) => b.series.length - a.series.length)[0];
  if (!ph) return null;
  const iv = ph.interval_ms / 1000;
  const t = ph.series.map((p) => p[0] / 1000);
  const mbps = ph.series.map((p) => (p[1] + p[2]) / iv / 1e6);
  const episodes = ph.events.map((e) => [e.start_ms / 1000, e.end_ms / 1000]);
  const opts = Object.assign(chartSize(container, 200), {
    series: [{ label: "s", value: (u, v) => v === null ? "–" : v.toFixed(1) + " s" },
      { label: run.preset + " (" + ph.name + ")", stroke: SERIES_COLORS[4], width: 1.5, value: (u, v) => fmtMBps(v) }],
    axes: axes(fmtMBpsTick, { ySize: 76, xSeconds: true }),
    scales: { x: { time: false } },
    plugins: [overlayPlugin([], episodes)],
  });
  container.dataset.events = ph.events.map((e) => e.kind).join(",");
  return new uPlot(opts, [t, mbps], container);
}

function wearTable(w) {
  const rate = (k) => w.rates[k].known ? fmtBytes(w.rates[k].bytes_per_day) + "/day" + (w.rates[k].complete ? "" : " (partial)") : "–";
  return el("div", {},
    row("Written (lifetime)", fmtBytes(w.bytes_written)),
    row("Of which nvmond probes", fmtBytes(w.probe_bytes_written)),
    row("Rated endurance", w.rating.rated_bytes ? fmtBytes(w.rating.rated_bytes, true) + " (" + w.rating.source + ": " + w.rating.reference + ")" : "unknown: set rated_tbw in [device \"…\"]"),
    row("Write rate 1 d / 7 d / 30 d", rate("1d") + " · " + rate("7d") + " · " + rate("30d")),
    row("Rated TBW reached", w.tbw_reached ? "already" : w.tbw_date ? "≈ " + fmtDate(w.tbw_date) : "–"),
    row("% used", w.percent_used + " %" + (w.percent_used_100_date ? ", 100 % ≈ " + fmtDate(w.percent_used_100_date) : "")),
    row("Unusual write rate", w.unusual_write_rate.active ? "yes: the last day wrote over " + w.unusual_write_rate.factor + "× the 30-day average" : "no", w.unusual_write_rate.active ? "warn" : ""),
  );
}

// POST to a token-guarded endpoint: the token is asked once and kept in this
// browser (localStorage); a 401 forgets it. Return: the api() answer, or null
// when no token was given.
async function authPost(path, body, what) {
  let token = localStorage.getItem("nvmond.token");
  if (!token) {
    token = prompt("API token ([http] token) to " + what + ":");
    if (!token) return null;
    localStorage.setItem("nvmond.token", token);
  }
  const opts = { method: "POST", headers: { Authorization: "Bearer " + token } };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const r = await api(path, opts);
  if (r.status === 401) localStorage.removeItem("nvmond.token");
  return r;
}

async function ackAlert(id, btn) {
  btn.disabled = true;
  const r = await authPost("/api/v1/alerts/" + id + "/ack", undefined, "acknowledge alerts");
  if (!r || !r.ok) {
    btn.disabled = false;
    if (r) showError("acknowledge failed: " + ((r.body && r.body.error) || r.status));
    return;
  }
  render();
}

// ---- running a probe from the drive page --------------------------------

function stopProbeWatch() {
  clearTimeout(state.probeTimer);
  state.probeTimer = null;
}

// "seq1m-q8 · write (2 of 2) · 41 % · 4968 MB/s · 13.8 GB written"
function progressText(run) {
  const p = run.progress;
  if (!p) return run.preset + " · starting";
  return run.preset + " · " + p.name + (p.phases > 1 ? " (" + (p.phase + 1) + " of " + p.phases + ")" : "") +
    " · " + Math.round(p.fraction * 100) + " % · " + fmtMBps(p.mb_per_s) + " · " +
    fmtBytes(p.bytes_read) + " read, " + fmtBytes(p.bytes_written) + " written";
}

// Follow probe @id once a second until it ends, then rebuild the page.
function watchProbe(gen, id, box) {
  const tick = async () => {
    const r = await optional("/api/v1/probes/" + id);
    if (gen !== state.generation) return;
    if (!r || r.state !== "running") {
      stopProbeWatch();
      render();
      return;
    }
    const bar = box.querySelector(".meter > span");
    bar.style.width = (r.progress ? r.progress.fraction * 100 : 0).toFixed(1) + "%";
    box.querySelector(".probe-progress").textContent = progressText(r);
    box.dataset.fraction = r.progress ? r.progress.fraction : 0;
    state.probeTimer = setTimeout(tick, 1000);
  };
  stopProbeWatch();
  tick();
}

// What runs on the drive now, with Cancel; or a preset picker with Start.
function probeControl(gen, d, pr) {
  const box = el("div", { id: "probe-control" });
  if (pr.running) {
    const cancel = el("button", { type: "button" }, "Cancel");
    cancel.addEventListener("click", async () => {
      cancel.disabled = true;
      const r = await authPost("/api/v1/probes/" + pr.running + "/cancel", undefined, "cancel probes");
      if (r && !r.ok && r.status !== 409) showError("cancel failed: " + ((r.body && r.body.error) || r.status));
      if (!r || !r.ok) cancel.disabled = false;
    });
    box.append(el("p", { class: "probe-progress" }, "probe " + pr.running + " running"),
      meter(0, "", []),
      el("p", {}, cancel));
    watchProbe(gen, pr.running, box);
    return box;
  }
  const pick = el("select", { "aria-label": "preset" },
    ...pr.presets.map((p) => el("option", { value: p }, p)));
  const start = el("button", { type: "button" }, "Start");
  start.addEventListener("click", async () => {
    start.disabled = true;
    const r = await authPost("/api/v1/devices/" + d.id + "/probes", { preset: pick.value }, "start probes");
    start.disabled = false;
    if (!r) return;
    if (!r.ok) {
      showError("probe not started: " + ((r.body && r.body.error) || "HTTP " + r.status));
      return;
    }
    showError("");
    render();
  });
  const b = pr.budget;
  box.append(el("p", { class: "probe-start" }, pick, " ", start),
    el("p", { class: "legend-note" }, "Write budget used: " + fmtBytes(b.used_day_bytes) + " of " +
      fmtBytes(b.day_bytes, true) + " today, " + fmtBytes(b.used_month_bytes) + " of " + fmtBytes(b.month_bytes, true) +
      " in 30 days" + (pr.probe_dir ? " · probe file in " + pr.probe_dir : " · no probe_dir: raw namespace, read only")));
  return box;
}

const EVENT_LABELS = {
  light: "light throttling (T1)",
  heavy: "heavy throttling (T2)",
  warning_temp_time: "time over WCTEMP rose",
  critical_temp_time: "time over CCTEMP rose",
  critical_warning_temperature: "temperature warning bit",
  over_wctemp: "over WCTEMP",
  over_cctemp: "over CCTEMP",
};

function eventsTable(events, alerts) {
  if (events === null && alerts === null) return el("p", { class: "na" }, "not available");
  const rows = [];
  for (const a of alerts || []) {
    const ack = a.acked ? "acknowledged " + fmtTime(a.acked) : a.state === "firing" ? null : "–";
    const btn = el("button", { type: "button" }, "Acknowledge");
    btn.addEventListener("click", () => ackAlert(a.id, btn));
    rows.push(el("tr", {}, el("td", {}, fmtTime(a.started)), el("td", {}, "alert"),
      el("td", { class: a.severity === "critical" ? "bad" : a.severity === "warning" ? "warn" : "" }, a.severity + " · " + a.state),
      el("td", {}, a.message || a.rule), el("td", {}, ack ?? btn)));
  }
  for (const e of events || []) {
    rows.push(el("tr", {}, el("td", {}, fmtTime(e.start)), el("td", {}, THROTTLE_KINDS.has(e.kind) ? "throttle" : "temperature"),
      el("td", { class: e.kind === "heavy" || e.kind === "over_cctemp" ? "bad" : "warn" }, (EVENT_LABELS[e.kind] || e.kind) + (e.ongoing ? " · ongoing" : "")),
      el("td", {}, fmtDuration(e.duration_s) + ", " + e.transitions + " transitions" + (e.peak_c !== null ? ", peak " + e.peak_c + " °C" : "")),
      el("td", {}, "")));
  }
  if (!rows.length) return el("p", { class: "muted" }, "No events or alerts in this range.");
  return el("div", { class: "table-wrap" }, el("table", {},
    el("thead", {}, el("tr", {}, ["Time", "Type", "Severity / state", "Details", ""].map((x) => el("th", { scope: "col" }, x)))),
    el("tbody", {}, rows)));
}

// An empty chart says why it is empty and when it fills.
function emptyChart(what, why) {
  return el("div", { class: "empty-chart" }, el("p", {}, el("strong", {}, what), " — " + why));
}

// The verdict at the top of the drive page: health and its reasons, or what was checked.
function verdict(d, h, wear, events, rangeKey) {
  const cls = { ok: "ok", warning: "warn", critical: "bad" }[h.level] || "muted";
  const s = d.latest;
  let text;
  if (h.level === "ok") {
    const parts = [];
    if (s.temperature_c !== null) parts.push(s.temperature_c + " °C" + (d.wctemp_c !== null ? " (" + (d.wctemp_c - s.temperature_c) + " °C below WCTEMP)" : ""));
    parts.push(s.percent_used + " % used", "spare " + s.avail_spare + " %");
    const tbw = tbwPercent(wear);
    if (tbw !== null) parts.push(tbw.toFixed(1) + " % of rated TBW");
    text = "No problem found: " + parts.join(", ") + ".";
  } else {
    text = h.why.join("; ") + ".";
  }
  const throttles = events ? events.filter((e) => THROTTLE_KINDS.has(e.kind)) : [];
  if (throttles.length)
    text += " " + throttles.length + " throttle episode" + (throttles.length === 1 ? "" : "s") + " in the last " + RANGE_WORDS[rangeKey] +
      (throttles.some((e) => e.ongoing) ? ", one now." : ".");
  return el("section", { class: "verdict " + cls, id: "verdict", "aria-label": "health verdict", "data-health": h.level },
    el("span", { class: "verdict-level" }, "Health: " + (h.level === "ok" ? "OK" : h.level)), el("span", { class: "verdict-why" }, text));
}

function rangeButtons() {
  return el("div", { class: "ranges", role: "group", "aria-label": "time range" }, RANGES.map((r) => {
    const b = el("button", { type: "button", "aria-pressed": r.key === state.range ? "true" : "false", "data-range": r.key }, r.label);
    b.addEventListener("click", () => {
      state.range = r.key;
      localStorage.setItem("nvmond.range", r.key);
      render();
    });
    return b;
  }));
}

// The temperature data of a series answer, in the chart's column order.
function tempData(series) {
  return [series.t, series.temp_c.avg, series.temp_c.min, series.temp_c.max, ...series.sensors.map((x) => x.avg)];
}

// A live tick on the drive page: new points into the temperature chart, nothing
// rebuilt (no flicker, the scroll position stays). Return: false when the page must
// be rebuilt instead (the chart is missing or its series changed).
async function liveDrive(gen, id) {
  const chart = state.charts.find((c) => c.root.parentElement.id === "chart-temp");
  if (!chart || state.liveTicks % 6 === 0) return false; // a full refresh every minute
  const range = RANGES.find((r) => r.key === state.range) || RANGES[1];
  const to = Date.now(), from = to - range.s * 1000;
  const sr = await api("/api/v1/devices/" + id + "/series?from=" + from + "&to=" + to + "&points=" + CHART_POINTS);
  if (gen !== state.generation) return true;
  if (!sr.ok) throw new Error((sr.body && sr.body.error) || "HTTP " + sr.status);
  const data = tempData(sr.body);
  if (data.length !== chart.series.length) return false;
  chart.setData(data);
  setStatus(range.label + " · updated " + new Date().toLocaleTimeString());
  return true;
}

async function renderDrive(gen, id, live) {
  if (live) {
    state.liveTicks = (state.liveTicks || 0) + 1;
    if (await liveDrive(gen, id)) return;
  } else {
    state.liveTicks = 0;
  }
  const range = RANGES.find((r) => r.key === state.range) || RANGES[1];
  const to = Date.now(), from = to - range.s * 1000;
  const q = "from=" + from + "&to=" + to;
  const [dr, sr, wear, ev, al, pr] = await Promise.all([
    api("/api/v1/devices/" + id),
    api("/api/v1/devices/" + id + "/series?" + q + "&points=" + CHART_POINTS),
    optional("/api/v1/devices/" + id + "/wear"),
    optional("/api/v1/devices/" + id + "/events?" + q),
    optional("/api/v1/alerts"),
    optional("/api/v1/devices/" + id + "/probes?limit=200"),
  ]);
  // The newest finished run, with its series.
  const lastRun = pr && pr.probes.find((r) => r.ended);
  const runDetail = lastRun ? await optional("/api/v1/probes/" + lastRun.id) : null;
  if (gen !== state.generation) return;
  if (!dr.ok) throw new Error((dr.body && dr.body.error) || "HTTP " + dr.status);
  if (!sr.ok) throw new Error((sr.body && sr.body.error) || "HTTP " + sr.status);
  const d = dr.body, series = sr.body;
  const events = ev ? ev.events : null;
  // Firing alerts are in both lists.
  const seen = new Set();
  const alerts = al ? al.active.concat(al.history).filter((a) => a.device_id === d.id && !seen.has(a.id) && seen.add(a.id)) : null;

  const tempBox = el("div", { class: "chart", id: "chart-temp" });
  const writesBox = el("div", { class: "chart", id: "chart-writes" });
  const probeBox = el("div", { class: "chart", id: "chart-probes" });
  const runBox = el("div", { class: "chart", id: "chart-probe-run" });
  const h = health(d, wear, al ? al.active.filter((a) => a.device_id === d.id) : []);
  const view = el("div", {},
    d.demo === true ? demoBanner("This drive is") : "",
    el("div", { class: "drive-head", "data-device": d.id },
      el("a", { href: "#/" }, "← all drives"),
      el("h2", {}, d.model), d.demo === true ? demoBadge() : null,
      el("span", { class: "muted" }, "serial " + d.serial + " · firmware " + d.firmware + (d.name ? " · " + d.name : "")),
      rangeButtons()),
    verdict(d, h, wear, events, range.key),
    el("div", { class: "panels" },
      el("section", { class: "panel wide", "aria-label": "temperature" },
        el("h3", {}, "Temperature (°C)"),
        series.points ? tempBox : emptyChart(d.latest ? "No samples in this range yet" : "No sample of this drive yet",
          "nvmond polls every drive every 10 s by default ([daemon] poll_interval); points appear after the first polls."),
        el("p", { class: "legend-note" }, series.points + (series.points === 1 ? " point · " : " points · ") +
          (series.resolution_s ? (series.resolution_s === 60 ? "1-minute" : "1-hour") + " rollups" : "raw samples") +
          ", " + fmtDuration(series.step_s) + " per point · shaded: throttling · dashed: WCTEMP / CCTEMP")),
      el("section", { class: "panel", "aria-label": "writes per day" },
        el("h3", {}, "Writes per day (30 days)"),
        !wear ? el("p", { class: "na" }, "not available")
          : wear.daily.some((x) => num(x.bytes) > 0) ? writesBox
          : emptyChart("No writes counted in the last 30 days yet",
            "a day's writes are the growth of the drive's written-data counter between nvmond's samples on that day.")),
      el("section", { class: "panel", "aria-label": "wear" },
        el("h3", {}, "Wear"),
        wear ? wearTable(wear) : el("p", { class: "na" }, "not available")),
      el("section", { class: "panel", "aria-label": "probes" },
        el("h3", {}, "Throughput probes (MB/s per preset)"),
        pr ? probeBox : el("p", { class: "na" }, "not available")),
      pr ? el("section", { class: "panel", "aria-label": "run a probe" },
        el("h3", {}, pr.running ? "Probe running" : "Run a probe"),
        probeControl(gen, d, pr)) : null,
      el("section", { class: "panel", "aria-label": "last probe" },
        el("h3", {}, "Last probe" + (lastRun ? ": " + lastRun.preset + ", " + fmtTime(lastRun.started) : "")),
        runDetail ? runBox : el("p", { class: pr ? "muted" : "na" }, pr ? "No probe has finished yet." : "not available"),
        runDetail ? el("p", { class: "legend-note" }, "seconds since the phase started · shaded: " +
          (runDetail.phases.flatMap((p) => p.events).map((e) => e.kind + " (" + e.cause + ")").join(", ") || "no cliff or dip")) : null),
      el("section", { class: "panel wide", "aria-label": "events and alerts" },
        el("h3", {}, "Events and alerts"),
        eventsTable(events, alerts))));

  destroyCharts();
  document.getElementById("view").replaceChildren(view);
  if (series.points) state.charts.push(tempChart(tempBox, d, series, events));
  if (wear && writesBox.isConnected) state.charts.push(writesChart(writesBox, wear));
  if (pr && pr.probes.some((r) => r.ended)) state.charts.push(probeChart(probeBox, pr.probes));
  else if (pr) probeBox.replaceChildren(emptyChart("No probe has run yet",
    "start one under Run a probe, or schedule them with probe_schedule in [probes] or [device \"…\"]."));
  const rc = runDetail && probeSeriesChart(runBox, runDetail);
  if (rc) state.charts.push(rc);
  else if (runDetail) runBox.replaceChildren(el("p", { class: "muted" }, "This run has no series."));
  document.title = d.model + " · nvmond";
  setStatus(range.label + " · updated " + new Date().toLocaleTimeString());
}

// ---- routing and live updates ------------------------------------------

function route() {
  const m = location.hash.match(/^#\/drive\/(\d+)$/);
  return m ? { view: "drive", id: Number(m[1]) } : { view: "overview" };
}

async function render(live) {
  const r = route();
  const gen = live ? state.generation : ++state.generation;
  clearTimeout(state.timer);
  if (!live) stopProbeWatch();
  try {
    if (r.view === "drive") await renderDrive(gen, r.id, live);
    else {
      destroyCharts();
      document.title = "nvmond";
      await renderOverview(gen, live);
    }
    showError("");
  } catch (e) {
    if (gen === state.generation) showError("Cannot reach nvmond: " + e.message);
  }
  if (gen === state.generation) state.timer = setTimeout(() => render(true), LIVE_MS);
}

function resizeCharts() {
  for (const c of state.charts) c.setSize(chartSize(c.root.parentElement, c.height));
}

applyTheme(localStorage.getItem("nvmond.theme"));
document.getElementById("theme").addEventListener("click", toggleTheme);
matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => {
  if (!localStorage.getItem("nvmond.theme")) { applyTheme(null); render(); }
});
window.addEventListener("hashchange", () => render());
window.addEventListener("resize", resizeCharts);
render();
