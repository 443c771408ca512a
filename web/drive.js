// nvmond dashboard: the page of one drive: verdict, charts, wear, probes, self-tests,
// events.
"use strict";

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

// POST to a token-guarded endpoint: the token is asked once and kept in this

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

async function ackAlert(id, btn) {
  btn.disabled = true;
  const r = await authPost("/api/v1/alerts/" + id + "/ack", undefined, "acknowledge alerts");
  if (!r || !r.ok) {
    btn.disabled = false;
    if (r) showError("acknowledge failed: " + ((r.body && r.body.error) || r.status));
    return;
  }
  render();
}

// A copy-to run is on both drives' lists: "copy-to → demo2" on the drive read,
// "copy-to ← demo1" on the one written (@names: device id → name); else its preset.
function runLabel(r, id, names) {
  if (!r.source_device_id) return r.preset;
  const read = r.source_device_id === id, other = read ? r.device_id : r.source_device_id;
  return "copy-to " + (read ? "→ " : "← ") + (names.get(other) || "drive " + other);
}

// ---- running a probe from the drive page --------------------------------

function stopProbeWatch() {
  clearTimeout(state.probeTimer);
  state.probeTimer = null;
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
      render();
      return;
    }
    const bar = box.querySelector(".meter > span");
    bar.style.width = (r.progress ? r.progress.fraction * 100 : 0).toFixed(1) + "%";
    box.querySelector(".probe-progress").textContent = progressText(r);
    box.dataset.fraction = r.progress ? r.progress.fraction : 0;
    state.probeTimer = setTimeout(tick, 1000);
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
    render();
  });
  const b = pr.budget;
  box.append(el("p", { class: "probe-start" }, pick, " ", to, " ", start),
    el("p", { class: "legend-note" }, "Write budget used: " + fmtBytes(b.used_day_bytes) + " of " +
      fmtBytes(b.day_bytes, true) + " today, " + fmtBytes(b.used_month_bytes) + " of " + fmtBytes(b.month_bytes, true) +
      " in 30 days" + (pr.probe_dir ? " · probe file in " + pr.probe_dir : " · no probe_dir: raw namespace, read only")));
  return box;
}

// ---- device self-tests (issue 12) -------------------------------------------

const SELFTESTS_SHOWN = 50;
const SKIPS_SHOWN = 5;
// Self-test Result codes that are aborts (the rest: 0 passed, 5-7 failures).
const SELFTEST_ABORTS = new Set([1, 2, 3, 4, 8, 9]);

function stopSelftestWatch() {
  clearTimeout(state.selftestTimer);
  state.selftestTimer = null;
}

// "short self-test running · 42 % · since Dec 1, 14:05"
function selftestProgressText(run) {
  return run.type + " self-test running · " + run.percent + " % · since " + fmtTime(run.since);
}

// Follow the running self-test every 2 s (the daemon reads the drive's log at each
// poll); when it ends, rebuild the page: the history has its result then.
function watchSelftest(gen, id, box) {
  const tick = async () => {
    const r = await optional("/api/v1/devices/" + id + "/selftests?limit=1");
    if (gen !== state.generation) return;
    if (!r || !r.running) {
      stopSelftestWatch();
      render();
      return;
    }
    box.querySelector(".meter > span").style.width = Math.min(100, r.running.percent) + "%";
    box.querySelector(".selftest-progress").textContent = selftestProgressText(r.running);
    box.dataset.percent = r.running.percent;
    state.selftestTimer = setTimeout(tick, 2000);
  };
  stopSelftestWatch();
  state.selftestTimer = setTimeout(tick, 2000);
}

