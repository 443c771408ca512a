// nvmond dashboard: a drive's figures (hot, write rate, TBW, a run's MB/s) and the
// pieces of a drive that the overview and the drive page both show (badge, names,
// demo marks, notes).
import { el } from "./dom.js";
import { num } from "./format.js";

// A drive's health is the daemon's (GET /api/v1/devices "health": {state, why};
// docs/dashboard.md#health): the same rule as nvmond status and /metrics.
export const HOT_MARGIN_C = 5; // "hot": within this many °C of WCTEMP (or above it)
export const HEALTH_RANK = { ok: 0, unknown: 1, offline: 2, warning: 3, critical: 4 };
export const THROTTLE_KINDS = new Set(["light", "heavy"]);

export function isHot(d) {
  const t = d.latest ? d.latest.temperature_c : null;
  return t !== null && d.wctemp_c !== null && d.wctemp_c !== undefined && t >= d.wctemp_c - HOT_MARGIN_C;
}

// Bytes per day at the longest complete window the wear endpoint knows, else the longest known.
export function writeRate(w) {
  if (!w || !w.rates) return null;
  const known = ["7d", "30d", "1d"].map((k) => w.rates[k]).filter((r) => r && r.known);
  const best = known.find((r) => r.complete) || known[0];
  return best ? num(best.bytes_per_day) : null;
}

export function tbwPercent(w) {
  return w && w.rating && w.rating.rated_bytes ? num(w.bytes_written) / w.rating.rated_bytes * 100 : null;
}

// MB/s of a finished probe run: bytes moved over its duration.
export function runMBps(r) {
  if (!r.ended) return null;
  const s = (Date.parse(r.ended) - r.started_ms) / 1000;
  return s > 0 ? (num(r.bytes_read) + num(r.bytes_written)) / s / 1e6 : null;
}

// A drive's health (its "health" in GET /devices) as a badge, the reasons in its tooltip.
export function badge(h) {
  const cls = { ok: "ok", warning: "warn", critical: "bad", offline: "muted", unknown: "muted" }[h.state];
  return el("span", { class: "badge " + cls, title: h.why.join("; ") || "healthy" }, h.state);
}

// What the operator calls the drive ([device] label and location), "" when neither is set.
export function driveNames(d) {
  return [d.label, d.location].filter((x) => x).join(" · ");
}

// The label and location under a drive's name, or nothing.
export function namesLine(d, tag) {
  const text = driveNames(d);
  return text ? el(tag || "div", { class: "names", title: "[device] label and location" }, text) : null;
}

export function demoBadge() {
  return el("span", { class: "badge demo", title: "simulated drive: demo data, not a real device" }, "demo");
}

export function demoBanner(what) {
  return el("p", { class: "demo-banner", role: "note" }, el("strong", {}, "Demo data. "),
    what + " simulated by nvmond (demo mode), not read from a real NVMe controller.");
}

// The drive's notes (GET /devices: a sensor above WCTEMP while the composite is
// below it, an implausible sensor): facts worth knowing, not problems, so they
// never change the health level. Null when there are none.
export function driveNotes(d, compact) {
  const notes = d.notes || [];
  if (!notes.length) return null;
  return el("ul", { class: "notes" + (compact ? " compact" : ""), "aria-label": "notes on this drive" },
    notes.map((n) => el("li", { "data-kind": n.kind, "data-sensor": String(n.sensor) },
      el("strong", {}, n.kind === "sensor_implausible" ? "Implausible sensor: " : "Note: "), n.message)));
}

// "Sensor 2", marked when the daemon flags it implausible (stuck, beyond CCTEMP).
export function sensorLabel(d, n) {
  const s = (d.sensors || []).find((x) => x.sensor === n);
  return "Sensor " + n + (s && s.implausible ? " (implausible: " + s.implausible_reason + ")" : "");
}
