// nvmond: the device list. Fetches /api/v1/devices every 10 s; no dependencies.
"use strict";

const REFRESH_MS = 10000;

const WARNING_LABELS = {
  spare: "spare below threshold",
  temperature: "temperature",
  degraded: "reliability degraded",
  read_only: "read-only",
  volatile_backup: "volatile backup failed",
  pmr_read_only: "PMR read-only",
};

// A table cell with text (never HTML) and an optional class.
function cell(text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}

// 128-bit counters arrive as numbers or, beyond 2^63, decimal strings.
function toNumber(v) {
  return typeof v === "string" ? Number(v) : v;
}

function temperatureCell(d, s) {
  const td = cell("");
  const now = s ? s.temperature_c : null;
  const limits = [d.wctemp_c, d.cctemp_c].map((c) => (c === null ? "–" : c)).join(" / ");
  td.textContent = (now === null || now === undefined ? "–" : now) + " (" + limits + ")";
  if (now !== null && now !== undefined) {
    if (d.cctemp_c !== null && now >= d.cctemp_c) td.className = "bad";
    else if (d.wctemp_c !== null && now >= d.wctemp_c) td.className = "warn";
  }
  td.title = "now (warning / critical)";
  return td;
}

function row(d) {
  const s = d.latest;
  const tr = document.createElement("tr");
  tr.append(
    cell(d.model),
    cell(d.serial),
    cell(d.firmware),
    cell(d.online ? "yes" : "no", d.online ? "ok" : "bad"),
    temperatureCell(d, s),
  );
  if (!s) {
    tr.append(cell("–", "num muted"), cell("–", "num muted"), cell("–", "num muted"),
      cell("no sample yet", "muted"));
    return tr;
  }
  const spareLow = s.avail_spare < s.spare_thresh;
  tr.append(
    cell(String(s.percent_used), "num" + (s.percent_used >= 100 ? " bad" : s.percent_used >= 80 ? " warn" : "")),
    cell(s.avail_spare + " / " + s.spare_thresh, "num" + (spareLow ? " bad" : "")),
    cell((toNumber(s.data_written_bytes) / 1e12).toFixed(2), "num"),
  );
  const bits = s.critical_warning_bits || [];
  tr.append(bits.length
    ? cell(bits.map((b) => WARNING_LABELS[b] || b).join(", "), "bad")
    : cell("none", "ok"));
  return tr;
}

function showError(msg) {
  const el = document.getElementById("error");
  el.textContent = msg;
  el.hidden = !msg;
}

async function refresh() {
  const status = document.getElementById("status");
  try {
    const res = await fetch("/api/v1/devices", { cache: "no-store" });
    const body = await res.json().catch(() => null);
    if (!res.ok) {
      throw new Error((body && body.error) || res.status + " " + res.statusText);
    }
    const tbody = document.querySelector("#devices tbody");
    tbody.replaceChildren(...body.devices.map(row));
    document.getElementById("empty").hidden = body.devices.length > 0;
    showError("");
    status.textContent = "Updated " + new Date().toLocaleTimeString();
  } catch (e) {
    showError("Cannot load devices: " + e.message);
    status.textContent = "Retrying every " + REFRESH_MS / 1000 + " s";
  }
}

refresh();
setInterval(refresh, REFRESH_MS);