// The running test with its progress, and the buttons: Short test and Extended
// test while none runs, Abort while one does. They ask for the token as the probe
// buttons do; a refusal shows the daemon's reason.
function selftestControl(gen, d, st) {
  const box = el("div", { id: "selftest-control", "data-running": st.running ? st.running.type : "" });
  const post = async (btn, path, body, what, verb) => {
    btn.disabled = true;
    const r = await authPost("/api/v1/devices/" + d.id + path, body, what);
    btn.disabled = false;
    if (!r) return;
    if (!r.ok) {
      showError(verb + ": " + ((r.body && r.body.error) || "HTTP " + r.status));
      return;
    }
    showError("");
    render();
  };
  const buttons = ["short", "extended"].map((type) => {
    const b = el("button", { type: "button", "data-selftest": type, disabled: !!st.running },
      type === "short" ? "Short test" : "Extended test");
    b.addEventListener("click", () => post(b, "/selftests", { type }, "start self-tests", "self-test not started"));
    return b;
  });
  const abort = el("button", { type: "button", "data-selftest": "abort", disabled: !st.running }, "Abort");
  abort.addEventListener("click", () => post(abort, "/selftests/abort", undefined, "abort self-tests", "self-test not aborted"));
  if (st.running) {
    box.dataset.percent = st.running.percent;
    box.append(el("p", { class: "selftest-progress" }, selftestProgressText(st.running)),
      meter(st.running.percent / 100, "", []));
    watchSelftest(gen, d.id, box);
  }
  box.append(el("p", { class: "selftest-buttons" }, buttons[0], " ", buttons[1], " ", abort),
    el("p", { class: "legend-note" }, "short: 2 minutes at most" +
      (st.edstt_min ? "; extended: about " + st.edstt_min + " min, as the drive says" : "") +
      " · the drive keeps serving I/O while it tests, maybe slower"));
  return box;
}

// The history, newest first: when nvmond saw each result, its type and result
// (failures red, aborts amber), where it failed, power-on hours and who started it.
function selftestHistory(st) {
  if (!st.history.length)
    return el("p", { class: "muted" }, st.supported === false ? "No self-test result stored." : "No self-test result stored yet.");
  const rows = st.history.map((r) => el("tr", { "data-result-code": String(r.result_code), "data-id": String(r.id) },
    el("td", { class: "time" }, fmtTime(r.seen)),
    el("td", {}, r.type),
    el("td", { class: "details " + (r.failed ? "bad" : SELFTEST_ABORTS.has(r.result_code) ? "warn" : r.passed ? "ok" : "") }, r.result),
    el("td", { class: "num", "data-label": "segment" }, r.segment === null ? "" : String(r.segment)),
    el("td", { class: "num", "data-label": "LBA" }, r.lba === null ? "" : r.lba + (r.nsid !== null ? " (NSID " + r.nsid + ")" : "")),
    el("td", { class: "num", "data-label": "power-on hours" }, String(r.poh)),
    el("td", { "data-label": "started by" }, r.origin || "other tool")));
  return el("div", { class: "table-wrap" }, el("table", { class: "events selftests", id: "selftest-history" },
    el("thead", {}, el("tr", {}, ["Seen", "Type", "Result", "Segment", "LBA", "Power-on hours", "Started by"]
      .map((x, i) => el("th", { scope: "col", class: i >= 3 && i <= 5 ? "num" : null }, x)))),
    el("tbody", {}, rows)));
}

// Device self-tests (GET …/selftests; null: not available): whether the drive takes
// them, the running one, the next scheduled one, the buttons, the history and the
// scheduled tests skipped lately, with why.
function selftestPanel(gen, d, st) {
  if (!st) return el("p", { class: "na" }, "not available");
  const cap = st.supported === true ? "supported" : st.supported === false ? "not supported" : "unknown";
  const skips = st.skips.slice(0, SKIPS_SHOWN);
  return el("div", { id: "selftests-panel", "data-supported": String(st.supported) },
    row("Device self-test", st.unsupported_reason ? [cap, el("small", { class: "muted" }, st.unsupported_reason)] : cap,
      st.supported === true ? "" : "muted"),
    st.supported === true ? row("Schedule", st.schedule || "none (selftest_schedule in [selftests] or [device \"…\"])") : null,
    st.supported === true ? row("Next scheduled", st.next ? st.next.type + ", " + fmtTime(st.next.at) : "none") : null,
    st.supported === true ? selftestControl(gen, d, st) : null,
    selftestHistory(st),
    skips.length ? el("div", { id: "selftest-skips" },
      el("h4", {}, "Scheduled tests skipped lately"),
      el("ul", { class: "skips" }, skips.map((k) => el("li", {},
        el("span", { class: "time" }, fmtTime(k.ts)), " · " + k.type + " (" + k.origin + "): " + k.reason))),
      st.skips.length > skips.length ? el("p", { class: "legend-note" }, "the newest " + skips.length + " of " + st.skips.length + " shown") : null)
      : null);
}

