// nvmond dashboard: the cache-recovery chart (preset `cache-recovery`, API "recovery"):
// each burst's MB/s against the idle minutes since the cliff, the rate before the
// cliff as a line and 95 % of it (the study's bar) dashed, with the verdict, as
// Samsung's TurboWrite test draws it by hand.
import { optional } from "./api.js";
import { SERIES_COLORS, axes, chartSize, uPlot } from "./charts.js";
import { el } from "./dom.js";
import { fmtBytes, fmtMBps, fmtMBpsTick, fmtTime } from "./format.js";
import { probeRuns } from "./drive-probes.js";
import { state } from "./state.js";

// The drive's cache-recovery studies, newest first: their series ids (a study is
// known by its first run's id) with the start of their newest run.
function recoveryStudies(runs) {
  const seen = new Map();
  for (const r of runs)
    if (r.preset === "cache-recovery" && r.series_id && !seen.has(r.series_id)) seen.set(r.series_id, r.started);
  return [...seen].map(([id, started]) => ({ id, started }));
}

// The chart's columns: idle minutes from 0 to the last burst, the bursts' MB/s
// (none at 0), the rate before the cliff and 95 % of it across.
function recoveryData(rec) {
  const x = [0].concat(rec.points.map((p) => p.idle_min));
  const pre = rec.pre_cliff_mb_s;
  return [x, [null].concat(rec.points.map((p) => p.mb_s)), x.map(() => pre), x.map(() => pre * 0.95)];
}

function recoveryChart(container, rec) {
  const value = (u, v) => fmtMBps(v);
  const s = [
    { label: "idle", value: (u, v) => (v === null || v === undefined ? "–" : v.toFixed(1) + " min") },
    { label: "burst", stroke: SERIES_COLORS[2], width: 2, points: { show: true, size: 8 }, value },
    { label: "before the cliff", stroke: SERIES_COLORS[0], width: 1.5, points: { show: false }, value },
    { label: "95 %", stroke: SERIES_COLORS[4], width: 1, dash: [6, 4], points: { show: false }, value },
  ];
  const ax = axes(fmtMBpsTick, { ySize: 76, xSeconds: true });
  ax[0].values = (u, splits) => splits.map((v) => v + " min");
  const opts = Object.assign(chartSize(container, 240), {
    series: s,
    axes: ax,
    scales: { x: { time: false }, y: { range: (u, mn, mx) => [0, Math.max(1, mx) * 1.1] } },
  });
  container.dataset.points = String(rec.points.length);
  return new uPlot(opts, recoveryData(rec), container);
}

// The panel of @detail's study (GET /api/v1/probes/{id} with "recovery"); @studies
// (recoveryStudies) in a picker that redraws the chart with another one.
function recoveryPanel(gen, studies, detail) {
  const box = el("div", { class: "chart", id: "chart-recovery" });
  const verdictP = el("p", { class: "recovery-verdict" });
  const note = el("p", { class: "legend-note" });
  const pick = el("select", { "aria-label": "cache-recovery study" },
    ...studies.map((s) => el("option", { value: s.id }, "study " + s.id + ", " + fmtTime(s.started))));
  const show = (d) => {
    const rec = d.recovery;
    verdictP.textContent = rec.verdict || "study " + rec.state;
    verdictP.className = "recovery-verdict " + (rec.state === "recovered" ? "ok" : rec.state === "not_recovered" ? "warn" : "muted");
    note.textContent = "write bursts (1 MiB, QD 8) after idle time since the cliff at " + fmtTime(rec.cliff_at) +
      " · solid: " + fmtMBps(rec.pre_cliff_mb_s) + " before the cliff · dashed: 95 % of it" +
      (rec.cache_bytes ? " · write cache " + fmtBytes(rec.cache_bytes) : "");
    const old = state.charts.find((c) => c.root.parentElement === box);
    if (old) {
      old.destroy();
      state.charts.splice(state.charts.indexOf(old), 1);
    }
    box.replaceChildren();
    if (rec.points.length) state.charts.push(recoveryChart(box, rec));
    else box.append(el("p", { class: "muted" }, "No burst has run yet."));
    box.dataset.study = String(rec.series_id);
  };
  pick.addEventListener("change", async () => {
    const r = await optional("/api/v1/probes/" + pick.value);
    if (gen === state.generation && r && r.recovery) show(r);
  });
  const section = el("section", { class: "panel wide", "aria-label": "cache recovery", id: "recovery" },
    el("h3", {}, "Write-cache recovery (MB/s after idle)"),
    studies.length > 1 ? el("p", {}, pick) : null, verdictP, box, note);
  // Drawn once the section is in the page (uPlot needs its width).
  section.draw = () => show(detail);
  return section;
}

// The drive's studies and the newest one's detail.
export async function load(ctx) {
  const pr = await probeRuns(ctx);
  const studies = pr ? recoveryStudies(pr.probes) : [];
  const study = studies.length ? await ctx.get("/api/v1/probes/" + studies[0].id) : null;
  return { studies, study };
}

// The section (null: no study yet), its chart drawn once it is in the page.
export function view(ctx, d, data) {
  if (!data.study || !data.study.recovery) return { section: null, draw: () => {} };
  const section = recoveryPanel(ctx.gen, data.studies, data.study);
  return { section, draw: section.draw };
}
