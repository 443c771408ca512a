// nvmond dashboard, drive page: the drive's history. Alerts and events in one table
// (throttling, temperature, the drive's own event log), with Acknowledge; the error
// log entries read in the range, with their class.
import { authPost } from "./api.js";
import { el, showError } from "./dom.js";
import { pelEventRow } from "./drivelogs.js";
import { THROTTLE_KINDS } from "./figures.js";
import { fmtDuration, fmtTime, num } from "./format.js";
import { requestRender } from "./state.js";

async function ackAlert(id, btn) {
  btn.disabled = true;
  const r = await authPost("/api/v1/alerts/" + id + "/ack", undefined, "acknowledge alerts");
  if (!r || !r.ok) {
    btn.disabled = false;
    if (r) showError("acknowledge failed: " + ((r.body && r.body.error) || r.status));
    return;
  }
  requestRender();
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

// Alerts and events in one table, newest first (the events endpoint answers oldest
// first, the alerts newest first). A phone shows each row as a short block (CSS).
function eventsTable(events, alerts) {
  if (events === null && alerts === null) return el("p", { class: "na" }, "not available");
  const rows = [];
  const at = [];
  for (const a of alerts || []) {
    at.push(Date.parse(a.started));
    const ack = a.acked ? "acknowledged " + fmtTime(a.acked) : a.state === "firing" ? null : "";
    const btn = el("button", { type: "button" }, "Acknowledge");
    btn.addEventListener("click", () => ackAlert(a.id, btn));
    rows.push(el("tr", {}, el("td", { class: "time" }, fmtTime(a.started)), el("td", {}, "alert"),
      el("td", { class: a.severity === "critical" ? "bad" : a.severity === "warning" ? "warn" : "" }, a.severity + " · " + a.state),
      el("td", { class: "details" }, a.message || a.rule), el("td", { class: "action" }, ack ?? btn)));
  }
  for (const e of events || []) {
    at.push(Date.parse(e.start));
    if (e.source === "pel") { rows.push(pelEventRow(e)); continue; }
    // An ongoing temperature event answers duration 0: count from its start. Transitions
    // are T1/T2 changes, which only throttling has.
    const secs = e.ongoing ? Math.max(e.duration_s || 0, Math.round((Date.now() - Date.parse(e.start)) / 1000)) : e.duration_s;
    const moves = !THROTTLE_KINDS.has(e.kind) ? "" : ", " + e.transitions + (e.transitions === 1 ? " transition" : " transitions");
    rows.push(el("tr", {}, el("td", { class: "time" }, fmtTime(e.start)), el("td", {}, THROTTLE_KINDS.has(e.kind) ? "throttle" : "temperature"),
      el("td", { class: e.kind === "heavy" || e.kind === "over_cctemp" ? "bad" : "warn" }, (EVENT_LABELS[e.kind] || e.kind) + (e.ongoing ? " · ongoing" : "")),
      el("td", { class: "details" }, fmtDuration(secs) + (e.ongoing ? " so far" : "") + moves + (e.peak_c !== null ? ", peak " + e.peak_c + " °C" : "")),
      el("td", { class: "action" }, "")));
  }
  if (!rows.length) return el("p", { class: "muted" }, "No events or alerts in this range.");
  const order = rows.map((r, i) => i).sort((i, j) => at[j] - at[i] || i - j);
  return el("div", { class: "table-wrap" }, el("table", { class: "events" },
    el("thead", {}, el("tr", {}, ["Time", "Type", "Severity / state", "Details", ""].map((x) => el("th", { scope: "col" }, x)))),
    el("tbody", {}, order.map((i) => rows[i]))));
}

// The error log entries read in the range, newest first, with their class: benign
// ones (the host's own refused admin commands) greyed, media / io ones highlighted.
// A phone shows each row as a short block, like the events (CSS).
const ERROR_CLASSES = ["benign", "media", "io", "other"];
const ERRORS_SHOWN = 200;
function errorsTable(er, total) {
  if (!er) return el("p", { class: "na" }, "not available");
  const c = er.counts;
  const summary = el("p", { class: "legend-note", id: "errors-summary" },
    ERROR_CLASSES.map((k) => c[k] + " " + k).join(" · ") + " in this range" +
    (total ? " · " + total.total + " stored in all" : "") +
    " · benign: commands the host sent that the drive refused, never alerted · media / io fire io_errors");
  if (!er.read) return el("p", { class: "muted" }, "The drive's error log has not been read yet.");
  if (!er.entries.length) return el("div", {}, el("p", { class: "muted" }, "No error log entry in this range."), summary);
  const queue = (e) => e.sqid === null ? "—" : e.sqid === 0 ? "admin" : "I/O " + e.sqid;
  const rows = er.entries.map((e) => el("tr", { class: "err-" + e.class + (e.alerts ? " err-alert" : ""), "data-class": e.class, "data-count": String(e.error_count) },
    el("td", { class: "time" }, fmtTime(e.seen)),
    el("td", { class: "num" }, String(e.error_count)),
    el("td", { class: "class" }, e.class + (e.before_watch ? " · before nvmond" : "")),
    el("td", { class: "details" }, (e.status_name || "status " + e.sct + "/" + e.sc) +
      " (SCT " + e.sct.toString(16) + "h, SC " + e.sc.toString(16).padStart(2, "0") + "h)"),
    el("td", {}, queue(e) + (e.cid !== null ? " · CID " + e.cid : "")),
    el("td", {}, e.nsid && e.nsid !== 4294967295 ? "NSID " + e.nsid + " · LBA " + e.lba : "")));
  const shown = er.entries.length, all = ERROR_CLASSES.reduce((n, k) => n + num(c[k]), 0);
  return el("div", {},
    el("div", { class: "table-wrap" }, el("table", { class: "events errors" },
      el("thead", {}, el("tr", {}, ["Read", "Count", "Class", "Status", "Queue", "Where"].map((x) => el("th", { scope: "col" }, x)))),
      el("tbody", {}, rows))),
    summary,
    shown < all ? el("p", { class: "legend-note" }, "the newest " + shown + " of " + all + " shown") : null);
}

// …/events of the range (the health verdict and the temperature chart read them too),
// the alerts, and the error log entries of the range.
export function load(ctx) {
  const dev = "/api/v1/devices/" + ctx.id;
  return Promise.all([dev + "/events?" + ctx.q, "/api/v1/alerts", dev + "/errors?" + ctx.q + "&limit=" + ERRORS_SHOWN].map(ctx.get))
    .then(([ev, al, er]) => ({ events: ev ? ev.events : null, al, er }));
}

// Two sections: events and alerts, the error log.
export function view(ctx, d, data) {
  // Firing alerts are in both lists.
  const seen = new Set(), al = data.al;
  const alerts = al ? al.active.concat(al.history).filter((a) => a.device_id === d.id && !seen.has(a.id) && seen.add(a.id)) : null;
  return {
    events: el("section", { class: "panel wide", "aria-label": "events and alerts" },
      el("h3", {}, "Events and alerts"),
      eventsTable(data.events, alerts)),
    errors: el("section", { class: "panel wide", "aria-label": "error log", id: "errors" },
      el("h3", {}, "Error log entries"),
      errorsTable(data.er, d.errors)),
  };
}
