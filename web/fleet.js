// nvmond dashboard: the Fleet page (#/fleet): every drive of every host, from
// GET /api/v1/fleet ([fleet] query_url). Drives grouped by host, problems first; a
// filter by host label, model or text; sorting by any column; "problems only". The
// rows are virtualised: however many drives (8,000 and more), only those in view
// (and a few around them) are in the DOM, and a refresh or a keystroke redraws those.
"use strict";

const FLEET_ROW_PX = 36; // every row (host or drive) is this tall: see .fleet-table in dashboard.css
const FLEET_OVERSCAN = 12; // rows drawn beyond each edge of the view

// The columns: key → label, the drive's value (null sorts last whatever the direction),
// the direction of a first click.
const FLEET_COLS = {
  host: { label: "Host / drive", value: (d, h) => (h.host + " " + d.device).toLowerCase(), dir: 1 },
  model: { label: "Model", value: (d) => d.model.toLowerCase() || null, dir: 1 },
  serial: { label: "Serial", value: (d) => d.serial || null, dir: 1 },
  location: { label: "Location", value: (d) => d.location.toLowerCase() || null, dir: 1 },
  verdict: { label: "Health", value: (d) => HEALTH_RANK[d.verdict] ?? 1, dir: -1 },
  temp: { label: "Temperature", value: (d) => d.temperature_c, dir: -1 },
  used: { label: "% used", value: (d) => d.percent_used, dir: -1 },
  tbw: { label: "TBW", value: (d) => d.tbw_percent, dir: -1 },
  seen: { label: "Last seen", value: (d) => (d.last_seen ? Date.parse(d.last_seen) : null), dir: 1 },
};
const FLEET_COL_ORDER = ["host", "model", "serial", "location", "verdict", "temp", "used", "tbw", "seen"];

function fleetSortSetting() {
  try {
    const s = JSON.parse(localStorage.getItem("nvmond.fleet.sort"));
    if (s && FLEET_COLS[s.key] && (s.dir === 1 || s.dir === -1)) return s;
  } catch (e) { /* a hand-edited setting: the default */ }
  return { key: "verdict", dir: -1 };
}

const fleetUi = {
  sort: fleetSortSetting(),
  problemsOnly: localStorage.getItem("nvmond.fleet.problems") === "1",
  text: "",
  label: "", // "key=value" of a host label, "" = any
  model: "", // "" = any
};

// A host's rank (the API's order): its worst drive, a host not reporting just below critical.
function hostRank(h) {
  const r = { ok: 0, unknown: 2, offline: 4, warning: 6, critical: 8 }[h.worst] ?? 2;
  return h.reporting ? r : Math.max(r, 7);
}

function driveProblem(d, h) {
  return d.problem || !h.reporting;
}

// Per drive, the text the filter searches, lower case, once per answer.
function indexFleet(data) {
  for (const h of data.hosts) {
    const hostText = [h.host, h.instance, h.job, ...Object.entries(h.labels).map(([k, v]) => k + "=" + v)].join(" ");
    h.labelPairs = Object.entries(h.labels).map(([k, v]) => k + "=" + v);
    for (const d of h.drives) {
      d.text = [hostText, d.device, d.label, d.location, d.model, d.serial, d.firmware, d.verdict,
        ...d.alerts.map((a) => a.rule)].join(" ").toLowerCase();
    }
  }
}

// Names in natural order (host2 before host10), with one collator: localeCompare with
// options makes one per call, and sorting 8,000 drives took 100-300 ms with it.
const collate = new Intl.Collator(undefined, { numeric: true }).compare;

function cmpValues(va, vb, dir) {
  const na = va === null || va === undefined, nb = vb === null || vb === undefined;
  if (na || nb) return na - nb; // unknown last
  const c = typeof va === "string" ? collate(va, vb) : va - vb;
  return c * dir;
}

