// nvmond dashboard: what the drive knows beyond its health log (issue 27): the risk
// verdict with its reasons and sources, the power-state timeline, the host's thermal
// limits (HCTM) on the temperature chart, the OCP C0h log's write amplification and
// bad blocks over time, namespace use, and the drive's Persistent Event Log among the
// events. The drive page's panels (drive.js composes them) and overview.js use it; the
// data is GET /devices/{id} and …/power, …/ocp, …/risk (docs/api.md).
import { SERIES_COLORS, axes, chartSize, legendTime, uPlot } from "./charts.js";
import { cssVar, el, emptyChart, meter, row } from "./dom.js";
import { fmtBytes, fmtTime, num } from "./format.js";
import { currentRange, state } from "./state.js";

const VERDICT_WORDS = { ok: "ok", watch: "watch", replace_soon: "replace soon", failed: "failed" };
const VERDICT_CLASS = { ok: "ok", watch: "warn", replace_soon: "bad", failed: "bad" };
// Interval write amplification needs this much host data between two points: below
// it a few MB of garbage collection would read as a huge factor.
const WA_MIN_HOST_BYTES = 1e9;

// "watch: in the last 90 days: 3 uncorrectable reads (OCP log)"; null before the first
// evaluation.
function riskText(h) {
  if (!h) return null;
  const why = h.reasons.map((r) => r.reason).join("; ");
  return VERDICT_WORDS[h.verdict] + (why ? ": " + why : "");
}

// Each reason with its source, for a tooltip.
function riskTitle(h) {
  if (!h) return "not evaluated yet";
  if (!h.reasons.length) return "no rule fired (docs/health.md)";
  return h.reasons.map((r) => r.rule + ": " + r.reason + "\nsource: " + r.source).join("\n\n");
}

// A drive that needs a look (the overview's problem filter): any verdict but ok.
export function riskNeedsLook(d) {
  return !!d.risk && d.risk.verdict !== "ok";
}

// The card's line.
export function riskRow(d) {
  const h = d.risk;
  if (!h) return row("Risk verdict", el("span", { class: "muted", "data-verdict": "" }, "not evaluated yet"));
  return row("Risk verdict", el("span", { class: VERDICT_CLASS[h.verdict], title: riskTitle(h), "data-verdict": h.verdict }, riskText(h)));
}

// Under the health badge in the table: the verdict when it is not ok.
export function riskNote(d) {
  const h = d.risk;
  if (!h || h.verdict === "ok") return null;
  return el("small", { class: "risk-note " + VERDICT_CLASS[h.verdict], title: riskTitle(h), "data-verdict": h.verdict },
    "risk: " + VERDICT_WORDS[h.verdict]);
}

// The drive page's risk verdict, under the health verdict: each reason in words with
// its source and what it needs, and every rule (GET …/risk; null: the drive's own
// field only).
export function riskPanel(d, hv) {
  const h = d.risk;
  const cls = h ? VERDICT_CLASS[h.verdict] : "muted";
  const rules = hv ? hv.rules : [];
  const off = rules.filter((r) => r.enabled === false).length;
  const head = !h ? "not evaluated yet: the first health-log reads decide it"
    : h.reasons.length ? "since " + fmtTime(h.since)
    : "no rule fired" + (rules.length ? "; " + (rules.length - off) + " rules checked" + (off ? ", " + off + " off" : "") : "") + " · since " + fmtTime(h.since);
  const reasons = h && h.reasons.length ? el("ul", { class: "risk-reasons" }, h.reasons.map((r) => el("li", { "data-rule": r.rule },
    el("strong", {}, r.rule), " (" + VERDICT_WORDS[r.level] + "): " + r.reason,
    el("small", { class: "muted" }, "source: " + r.source + " · needs: " + r.needs)))) : null;
  const table = rules.length ? el("details", { class: "risk-rules" },
    el("summary", {}, "How the verdict is decided (" + rules.length + " rules, docs/health.md)"),
    el("div", { class: "table-wrap" }, el("table", { class: "events" },
      el("thead", {}, el("tr", {}, ["Rule", "Raises to", "Threshold", "Needs", "Source", "Now"].map((x) => el("th", { scope: "col" }, x)))),
      el("tbody", {}, rules.map((r) => el("tr", { "data-rule": r.rule, "data-fired": String(r.fired) },
        el("td", {}, r.rule), el("td", {}, VERDICT_WORDS[r.level]), el("td", { class: "details" }, r.threshold),
        el("td", { class: "details" }, r.needs), el("td", { class: "details" }, r.source),
        el("td", { class: r.fired ? VERDICT_CLASS[r.level] : "muted" }, r.enabled === false ? "off" : r.fired ? "fired" : "—"))))))) : null;
  const past = hv && hv.history.length > 1 ? el("p", { class: "legend-note" }, "Changes: " +
    hv.history.slice(0, 6).map((x) => fmtTime(x.ts) + " " + VERDICT_WORDS[x.verdict]).join(" · ")) : null;
  return el("section", { class: "verdict risk " + cls, id: "risk", "aria-label": "risk verdict", "data-verdict": h ? h.verdict : "" },
    el("span", { class: "verdict-level" }, "Risk: " + (h ? VERDICT_WORDS[h.verdict] : "unknown")),
    el("span", { class: "verdict-why" }, head), reasons, past, table);
}