const EVENT_LABELS = {
  light: "light throttling (T1)",
  heavy: "heavy throttling (T2)",
  warning_temp_time: "time over WCTEMP rose",
  critical_temp_time: "time over CCTEMP rose",
  critical_warning_temperature: "temperature warning bit",
  over_wctemp: "over WCTEMP",
  over_cctemp: "over CCTEMP",
};

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

// Alerts and events in one table, newest first (the events endpoint answers oldest
// first, the alerts newest first). A phone shows each row as a short block (CSS).
function eventsTable(events, alerts) {
  if (events === null && alerts === null) return el("p", { class: "na" }, "not available");
  const rows = [];
  const at = [];
  for (const a of alerts || []) {
    at.push(Date.parse(a.started));
    const ack = a.acked ? "acknowledged " + fmtTime(a.acked) : a.state === "firing" ? null : "";
    const btn = el("button", { type: "button" }, "Acknowledge");
    btn.addEventListener("click", () => ackAlert(a.id, btn));
    rows.push(el("tr", {}, el("td", { class: "time" }, fmtTime(a.started)), el("td", {}, "alert"),
      el("td", { class: a.severity === "critical" ? "bad" : a.severity === "warning" ? "warn" : "" }, a.severity + " · " + a.state),
      el("td", { class: "details" }, a.message || a.rule), el("td", { class: "action" }, ack ?? btn)));
  }
  for (const e of events || []) {
    at.push(Date.parse(e.start));
    if (e.source === "pel") { rows.push(pelEventRow(e)); continue; } // drivelogs.js
    // An ongoing temperature event answers duration 0: count from its start. Transitions
    // are T1/T2 changes, which only throttling has.
    const secs = e.ongoing ? Math.max(e.duration_s || 0, Math.round((Date.now() - Date.parse(e.start)) / 1000)) : e.duration_s;
    const moves = !THROTTLE_KINDS.has(e.kind) ? "" : ", " + e.transitions + (e.transitions === 1 ? " transition" : " transitions");
    rows.push(el("tr", {}, el("td", { class: "time" }, fmtTime(e.start)), el("td", {}, THROTTLE_KINDS.has(e.kind) ? "throttle" : "temperature"),
      el("td", { class: e.kind === "heavy" || e.kind === "over_cctemp" ? "bad" : "warn" }, (EVENT_LABELS[e.kind] || e.kind) + (e.ongoing ? " · ongoing" : "")),
      el("td", { class: "details" }, fmtDuration(secs) + (e.ongoing ? " so far" : "") + moves + (e.peak_c !== null ? ", peak " + e.peak_c + " °C" : "")),
      el("td", { class: "action" }, "")));
  }
  if (!rows.length) return el("p", { class: "muted" }, "No events or alerts in this range.");
  const order = rows.map((r, i) => i).sort((i, j) => at[j] - at[i] || i - j);
  return el("div", { class: "table-wrap" }, el("table", { class: "events" },
    el("thead", {}, el("tr", {}, ["Time", "Type", "Severity / state", "Details", ""].map((x) => el("th", { scope: "col" }, x)))),
    el("tbody", {}, order.map((i) => rows[i]))));
}

