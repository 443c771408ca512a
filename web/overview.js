// nvmond dashboard: the overview (#/), a card or a table row per drive.
import { api, optional, pool } from "./api.js";
import { el, meter, row, setStatus } from "./dom.js";
import { riskNeedsLook, riskNote, riskRow } from "./drivelogs.js";
import { HEALTH_RANK, HOT_MARGIN_C, THROTTLE_KINDS, badge, demoBadge, demoBanner, driveNames, driveNotes, isHot, namesLine,
  runMBps, tbwPercent, writeRate } from "./figures.js";
import { fmtAgo, fmtBytes, fmtClock, fmtDate, fmtMBps, fmtPercent, fmtTime, num } from "./format.js";
import { requestRender, state } from "./state.js";

// A drive that needs a look ("Problems only"): not ok, a risk verdict other than ok,
// throttling now, hot, or offline.
function hasProblem(d, x) {
  return d.health.state !== "ok" || riskNeedsLook(d) || x.throttling !== null || isHot(d) || !d.online;
}

function tempBlock(d) {
  const s = d.latest;
  const now = s ? s.temperature_c : null;
  const crit = d.cctemp_c || 85;
  const limits = "warn " + (d.wctemp_c ?? "–") + " · crit " + (d.cctemp_c ?? "–") + " °C";
  let cls = "";
  if (now !== null && d.cctemp_c !== null && now >= d.cctemp_c) cls = "bad";
  else if (now !== null && d.wctemp_c !== null && now >= d.wctemp_c) cls = "warn";
  const m = meter(now === null ? 0 : now / crit, cls, d.wctemp_c ? [d.wctemp_c / crit] : []);
  m.setAttribute("aria-label", "temperature " + (now ?? "unknown") + " °C; " + limits);
  return [row("Temperature", (now === null ? "–" : now + " °C") + " (" + limits + ")", cls), m];
}

function wearBlock(d, w) {
  const s = d.latest;
  if (!w) return [row("Written", s ? fmtBytes(s.data_written_bytes) : "–")];
  const rated = w.rating.rated_bytes;
  const out = [];
  if (rated) {
    const frac = num(w.bytes_written) / rated;
    const cls = frac >= 1 ? "bad" : frac >= 0.8 ? "warn" : "";
    out.push(row("Written", fmtBytes(w.bytes_written) + " of " + fmtBytes(rated, true) + " rated (" + (frac * 100).toFixed(1) + " %)", cls));
    const m = meter(frac, cls, [0.8, 0.9]);
    m.setAttribute("aria-label", "written " + (frac * 100).toFixed(1) + " % of the rated TBW");
    out.push(m);
    out.push(row("Rated TBW reached", w.tbw_reached ? "already" : w.tbw_date ? "≈ " + fmtDate(w.tbw_date) + " (" + w.projection_basis + " rate)" : w.projection_basis ? "not at the current rate" : "needs more history", w.tbw_reached ? "bad" : ""));
  } else {
    out.push(row("Written", fmtBytes(w.bytes_written) + " (rated TBW unknown: set rated_tbw)"));
  }
  return out;
}

function card(d, extra) {
  const s = d.latest;
  const h = d.health;
  const c = el("article", { class: "card", "data-device": d.id },
    el("h2", {}, el("a", { href: "#/drive/" + d.id }, d.model), d.demo === true ? demoBadge() : null, badge(h)),
    namesLine(d),
    el("div", { class: "id" }, (d.name ? d.name + " · " : "") + "serial " + d.serial + " · firmware " + d.firmware),
    ...tempBlock(d),
    driveNotes(d, true),
    ...wearBlock(d, extra.wear),
    row("% used", s ? s.percent_used + " %" + (extra.wear && extra.wear.percent_used_100_date ? " (100 % ≈ " + fmtDate(extra.wear.percent_used_100_date) + ")" : "") : "–",
      s && s.percent_used >= 80 ? "warn" : ""),
    row("Spare", s ? s.avail_spare + " % (threshold " + s.spare_thresh + " %)" : "–", s && s.avail_spare < s.spare_thresh ? "bad" : ""),
    riskRow(d),
    row("Throttle events, 24 h", extra.events === null ? el("span", { class: "na" }, "not available") :
      extra.events + (extra.throttling ? " (" + extra.throttling + " now)" : ""), extra.throttling === "heavy" ? "bad" : extra.events ? "warn" : ""),
    row("Last probe", extra.probe === null ? el("span", { class: "na" }, "not available") : extra.probe ?? "…"),
    el("a", { class: "btn", href: "#/drive/" + d.id }, "Charts and history →"),
  );
  return c;
}

