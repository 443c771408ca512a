// nvmond dashboard, drive page: the probe panels. Throughput of every finished run
// per preset, the preset picker (or the running probe with its progress and Cancel),
// and the last probe: its own series with its cliffs and dips, its spec check, a
// copy-to's line. A copy-to run shows on both drives, by direction.
import { authPost, optional } from "./api.js";
import { SERIES_COLORS, axes, chartSize, legendTime, overlayPlugin, uPlot } from "./charts.js";
import { el, emptyChart, meter, showError } from "./dom.js";
import { runMBps } from "./figures.js";
import { fmtBytes, fmtMBps, fmtMBpsTick, fmtTime } from "./format.js";
import { requestRender, state } from "./state.js";

// The drive's runs, newest first (null: probes not available); the sweep, recovery
// and group panels read the same answer.
export function probeRuns(ctx) {
  return ctx.get("/api/v1/devices/" + ctx.id + "/probes?limit=200");
}

// A copy-to run is on both drives' lists: "copy-to → demo2" on the drive read,
// "copy-to ← demo1" on the one written (@names: device id → name); else its preset.
export function runLabel(r, id, names) {
  if (!r.source_device_id) return r.preset;
  const read = r.source_device_id === id, other = read ? r.device_id : r.source_device_id;
  return "copy-to " + (read ? "→ " : "← ") + (names.get(other) || "drive " + other);
}

// A sweep run in the Last probe panel: its peak each way; the curve is the sweep chart's.
function sweepSummary(sw) {
  const size = (b) => (b >= 1 << 20 ? b / (1 << 20) + " MiB" : b >= 1024 ? b / 1024 + " KiB" : b + " B");
  const peak = (pts, dir) => {
    if (!pts || !pts.length) return null;
    const p = pts.reduce((a, b) => (b.mb_s > a.mb_s ? b : a));
    return Math.round(p.mb_s).toLocaleString("en-US") + " MB/s " + dir + " at " + size(p.block_size);
  };
  const parts = [peak(sw.read, "read"), peak(sw.write, "write")].filter((x) => x);
  return el("p", { class: "sweep-summary" }, "Transfer-size sweep at queue depth " + sw.depth + ": peak " +
    (parts.join(", ") || "no points") + ". The curve is in the transfer-size sweep chart.");
}

let probeTimer = null; // the running probe's next look (watchProbe)

export function stopProbeWatch() {
  clearTimeout(probeTimer);
  probeTimer = null;
}

// "seq1m-q8 · write (2 of 2) · 41 % · 4968 MB/s · 13.8 GB written"
function progressText(run) {
  const p = run.progress;
  if (!p) return run.preset + " · starting";
  return run.preset + " · " + p.name + (p.phases > 1 ? " (" + (p.phase + 1) + " of " + p.phases + ")" : "") +
    " · " + Math.round(p.fraction * 100) + " % · " + fmtMBps(p.mb_per_s) + " · " +
    fmtBytes(p.bytes_read) + " read, " + fmtBytes(p.bytes_written) + " written";
}

// Follow probe @id once a second until it ends, then rebuild the page.
function watchProbe(gen, id, box) {
  const tick = async () => {
    const r = await optional("/api/v1/probes/" + id);
    if (gen !== state.generation) return;
    if (!r || r.state !== "running") {
      stopProbeWatch();
      requestRender();
      return;
    }
    const bar = box.querySelector(".meter > span");
    bar.style.width = (r.progress ? r.progress.fraction * 100 : 0).toFixed(1) + "%";
    box.querySelector(".probe-progress").textContent = progressText(r);
    box.dataset.fraction = r.progress ? r.progress.fraction : 0;
    probeTimer = setTimeout(tick, 1000);
  };
  stopProbeWatch();
  tick();
}