// The error log entries read in the range, newest first, with their class: benign
// ones (the host's own refused admin commands) greyed, media / io ones highlighted.
// A phone shows each row as a short block, like the events (CSS).
const ERROR_CLASSES = ["benign", "media", "io", "other"];
const ERRORS_SHOWN = 200;
function errorsTable(er, total) {
  if (!er) return el("p", { class: "na" }, "not available");
  const c = er.counts;
  const summary = el("p", { class: "legend-note", id: "errors-summary" },
    ERROR_CLASSES.map((k) => c[k] + " " + k).join(" · ") + " in this range" +
    (total ? " · " + total.total + " stored in all" : "") +
    " · benign: commands the host sent that the drive refused, never alerted · media / io fire io_errors");
  if (!er.read) return el("p", { class: "muted" }, "The drive's error log has not been read yet.");
  if (!er.entries.length) return el("div", {}, el("p", { class: "muted" }, "No error log entry in this range."), summary);
  const queue = (e) => e.sqid === null ? "—" : e.sqid === 0 ? "admin" : "I/O " + e.sqid;
  const rows = er.entries.map((e) => el("tr", { class: "err-" + e.class + (e.alerts ? " err-alert" : ""), "data-class": e.class, "data-count": String(e.error_count) },
    el("td", { class: "time" }, fmtTime(e.seen)),
    el("td", { class: "num" }, String(e.error_count)),
    el("td", { class: "class" }, e.class + (e.before_watch ? " · before nvmond" : "")),
    el("td", { class: "details" }, (e.status_name || "status " + e.sct + "/" + e.sc) +
      " (SCT " + e.sct.toString(16) + "h, SC " + e.sc.toString(16).padStart(2, "0") + "h)"),
    el("td", {}, queue(e) + (e.cid !== null ? " · CID " + e.cid : "")),
    el("td", {}, e.nsid && e.nsid !== 4294967295 ? "NSID " + e.nsid + " · LBA " + e.lba : "")));
  const shown = er.entries.length, all = ERROR_CLASSES.reduce((n, k) => n + num(c[k]), 0);
  return el("div", {},
    el("div", { class: "table-wrap" }, el("table", { class: "events errors" },
      el("thead", {}, el("tr", {}, ["Read", "Count", "Class", "Status", "Queue", "Where"].map((x) => el("th", { scope: "col" }, x)))),
      el("tbody", {}, rows))),
    summary,
    shown < all ? el("p", { class: "legend-note" }, "the newest " + shown + " of " + all + " shown") : null);
}

// Firmware and PCIe link (issue 11): the link now, sleep and access, and every
// firmware revision and link nvmond saw (GET …/facts; null: not available).
function factsPanel(d, facts) {
  const l = d.link;
  const fw = facts ? facts.firmware_history : null;
  const links = facts ? facts.link_history : [];
  const hist = fw === null ? el("p", { class: "na" }, "history not available")
    : el("div", { class: "table-wrap" }, el("table", { class: "events", id: "firmware-history" },
      el("thead", {}, el("tr", {}, ["Time", "Firmware", "Revision"].map((x) => el("th", { scope: "col" }, x)))),
      el("tbody", {}, fw.map((h) => el("tr", { "data-event": h.event },
        el("td", { class: "time" }, fmtTime(h.ts)),
        el("td", { class: h.event === "firmware_changed" ? "warn" : "" }, h.event === "firmware_changed" ? "changed" : "first seen"),
        el("td", { class: "details" }, h.event === "firmware_changed" ? h.old + " → " + h.new : h.new))))));
  return el("div", { id: "facts", "data-link-degraded": l && l.degraded ? "yes" : "no" },
    row("PCIe link", l ? l.text + (l.degraded ? " · degraded: below what the drive supports, which caps its throughput" : "") : "unknown",
      l && l.degraded ? "warn" : ""),
    links.length > 1 ? row("Link changes", links.slice(0, 5).map((x) => fmtTime(x.ts) + " " + x.link.text).join(" · ")) : null,
    row("State", d.state === "asleep" ? "asleep: runtime-suspended, not polled until it wakes" : d.state || (d.online ? "online" : "offline")),
    d.source === "hwmon" ? row("Health log", "not readable: nvmond lacks the privileges (root, or CAP_SYS_ADMIN and access to /dev/" +
      d.name + "); temperatures from hwmon only", "warn") : null,
    row("Firmware", d.firmware + (d.firmware_pending ? " (" + d.firmware_pending + " staged for the next reset)" : "")),
    hist);
}

