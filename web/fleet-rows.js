// nvmond dashboard, Fleet page: the rows in view. The table is virtualised: only the
// rows in the scroll box's view (and FLEET_OVERSCAN around them) are in the DOM.
import { el } from "./dom.js";
import { HOT_MARGIN_C } from "./figures.js";
import { fmtAgo, fmtDateTime, fmtDuration, fmtPercent } from "./format.js";
import { FLEET_COL_ORDER, driveProblem } from "./fleet-model.js";
import { state } from "./state.js";

export const FLEET_ROW_PX = 36; // every row (host or drive) is this tall: see .fleet-table in dashboard.css
const FLEET_OVERSCAN = 12; // rows drawn beyond each edge of the view

function sinceText(h) {
  if (!h.last_seen) return "not reporting (its last sample is not in the engine's lookback)";
  const silent = Math.max(0, (Date.now() - Date.parse(h.last_seen)) / 1000);
  return "not reporting since " + fmtDateTime(new Date(h.last_seen)) + " (" + fmtDuration(Math.round(silent)) + ")";
}

function hostRow(r, index) {
  const h = r.h;
  const labels = Object.entries(h.labels).map(([k, v]) => el("span", { class: "chip", title: "host label" }, k + "=" + v));
  const state = h.reporting ? el("span", { class: "muted" }, h.drives.length + " drive" + (h.drives.length === 1 ? "" : "s") +
      (h.problems ? " · " + h.problems + " with problems" : "") + (r.shown !== h.drives.length ? " · " + r.shown + " shown" : ""))
    : el("span", { class: "bad not-reporting" }, sinceText(h));
  const link = h.public_url ? el("a", { href: h.public_url, target: "_blank", rel: "noopener", class: "host-link",
    title: "this host's own nvmond" }, "open ↗") : null;
  return el("tr", { class: "host-row" + (h.reporting ? "" : " gone"), "data-host": h.instance, "data-name": h.host,
    "data-reporting": h.reporting ? "1" : "0",
    "aria-rowindex": index + 2 },
  el("th", { scope: "rowgroup", colspan: FLEET_COL_ORDER.length },
    el("span", { class: "host-name" }, h.host), h.host !== h.instance ? el("small", { class: "muted" }, h.instance) : null,
    link, ...labels, state));
}

function fleetDriveRow(r, index) {
  const d = r.d, h = r.h;
  const alerts = d.alerts.map((a) => a.rule).join(", ");
  const cls = (v, warn, bad) => (v === null ? "" : v >= bad ? "bad" : v >= warn ? "warn" : "");
  return el("tr", { class: "drive-row" + (h.reporting ? "" : " stale"), "data-host": h.instance, "data-device": d.device,
    "data-serial": d.serial, "data-verdict": d.verdict, "data-problem": driveProblem(d, h) ? "1" : "0",
    "data-temp": d.temperature_c ?? "", "aria-rowindex": index + 2 },
  el("td", { class: "drive" }, d.device, d.label ? el("span", { class: "drive-label" }, d.label) : null),
  el("td", { class: "model", title: d.firmware ? "firmware " + d.firmware : null }, d.model || "–"),
  el("td", { class: "serial" }, d.serial || "–"),
  el("td", { class: "location" }, d.location || "–"),
  el("td", { class: "health" }, fleetBadge(d.verdict, d.alerts.map((a) => a.severity + ": " + a.rule)),
    alerts ? el("small", { class: "muted", title: alerts }, alerts) : null),
  fleetTempCell(d),
  el("td", { class: "num " + cls(d.percent_used, 80, 100) }, d.percent_used === null ? "–" : d.percent_used + " %"),
  el("td", { class: "num " + cls(d.tbw_percent, 80, 100), title: d.tbw_percent === null ? "rated TBW unknown" : null },
    d.tbw_percent === null ? "–" : fmtPercent(d.tbw_percent, 1)),
  el("td", { class: "seen muted" }, d.up === false ? "offline · " + fmtAgo(d.last_seen) : fmtAgo(d.last_seen)));
}

// A drive's verdict (ok, warning, critical, offline, unknown) as the overview's badges look,
// the alerts firing in its tooltip. Its own: the overview's badge() takes a drive's API health.
function fleetBadge(verdict, why) {
  const cls = { ok: "ok", warning: "warn", critical: "bad", offline: "muted", unknown: "muted" }[verdict] || "muted";
  return el("span", { class: "badge " + cls, title: why.join("; ") || "healthy" }, verdict);
}

// The composite temperature against the drive's own WCTEMP / CCTEMP, as the overview judges it.
function fleetTempCell(d) {
  const t = d.temperature_c, w = d.wctemp_c, c = d.cctemp_c;
  if (t === null) return el("td", { class: "num muted" }, "–");
  const cls = c !== null && t >= c ? "bad" : w !== null && t >= w - HOT_MARGIN_C ? "warn" : "";
  return el("td", { class: "num " + cls, title: "WCTEMP " + (w ?? "–") + " °C · CCTEMP " + (c ?? "–") + " °C" }, t + " °C");
}

// Draw the rows in view (and FLEET_OVERSCAN around): two spacer rows keep the height.
export function drawFleetWindow() {
  const v = state.fleetView;
  const box = document.getElementById("fleet-scroll");
  if (!v || !box) return;
  const n = v.rows.length;
  const first = Math.max(0, Math.floor(box.scrollTop / FLEET_ROW_PX) - FLEET_OVERSCAN);
  const last = Math.min(n, Math.ceil((box.scrollTop + box.clientHeight) / FLEET_ROW_PX) + FLEET_OVERSCAN);
  if (v.drawn && v.drawn.first === first && v.drawn.last === last && v.drawn.rows === v.rows) return;
  const spacer = (h) => {
    const td = el("td", { colspan: FLEET_COL_ORDER.length });
    td.style.height = h + "px";
    return el("tr", { class: "spacer", "aria-hidden": "true" }, td);
  };
  const out = [spacer(first * FLEET_ROW_PX)];
  for (let i = first; i < last; i++) out.push(v.rows[i].d ? fleetDriveRow(v.rows[i], i) : hostRow(v.rows[i], i));
  out.push(spacer((n - last) * FLEET_ROW_PX));
  document.getElementById("fleet-body").replaceChildren(...out);
  v.drawn = { first, last, rows: v.rows };
}