function lastProbeText(p) {
  const last = p.probes && p.probes[0]; // newest first
  if (!last) return "none yet";
  const mbps = runMBps(last);
  return last.preset + " · " + last.state + (mbps !== null ? " · " + fmtMBps(mbps) : "") + " · " + fmtTime(last.started);
}

// ---- data ---------------------------------------------------------------

const EXTRAS_MS = 60000; // wear and events change slowly: fetched once a minute

// What the overview shows of one drive beyond GET /devices: wear, the last 24 h of
// throttling, and (cards only) the last probe.
async function fetchExtra(d, withProbe) {
  const from = new Date(Date.now() - 86400000).toISOString();
  const [wear, ev, pr] = await Promise.all([
    d.latest ? optional("/api/v1/devices/" + d.id + "/wear") : null,
    optional("/api/v1/devices/" + d.id + "/events?source=throttle&from=" + encodeURIComponent(from)),
    withProbe ? optional("/api/v1/devices/" + d.id + "/probes?limit=1") : undefined,
  ]);
  const throttles = ev ? ev.events.filter((e) => THROTTLE_KINDS.has(e.kind)) : null;
  const open = throttles ? throttles.filter((e) => e.ongoing) : [];
  return {
    wear,
    events: throttles ? throttles.length : null,
    throttling: open.some((e) => e.kind === "heavy") ? "heavy" : open.length ? "light" : null,
    probe: pr === undefined ? undefined : pr ? lastProbeText(pr) : null,
  };
}

// GET /devices (each drive with its health) on every tick; each drive's extras once a
// minute (or when the cards need the probes the table did not ask for).
async function loadOverview(gen, live) {
  const r = await api("/api/v1/devices");
  if (gen !== state.generation) return null;
  if (!r.ok) throw new Error((r.body && r.body.error) || "HTTP " + r.status);
  const devices = r.body.devices;
  const old = state.overview;
  const withProbe = overviewLayout(devices.length) === "cards";
  const stale = !old || !live || Date.now() - old.extrasAt > EXTRAS_MS ||
    devices.some((d) => !old.extras.has(d.id)) || (withProbe && devices.some((d) => old.extras.get(d.id).probe === undefined));
  let extras = old && old.extras;
  if (stale) {
    const list = await pool(devices, 6, (d) => fetchExtra(d, withProbe));
    if (gen !== state.generation) return null;
    extras = new Map(devices.map((d, i) => [d.id, list[i]]));
  }
  state.overview = { devices, extras, extrasAt: stale ? Date.now() : old.extrasAt };
  return state.overview;
}

export async function renderOverview(gen, live) {
  const o = await loadOverview(gen, live);
  if (!o) return;
  drawOverview();
}

// ---- table and cards ----------------------------------------------------

function overviewLayout(n) {
  const saved = localStorage.getItem("nvmond.layout");
  return saved === "table" || saved === "cards" ? saved : n > 8 ? "table" : "cards";
}

// The sortable columns: key → value (null sorts last whatever the direction).
const SORTS = {
  name: { label: "Drive", value: (d) => (d.name || "") + " " + d.model + " " + driveNames(d), dir: 1 },
  health: { label: "Health", value: (d) => HEALTH_RANK[d.health.state], dir: -1 },
  temp: { label: "Temperature", value: (d) => (d.latest ? d.latest.temperature_c : null), dir: -1 },
  used: { label: "% used", value: (d) => (d.latest ? d.latest.percent_used : null), dir: -1 },
  rate: { label: "Written / day", value: (d, x) => writeRate(x.wear), dir: -1 },
  tbw: { label: "TBW", value: (d, x) => tbwPercent(x.wear), dir: -1 },
};

