// nvmond dashboard, drive page: the wear panels. Writes per day over 30 days (a
// bar a day) and the wear figures: written, the probes' share, the rating, the write
// rates, when the rated TBW and 100 % used are reached, an unusual write rate.
import { DAY_S, SERIES_COLORS, axes, chartSize, uPlot } from "./charts.js";
import { el, emptyChart, row } from "./dom.js";
import { fmtBytes, fmtBytesTick, fmtDate, fmtDay, num } from "./format.js";
import { state } from "./state.js";

function wearTable(w) {
  const rate = (k) => w.rates[k].known ? fmtBytes(w.rates[k].bytes_per_day) + "/day" + (w.rates[k].complete ? "" : " (partial)") : "–";
  const anyRate = ["1d", "7d", "30d"].some((k) => w.rates[k].known);
  return el("div", {},
    row("Written (lifetime)", fmtBytes(w.bytes_written)),
    row("Of which nvmond probes", fmtBytes(w.probe_bytes_written)),
    // The rating's source under its value: a long reference must not squeeze the label.
    row("Rated endurance", w.rating.rated_bytes ? [fmtBytes(w.rating.rated_bytes, true),
      el("small", { class: "muted" }, w.rating.source + ": " + w.rating.reference)] : "unknown: set rated_tbw in [device \"…\"]"),
    row("Write rate 1 d / 7 d / 30 d", anyRate ? rate("1d") + " · " + rate("7d") + " · " + rate("30d") : "needs more history"),
    row("Rated TBW reached", w.tbw_reached ? "already" : w.tbw_date ? "≈ " + fmtDate(w.tbw_date)
      : w.projection_basis ? "not at the current rate" : "needs more history"),
    row("% used", w.percent_used + " %" + (w.percent_used_100_date ? ", 100 % ≈ " + fmtDate(w.percent_used_100_date) : "")),
    row("Unusual write rate", w.unusual_write_rate.active ? "yes: the last day wrote over " + w.unusual_write_rate.factor + "× the 30-day average" : "no", w.unusual_write_rate.active ? "warn" : ""),
  );
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

// GET …/wear (null: not available); the health verdict reads it too.
export function load(ctx) {
  return ctx.get("/api/v1/devices/" + ctx.id + "/wear");
}

// Two sections: writes per day, and the wear figures.
export function view(ctx, d, wear) {
  const box = el("div", { class: "chart", id: "chart-writes" });
  const writes = el("section", { class: "panel", "aria-label": "writes per day" },
    el("h3", {}, "Writes per day (30 days)"),
    !wear ? el("p", { class: "na" }, "not available")
      : wear.daily.some((x) => num(x.bytes) > 0) ? box
      : emptyChart("No writes counted in the last 30 days yet",
        "a day's writes are the growth of the drive's written-data counter between nvmond's samples on that day."));
  const figures = el("section", { class: "panel", "aria-label": "wear" },
    el("h3", {}, "Wear"),
    wear ? wearTable(wear) : el("p", { class: "na" }, "not available"));
  const draw = () => {
    if (wear && box.isConnected) state.charts.push(writesChart(box, wear));
  };
  return { writes, figures, draw };
}
