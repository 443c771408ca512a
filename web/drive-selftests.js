// nvmond dashboard, drive page: the self-tests panel (issue 12). Whether the drive
// takes them, the running one with its progress (and Abort), the next scheduled one,
// Short / Extended buttons, the results (the newest ten, or all), the scheduled tests
// skipped lately with why.
import { authPost, optional } from "./api.js";
import { el, meter, row, showError } from "./dom.js";
import { fmtTime } from "./format.js";
import { requestRender, state } from "./state.js";

const SELFTESTS_SHOWN = 10;
const SELFTESTS_ALL = 1000; // GET …/selftests?limit= at most (docs/api.md)
// The drive whose results are all shown ("Show all"): a rebuild of its page keeps them.
let allShownFor = null;

const SKIPS_SHOWN = 5;
// Self-test Result codes that are aborts (the rest: 0 passed, 5-7 failures).
const SELFTEST_ABORTS = new Set([1, 2, 3, 4, 8, 9]);

let selftestTimer = null; // the running test's next look (watchSelftest)

export function stopSelftestWatch() {
  clearTimeout(selftestTimer);
  selftestTimer = null;
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
      requestRender();
      return;
    }
    box.querySelector(".meter > span").style.width = Math.min(100, r.running.percent) + "%";
    box.querySelector(".selftest-progress").textContent = selftestProgressText(r.running);
    box.dataset.percent = r.running.percent;
    selftestTimer = setTimeout(tick, 2000);
  };
  stopSelftestWatch();
  selftestTimer = setTimeout(tick, 2000);
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
    requestRender();
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

// One result: when nvmond saw it, its type and result (failures red, aborts amber),
// where it failed, power-on hours and who started it.
function selftestRow(r) {
  return el("tr", { "data-result-code": String(r.result_code), "data-id": String(r.id) },
    el("td", { class: "time" }, fmtTime(r.seen)),
    el("td", {}, r.type),
    el("td", { class: "details " + (r.failed ? "bad" : SELFTEST_ABORTS.has(r.result_code) ? "warn" : r.passed ? "ok" : "") }, r.result),
    el("td", { class: "num", "data-label": "segment" }, r.segment === null ? "" : String(r.segment)),
    el("td", { class: "num", "data-label": "LBA" }, r.lba === null ? "" : r.lba + (r.nsid !== null ? " (NSID " + r.nsid + ")" : "")),
    el("td", { class: "num", "data-label": "power-on hours" }, String(r.poh)),
    el("td", { "data-label": "started by" }, r.origin || "other tool"));
}

// The results, newest first: the newest SELFTESTS_SHOWN (a year of weekly tests is
// some 60), and a button that fetches and shows every one stored (the API's limit),
// or the newest ones again. @all: the answer holds every result.
function selftestHistory(d, st, all) {
  if (!st.history.length)
    return el("p", { class: "muted" }, st.supported === false ? "No self-test result stored." : "No self-test result stored yet.");
  const shown = all ? st.history : st.history.slice(0, SELFTESTS_SHOWN);
  const more = !all && st.history.length > SELFTESTS_SHOWN;
  const box = el("div", { id: "selftest-history-box", "data-all": all ? "yes" : "no" },
    el("div", { class: "table-wrap" }, el("table", { class: "events selftests", id: "selftest-history" },
      el("thead", {}, el("tr", {}, ["Seen", "Type", "Result", "Segment", "LBA", "Power-on hours", "Started by"]
        .map((x, i) => el("th", { scope: "col", class: i >= 3 && i <= 5 ? "num" : null }, x)))),
      el("tbody", {}, shown.map(selftestRow)))));
  if (!more && !all) return box;
  const btn = el("button", { type: "button", id: "selftest-all" }, all ? "Show the newest " + SELFTESTS_SHOWN : "Show all");
  btn.addEventListener("click", async () => {
    btn.disabled = true;
    const full = all ? st : await optional("/api/v1/devices/" + d.id + "/selftests?limit=" + SELFTESTS_ALL);
    btn.disabled = false;
    if (!full) return;
    allShownFor = all ? null : d.id;
    box.replaceWith(selftestHistory(d, full, !all));
  });
  box.append(el("p", { class: "legend-note" }, all ? "all " + st.history.length + " results" +
    (st.history.length >= SELFTESTS_ALL ? " the API gives (its limit)" : "") + " · "
    : "the newest " + SELFTESTS_SHOWN + " results · ", btn));
  return box;
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
    selftestHistory(d, st, allShownFor === d.id),
    skips.length ? el("div", { id: "selftest-skips" },
      el("h4", {}, "Scheduled tests skipped lately"),
      el("ul", { class: "skips" }, skips.map((k) => el("li", {},
        el("span", { class: "time" }, fmtTime(k.ts)), " · " + k.type + " (" + k.origin + "): " + k.reason))),
      st.skips.length > skips.length ? el("p", { class: "legend-note" }, "the newest " + skips.length + " of " + st.skips.length + " shown") : null)
      : null);
}

// GET …/selftests: one result more than the table shows (so it knows there are more),
// or every one when they are shown (null: not available).
export function load(ctx) {
  const n = allShownFor === ctx.id ? SELFTESTS_ALL : SELFTESTS_SHOWN + 1;
  return ctx.get("/api/v1/devices/" + ctx.id + "/selftests?limit=" + n);
}

export function view(ctx, d, st) {
  if (allShownFor !== null && allShownFor !== d.id) allShownFor = null;
  return el("section", { class: "panel wide", "aria-label": "self-tests", id: "selftests" },
    el("h3", {}, "Self-tests"),
    selftestPanel(ctx.gen, d, st));
}
