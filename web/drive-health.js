// nvmond dashboard, drive page: the drive's health. The verdict at the top (the
// daemon's health with its reasons, or what was checked; the throttle episodes of the
// range), the drive's notes, the risk verdict (drivelogs.js), and the Firmware and
// PCIe link card: the link now, sleep and access, every firmware revision and link seen.
import { el, row } from "./dom.js";
import { riskPanel } from "./drivelogs.js";
import { THROTTLE_KINDS, driveNotes, tbwPercent } from "./figures.js";
import { fmtTime } from "./format.js";
import { RANGE_WORDS } from "./state.js";

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
    // One change a line: five of them in one run of text made a wall in a half-width card.
    links.length > 1 ? row("Link changes", links.slice(0, 5).map((x) => el("span", { class: "link-change" }, fmtTime(x.ts) + " " + x.link.text))) : null,
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

// GET …/facts, …/wear and …/events of the range, and …/risk (each null when not available).
export function load(ctx) {
  const dev = "/api/v1/devices/" + ctx.id;
  return Promise.all([dev + "/facts", dev + "/wear", dev + "/events?" + ctx.q, dev + "/risk"].map(ctx.get))
    .then(([facts, wear, ev, risk]) => ({ facts, wear, events: ev ? ev.events : null, risk }));
}

// The verdict, the notes and the risk verdict (above the panels), and the facts card.
export function view(ctx, d, data) {
  return {
    top: [verdict(d, d.health, data.wear, data.events, ctx.range.key), driveNotes(d), riskPanel(d, data.risk)],
    facts: el("section", { class: "panel", "aria-label": "firmware and link" },
      el("h3", {}, "Firmware and PCIe link"),
      factsPanel(d, data.facts)),
  };
}
