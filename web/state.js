// nvmond dashboard: the state the pages share, the time ranges, and the one way a
// page asks to be drawn again (app.js routes; a panel only asks).

export const LIVE_MS = 10000;
export const RANGES = [
  { key: "1h", label: "1 h", s: 3600 },
  { key: "24h", label: "24 h", s: 86400 },
  { key: "7d", label: "7 d", s: 7 * 86400 },
  { key: "30d", label: "30 d", s: 30 * 86400 },
  { key: "1y", label: "1 y", s: 365 * 86400 },
];
export const RANGE_WORDS = { "1h": "hour", "24h": "24 hours", "7d": "7 days", "30d": "30 days", "1y": "year" };
export const CHART_POINTS = 1000;

function sortSetting() {
  try {
    const s = JSON.parse(localStorage.getItem("nvmond.sort"));
    if (s && typeof s.key === "string" && (s.dir === 1 || s.dir === -1)) return s;
  } catch (e) { /* a hand-edited setting: the default */ }
  return { key: "health", dir: -1 };
}

export const state = {
  range: localStorage.getItem("nvmond.range") || "24h",
  timer: null,
  charts: [], // the uPlot instances of the page shown (charts.js)
  generation: 0, // bumped on every navigation: late answers of an old view are dropped
  overview: null, // the last GET /devices with each drive's extras (overview.js)
  sort: sortSetting(),
  problemsOnly: localStorage.getItem("nvmond.problems") === "1",
};

// The range picked on the drive page ({key, label, s}).
export function currentRange() {
  return RANGES.find((r) => r.key === state.range) || RANGES[1];
}

// The page's renderer (app.js), so that a panel can ask for the page again without
// importing the router, which imports every page.
let renderer = () => {};

export function setRenderer(fn) {
  renderer = fn;
}

// Draw the page shown again, from fresh answers (after a POST, a theme change, the
// end of a probe or a self-test).
export function requestRender() {
  return renderer();
}
