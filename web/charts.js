// nvmond dashboard: what every chart (uPlot) shares: the page's list of charts, their
// size, axes and time labels in the theme's colours, threshold lines and shaded
// episodes. The charts themselves are their panels' (drive-*.js, drivelogs.js).
import { cssVar } from "./dom.js";
import { fmtClock, fmtDateTime } from "./format.js";
import { state } from "./state.js";

// vendor/uPlot.iife.min.js: a classic script that index.html loads before the modules
// run (they are deferred); the one global the dashboard has.
export const uPlot = window.uPlot;

export function destroyCharts() {
  for (const c of state.charts) c.destroy();
  state.charts = [];
}

export function chartSize(container, height) {
  return { width: Math.max(240, container.clientWidth - 4), height };
}

// The window's width changed: every chart follows its box.
export function resizeCharts() {
  for (const c of state.charts) c.setSize(chartSize(c.root.parentElement, c.height));
}

// Horizontal threshold lines and shaded throttle episodes, drawn under the series.
export function overlayPlugin(lines, episodes) {
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

export const SERIES_COLORS = ["#2f81f7", "#a371f7", "#3fb950", "#db61a2", "#e3b341", "#56d4dd", "#f0883e", "#8b949e"];

// Time-axis labels by the tick spacing uPlot picked, in 24-hour local time:
// "14:30" (or "14:30:15" below a minute) with the date under the first tick and
// at midnight; "Mon 3" for single days, "Nov 3" for longer steps; "Jan" for months.
// The year shows under January, at a year change, and under the first tick unless it
// is this year.
export const DAY_S = 86400;
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
export function axes(yFmt, opts) {
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

export const legendC = (u, v) => v === null || v === undefined ? "–" : v + " °C";
export const legendTime = (u, v) => v === null || v === undefined ? "–" : fmtDateTime(new Date(v * 1000));