function sortDevices(devices, extras, sort) {
  const col = SORTS[sort.key] || SORTS.health;
  const key = (d) => col.value(d, extras.get(d.id));
  return devices.slice().sort((a, b) => {
    const va = key(a), vb = key(b);
    if (va === null || va === undefined || vb === null || vb === undefined)
      return (va === null || va === undefined) - (vb === null || vb === undefined) || a.id - b.id;
    const c = typeof va === "string" ? va.localeCompare(vb) : va - vb;
    return c * sort.dir || a.id - b.id;
  });
}

function tempCell(d) {
  const t = d.latest ? d.latest.temperature_c : null;
  if (t === null) return el("td", { class: "num muted" }, "–");
  const w = d.wctemp_c;
  const cls = d.cctemp_c !== null && t >= d.cctemp_c ? "bad" : w !== null && t >= w ? "warn" : isHot(d) ? "warn" : "";
  const margin = w === null ? "WCTEMP unknown" : w - t > 0 ? (w - t) + " °C below WCTEMP" : t === w ? "at WCTEMP" : (t - w) + " °C over WCTEMP";
  const notes = (d.notes || []).map((n) => n.message).join("\n");
  return el("td", { class: "num", title: "WCTEMP " + (w ?? "–") + " °C · CCTEMP " + (d.cctemp_c ?? "–") + " °C" },
    el("span", { class: cls }, t + " °C"), el("small", { class: "muted" }, margin),
    notes ? el("small", { class: "note-mark", title: notes, "aria-label": notes }, "sensor note") : null);
}

function tableRow(d, x) {
  const s = d.latest;
  const rate = writeRate(x.wear), tbw = tbwPercent(x.wear);
  const h = d.health, reasons = h.why.join("; ");
  const throttle = x.events === null ? el("span", { class: "na" }, "n/a")
    : x.throttling ? el("span", { class: x.throttling === "heavy" ? "bad" : "warn" }, x.throttling + " now")
    : x.events ? el("span", { class: "warn" }, x.events + " in 24 h") : el("span", { class: "muted" }, "none");
  return el("tr", { "data-device": d.id, "data-health": h.state, "data-throttling": x.throttling || "" },
    el("th", { scope: "row", class: "drive" }, el("a", { href: "#/drive/" + d.id }, d.name || "drive " + d.id),
      d.demo === true ? demoBadge() : null, el("small", { class: "muted" }, d.model), namesLine(d, "small")),
    el("td", { class: "serial" }, d.serial),
    el("td", { class: "health" }, badge(h), h.state !== "ok" ? el("small", { class: "muted", title: reasons }, reasons) : null, riskNote(d)),
    tempCell(d),
    el("td", { class: "num " + (s && s.percent_used >= 80 ? "warn" : "") }, s ? s.percent_used + " %" : "–"),
    el("td", { class: "num", title: rate === null ? "needs more history" : null }, rate === null ? "–" : fmtBytes(rate) + "/day"),
    el("td", { class: "num " + (tbw >= 100 ? "bad" : tbw >= 80 ? "warn" : ""), title: x.wear && !x.wear.rating.rated_bytes ? "rated TBW unknown: set rated_tbw" : null },
      tbw === null ? "–" : fmtPercent(tbw, 1)),
    el("td", {}, throttle),
    el("td", { class: "seen " + (d.online ? "muted" : "bad") }, d.online ? fmtAgo(d.last_seen) : "offline · " + fmtAgo(d.last_seen)));
}