// The rows to show, in order: for each host with a drive left by the filters, its row
// then its drives'. A host not reporting with no drive known shows alone (unless a
// filter is set that it cannot match).
function fleetRows(data) {
  const ui = fleetUi, col = FLEET_COLS[ui.sort.key] || FLEET_COLS.verdict, dir = ui.sort.dir;
  const words = ui.text.toLowerCase().split(/\s+/).filter(Boolean);
  const groups = [];
  let drives = 0;
  for (const h of data.hosts) {
    if (ui.label && !h.labelPairs.includes(ui.label)) continue;
    // Each drive's sort value computed once, not at every comparison.
    const kept = [];
    for (const d of h.drives)
      if ((!ui.model || d.model === ui.model) && (!ui.problemsOnly || driveProblem(d, h)) &&
        words.every((w) => d.text.includes(w))) kept.push({ d, v: col.value(d, h) });
    const hostOnly = !h.drives.length && !h.reporting && !ui.model && !words.length;
    if (!kept.length && !hostOnly) continue;
    kept.sort((a, b) => cmpValues(a.v, b.v, dir) || collate(a.d.device, b.d.device));
    groups.push({ h, kept, name: h.host, rank: hostRank(h), first: kept.length ? kept[0].v : null });
    drives += kept.length;
  }
  // Hosts: by name, by rank (the health column: problems first), else by the value of
  // their first drive in this order (the hottest host first); a host with no drive shown last.
  const byName = (a, b) => collate(a.name, b.name) || (a.h.instance < b.h.instance ? -1 : a.h.instance > b.h.instance);
  groups.sort((a, b) => {
    if (ui.sort.key === "host") return byName(a, b) * dir;
    if (ui.sort.key === "verdict") return (a.rank - b.rank) * dir || byName(a, b);
    return cmpValues(a.first, b.first, dir) || b.rank - a.rank || byName(a, b);
  });
  const rows = [];
  for (const g of groups) {
    rows.push({ h: g.h, shown: g.kept.length });
    for (const k of g.kept) rows.push({ h: g.h, d: k.d });
  }
  return { rows, drives, hosts: groups.length };
}

// ---- drawing ---------------------------------------------------------------

function sinceText(h) {
  if (!h.last_seen) return "not reporting (its last sample is not in the engine's lookback)";
  const silent = Math.max(0, (Date.now() - Date.parse(h.last_seen)) / 1000);
  return "not reporting since " + fmtDateTime(new Date(h.last_seen)) + " (" + fmtDuration(Math.round(silent)) + ")";
}

function hostRow(r, index) {
  const h = r.h;
  const labels = Object.entries(h.labels).map(([k, v]) => el("span", { class: "chip", title: "host label" }, k + "=" + v));
  const state = h.reporting ? el("span", { class: "muted" }, h.drives.length + " drive" + (h.drives.length === 1 ? "" : "s") +
      (h.problems ? " · " + h.problems + " with problems" : "") + (r.shown !== h.drives.length ? " · " + r.shown + " shown" : ""))
    : el("span", { class: "bad not-reporting" }, sinceText(h));
  const link = h.public_url ? el("a", { href: h.public_url, target: "_blank", rel: "noopener", class: "host-link",
    title: "this host's own nvmond" }, "open ↗") : null;
  return el("tr", { class: "host-row" + (h.reporting ? "" : " gone"), "data-host": h.instance, "data-name": h.host,
    "data-reporting": h.reporting ? "1" : "0",
    "aria-rowindex": index + 2 },
  el("th", { scope: "rowgroup", colspan: FLEET_COL_ORDER.length },
    el("span", { class: "host-name" }, h.host), h.host !== h.instance ? el("small", { class: "muted" }, h.instance) : null,
    link, ...labels, state));
}

function fleetDriveRow(r, index) {
  const d = r.d, h = r.h;
  const alerts = d.alerts.map((a) => a.rule).join(", ");
  const cls = (v, warn, bad) => (v === null ? "" : v >= bad ? "bad" : v >= warn ? "warn" : "");
  return el("tr", { class: "drive-row" + (h.reporting ? "" : " stale"), "data-host": h.instance, "data-device": d.device,
    "data-serial": d.serial, "data-verdict": d.verdict, "data-problem": driveProblem(d, h) ? "1" : "0",
    "data-temp": d.temperature_c ?? "", "aria-rowindex": index + 2 },
  el("td", { class: "drive" }, d.device, d.label ? el("span", { class: "drive-label" }, d.label) : null),
  el("td", { class: "model", title: d.firmware ? "firmware " + d.firmware : null }, d.model || "–"),
  el("td", { class: "serial" }, d.serial || "–"),
  el("td", { class: "location" }, d.location || "–"),
  el("td", { class: "health" }, fleetBadge(d.verdict, d.alerts.map((a) => a.severity + ": " + a.rule)),
    alerts ? el("small", { class: "muted", title: alerts }, alerts) : null),
  fleetTempCell(d),
  el("td", { class: "num " + cls(d.percent_used, 80, 100) }, d.percent_used === null ? "–" : d.percent_used + " %"),
  el("td", { class: "num " + cls(d.tbw_percent, 80, 100), title: d.tbw_percent === null ? "rated TBW unknown" : null },
    d.tbw_percent === null ? "–" : fmtPercent(d.tbw_percent, 1)),
  el("td", { class: "seen muted" }, d.up === false ? "offline · " + fmtAgo(d.last_seen) : fmtAgo(d.last_seen)));
}