// ---- the temperature chart: HCTM lines, thermal excursions -----------------------

// The thresholds the host set (Set Features 10h) as lines, beside WCTEMP and CCTEMP.
export function hctmLines(dev) {
  const t = dev.thermal_management;
  if (!t || !t.known) return [];
  const c = cssVar("--hctm") || "#1b7c83";
  return [
    t.tmt1_c !== null ? { v: t.tmt1_c, color: c, label: "TMT1 " + t.tmt1_c + " °C (host)" } : null,
    t.tmt2_c !== null ? { v: t.tmt2_c, color: c, label: "TMT2 " + t.tmt2_c + " °C (host)", right: true } : null,
  ].filter((x) => x);
}

export function hctmNote(dev) {
  const t = dev.thermal_management;
  return t && t.known && (t.tmt1_c !== null || t.tmt2_c !== null) ? " · teal: the host's TMT1 / TMT2" : "";
}

// Thermal excursions of the drive's event log as red marks on the chart's top edge.
export function pelPlugin(events) {
  const at = (events || []).filter((e) => e.source === "pel" && e.kind === "thermal_excursion").map((e) => Date.parse(e.start) / 1000);
  return {
    hooks: {
      draw: [(u) => {
        if (!at.length) return;
        const ctx = u.ctx, s = 5 * devicePixelRatio;
        ctx.save();
        ctx.fillStyle = cssVar("--bad");
        for (const t of at) {
          const x = u.valToPos(t, "x", true);
          if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) continue;
          ctx.beginPath();
          ctx.moveTo(x - s, u.bbox.top);
          ctx.lineTo(x + s, u.bbox.top);
          ctx.lineTo(x, u.bbox.top + 1.6 * s);
          ctx.fill();
        }
        ctx.restore();
      }],
    },
  };
}

// ---- the events table: the drive's event log ---------------------------------------

const PEL_LABELS = {
  health_snapshot: "health snapshot", firmware_commit: "firmware commit", timestamp_change: "timestamp changed",
  power_on_reset: "power-on or reset", hardware_error: "hardware error", namespace_change: "namespace changed",
  format_start: "format started", format_done: "format done", sanitize_start: "sanitize started",
  sanitize_done: "sanitize done", set_feature: "feature set", telemetry_log: "telemetry log created",
  thermal_excursion: "thermal excursion", vendor: "vendor event", tcg: "TCG event", unknown: "unknown event",
};
const PEL_CLASS = { hardware_error: "bad", thermal_excursion: "warn", firmware_commit: "", format_start: "", format_done: "",
  sanitize_start: "", sanitize_done: "", namespace_change: "" };

export function pelEventRow(e) {
  const notes = [];
  if (e.late) notes.push("recorded while nvmond was not watching");
  if (!e.time_known) notes.push("the drive's clock counted from a reset: time when read");
  return el("tr", { class: "pel", "data-kind": e.kind, "data-late": String(e.late) },
    el("td", { class: "time" }, fmtTime(e.start)), el("td", {}, "drive log"),
    el("td", { class: e.kind in PEL_CLASS ? PEL_CLASS[e.kind] : "muted" }, PEL_LABELS[e.kind] || e.kind),
    el("td", { class: "details" }, e.summary + (notes.length ? " · " + notes.join(" · ") : "")),
    el("td", { class: "action" }, ""));
}