// The verdict at the top of the drive page: health and its reasons, or what was checked.
function verdict(d, h, wear, events, rangeKey) {
  const cls = { ok: "ok", warning: "warn", critical: "bad" }[h.state] || "muted";
  const s = d.latest;
  let text;
  if (h.state === "ok") {
    const parts = [];
    if (s.temperature_c !== null) parts.push(s.temperature_c + " °C" + (d.wctemp_c !== null ? " (" + (d.wctemp_c - s.temperature_c) + " °C below WCTEMP)" : ""));
    parts.push(s.percent_used + " % used", "spare " + s.avail_spare + " %");
    const tbw = tbwPercent(wear);
    if (tbw !== null) parts.push(tbw.toFixed(1) + " % of rated TBW");
    text = "No problem found: " + parts.join(", ") + ".";
  } else {
    text = h.why.join("; ") + ".";
  }
  const throttles = events ? events.filter((e) => THROTTLE_KINDS.has(e.kind)) : [];
  if (throttles.length)
    text += " " + throttles.length + " throttle episode" + (throttles.length === 1 ? "" : "s") + " in the last " + RANGE_WORDS[rangeKey] +
      (throttles.some((e) => e.ongoing) ? ", one now." : ".");
  return el("section", { class: "verdict " + cls, id: "verdict", "aria-label": "health verdict", "data-health": h.state },
    el("span", { class: "verdict-level" }, "Health: " + (h.state === "ok" ? "OK" : h.state)), el("span", { class: "verdict-why" }, text));
}

function rangeButtons() {
  return el("div", { class: "ranges", role: "group", "aria-label": "time range" }, RANGES.map((r) => {
    const b = el("button", { type: "button", "aria-pressed": r.key === state.range ? "true" : "false", "data-range": r.key }, r.label);
    b.addEventListener("click", () => {
      state.range = r.key;
      localStorage.setItem("nvmond.range", r.key);
      render();
    });
    return b;
  }));
}

// A live tick on the drive page: new points into the temperature chart, nothing
// rebuilt (no flicker, the scroll position stays). Return: false when the page must
// be rebuilt instead (the chart is missing or its series changed).
async function liveDrive(gen, id) {
  const chart = state.charts.find((c) => c.root.parentElement.id === "chart-temp");
  if (!chart || state.liveTicks % 6 === 0) return false; // a full refresh every minute
  const range = RANGES.find((r) => r.key === state.range) || RANGES[1];
  const to = Date.now(), from = to - range.s * 1000;
  const sr = await api("/api/v1/devices/" + id + "/series?from=" + from + "&to=" + to + "&points=" + CHART_POINTS);
  if (gen !== state.generation) return true;
  if (!sr.ok) throw new Error((sr.body && sr.body.error) || "HTTP " + sr.status);
  const data = tempData(sr.body);
  if (data.length !== chart.series.length) return false;
  chart.setData(data);
  setStatus(range.label + " · updated " + fmtClock(new Date(), true));
  return true;
}

