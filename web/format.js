// nvmond dashboard: formatting of numbers, units and times. Pure functions, no DOM.
// An ES module that imports nothing: the pages, and tests in Node, import it.

export function num(v) {
  return typeof v === "string" ? Number(v) : v;
}

// Bytes in decimal units: TB and PB with 2 decimals, smaller units with 3 significant
// digits. nominal: a configured size (a rating, a budget) without trailing zeros.
export function fmtBytes(v, nominal) {
  const n = num(v);
  if (n === null || n === undefined || Number.isNaN(n)) return "–";
  const units = [["PB", 1e15], ["TB", 1e12], ["GB", 1e9], ["MB", 1e6], ["kB", 1e3]];
  for (const [u, f] of units) {
    if (n < f) continue;
    const x = n / f;
    const s = f >= 1e12 ? x.toFixed(2) : x.toFixed(x >= 100 ? 0 : x >= 10 ? 1 : 2);
    return (nominal ? String(Number(s)) : s) + " " + u;
  }
  return n + " B";
}

export function fmtDate(iso) {
  return iso ? iso.slice(0, 10) : "–";
}

// Times read the same everywhere (tables, status line, chart axes and legends): local
// time on a 24-hour clock, whatever the browser's locale would pick, and the day as the
// locale's short month and day, with the year only when it is not this year.
const CLOCK = { hour: "2-digit", minute: "2-digit", hourCycle: "h23" };

function dayOptions(d) {
  return d.getFullYear() === new Date().getFullYear() ? { month: "short", day: "numeric" }
    : { month: "short", day: "numeric", year: "numeric" };
}

// "14:05", or "14:05:09" with seconds.
export function fmtClock(d, seconds) {
  return d.toLocaleTimeString(undefined, seconds ? Object.assign({ second: "2-digit" }, CLOCK) : CLOCK);
}

// "Dec 1", "Nov 28, 2025".
export function fmtDay(d) {
  return d.toLocaleDateString(undefined, dayOptions(d));
}

// "Dec 1, 14:05", "Nov 28, 2025, 09:30".
export function fmtDateTime(d) {
  return d.toLocaleString(undefined, Object.assign(dayOptions(d), CLOCK));
}

export function fmtTime(iso) {
  return iso ? fmtDateTime(new Date(iso)) : "–";
}

export function fmtDuration(s) {
  if (s === null || s === undefined) return "–";
  if (s < 120) return s + " s";
  if (s < 7200) return Math.round(s / 60) + " min";
  return (s / 3600).toFixed(1) + " h";
}

export function fmtAgo(iso) {
  if (!iso) return "never";
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (s < 90) return s + " s ago";
  if (s < 5400) return Math.round(s / 60) + " min ago";
  if (s < 2 * 86400) return Math.round(s / 3600) + " h ago";
  return fmtTime(iso);
}

export function fmtPercent(v, digits) {
  return v === null || v === undefined ? "–" : v.toFixed(digits || 0) + " %";
}

// Megabytes per second with 3 significant digits: "4970 MB/s", "312 MB/s", "8.41 MB/s".
export function fmtMBps(v) {
  return v === null || v === undefined ? "–" : Number(v.toPrecision(3)) + " MB/s";
}

export function fmtMBpsTick(v) {
  return v >= 1000 ? Number((v / 1000).toPrecision(3)) + " GB/s" : v + " MB/s";
}

// An axis tick of bytes: "500 GB", "1.5 TB".
export function fmtBytesTick(v) {
  if (!v) return "0";
  const units = [["PB", 1e15], ["TB", 1e12], ["GB", 1e9], ["MB", 1e6], ["kB", 1e3]];
  for (const [u, f] of units) if (Math.abs(v) >= f) return Number((v / f).toPrecision(3)) + " " + u;
  return v + " B";
}