// A drive's verdict (ok, warning, critical, offline, unknown) as the overview's badges look,
// the alerts firing in its tooltip. Its own: the overview's badge() takes a drive's API health.
function fleetBadge(verdict, why) {
  const cls = { ok: "ok", warning: "warn", critical: "bad", offline: "muted", unknown: "muted" }[verdict] || "muted";
  return el("span", { class: "badge " + cls, title: why.join("; ") || "healthy" }, verdict);
}

// The composite temperature against the drive's own WCTEMP / CCTEMP, as the overview judges it.
function fleetTempCell(d) {
  const t = d.temperature_c, w = d.wctemp_c, c = d.cctemp_c;
  if (t === null) return el("td", { class: "num muted" }, "–");
  const cls = c !== null && t >= c ? "bad" : w !== null && t >= w - HOT_MARGIN_C ? "warn" : "";
  return el("td", { class: "num " + cls, title: "WCTEMP " + (w ?? "–") + " °C · CCTEMP " + (c ?? "–") + " °C" }, t + " °C");
}

// Draw the rows in view (and FLEET_OVERSCAN around): two spacer rows keep the height.
function drawFleetWindow() {
  const v = state.fleetView;
  const box = document.getElementById("fleet-scroll");
  if (!v || !box) return;
  const n = v.rows.length;
  const first = Math.max(0, Math.floor(box.scrollTop / FLEET_ROW_PX) - FLEET_OVERSCAN);
  const last = Math.min(n, Math.ceil((box.scrollTop + box.clientHeight) / FLEET_ROW_PX) + FLEET_OVERSCAN);
  if (v.drawn && v.drawn.first === first && v.drawn.last === last && v.drawn.rows === v.rows) return;
  const spacer = (h) => {
    const td = el("td", { colspan: FLEET_COL_ORDER.length });
    td.style.height = h + "px";
    return el("tr", { class: "spacer", "aria-hidden": "true" }, td);
  };
  const out = [spacer(first * FLEET_ROW_PX)];
  for (let i = first; i < last; i++) out.push(v.rows[i].d ? fleetDriveRow(v.rows[i], i) : hostRow(v.rows[i], i));
  out.push(spacer((n - last) * FLEET_ROW_PX));
  document.getElementById("fleet-body").replaceChildren(...out);
  v.drawn = { first, last, rows: v.rows };
}

function fleetHead() {
  const sort = fleetUi.sort;
  return el("tr", {}, FLEET_COL_ORDER.map((k) => {
    const c = FLEET_COLS[k], active = sort.key === k;
    const b = el("button", { type: "button", class: "sort", "data-sort": k }, c.label,
      el("span", { "aria-hidden": "true" }, active ? (sort.dir < 0 ? " ▼" : " ▲") : ""));
    b.addEventListener("click", () => {
      fleetUi.sort = { key: k, dir: active ? -sort.dir : c.dir };
      localStorage.setItem("nvmond.fleet.sort", JSON.stringify(fleetUi.sort));
      drawFleet();
    });
    return el("th", { scope: "col", class: "col-" + k + (["temp", "used", "tbw"].includes(k) ? " num" : ""),
      "aria-sort": active ? (sort.dir < 0 ? "descending" : "ascending") : "none" }, b);
  }));
}

function fleetToolbar() {
  const text = el("input", { type: "search", id: "fleet-filter", placeholder: "Filter: host, drive, serial, alert…",
    "aria-label": "filter the drives", value: fleetUi.text, autocomplete: "off" });
  text.addEventListener("input", () => { fleetUi.text = text.value; drawFleetRows(); });
  const lab = el("select", { id: "fleet-label", "aria-label": "host label" });
  lab.addEventListener("change", () => { fleetUi.label = lab.value; drawFleetRows(); });
  const mod = el("select", { id: "fleet-model", "aria-label": "model" });
  mod.addEventListener("change", () => { fleetUi.model = mod.value; drawFleetRows(); });
  const box = el("input", { type: "checkbox", id: "fleet-problems", checked: fleetUi.problemsOnly });
  box.addEventListener("change", () => {
    fleetUi.problemsOnly = box.checked;
    localStorage.setItem("nvmond.fleet.problems", box.checked ? "1" : "0");
    drawFleetRows();
  });
  return el("div", { class: "toolbar fleet-toolbar" }, text, lab, mod,
    el("label", { title: "health not ok, an alert firing, or the host not reporting" }, box,
      el("span", {}, "Problems only (", el("span", { id: "fleet-problem-count" }), ")")),
    el("span", { class: "muted", id: "fleet-shown" }));
}