async function renderDrive(gen, id, live) {
  if (live) {
    state.liveTicks = (state.liveTicks || 0) + 1;
    if (await liveDrive(gen, id)) return;
  } else {
    state.liveTicks = 0;
  }
  const range = RANGES.find((r) => r.key === state.range) || RANGES[1];
  const to = Date.now(), from = to - range.s * 1000;
  const q = "from=" + from + "&to=" + to;
  const [dr, sr, wear, ev, al, pr, er, facts, st, logs] = await Promise.all([
    api("/api/v1/devices/" + id),
    api("/api/v1/devices/" + id + "/series?" + q + "&points=" + CHART_POINTS),
    optional("/api/v1/devices/" + id + "/wear"),
    optional("/api/v1/devices/" + id + "/events?" + q),
    optional("/api/v1/alerts"),
    optional("/api/v1/devices/" + id + "/probes?limit=200"),
    optional("/api/v1/devices/" + id + "/errors?" + q + "&limit=" + ERRORS_SHOWN),
    optional("/api/v1/devices/" + id + "/facts"),
    optional("/api/v1/devices/" + id + "/selftests?limit=" + SELFTESTS_SHOWN),
    driveLogsFetch(id, q),
  ]);
  // The newest finished run, with its series.
  const lastRun = pr && pr.probes.find((r) => r.ended);
  // The newest finished sweep and the one before it (sweep.js), with the last run.
  const [runDetail, sweepRun, sweepPrev, devs] = await Promise.all([lastRun, ...(pr ? sweepRuns(pr.probes) : [])]
    .concat([null, null]).slice(0, 3).map((r) => (r ? optional("/api/v1/probes/" + r.id) : null))
    // The other drives by name: a copy-to run's, the copy-to picker's.
    .concat([pr ? optional("/api/v1/devices") : null]));
  const names = new Map(devs ? devs.devices.map((x) => [x.id, x.name]) : []);
  // The newest cache-recovery study and the group runs (recovery.js, group.js).
  const studies = pr ? recoveryStudies(pr.probes) : [], groups = pr ? groupRuns(pr.probes) : [];
  const [study, ...groupDetails] = await Promise.all([studies.length ? optional("/api/v1/probes/" + studies[0].id) : null,
    ...groups.map((r) => optional("/api/v1/probes/" + r.id))]);
  const recSection = study && study.recovery ? recoveryPanel(gen, studies, study) : null;
  if (gen !== state.generation) return;
  if (!dr.ok) throw new Error((dr.body && dr.body.error) || "HTTP " + dr.status);
  if (!sr.ok) throw new Error((sr.body && sr.body.error) || "HTTP " + sr.status);
  const d = dr.body, series = sr.body;
  const events = ev ? ev.events : null;
  // Firing alerts are in both lists.
  const seen = new Set();
  const alerts = al ? al.active.concat(al.history).filter((a) => a.device_id === d.id && !seen.has(a.id) && seen.add(a.id)) : null;

  const tempBox = el("div", { class: "chart", id: "chart-temp" });
  const writesBox = el("div", { class: "chart", id: "chart-writes" });
  const probeBox = el("div", { class: "chart", id: "chart-probes" });
  const runBox = el("div", { class: "chart", id: "chart-probe-run" });
  const sweepBox = el("div", { class: "chart", id: "chart-sweep" });
  const h = d.health; // the daemon's rule (docs/dashboard.md#health)
  const lp = driveLogsPanels(d, logs);
  const view = el("div", {},
    d.demo === true ? demoBanner("This drive is") : "",
    el("div", { class: "drive-head", "data-device": d.id },
      el("a", { href: "#/" }, "← all drives"),
      el("h2", {}, d.label ? d.label + " · " + d.model : d.model), d.demo === true ? demoBadge() : null,
      el("span", { class: "muted" }, (d.location ? d.location + " · " : "") + "serial " + d.serial + " · firmware " + d.firmware + (d.name ? " · " + d.name : "")),
      rangeButtons()),
    verdict(d, h, wear, events, range.key),
    driveNotes(d),
    riskPanel(d, logs.risk),
    el("div", { class: "panels" },
      el("section", { class: "panel wide", "aria-label": "temperature" },
        el("h3", {}, "Temperature (°C)"),
        series.points ? tempBox : emptyChart(d.latest ? "No samples in this range yet" : "No sample of this drive yet",
          "nvmond polls every drive every 10 s by default ([daemon] poll_interval); points appear after the first polls."),
        el("p", { class: "legend-note" }, series.points + (series.points === 1 ? " point · " : " points · ") +
          (series.resolution_s ? (series.resolution_s === 60 ? "1-minute" : "1-hour") + " rollups" : "raw samples") +
          ", " + fmtDuration(series.step_s) + " per point · shaded: throttling · dashed: WCTEMP / CCTEMP" + hctmNote(d) +
          " · red marks: thermal excursions the drive logged")),
      lp.power.section,
      el("section", { class: "panel", "aria-label": "writes per day" },
        el("h3", {}, "Writes per day (30 days)"),
        !wear ? el("p", { class: "na" }, "not available")
          : wear.daily.some((x) => num(x.bytes) > 0) ? writesBox
          : emptyChart("No writes counted in the last 30 days yet",
            "a day's writes are the growth of the drive's written-data counter between nvmond's samples on that day.")),
      el("section", { class: "panel", "aria-label": "wear" },
        el("h3", {}, "Wear"),
        wear ? wearTable(wear) : el("p", { class: "na" }, "not available")),
      el("section", { class: "panel", "aria-label": "firmware and link" },
        el("h3", {}, "Firmware and PCIe link"),
        factsPanel(d, facts)),
      lp.ns,
      lp.ocp.section,
      el("section", { class: "panel", "aria-label": "probes" },
        el("h3", {}, "Throughput probes (MB/s per preset)"),
        pr ? probeBox : el("p", { class: "na" }, "not available")),
      pr ? el("section", { class: "panel", "aria-label": "run a probe" },
        el("h3", {}, pr.running ? "Probe running" : "Run a probe"),
        probeControl(gen, d, pr, names)) : null,
      el("section", { class: "panel", "aria-label": "last probe" },
        el("h3", {}, "Last probe" + (lastRun ? ": " + runLabel(lastRun, d.id, names) + ", " + fmtTime(lastRun.started) : "")),
        runDetail && runDetail.sweep ? sweepSummary(runDetail.sweep)
          : runDetail ? runBox : el("p", { class: pr ? "muted" : "na" }, pr ? "No probe has finished yet." : "not available"),
        runDetail && runDetail.notes && runDetail.notes.length ? el("p", { class: "warn probe-notes" }, runDetail.notes.join(" · ")) : null,
        runDetail ? specLine(runDetail) : null,
        runDetail && runDetail.copy_to ? el("p", { class: "legend-note copy-to" }, runDetail.copy_to.text) : null,
        runDetail && !runDetail.sweep ? el("p", { class: "legend-note" }, "seconds since the phase started · shaded: " +
          (runDetail.phases.flatMap((p) => p.events).map((e) => e.kind + " (" + e.cause + ")").join(", ") || "no cliff or dip")) : null),
      sweepRun && sweepRun.sweep ? el("section", { class: "panel wide", "aria-label": "transfer-size sweep", id: "sweep" },
        el("h3", {}, "Transfer-size sweep (MB/s), " + fmtTime(sweepRun.started)),
        sweepBox,
        el("p", { class: "legend-note" }, "sequential, queue depth " + sweepRun.sweep.depth + ", transfer size on a log₂ axis" +
          (sweepPrev && sweepPrev.sweep ? " · faint: the previous sweep, " + fmtTime(sweepPrev.started) : " · no earlier sweep to compare"))) : null,
      recSection,
      groups.length ? groupPanel(groupDetails) : null,
      el("section", { class: "panel wide", "aria-label": "self-tests", id: "selftests" },
        el("h3", {}, "Self-tests"),
        selftestPanel(gen, d, st)),
      el("section", { class: "panel wide", "aria-label": "events and alerts" },
        el("h3", {}, "Events and alerts"),
        eventsTable(events, alerts)),
      el("section", { class: "panel wide", "aria-label": "error log", id: "errors" },
        el("h3", {}, "Error log entries"),
        errorsTable(er, d.errors))));

  destroyCharts();
  document.getElementById("view").replaceChildren(view);
  if (series.points) state.charts.push(tempChart(tempBox, d, series, events));
  if (wear && writesBox.isConnected) state.charts.push(writesChart(writesBox, wear));
  driveLogsDraw(d, lp);
  if (pr && pr.probes.some((r) => r.ended)) state.charts.push(probeChart(probeBox,
    pr.probes.map((r) => (r.source_device_id ? Object.assign({}, r, { preset: runLabel(r, d.id, names) }) : r))));
  else if (pr) probeBox.replaceChildren(emptyChart("No probe has run yet",
    "start one under Run a probe, or schedule them with probe_schedule in [probes] or [device \"…\"]."));
  if (recSection) recSection.draw();
  if (sweepRun && sweepRun.sweep) state.charts.push(sweepChart(sweepBox, sweepRun, sweepPrev && sweepPrev.sweep ? sweepPrev : null));
  // A sweep's phases are its points: the sweep chart shows them, not one phase's series.
  const rc = runDetail && !runDetail.sweep && probeSeriesChart(runBox, runDetail);
  if (rc) state.charts.push(rc);
  else if (runDetail && !runDetail.sweep) runBox.replaceChildren(el("p", { class: "muted" }, "This run has no series."));
  document.title = (d.label ? d.label + " · " : "") + d.model + " · nvmond";
  setStatus(range.label + " · updated " + fmtClock(new Date(), true));
}
