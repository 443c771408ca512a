// nvmond dashboard: the transfer-size sweep chart (preset `sweep`, API "sweep"):
// MB/s against transfer size on a log2 axis, read and write, the drive's previous
// sweep drawn faintly under them, as ATTO Disk Benchmark users know it.
import { SERIES_COLORS, axes, chartSize, uPlot } from "./charts.js";
import { el } from "./dom.js";
import { fmtMBps, fmtMBpsTick, fmtTime } from "./format.js";
import { probeRuns } from "./drive-probes.js";
import { state } from "./state.js";

// A transfer size in binary units, as ATTO labels them: "512 B", "4 KiB", "64 MiB".
function fmtXfer(v) {
  if (v === null || v === undefined) return "–";
  for (const [u, f] of [["MiB", 1 << 20], ["KiB", 1 << 10]])
    if (v >= f) return Number((v / f).toPrecision(4)) + " " + u;
  return v + " B";
}

// The sweeps to chart, from a drive's run list (newest first): the newest finished
// one and the one before it. A sweep that was aborted or failed is no baseline.
function sweepRuns(runs) {
  return runs.filter((r) => r.preset === "sweep" && (r.state === "done" || r.state === "stopped")).slice(0, 2);
}

// The chart's columns: every transfer size of either sweep (a drive whose LBA size
// changed starts at another size), then MB/s of read, write, previous read, previous
// write, null where a sweep has no point at that size.
function sweepData(sw, prev) {
  const sizes = [...new Set([sw, prev].filter(Boolean)
    .flatMap((s) => s.read.concat(s.write).map((p) => p.block_size)))].sort((a, b) => a - b);
  const col = (pts) => {
    const by = new Map((pts || []).map((p) => [p.block_size, p.mb_s]));
    return sizes.map((b) => (by.has(b) ? by.get(b) : null));
  };
  return [sizes, col(sw.read), col(sw.write), col(prev && prev.read), col(prev && prev.write)];
}

// The chart of @run's sweep, and @prev's (another run of the drive, or null) faintly.
function sweepChart(container, run, prev) {
  const sw = run.sweep, psw = prev && prev.sweep;
  const data = sweepData(sw, psw);
  const when = (r) => fmtTime(r.started);
  const value = (u, v) => fmtMBps(v);
  const s = [
    { label: "transfer size", value: (u, v) => fmtXfer(v) },
    { label: "read " + when(run), stroke: SERIES_COLORS[0], width: 2, points: { show: true, size: 5 }, value },
    { label: "write", stroke: SERIES_COLORS[2], width: 2, points: { show: true, size: 5 }, value },
    { label: "previous read" + (psw ? " " + when(prev) : ""), stroke: SERIES_COLORS[0] + "59", width: 1, points: { show: false }, value, show: !!psw },
    { label: "previous write", stroke: SERIES_COLORS[2] + "59", width: 1, points: { show: false }, value, show: !!psw },
  ];
  const ax = axes(fmtMBpsTick, { ySize: 76, xSeconds: true });
  ax[0].values = (u, splits) => splits.map(fmtXfer);
  ax[0].space = 44;
  // A tick at every power of two that fits (ATTO's rows), else at every other one or
  // fewer, counted from the largest, so that the last tick is always the top size.
  ax[0].splits = (u, i, mn, mx) => {
    const out = [];
    for (let b = 512; b <= mx; b *= 2) if (b >= mn) out.push(b);
    const step = Math.ceil(out.length / Math.max(1, Math.floor(u.bbox.width / devicePixelRatio / 48)));
    return out.filter((b, k) => (out.length - 1 - k) % step === 0);
  };
  const opts = Object.assign(chartSize(container, 240), {
    series: s,
    axes: ax,
    scales: {
      x: { time: false, distr: 3, log: 2, range: (u, mn, mx) => (mn === mx ? [mn / 2, mx * 2] : [mn, mx]) },
      y: { range: (u, mn, mx) => [0, Math.max(1, mx) * 1.1] },
    },
  });
  container.dataset.points = String(sw.read.length + sw.write.length);
  container.dataset.previous = psw ? String(prev.id) : "";
  return new uPlot(opts, data, container);
}

// The newest finished sweep and the one before it, with their points.
export async function load(ctx) {
  const pr = await probeRuns(ctx);
  const runs = pr ? sweepRuns(pr.probes) : [];
  const [run, prev] = await Promise.all(runs.map((r) => ctx.get("/api/v1/probes/" + r.id)));
  return { run: run && run.sweep ? run : null, prev: prev && prev.sweep ? prev : null };
}

// The section (null: no sweep yet), its chart drawn once it is in the page.
export function view(ctx, d, data) {
  const { run, prev } = data;
  if (!run) return { section: null, draw: () => {} };
  const box = el("div", { class: "chart", id: "chart-sweep" });
  const section = el("section", { class: "panel wide", "aria-label": "transfer-size sweep", id: "sweep" },
    el("h3", {}, "Transfer-size sweep (MB/s), " + fmtTime(run.started)),
    box,
    el("p", { class: "legend-note" }, "sequential, queue depth " + run.sweep.depth + ", transfer size on a log₂ axis" +
      (prev ? " · faint: the previous sweep, " + fmtTime(prev.started) : " · no earlier sweep to compare")));
  return { section, draw: () => state.charts.push(sweepChart(box, run, prev)) };
}
