// nvmond dashboard: the page of one drive (#/drive/ID), composed of its panels. Each
// panel module (drive-*.js, drivelogs.js, group.js) has load(ctx), its requests, and
// view(ctx, drive, data), its sections and a draw() for its charts once the page is
// in the document. The panels ask at once; an answer two of them need (the events,
// the wear, the drive's probe runs) is asked once (ctx.get).
import { api, optional } from "./api.js";
import { destroyCharts } from "./charts.js";
import { el, setStatus } from "./dom.js";
import * as health from "./drive-health.js";
import * as history from "./drive-history.js";
import * as probes from "./drive-probes.js";
import * as recovery from "./drive-recovery.js";
import * as selftests from "./drive-selftests.js";
import * as sweep from "./drive-sweep.js";
import * as temperature from "./drive-temperature.js";
import * as wear from "./drive-wear.js";
import * as logs from "./drivelogs.js";
import { demoBadge, demoBanner } from "./figures.js";
import { fmtClock } from "./format.js";
import * as groups from "./group.js";
import { RANGES, currentRange, requestRender, state } from "./state.js";

// What the panels share for one build of the page: the drive, the range, its query
// (from, to) and get(path), an optional() GET made once however many panels ask.
function context(gen, id) {
  const range = currentRange();
  const to = Date.now(), from = to - range.s * 1000;
  const asked = new Map();
  const get = (path) => {
    if (!asked.has(path)) asked.set(path, optional(path));
    return asked.get(path);
  };
  return { gen, id, range, q: "from=" + from + "&to=" + to, get };
}

function rangeButtons() {
  return el("div", { class: "ranges", role: "group", "aria-label": "time range" }, RANGES.map((r) => {
    const b = el("button", { type: "button", "aria-pressed": r.key === state.range ? "true" : "false", "data-range": r.key }, r.label);
    b.addEventListener("click", () => {
      state.range = r.key;
      localStorage.setItem("nvmond.range", r.key);
      requestRender();
    });
    return b;
  }));
}

function driveHead(d) {
  return el("div", { class: "drive-head", "data-device": d.id },
    el("a", { href: "#/" }, "← all drives"),
    el("h2", {}, d.label ? d.label + " · " + d.model : d.model), d.demo === true ? demoBadge() : null,
    el("span", { class: "muted" }, (d.location ? d.location + " · " : "") + "serial " + d.serial + " · firmware " + d.firmware + (d.name ? " · " + d.name : "")),
    rangeButtons());
}

// Leaving the drive page: the running probe's and self-test's watches stop.
export function leaveDrive() {
  probes.stopProbeWatch();
  selftests.stopSelftestWatch();
}

export async function renderDrive(gen, id, live) {
  if (live) {
    // A live tick adds points to the temperature chart; a full refresh every minute.
    state.liveTicks = (state.liveTicks || 0) + 1;
    if (state.liveTicks % 6 !== 0 && await temperature.liveTick(gen, id)) return;
  } else {
    state.liveTicks = 0;
  }
  const ctx = context(gen, id);
  const [dr, tempData, healthData, wearData, logsData, probeData, sweepData, recoveryData, groupData, selftestData, historyData] =
    await Promise.all([api("/api/v1/devices/" + id), temperature.load(ctx), health.load(ctx), wear.load(ctx), logs.load(ctx),
      probes.load(ctx), sweep.load(ctx), recovery.load(ctx), groups.load(ctx), selftests.load(ctx), history.load(ctx)]);
  if (gen !== state.generation) return;
  if (!dr.ok) throw new Error((dr.body && dr.body.error) || "HTTP " + dr.status);
  const d = dr.body;
  const tv = temperature.view(ctx, d, tempData, healthData.events);
  const hv = health.view(ctx, d, healthData), wv = wear.view(ctx, d, wearData), lv = logs.view(ctx, d, logsData);
  const pv = probes.view(ctx, d, probeData), sv = sweep.view(ctx, d, sweepData), rv = recovery.view(ctx, d, recoveryData);
  const xv = history.view(ctx, d, historyData);
  const view = el("div", {},
    d.demo === true ? demoBanner("This drive is") : "",
    driveHead(d),
    ...hv.top,
    el("div", { class: "panels" },
      tv.section, lv.power, wv.writes, wv.figures, hv.facts, lv.ns, lv.ocp,
      pv.history, pv.control, pv.last, sv.section, rv.section, groups.view(ctx, d, groupData),
      selftests.view(ctx, d, selftestData),
      xv.events, xv.errors));

  destroyCharts();
  document.getElementById("view").replaceChildren(view);
  for (const p of [tv, wv, lv, pv, rv, sv]) p.draw();
  document.title = (d.label ? d.label + " · " : "") + d.model + " · nvmond";
  setStatus(ctx.range.label + " · updated " + fmtClock(new Date(), true));
}
