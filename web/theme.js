// nvmond dashboard: the light and dark themes (the system's, or the one picked and
// remembered in this browser).
import { requestRender } from "./state.js";

export function applyTheme(t) {
  if (t) document.documentElement.dataset.theme = t;
  else delete document.documentElement.dataset.theme;
  const btn = document.getElementById("theme");
  const dark = t ? t === "dark" : matchMedia("(prefers-color-scheme: dark)").matches;
  btn.textContent = dark ? "Light" : "Dark";
  btn.setAttribute("aria-label", dark ? "Switch to the light theme" : "Switch to the dark theme");
}

export function toggleTheme() {
  const cur = document.documentElement.dataset.theme ||
    (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");
  const next = cur === "dark" ? "light" : "dark";
  localStorage.setItem("nvmond.theme", next);
  applyTheme(next);
  requestRender(); // charts take their colours from the theme
}