// ---- the page's data and panels ----------------------------------------------------

function psWords(p, n) {
  const s = p && p.states ? p.states.find((x) => x.state === n) : null;
  if (!s) return "PS" + n;
  return "PS" + n + (s.max_watts !== null ? " · " + s.max_watts + " W max" : "") + (s.non_operational ? " · non-operational" : "");
}

function apstWords(a) {
  if (!a || !a.supported) return "not supported (Identify Controller APSTA is 0)";
  return (a.enabled === null ? "unknown" : a.enabled ? "on" : "off") + (a.note ? ": " + a.note : "");
}

function hctmWords(d) {
  const t = d.thermal_management;
  if (!t) return "not supported (Identify Controller HCTMA is 0)";
  if (!t.known) return "supported, not read yet";
  if (t.tmt1_c === null && t.tmt2_c === null) return "supported, off: the drive throttles by its own rules (WCTEMP " + (d.wctemp_c ?? "–") + " °C)";
  const part = (n, c) => (c === null ? n + " off" : n + " " + c + " °C");
  return part("TMT1", t.tmt1_c) + " (light throttling from here) · " + part("TMT2", t.tmt2_c) + " (heavy) · set by the host";
}

// "200 µs", "1.2 ms".
function fmtLatency(us) {
  return us < 1000 ? us + " µs" : Number((us / 1000).toPrecision(3)) + " ms";
}

function powerPanel(d, pw) {
  const p = d.power;
  const box = el("div", { class: "chart", id: "chart-power" });
  const rows = pw ? pw.timeline : [];
  return {
    box,
    section: el("section", { class: "panel wide", "aria-label": "power state", id: "power" },
      el("h3", {}, "Power state"),
      !pw ? el("p", { class: "na" }, "not available")
        : rows.length ? box
        : emptyChart("No power state read in this range", "nvmond reads the power state (Get Features 02h) at every poll of an awake drive."),
      p ? row("Now", psWords(p, p.state) + " · since " + fmtTime(p.since)) : row("Now", "not read yet"),
      p ? row("APST", apstWords(p.apst), p.apst && p.apst.enabled === false ? "warn" : "") : null,
      row("Host thermal management", hctmWords(d)),
      p && p.states ? el("p", { class: "legend-note" }, "The drive's states (Identify): " +
        p.states.map((s) => "PS" + s.state + " " + (s.max_watts !== null ? s.max_watts + " W" : "–") + (s.non_operational ? " non-op" : "") +
          (s.exit_latency_us ? ", exit " + fmtLatency(s.exit_latency_us) : "")).join(" · ") +
        " · a drive in a non-operational state wakes to answer, so the chart shows the state when polled") : null),
  };
}

function powerChart(container, d, pw) {
  const rows = pw.timeline;
  const now = Date.now() / 1000;
  const t = rows.map((r) => r.ts_ms / 1000).concat([now]);
  const ps = rows.map((r) => r.state).concat([rows[rows.length - 1].state]);
  const states = (d.power && d.power.states) || [];
  const top = Math.max(...ps.filter((v) => v !== null), ...states.map((s) => s.state), 1);
  const range = currentRange();
  const opts = Object.assign(chartSize(container, 140), {
    series: [{ value: legendTime },
      { label: "power state", stroke: SERIES_COLORS[5], width: 2, paths: uPlot.paths.stepped({ align: 1 }), points: { show: false },
        value: (u, v) => (v === null || v === undefined ? "–" : psWords(d.power, v)) }],
    axes: axes((v) => (Number.isInteger(v) ? "PS" + v : ""), { ySize: 56 }),
    scales: {
      x: { time: true, range: (u, mn) => [Math.min(Math.max(now - range.s, mn == null ? now - range.s : mn), now - 60), now] },
      y: { dir: -1, range: [-0.5, top + 0.5] },
    },
  });
  opts.axes[1].splits = () => Array.from({ length: top + 1 }, (_, i) => i);
  return new uPlot(opts, [t, ps], container);
}