function driveTable(devices, extras) {
  const sort = state.sort;
  const head = ["name", null, "health", "temp", "used", "rate", "tbw", null, null].map((k, i) => {
    const label = k ? SORTS[k].label : ["", "Serial", "", "", "", "", "", "Throttling", "Last seen"][i];
    if (!k) return el("th", { scope: "col", class: ["", "serial", "", "", "", "", "", "", "seen"][i] }, label);
    const active = sort.key === k;
    const b = el("button", { type: "button", class: "sort", "data-sort": k }, label, el("span", { "aria-hidden": "true" }, active ? (sort.dir < 0 ? " ▼" : " ▲") : ""));
    b.addEventListener("click", () => {
      state.sort = { key: k, dir: active ? -sort.dir : SORTS[k].dir };
      localStorage.setItem("nvmond.sort", JSON.stringify(state.sort));
      drawOverview();
    });
    return el("th", { scope: "col", class: ["name", "health"].includes(k) ? "" : "num", "aria-sort": active ? (sort.dir < 0 ? "descending" : "ascending") : "none" }, b);
  });
  const rows = devices.map((d) => tableRow(d, extras.get(d.id)));
  const table = el("table", { class: "drives" }, el("thead", {}, el("tr", {}, head)),
    el("tbody", {}, rows.length ? rows : el("tr", {}, el("td", { colspan: 9, class: "muted" }, "No drive has a problem."))));
  return el("div", { class: "table-wrap" }, table);
}

function overviewToolbar(n, shown, problems, layout) {
  const seg = (key, label) => {
    const b = el("button", { type: "button", id: "layout-" + key, "aria-pressed": layout === key ? "true" : "false" }, label);
    b.addEventListener("click", () => {
      localStorage.setItem("nvmond.layout", key);
      const o = state.overview;
      if (key === "cards" && o.devices.some((d) => o.extras.get(d.id).probe === undefined)) requestRender();
      else drawOverview();
    });
    return b;
  };
  const box = el("input", { type: "checkbox", id: "problems-only", checked: state.problemsOnly });
  box.addEventListener("change", () => {
    state.problemsOnly = box.checked;
    localStorage.setItem("nvmond.problems", box.checked ? "1" : "0");
    drawOverview();
  });
  return el("div", { class: "toolbar" },
    el("div", { class: "ranges", role: "group", "aria-label": "layout" }, seg("table", "Table"), seg("cards", "Cards")),
    el("label", { title: "health not ok, a risk verdict other than ok, throttling now, within " + HOT_MARGIN_C + " °C of WCTEMP, or offline" },
      box, " Problems only (" + problems + ")"),
    el("span", { class: "muted", id: "shown" }, shown === n ? n + " drives" : "showing " + shown + " of " + n));
}

// Draw the overview from state.overview: no request, so sorting, filtering and
// switching the layout are instant with 64 drives.
function drawOverview() {
  const o = state.overview;
  if (!o) return;
  const main = document.getElementById("view");
  if (!o.devices.length) {
    main.replaceChildren(el("p", {}, "No NVMe devices known yet."));
    setStatus("0 drives · updated " + fmtClock(new Date(), true));
    return;
  }
  const layout = overviewLayout(o.devices.length);
  const problems = o.devices.filter((d) => hasProblem(d, o.extras.get(d.id)));
  const shown = state.problemsOnly ? problems : o.devices;
  const demo = o.devices.filter((d) => d.demo === true).length;
  const body = layout === "table" ? driveTable(sortDevices(shown, o.extras, state.sort), o.extras)
    : el("section", { class: "cards", "aria-label": "drives" }, shown.map((d) => card(d, o.extras.get(d.id))));
  main.replaceChildren(
    demo ? demoBanner(demo === o.devices.length ? (demo === 1 ? "This drive is" : "All drives here are")
      : demo + " of these " + o.devices.length + " drives " + (demo === 1 ? "is" : "are")) : "",
    overviewToolbar(o.devices.length, shown.length, problems.length, layout),
    layout === "cards" && !shown.length ? el("p", { class: "muted" }, "No drive has a problem.") : body);
  main.dataset.layout = layout;
  main.dataset.renderedMs = performance.now().toFixed(1); // the browser test measures the load with it
  const n = o.devices.length;
  setStatus(n + " drive" + (n === 1 ? "" : "s") + " · " + problems.length + " with problems · updated " + fmtClock(new Date(), true));
}
