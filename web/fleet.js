// nvmond dashboard: the Fleet page (#/fleet): every drive of every host, from
// GET /api/v1/fleet ([fleet] query_url). Drives grouped by host, problems first; a
// filter by host label, model or text; sorting by any column; "problems only". The
// rows come from fleet-model.js and are drawn by fleet-rows.js, virtualised: however
// many drives (8,000 and more), only those in view are in the DOM.
import { api } from "./api.js";
import { destroyCharts } from "./charts.js";
import { el, setStatus } from "./dom.js";
import { fmtDateTime, fmtDuration } from "./format.js";
import { FLEET_COLS, FLEET_COL_ORDER, fleetRows, indexFleet } from "./fleet-model.js";
import { FLEET_ROW_PX, drawFleetWindow } from "./fleet-rows.js";
import { LIVE_MS, state } from "./state.js";

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
  const f = fleetRows(data, fleetUi);
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
export async function renderFleet(gen, live) {
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
export function fleetRefreshMs() {
  const d = state.fleet && state.fleet.data;
  return d && d.configured ? 1000 : LIVE_MS;
}
