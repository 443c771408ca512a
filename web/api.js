// nvmond dashboard: talking to the daemon's HTTP API. An ES module that imports nothing
// (test_tls.sh runs it in Node against a daemon with auth = all).

// The API token ([http] token), kept in this browser once given. With
// [http] auth = all reads need it too: a 401 asks for it once (one prompt for
// the requests waiting on it) and the request is tried again with it.
let tokenAsked = null;
function askToken(what) {
  if (!tokenAsked) {
    tokenAsked = Promise.resolve(prompt("API token ([http] token) to " + what + ":")).then((t) => {
      tokenAsked = null;
      if (t) localStorage.setItem("nvmond.token", t);
      return t || null;
    });
  }
  return tokenAsked;
}

async function fetchJson(path, opts, token) {
  const o = Object.assign({ cache: "no-store" }, opts || {});
  if (token) o.headers = Object.assign({ Authorization: "Bearer " + token }, o.headers || {});
  const res = await fetch(path, o);
  const body = await res.json().catch(() => null);
  return { ok: res.ok, status: res.status, body };
}

// GET (or POST) a JSON endpoint. Optional features answer 404 when absent.
export async function api(path, opts) {
  const sent = localStorage.getItem("nvmond.token");
  const r = await fetchJson(path, opts, sent);
  if (r.status !== 401 || (opts && opts.headers && opts.headers.Authorization)) return r;
  let token = localStorage.getItem("nvmond.token");
  if (token === sent) {
    // No other request got a newer token meanwhile: this one is missing or wrong.
    localStorage.removeItem("nvmond.token");
    token = await askToken("read the data");
  }
  return token ? fetchJson(path, opts, token) : r;
}

// The optional endpoints (events, alerts, probes) may not exist: null then.
export async function optional(path) {
  try {
    const r = await api(path);
    return r.ok ? r.body : null;
  } catch (e) {
    return null;
  }
}

// POST to a token-guarded endpoint: the token is asked once and kept in this
// browser (localStorage); a 401 forgets it. Return: the api() answer, or null
// when no token was given.
export async function authPost(path, body, what) {
  let token = localStorage.getItem("nvmond.token");
  if (!token) {
    token = await askToken(what);
    if (!token) return null;
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
export async function pool(items, n, fn) {
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
