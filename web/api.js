// nvmond dashboard: talking to the daemon's HTTP API.
"use strict";

// GET (or POST) a JSON endpoint. Optional features answer 404 when absent.
async function api(path, opts) {
  const res = await fetch(path, Object.assign({ cache: "no-store" }, opts || {}));
  const body = await res.json().catch(() => null);
  return { ok: res.ok, status: res.status, body };
}

// The optional endpoints (events, alerts, probes) may not exist: null then.
async function optional(path) {
  try {
    const r = await api(path);
    return r.ok ? r.body : null;
  } catch (e) {
    return null;
  }
}

// browser (localStorage); a 401 forgets it. Return: the api() answer, or null
// when no token was given.
async function authPost(path, body, what) {
  let token = localStorage.getItem("nvmond.token");
  if (!token) {
    token = prompt("API token ([http] token) to " + what + ":");
    if (!token) return null;
    localStorage.setItem("nvmond.token", token);
  }
  const opts = { method: "POST", headers: { Authorization: "Bearer " + token } };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const r = await api(path, opts);
  if (r.status === 401) localStorage.removeItem("nvmond.token");
  return r;
}

// Run fn over items, at most n at a time (the daemon serves a few threads; 64
// drives must not become 128 requests at once). Return: the results in order.
async function pool(items, n, fn) {
  const out = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const k = next++;
      out[k] = await fn(items[k]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  return out;
}
