// nvmond dashboard: the state shared by its scripts, DOM helpers, the theme and a
// drive's figures. Plain browser JavaScript, no build step: index.html loads
// format.js, api.js, this file, charts.js, overview.js, fleet.js, drive.js and app.js in that
// order as classic scripts sharing one global scope. Charts by uPlot (vendor/, copied
// from the npm package pinned in web/package.json). All text goes in through textContent.
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
const THROTTLE_KINDS = new Set(["light", "heavy"]);

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

// ---- health and wear figures -------------------------------------------

// A drive's health is the daemon's (GET /api/v1/devices "health": {state, why};
// docs/dashboard.md#health): the same rule as nvmond status and /metrics.
const HOT_MARGIN_C = 5; // "hot": within this many °C of WCTEMP (or above it)
const HEALTH_RANK = { ok: 0, unknown: 1, offline: 2, warning: 3, critical: 4 };

function isHot(d) {
  const t = d.latest ? d.latest.temperature_c : null;
  return t !== null && d.wctemp_c !== null && d.wctemp_c !== undefined && t >= d.wctemp_c - HOT_MARGIN_C;
}

// Not ok, a risk verdict other than ok (drivelogs.js), throttling now, hot, or offline.
function hasProblem(d, x) {
  return d.health.state !== "ok" || riskNeedsLook(d) || x.throttling !== null || isHot(d) || !d.online;
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

// MB/s of a finished probe run: bytes moved over its duration.
function runMBps(r) {
  if (!r.ended) return null;
  const s = (Date.parse(r.ended) - r.started_ms) / 1000;
  return s > 0 ? (num(r.bytes_read) + num(r.bytes_written)) / s / 1e6 : null;
}

// ---- shared pieces of the pages ----------------------------------------

// A drive's health (its "health" in GET /devices) as a badge, the reasons in its tooltip.
function badge(h) {
  const cls = { ok: "ok", warning: "warn", critical: "bad", offline: "muted", unknown: "muted" }[h.state];
  return el("span", { class: "badge " + cls, title: h.why.join("; ") || "healthy" }, h.state);
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

// What the operator calls the drive ([device] label and location), "" when neither is set.
function driveNames(d) {
  return [d.label, d.location].filter((x) => x).join(" · ");
}

// The label and location under a drive's name, or nothing.
function namesLine(d, tag) {
  const text = driveNames(d);
  return text ? el(tag || "div", { class: "names", title: "[device] label and location" }, text) : null;
}

function demoBadge() {
  return el("span", { class: "badge demo", title: "simulated drive: demo data, not a real device" }, "demo");
}

function demoBanner(what) {
  return el("p", { class: "demo-banner", role: "note" }, el("strong", {}, "Demo data. "),
    what + " simulated by nvmond (demo mode), not read from a real NVMe controller.");
}

// The drive's notes (GET /devices: a sensor above WCTEMP while the composite is
// below it, an implausible sensor): facts worth knowing, not problems, so they
// never change the health level. Null when there are none.
function driveNotes(d, compact) {
  const notes = d.notes || [];
  if (!notes.length) return null;
  return el("ul", { class: "notes" + (compact ? " compact" : ""), "aria-label": "notes on this drive" },
    notes.map((n) => el("li", { "data-kind": n.kind, "data-sensor": String(n.sensor) },
      el("strong", {}, n.kind === "sensor_implausible" ? "Implausible sensor: " : "Note: "), n.message)));
}

// "Sensor 2", marked when the daemon flags it implausible (stuck, beyond CCTEMP).
function sensorLabel(d, n) {
  const s = (d.sensors || []).find((x) => x.sensor === n);
  return "Sensor " + n + (s && s.implausible ? " (implausible: " + s.implausible_reason + ")" : "");
}

// An empty chart says why it is empty and when it fills.
function emptyChart(what, why) {
  return el("div", { class: "empty-chart" }, el("p", {}, el("strong", {}, what), " — " + why));
}