// Interval write amplification: physical over host bytes between points at least
// WA_MIN_HOST_BYTES of host writes apart; the lifetime figure of each row beside it.
function waSeries(h) {
  const t = [], iv = [], life = [];
  let a = null;
  for (const r of h) {
    const host = num(r.host_written_bytes), phys = num(r.physical_written_bytes);
    t.push(r.ts_ms / 1000);
    life.push(r.write_amplification);
    if (a && host - a.host >= WA_MIN_HOST_BYTES && phys >= a.phys) {
      iv.push(Math.round((phys - a.phys) / (host - a.host) * 100) / 100);
      a = { host, phys };
    } else {
      iv.push(null);
      if (!a || host < a.host) a = { host, phys }; // a counter reset starts over
    }
  }
  return [t, iv, life];
}

function ocpPanel(d, oc) {
  const o = d.ocp;
  const waBox = el("div", { class: "chart", id: "chart-wa" }), bbBox = el("div", { class: "chart", id: "chart-bad-blocks" });
  const h = oc ? oc.history : [];
  let body;
  if (!oc) body = [el("p", { class: "na" }, "not available")];
  else if (!o) body = [el("p", { class: "muted" }, "Not read yet: nvmond asks for log page C0h with the health log ([logs] ocp_interval).")];
  else if (!o.present) body = [el("p", { class: "muted", id: "ocp-absent" }, "No OCP log: " + o.why + ". nvmond asks once per firmware revision and reads nothing else there.")];
  else {
    const b = (v) => (v === null || v === undefined ? "–" : typeof v === "number" ? v.toLocaleString("en-US") : String(v));
    body = [
      h.length >= 2 ? el("div", { class: "two-charts" }, el("div", {}, el("h4", {}, "Write amplification"), waBox),
        el("div", {}, el("h4", {}, "Bad NAND blocks"), bbBox))
        : emptyChart("Fewer than two C0h reads in this range", "nvmond reads C0h with the health log; a point is kept when it changed, at least hourly."),
      el("p", { class: "legend-note" }, "write amplification: physical ÷ host bytes written — solid between points " +
        fmtBytes(WA_MIN_HOST_BYTES) + " of host writes or more apart, dashed over the drive's life"),
      el("div", { class: "ocp-figures" },
        row("Physical written / read", fmtBytes(o.physical_written_bytes) + " / " + fmtBytes(o.physical_read_bytes)),
        row("Write amplification (life)", o.write_amplification === null ? "– (no host writes yet)" : o.write_amplification.toFixed(2)),
        row("Bad blocks, user / system", b(o.bad_user_blocks) + " (" + o.bad_user_blocks_normalized + " % left) / " + b(o.bad_system_blocks) + " (" + o.bad_system_blocks_normalized + " % left)"),
        row("Uncorrectable reads", b(o.uncorrectable_reads), num(o.uncorrectable_reads) > 0 ? "warn" : ""),
        row("XOR recoveries · soft ECC errors", b(o.xor_recoveries) + " · " + b(o.soft_ecc_errors)),
        row("End-to-end detected / corrected", b(o.end_to_end_detected) + " / " + b(o.end_to_end_corrected), num(o.end_to_end_detected) > num(o.end_to_end_corrected) ? "warn" : ""),
        row("Thermal throttling", b(o.thermal_throttling_events) + " events · now " + (o.thermal_throttling_status ? "throttled (" + o.thermal_throttling_status + ")" : "not throttled")),
        row("PCIe correctable errors", b(o.pcie_correctable_errors)),
        row("Incomplete shutdowns", b(o.incomplete_shutdowns)),
        row("Free blocks · capacitor health", o.free_blocks_percent + " % · " + o.capacitor_health + " %"),
        row("System data used", o.system_data_used_percent + " %"),
        row("Log", "C0h version " + o.log_version + " · OCP " + o.spec_version + " · read " + fmtTime(o.read))),
    ];
  }
  return {
    waBox, bbBox, oc,
    section: el("section", { class: "panel wide", "aria-label": "ocp log", id: "ocp" },
      el("h3", {}, "OCP SMART extended log (C0h)"), ...body),
  };
}

