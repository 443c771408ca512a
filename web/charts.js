// nvmond dashboard: the drive page's charts (uPlot), in the theme's colours.
"use strict";

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
        const ys = lines.map((l) => (l.v === null || l.v === undefined ? null : u.valToPos(l.v, "y", true)));
        lines.forEach(({ color, label, right }, i) => {
          const y = ys[i];
          if (y === null || y < u.bbox.top || y > u.bbox.top + u.bbox.height) return;
          ctx.strokeStyle = color;
          ctx.beginPath();
          ctx.moveTo(u.bbox.left, y);
          ctx.lineTo(u.bbox.left + u.bbox.width, y);
          ctx.stroke();
          ctx.fillStyle = color;
          // Two close lines: one label at each end, so they never overlap; and a label
          // under its line when the next line up would cross it (WCTEMP 82, CCTEMP 85).
          const crowded = ys.some((o, j) => j !== i && o !== null && o < y && y - o < 18 * devicePixelRatio);
          ctx.textAlign = right ? "right" : "left";
          ctx.textBaseline = crowded ? "top" : "bottom";
          ctx.font = 12 * devicePixelRatio + "px sans-serif";
          // A halo in the panel's colour keeps the label readable over the series.
          const tx = right ? u.bbox.left + u.bbox.width - 4 : u.bbox.left + 4, ty = crowded ? y + 4 : y - 4;
          ctx.setLineDash([]);
          ctx.lineWidth = 3 * devicePixelRatio;
          ctx.lineJoin = "round";
          ctx.strokeStyle = cssVar("--card");
          ctx.strokeText(label, tx, ty);
          ctx.setLineDash([6, 4]);
          ctx.lineWidth = 1.5;
          ctx.fillText(label, tx, ty);
        });
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
      const hm = fmtClock(x, incr < 60);
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

const legendC = (u, v) => v === null || v === undefined ? "–" : v + " °C";
const legendTime = (u, v) => v === null || v === undefined ? "–" : fmtDateTime(new Date(v * 1000));

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

// The temperature data of a series answer, in the chart's column order.
function tempData(series) {
  return [series.t, series.temp_c.avg, series.temp_c.min, series.temp_c.max, ...series.sensors.map((x) => x.avg)];
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
    s.push({ label: sensorLabel(dev, x.sensor), stroke: SERIES_COLORS[(i + 1) % SERIES_COLORS.length], width: 1.5, value: legendC });
  });
  const lines = [
    { v: dev.wctemp_c, color: cssVar("--warn"), label: "WCTEMP " + dev.wctemp_c + " °C", right: true },
    { v: dev.cctemp_c, color: cssVar("--bad"), label: "CCTEMP " + dev.cctemp_c + " °C" },
    ...hctmLines(dev), // drivelogs.js
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
    plugins: [overlayPlugin(lines, throttleEpisodes(series, events)), pelPlugin(events)],
  });
  return new uPlot(opts, data, container);
}

function writesChart(container, wear) {
  const t = wear.daily.map((d) => Date.parse(d.date + "T12:00:00Z") / 1000);
  const bytes = wear.daily.map((d) => num(d.bytes));
  const opts = Object.assign(chartSize(container, 200), {
    series: [{ value: (u, v) => v == null ? "–" : fmtDay(new Date(v * 1000)) },
      { label: "written / day", stroke: SERIES_COLORS[2], fill: SERIES_COLORS[2] + "66", paths: uPlot.paths.bars({ size: [0.7, 40] }), points: { show: false }, value: (u, v) => v === null ? "–" : fmtBytes(v) }],
    axes: axes(fmtBytesTick, { ySize: 64 }),
    // Half a day either side: the first and last bars are whole.
    scales: { x: { time: true, range: (u, mn, mx) => [mn - DAY_S / 2, mx + DAY_S / 2] },
      y: { range: (u, mn, mx) => [0, Math.max(1e9, mx * 1.1)] } },
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
    // From 0 MB/s, and a margin either side: the first and last runs are not cut at the
    // edges, and two runs do not stretch over the whole height.
    scales: {
      x: { time: true, range: (u, mn, mx) => {
        if (mn === null || mx === null) return [Date.now() / 1000 - 3600, Date.now() / 1000];
        const pad = Math.max((mx - mn) * 0.05, 30);
        return [mn - pad, mx + pad];
      } },
      y: { range: (u, mn, mx) => [0, Math.max(1, mx) * 1.1] },
    },
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