// The choices of a select, set again only when they changed (an open list stays open).
function fleetOptions(id, what, list, cur) {
  const s = document.getElementById(id);
  const key = list.join("\n");
  if (s.dataset.options === key) return;
  s.dataset.options = key;
  s.replaceChildren(el("option", { value: "" }, "any " + what),
    ...list.map((x) => el("option", { value: x, selected: x === cur }, x)));
  if (cur && !list.includes(cur)) s.append(el("option", { value: cur, selected: true }, cur + " (none now)"));
}

function updateFleetToolbar(data) {
  fleetOptions("fleet-label", "host label", [...new Set(data.hosts.flatMap((h) => h.labelPairs))].sort(), fleetUi.label);
  fleetOptions("fleet-model", "model",
    [...new Set(data.hosts.flatMap((h) => h.drives.map((d) => d.model)).filter(Boolean))].sort(), fleetUi.model);
  document.getElementById("fleet-problem-count").textContent = data.problems;
}

// The rows for the filters as they are now, drawn from the top (a filter changed).
function drawFleetRows(keepScroll) {
  const data = state.fleet && state.fleet.data;
  if (!data || !document.getElementById("fleet-scroll")) return;
  const t0 = performance.now();
  const f = fleetRows(data);
  state.fleetView = { rows: f.rows, drawn: null };
  const box = document.getElementById("fleet-scroll");
  box.style.height = Math.min(Math.max(f.rows.length, 3), 40) * FLEET_ROW_PX + FLEET_ROW_PX + 2 + "px";
  if (!keepScroll) box.scrollTop = 0;
  document.getElementById("fleet-table").setAttribute("aria-rowcount", f.rows.length + 1);
  const empty = document.getElementById("fleet-empty");
  empty.hidden = f.rows.length > 0;
  empty.textContent = data.updated ? (data.hosts_count ? "No drive matches." : "The engine has no nvmond host yet.")
    : data.error ? "" : "Asking " + data.engine + " for the fleet…";
  document.getElementById("fleet-shown").textContent = f.drives === data.drives_count
    ? data.drives_count + " drives on " + data.hosts_count + " hosts"
    : "showing " + f.drives + " of " + data.drives_count + " drives, " + f.hosts + " of " + data.hosts_count + " hosts";
  drawFleetWindow();
  document.getElementById("view").dataset.fleetDrawnMs = (performance.now() - t0).toFixed(1);
}

function fleetNotice(data) {
  if (!data.error) return null;
  const last = data.updated
    ? "Showing the last good answer, taken " + fmtDateTime(new Date(data.updated)) + " (" + fmtDuration(Math.round(data.age_ms / 1000)) + " old)."
    : "No answer yet.";
  return el("p", { class: "error fleet-error", role: "alert", id: "fleet-error" },
    el("strong", {}, "The metrics engine does not answer: "), data.error + ". ", last,
    data.error_since ? " Failing since " + fmtDateTime(new Date(data.error_since)) + "." : "");
}

function fleetSetup() {
  const conf = "[fleet]\nquery_url = http://HOST:PORT";
  return el("section", { class: "panel fleet-setup", id: "fleet-setup", "aria-label": "setting up the fleet page" },
    el("h2", {}, "Fleet: every drive of every host"),
    el("p", {}, "This page shows the drives of all your hosts, read from the Prometheus-compatible engine they report to: " +
      "Prometheus, VictoriaMetrics (single or cluster), Thanos or Mimir. Name its query API in this nvmond's configuration " +
      "(/etc/nvmond/nvmond.conf) and reload it (systemctl reload nvmond):"),
    el("pre", {}, conf),
    el("ul", {},
      el("li", {}, "Prometheus: ", el("code", {}, "http://prometheus:9090")),
      el("li", {}, "VictoriaMetrics: ", el("code", {}, "http://victoria-metrics:8428"), "; its cluster: ",
        el("code", {}, "http://vmselect:8481/select/0/prometheus")),
      el("li", {}, "Thanos Query: ", el("code", {}, "http://thanos-query:10902"), "; Mimir: ", el("code", {}, "http://mimir:8080/prometheus"))),
    el("p", {}, "The hosts get there by a Prometheus scraping each nvmond's /metrics, or by each nvmond pushing by remote write " +
      "([export] in its configuration). docs/fleet.md has a copy-paste recipe for each set-up."));
}

