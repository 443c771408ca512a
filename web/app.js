// nvmond dashboard: routing, the live refresh and start-up. The one script index.html
// loads (a module; uPlot before it as a classic script): it imports the pages, they
// import what they use. No module writes to the global scope.
import { destroyCharts, resizeCharts } from "./charts.js";
import { showError } from "./dom.js";
import { leaveDrive, renderDrive } from "./drive.js";
import { fleetRefreshMs, renderFleet } from "./fleet.js";
import { renderGroup } from "./group.js";
import { renderOverview } from "./overview.js";
import { LIVE_MS, setRenderer, state } from "./state.js";
import { applyTheme, toggleTheme } from "./theme.js";

function route() {
  if (location.hash === "#/fleet") return { view: "fleet" };
  const m = location.hash.match(/^#\/(drive|group)\/(\d+)$/);
  return m ? { view: m[1], id: Number(m[2]) } : { view: "overview" };
}

// The header's links: the one of the page shown is marked.
function markNav(view) {
  document.getElementById("nav-drives").setAttribute("aria-current", view === "overview" ? "page" : "false");
  document.getElementById("nav-fleet").setAttribute("aria-current", view === "fleet" ? "page" : "false");
}

async function render(live) {
  const r = route();
  const gen = live ? state.generation : ++state.generation;
  clearTimeout(state.timer);
  if (!live) leaveDrive();
  markNav(r.view);
  try {
    if (r.view === "fleet") {
      destroyCharts();
      await renderFleet(gen, live);
    } else if (r.view === "drive") await renderDrive(gen, r.id, live);
    else if (r.view === "group") await renderGroup(gen, r.id);
    else {
      destroyCharts();
      document.title = "nvmond";
      await renderOverview(gen, live);
    }
    showError("");
  } catch (e) {
    if (gen === state.generation) showError("Cannot reach nvmond: " + e.message);
  }
  if (gen === state.generation) state.timer = setTimeout(() => render(true), r.view === "fleet" ? fleetRefreshMs() : LIVE_MS);
}

setRenderer(() => render());
applyTheme(localStorage.getItem("nvmond.theme"));
document.getElementById("theme").addEventListener("click", toggleTheme);
matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => {
  if (!localStorage.getItem("nvmond.theme")) { applyTheme(null); render(); }
});
window.addEventListener("hashchange", () => render());
window.addEventListener("resize", resizeCharts);
render();