// What runs on the drive now, with Cancel; or a preset picker with Start. copy-to
// asks for the drive written: one of the others (@names: device id → name).
function probeControl(gen, d, pr, names) {
  const box = el("div", { id: "probe-control" });
  if (pr.running) {
    const cancel = el("button", { type: "button" }, "Cancel");
    cancel.addEventListener("click", async () => {
      cancel.disabled = true;
      const r = await authPost("/api/v1/probes/" + pr.running + "/cancel", undefined, "cancel probes");
      if (r && !r.ok && r.status !== 409) showError("cancel failed: " + ((r.body && r.body.error) || r.status));
      if (!r || !r.ok) cancel.disabled = false;
    });
    box.append(el("p", { class: "probe-progress" }, "probe " + pr.running + " running"),
      meter(0, "", []),
      el("p", {}, cancel));
    watchProbe(gen, pr.running, box);
    return box;
  }
  const others = [...names].filter(([id]) => id !== d.id);
  const pick = el("select", { "aria-label": "preset" },
    ...pr.presets.filter((p) => p !== "copy-to" || others.length).map((p) => el("option", { value: p }, p)));
  const to = el("select", { "aria-label": "copy to", hidden: "" },
    ...others.map(([id, name]) => el("option", { value: id }, "to " + name)));
  pick.addEventListener("change", () => { to.hidden = pick.value !== "copy-to"; });
  const start = el("button", { type: "button" }, "Start");
  start.addEventListener("click", async () => {
    start.disabled = true;
    const body = { preset: pick.value };
    if (pick.value === "copy-to") body.to = Number(to.value);
    const r = await authPost("/api/v1/devices/" + d.id + "/probes", body, "start probes");
    start.disabled = false;
    if (!r) return;
    if (!r.ok) {
      showError("probe not started: " + ((r.body && r.body.error) || "HTTP " + r.status));
      return;
    }
    showError("");
    requestRender();
  });
  const b = pr.budget;
  box.append(el("p", { class: "probe-start" }, pick, " ", to, " ", start),
    el("p", { class: "legend-note" }, "Write budget used: " + fmtBytes(b.used_day_bytes) + " of " +
      fmtBytes(b.day_bytes, true) + " today, " + fmtBytes(b.used_month_bytes) + " of " + fmtBytes(b.month_bytes, true) +
      " in 30 days" + (pr.probe_dir ? " · probe file in " + pr.probe_dir : " · no probe_dir: raw namespace, read only")));
  return box;
}