function fleetStatus(data) {
  if (!data.updated) return setStatus("fleet · " + (data.refreshing ? "asking " + data.engine + "…" : "no answer yet"));
  const age = Math.round((data.age_ms + (Date.now() - state.fleet.at)) / 1000);
  setStatus(data.hosts_count + " hosts · " + data.drives_count + " drives · " + data.problems + " with problems" +
    (data.not_reporting ? " · " + data.not_reporting + " not reporting" : "") +
    " · updated " + fmtDuration(age) + " ago from " + data.engine + (data.error ? " (failing)" : "") +
    (data.refreshing && age * 1000 > data.interval_ms ? " · refreshing…" : ""));
}

// The page from state.fleet: no request. A refresh keeps the filters, the scroll and
// the focus; only the rows in view are drawn again.
function drawFleet() {
  const main = document.getElementById("view");
  const data = state.fleet.data;
  if (!data.configured) {
    main.replaceChildren(fleetSetup());
    setStatus("fleet · not set up");
    return;
  }
  const notice = fleetNotice(data);
  let page = document.getElementById("fleet-page");
  if (!page) {
    page = el("div", { id: "fleet-page" },
      el("div", { id: "fleet-notice" }),
      fleetToolbar(),
      el("div", { class: "table-wrap fleet-scroll", id: "fleet-scroll", tabindex: "0" },
        el("table", { class: "drives fleet-table", id: "fleet-table", "aria-label": "drives of every host" },
          el("thead", { id: "fleet-head" }), el("tbody", { id: "fleet-body" }))),
      el("p", { class: "muted", id: "fleet-empty", hidden: true }, "No drive matches."));
    main.replaceChildren(page);
    const box = document.getElementById("fleet-scroll");
    box.addEventListener("scroll", () => {
      if (state.fleetFrame) return;
      state.fleetFrame = requestAnimationFrame(() => { state.fleetFrame = 0; drawFleetWindow(); });
    });
  }
  document.getElementById("fleet-notice").replaceChildren(...(notice ? [notice] : []));
  updateFleetToolbar(data);
  document.getElementById("fleet-head").replaceChildren(fleetHead());
  drawFleetRows(true);
  fleetStatus(data);
  main.dataset.renderedMs = performance.now().toFixed(1); // the browser tests measure with it
}

// The answer's status (not its hosts), taken over by an "unchanged" answer.
const FLEET_STATUS = ["ok", "error", "error_since", "age_ms", "query_ms", "engine_ms", "interval_ms", "stale_after_ms", "refreshing"];

// A live refresh asks with ?since= the answer it has: while the daemon's view is that one,
// the answer is its status alone (a few hundred bytes), and only the notice and the status
// line are drawn again. A new view comes whole.
async function renderFleet(gen, live) {
  const have = live && state.fleet && state.fleet.data.configured && state.fleet.data.updated;
  const r = await api("/api/v1/fleet" + (have ? "?since=" + encodeURIComponent(state.fleet.data.updated) : ""));
  if (gen !== state.generation) return;
  if (!r.ok) throw new Error((r.body && r.body.error) || "HTTP " + r.status);
  document.title = "fleet · nvmond";
  if (have && r.body.unchanged && document.getElementById("fleet-page")) {
    for (const k of FLEET_STATUS) state.fleet.data[k] = r.body[k];
    state.fleet.at = Date.now();
    const notice = fleetNotice(state.fleet.data);
    document.getElementById("fleet-notice").replaceChildren(...(notice ? [notice] : []));
    fleetStatus(state.fleet.data);
    return;
  }
  destroyCharts();
  indexFleet(r.body);
  state.fleet = { data: r.body, at: Date.now(), gen: (state.fleet ? state.fleet.gen : 0) + 1 };
  drawFleet();
}

// How soon the page asks again: every second while the engine is configured (an
// unchanged view costs a few hundred bytes), so a new view shows within a second.
function fleetRefreshMs() {
  const d = state.fleet && state.fleet.data;
  return d && d.configured ? 1000 : LIVE_MS;
}
