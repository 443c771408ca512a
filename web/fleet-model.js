// nvmond dashboard, Fleet page: the rows of GET /api/v1/fleet as the filters and the
// sort pick them. Pure: data in, rows out, no DOM (fleet.js draws).
import { HEALTH_RANK } from "./figures.js";

// The columns: key → label, the drive's value (null sorts last whatever the direction),
// the direction of a first click.
export const FLEET_COLS = {
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
export const FLEET_COL_ORDER = ["host", "model", "serial", "location", "verdict", "temp", "used", "tbw", "seen"];

// A host's rank (the API's order): its worst drive, a host not reporting just below critical.
export function hostRank(h) {
  const r = { ok: 0, unknown: 2, offline: 4, warning: 6, critical: 8 }[h.worst] ?? 2;
  return h.reporting ? r : Math.max(r, 7);
}

export function driveProblem(d, h) {
  return d.problem || !h.reporting;
}

// Per drive, the text the filter searches, lower case, once per answer.
export function indexFleet(data) {
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

export function cmpValues(va, vb, dir) {
  const na = va === null || va === undefined, nb = vb === null || vb === undefined;
  if (na || nb) return na - nb; // unknown last
  const c = typeof va === "string" ? collate(va, vb) : va - vb;
  return c * dir;
}

// The rows to show, in order: for each host with a drive left by the filters, its row
// then its drives'. A host not reporting with no drive known shows alone (unless a
// filter is set that it cannot match).
export function fleetRows(data, ui) {
  const col = FLEET_COLS[ui.sort.key] || FLEET_COLS.verdict, dir = ui.sort.dir;
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
