// nvmond dashboard, drive page: the temperature panel. The composite (average, min
// and max per point) and each sensor over the range picked, WCTEMP / CCTEMP (and the
// host's TMT1 / TMT2) as lines, throttle episodes shaded, the drive's thermal
// excursions marked; a live tick adds points without rebuilding the page.
import { api } from "./api.js";
import { SERIES_COLORS, axes, chartSize, legendC, legendTime, overlayPlugin, uPlot } from "./charts.js";
import { cssVar, el, emptyChart, setStatus } from "./dom.js";
import { hctmLines, hctmNote, pelPlugin } from "./drivelogs.js";
import { THROTTLE_KINDS, sensorLabel } from "./figures.js";
import { fmtClock, fmtDuration } from "./format.js";
import { CHART_POINTS, currentRange, state } from "./state.js";

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
    ...hctmLines(dev),
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
        const r = currentRange(), now = Date.now() / 1000;
        const lo = Math.max(now - r.s, mn == null ? now - r.s : mn);
        return [Math.min(lo, now - 60), now];
      } },
      y: { range: [Math.floor(lo), Math.ceil(hi)] },
    },
    plugins: [overlayPlugin(lines, throttleEpisodes(series, events)), pelPlugin(events)],
  });
  return new uPlot(opts, data, container);
}

function seriesPath(id, range) {
  const to = Date.now(), from = to - range.s * 1000;
  return "/api/v1/devices/" + id + "/series?from=" + from + "&to=" + to + "&points=" + CHART_POINTS;
}

// GET …/series of the range (an error stops the page: the chart is its heart).
export function load(ctx) {
  return api(seriesPath(ctx.id, ctx.range));
}

// The section, its chart drawn once the page is in the document (uPlot needs its width).
export function view(ctx, d, sr, events) {
  if (!sr.ok) throw new Error((sr.body && sr.body.error) || "HTTP " + sr.status);
  const series = sr.body;
  const box = el("div", { class: "chart", id: "chart-temp" });
  const section = el("section", { class: "panel wide", "aria-label": "temperature" },
    el("h3", {}, "Temperature (°C)"),
    series.points ? box : emptyChart(d.latest ? "No samples in this range yet" : "No sample of this drive yet",
      "nvmond polls every drive every 10 s by default ([daemon] poll_interval); points appear after the first polls."),
    el("p", { class: "legend-note" }, series.points + (series.points === 1 ? " point · " : " points · ") +
      (series.resolution_s ? (series.resolution_s === 60 ? "1-minute" : "1-hour") + " rollups" : "raw samples") +
      ", " + fmtDuration(series.step_s) + " per point · shaded: throttling · dashed: WCTEMP / CCTEMP" + hctmNote(d) +
      " · red marks: thermal excursions the drive logged"));
  const draw = () => {
    if (series.points) state.charts.push(tempChart(box, d, series, events));
  };
  return { section, draw };
}

// A live tick on the drive page: new points into the temperature chart, nothing
// rebuilt (no flicker, the scroll position stays). Return: false when the page must
// be rebuilt instead (the chart is missing or its series changed).
export async function liveTick(gen, id) {
  const chart = state.charts.find((c) => c.root.parentElement.id === "chart-temp");
  if (!chart) return false;
  const range = currentRange();
  const sr = await api(seriesPath(id, range));
  if (gen !== state.generation) return true;
  if (!sr.ok) throw new Error((sr.body && sr.body.error) || "HTTP " + sr.status);
  const data = tempData(sr.body);
  if (data.length !== chart.series.length) return false;
  chart.setData(data);
  setStatus(range.label + " · updated " + fmtClock(new Date(), true));
  return true;
}