function ocpCharts(p) {
  const h = p.oc.history;
  const x = { time: true, range: (u, mn, mx) => (mn === mx ? [mn - 3600, mx + 3600] : [mn, mx]) };
  const wa = new uPlot(Object.assign(chartSize(p.waBox, 180), {
    series: [{ value: legendTime },
      { label: "interval", stroke: SERIES_COLORS[0], width: 2, spanGaps: true, points: { show: false }, value: (u, v) => (v === null || v === undefined ? "–" : v.toFixed(2)) },
      { label: "life", stroke: SERIES_COLORS[7], width: 1.5, dash: [6, 4], value: (u, v) => (v === null || v === undefined ? "–" : v.toFixed(2)) }],
    axes: axes((v) => v.toFixed(2), { ySize: 48 }),
    scales: { x, y: { range: (u, mn, mx) => [Math.min(1, mn === null ? 1 : mn), Math.max(mx === null ? 2 : mx, 1.5) * 1.05] } },
  }), waSeries(h), p.waBox);
  const bb = new uPlot(Object.assign(chartSize(p.bbBox, 180), {
    series: [{ value: legendTime },
      { label: "user", stroke: SERIES_COLORS[6], width: 2, paths: uPlot.paths.stepped({ align: 1 }), points: { show: false } },
      { label: "system", stroke: SERIES_COLORS[3], width: 2, paths: uPlot.paths.stepped({ align: 1 }), points: { show: false } }],
    axes: axes((v) => (Number.isInteger(v) ? String(v) : ""), { ySize: 48 }),
    scales: { x, y: { range: (u, mn, mx) => [0, Math.max(4, (mx || 0) * 1.15)] } },
  }), [h.map((r) => r.ts_ms / 1000), h.map((r) => num(r.bad_user_blocks)), h.map((r) => num(r.bad_system_blocks))], p.bbBox);
  p.waBox.dataset.points = String(h.length);
  return [wa, bb];
}

// Namespaces (NUSE against NSZE and NCAP; the ANA state with native multipath) and
// whether nvmond reads the drive's event log.
function nsPanel(d) {
  const ns = d.namespace_usage || [];
  const ev = d.event_log;
  return el("section", { class: "panel", "aria-label": "namespaces", id: "namespaces" },
    el("h3", {}, "Namespaces and event log"),
    ns.length ? ns.map((n) => {
      const frac = n.size_bytes ? num(n.used_bytes) / num(n.size_bytes) : 0;
      return el("div", { class: "ns", "data-nsid": String(n.nsid) },
        row((n.name || "namespace") + " (NSID " + n.nsid + ")", fmtBytes(n.used_bytes) + " used of " + fmtBytes(n.size_bytes) +
          " (" + n.used_percent + " %)" + (num(n.capacity_bytes) !== num(n.size_bytes) ? ", capacity " + fmtBytes(n.capacity_bytes) : "") +
          (n.ana_state ? " · ANA " + n.ana_state : "")),
        meter(frac, frac >= 0.9 ? "warn" : "", []));
    }) : el("p", { class: "muted" }, "No namespace read yet (Identify Namespace at the scan)."),
    row("Persistent Event Log", !ev ? "not read yet" : !ev.supported ? "not supported (Identify Controller LPA bit 4 is 0)"
      : ev.events_stored + " entries stored" + (ev.drive_events !== null && ev.drive_events !== undefined ? " (the drive holds " + ev.drive_events + ")" : "") +
        (ev.read ? " · read " + fmtTime(ev.read) : "")),
    el("p", { class: "legend-note" }, "the log's entries are among the events below as drive log; thermal excursions also mark the temperature chart"));
}

// …/power and …/ocp of the range, and …/risk (each null when not available).
export function load(ctx) {
  const dev = "/api/v1/devices/" + ctx.id;
  return Promise.all([dev + "/power?" + ctx.q, dev + "/ocp?" + ctx.q, dev + "/risk"].map(ctx.get))
    .then(([power, ocp, risk]) => ({ power, ocp, risk }));
}

// The power, namespace and OCP panels of one drive page: built before the page is
// swapped in, their charts drawn after.
export function view(ctx, d, logs) {
  const power = powerPanel(d, logs.power), ocp = ocpPanel(d, logs.ocp);
  const draw = () => {
    if (logs.power && logs.power.timeline.length && power.box.isConnected)
      state.charts.push(powerChart(power.box, d, logs.power));
    if (ocp.waBox.isConnected) state.charts.push(...ocpCharts(ocp));
  };
  return { power: power.section, ns: nsPanel(d), ocp: ocp.section, draw };
}
