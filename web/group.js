// nvmond dashboard: group runs (POST /api/v1/probes {"devices"}, API "group"): the
// list on each member's page, and the group view (#/group/ID) with bars of each
// drive's MB/s alone and in the group, and the aggregate.
import { api } from "./api.js";
import { destroyCharts } from "./charts.js";
import { el, setStatus } from "./dom.js";
import { fmtClock, fmtMBps, fmtPercent, fmtTime } from "./format.js";
import { probeRuns } from "./drive-probes.js";
import { state } from "./state.js";

const GROUPS_SHOWN = 5;

// The group runs a drive took part in, newest first: its run ids by group id.
function groupRuns(runs) {
  const seen = new Map();
  for (const r of runs) if (r.group_id && !seen.has(r.group_id)) seen.set(r.group_id, r);
  return [...seen.values()].slice(0, GROUPS_SHOWN);
}

function memberLine(m) {
  const ratios = m.phases.map((p) => p.name + " " + (p.ratio === null ? "no solo run" : fmtPercent(p.ratio * 100, 0) + " of solo"));
  return m.device + " (" + m.state + "): " + ratios.join(", ");
}

// The panel on a drive's page: each group run (@details: GET /api/v1/probes/{id}
// of this drive's member) with its members, their ratios and the aggregate.
function groupPanel(details) {
  const items = details.filter((d) => d && d.group).map((d) => {
    const g = d.group;
    return el("li", { class: "group-run", "data-group": g.id },
      el("a", { href: "#/group/" + g.id }, d.preset + ", " + fmtTime(d.started) + ": " +
        g.members.map((m) => m.device).join(" + ")),
      el("p", { class: "group-text" }, g.text),
      el("p", { class: "legend-note" }, g.members.map(memberLine).join(" · ")));
  });
  return el("section", { class: "panel wide", "aria-label": "group runs", id: "groups" },
    el("h3", {}, "Group runs (drives probed together)"),
    el("ul", { class: "group-runs" }, ...items));
}

// One bar: @v of @max, labelled.
function bar(label, v, max, cls) {
  const w = max > 0 && v ? Math.max(0.5, (v / max) * 100) : 0;
  return el("div", { class: "bar-row " + cls, "data-mbs": v === null ? "" : String(v) },
    el("span", { class: "bar-label" }, label),
    el("span", { class: "bar-track" }, el("span", { class: "bar-fill", style: "width: " + w.toFixed(1) + "%" })),
    el("span", { class: "bar-value" }, v === null ? "–" : fmtMBps(v)));
}

// The bars of phase @k: each member solo and in the group, then the aggregate.
function groupBars(g, k) {
  const name = g.members[0].phases[k].name;
  const agg = g.aggregate.find((a) => a.name === name);
  const max = Math.max(agg ? agg.mb_s : 0, ...g.members.map((m) => Math.max(m.phases[k].mb_s || 0, m.phases[k].solo_mb_s || 0)));
  const rows = [];
  for (const m of g.members) {
    const p = m.phases[k];
    rows.push(bar(m.device + " alone", p.solo_mb_s, max, "solo"),
      bar(m.device + " in the group" + (p.ratio === null ? "" : " (" + fmtPercent(p.ratio * 100, 0) + ")"), p.mb_s, max, "member"));
  }
  if (agg) rows.push(bar("together", agg.mb_s, max, "aggregate"));
  return el("div", { class: "group-phase", "data-phase": name },
    el("h4", {}, name),
    el("div", { class: "bars" }, ...rows),
    agg ? el("p", { class: "legend-note group-text" }, agg.text) : null);
}

export async function renderGroup(gen, id) {
  const r = await api("/api/v1/probes/" + id);
  if (gen !== state.generation) return;
  if (!r.ok) throw new Error((r.body && r.body.error) || "HTTP " + r.status);
  const d = r.body, g = d.group;
  destroyCharts();
  const view = el("div", { class: "group-view" },
    el("div", { class: "drive-head" },
      el("a", { href: "#/" }, "← all drives"),
      el("h2", {}, "Group run " + (g ? g.id : id) + ": " + d.preset + ", " + fmtTime(d.started))),
    !g ? el("p", { class: "muted" }, "Probe " + id + " ran alone.")
      : el("div", { class: "panels" },
        el("section", { class: "panel wide", "aria-label": "group run", id: "group" },
          el("p", { class: "group-text" }, g.text),
          el("p", {}, ...g.members.flatMap((m, i) => [i ? " · " : "",
            el("a", { href: "#/drive/" + m.device_id }, m.device), " probe " + m.run_id + " (" + m.state +
            (m.reason ? ": " + m.reason : "") + ")"])),
          ...g.members[0].phases.map((p, k) => groupBars(g, k)),
          el("p", { class: "legend-note" }, "MB/s of each drive alone (its latest solo run of the preset) and in the group, " +
            "and all of them together · started within " + g.skew_ms.toFixed(2) + " ms of each other"))));
  document.getElementById("view").replaceChildren(view);
  document.title = "group run " + (g ? g.id : id) + " · nvmond";
  setStatus("updated " + fmtClock(new Date(), true));
}

// The group runs of a drive's page: each one's detail (this drive's member run).
export async function load(ctx) {
  const pr = await probeRuns(ctx);
  return Promise.all((pr ? groupRuns(pr.probes) : []).map((r) => ctx.get("/api/v1/probes/" + r.id)));
}

// The section on the drive page (null: the drive ran in no group).
export function view(ctx, d, details) {
  return details.length ? groupPanel(details) : null;
}