// The spec check and a repeated series' summary of a run (API "spec", "series").
function specLine(r) {
  const parts = [];
  const s = r.series;
  if (s) {
    parts.push("series of " + s.of + ": " + s.measured + " measured" + (s.running ? " (running)" : ""));
    for (const p of s.phases || [])
      parts.push(p.dir + " best " + Math.round(p.best_mb_per_s) + ", median " + Math.round(p.median_mb_per_s) +
        " MB/s, spread " + (p.spread * 100).toFixed(1) + " %");
    if (s.note) parts.push(s.note);
  }
  for (const k of ["read", "write"])
    if (r.spec && r.spec[k]) parts.push(r.spec[k].text + (r.spec.basis === "best of the series" ? " (best of the series)" : ""));
  return parts.length ? el("p", { class: "legend-note spec-check" }, parts.join(" · ")) : null;
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

// The phase a run's chart shows: its longest series.
function chartPhase(run) {
  return (run.phases || []).filter((p) => p.series && p.series.length)
    .sort((a, b) => b.series.length - a.series.length)[0] || null;
}

// The chart's columns of @ph: seconds since the phase started, from 0, and MB/s of
// each interval. A point [t_ms, read, written] closes an interval that began at the
// point before it (the first at 0), and the last interval of a phase is short (the
// phase ended within it): each one's bytes go over its own length, never over
// interval_ms. A copy counts what it wrote (what its copy_to line gives), the other
// presets what they read and wrote. The first interval's rate is repeated at 0, so
// that the steps cover the phase from its start.
export function phaseRates(ph) {
  const copy = ph.op === "copy";
  const t = [0], mbps = [null];
  let prev = 0;
  for (const [ms, rd, wr] of ph.series) {
    const s = (ms - prev) / 1000;
    prev = ms;
    if (s <= 0) continue;
    t.push(ms / 1000);
    mbps.push((copy ? wr : rd + wr) / s / 1e6);
  }
  mbps[0] = mbps.length > 1 ? mbps[1] : null;
  return [t, mbps];
}

// One run's own series (its longest phase), MB/s per interval as steps over the
// phase's whole length, cliffs and dips shaded.
function probeSeriesChart(container, run) {
  const ph = chartPhase(run);
  if (!ph) return null;
  const data = phaseRates(ph);
  const t = data[0];
  const end = Math.max(t[t.length - 1], (ph.elapsed_ms || 0) / 1000);
  const episodes = ph.events.map((e) => [e.start_ms / 1000, e.end_ms / 1000]);
  const fine = end < 10; // a short run (a copy-to: well under a second) needs decimals
  const sec = (v) => (v === null || v === undefined ? "–" : v.toFixed(fine ? 2 : 1) + " s");
  const opts = Object.assign(chartSize(container, 200), {
    series: [{ label: "s", value: (u, v) => sec(v) },
      { label: run.preset + " (" + ph.name + (ph.op === "copy" ? ", written" : "") + ")", stroke: SERIES_COLORS[4], width: 1.5,
        paths: uPlot.paths.stepped({ align: -1 }), value: (u, v) => fmtMBps(v) }],
    axes: axes(fmtMBpsTick, { ySize: 76, xSeconds: true }),
    scales: { x: { time: false, range: () => [0, end] }, y: { range: (u, mn, mx) => [0, Math.max(1, mx) * 1.1] } },
    plugins: [overlayPlugin([], episodes)],
  });
  container.dataset.events = ph.events.map((e) => e.kind).join(",");
  container.dataset.end = String(end);
  return new uPlot(opts, data, container);
}

// The runs, the last finished one's detail, and the drives' names (a copy-to run's
// other drive, the copy-to picker's choices).
export async function load(ctx) {
  const pr = await probeRuns(ctx);
  if (!pr) return { pr: null };
  const lastRun = pr.probes.find((r) => r.ended);
  const [detail, devs] = await Promise.all([lastRun ? ctx.get("/api/v1/probes/" + lastRun.id) : null,
    optional("/api/v1/devices")]);
  return { pr, lastRun, detail, names: new Map(devs ? devs.devices.map((x) => [x.id, x.name]) : []) };
}

// Three sections: the runs' chart, the picker or the running probe, the last probe.
export function view(ctx, d, data) {
  const { pr, lastRun, names } = data, runDetail = data.detail;
  const probeBox = el("div", { class: "chart", id: "chart-probes" });
  const runBox = el("div", { class: "chart", id: "chart-probe-run" });
  const history = el("section", { class: "panel", "aria-label": "probes" },
    el("h3", {}, "Throughput probes (MB/s per preset)"),
    pr ? probeBox : el("p", { class: "na" }, "not available"));
  const control = pr ? el("section", { class: "panel", "aria-label": "run a probe" },
    el("h3", {}, pr.running ? "Probe running" : "Run a probe"),
    probeControl(ctx.gen, d, pr, names)) : null;
  const events = runDetail && !runDetail.sweep ? runDetail.phases.flatMap((p) => p.events) : [];
  const ph = runDetail && !runDetail.sweep ? chartPhase(runDetail) : null;
  const last = el("section", { class: "panel", "aria-label": "last probe" },
    el("h3", {}, "Last probe" + (lastRun ? ": " + runLabel(lastRun, d.id, names) + ", " + fmtTime(lastRun.started) : "")),
    runDetail && runDetail.sweep ? sweepSummary(runDetail.sweep)
      : runDetail ? runBox : el("p", { class: pr ? "muted" : "na" }, pr ? "No probe has finished yet." : "not available"),
    runDetail && runDetail.notes && runDetail.notes.length ? el("p", { class: "warn probe-notes" }, runDetail.notes.join(" · ")) : null,
    runDetail ? specLine(runDetail) : null,
    runDetail && runDetail.copy_to ? el("p", { class: "legend-note copy-to" }, runDetail.copy_to.text) : null,
    runDetail && !runDetail.sweep ? el("p", { class: "legend-note" }, "MB/s " + (ph && ph.op === "copy" ? "written" : "read and written") +
      " in each interval, seconds since the phase started · shaded: " +
      (events.map((e) => e.kind + " (" + e.cause + ")").join(", ") || "no cliff or dip")) : null);
  const draw = () => {
    if (pr && pr.probes.some((r) => r.ended)) state.charts.push(probeChart(probeBox,
      pr.probes.map((r) => (r.source_device_id ? Object.assign({}, r, { preset: runLabel(r, d.id, names) }) : r))));
    else if (pr) probeBox.replaceChildren(emptyChart("No probe has run yet",
      "start one under Run a probe, or schedule them with probe_schedule in [probes] or [device \"…\"]."));
    // A sweep's phases are its points: the sweep chart shows them, not one phase's series.
    const rc = runDetail && !runDetail.sweep && probeSeriesChart(runBox, runDetail);
    if (rc) state.charts.push(rc);
    else if (runDetail && !runDetail.sweep) runBox.replaceChildren(el("p", { class: "muted" }, "This run has no series."));
  };
  return { history, control, last, draw };
}
