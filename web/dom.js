// nvmond dashboard: DOM helpers and the small pieces every page builds with. All
// text goes in through text nodes (textContent), never as HTML.

// An element with attributes ("class", "onclick", others as given; null, undefined
// and false left out) and children (nodes, or text).
export function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "onclick") e.addEventListener("click", v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

export function showError(msg) {
  const e = document.getElementById("error");
  e.textContent = msg || "";
  e.hidden = !msg;
}

export function setStatus(msg) {
  document.getElementById("status").textContent = msg;
}

export function cssVar(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

// A bar of @frac (0 to 1) with marks at @marks.
export function meter(frac, cls, marks) {
  const m = el("div", { class: "meter " + (cls || ""), role: "img" });
  const bar = el("span");
  bar.style.width = Math.max(0, Math.min(100, frac * 100)).toFixed(1) + "%";
  m.append(bar);
  for (const x of marks || []) {
    const i = el("i");
    i.style.left = Math.max(0, Math.min(100, x * 100)).toFixed(1) + "%";
    m.append(i);
  }
  return m;
}

// A key and its value on one line.
export function row(k, v, cls) {
  return el("div", { class: "row" }, el("span", { class: "k" }, k), el("span", { class: "v " + (cls || "") }, v));
}

// An empty chart says why it is empty and when it fills.
export function emptyChart(what, why) {
  return el("div", { class: "empty-chart" }, el("p", {}, el("strong", {}, what), " — " + why));
}
