// nvmond dashboard, drive page: the self-tests panel (issue 12). Whether the drive
// takes them, the running one with its progress (and Abort), the next scheduled one,
// Short / Extended buttons, the results, the scheduled tests skipped lately with why.
import { authPost, optional } from "./api.js";
import { el, meter, row, showError } from "./dom.js";
import { fmtTime } from "./format.js";
import { requestRender, state } from "./state.js";

const SELFTESTS_SHOWN = 50;
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

// GET …/selftests (null: not available).
export function load(ctx) {
  return ctx.get("/api/v1/devices/" + ctx.id + "/selftests?limit=" + SELFTESTS_SHOWN);
}

export function view(ctx, d, st) {
  return el("section", { class: "panel wide", "aria-label": "self-tests", id: "selftests" },
    el("h3", {}, "Self-tests"),
    selftestPanel(ctx.gen, d, st));
}
