// The screenshots in docs/img/, taken from a running demo daemon that has filled
// its demo year (run by hand, not by ctest): tests/dashboard/screenshots.sh.
// NVMOND_URL: the daemon; OUT: where the PNG files go.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { chromium } = require("playwright-core");

const base = process.env.NVMOND_URL;
const out = process.env.OUT;

async function main() {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "nvmond-shots-"));
  const ctx = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--no-first-run"],
    viewport: { width: 1400, height: 900 },
  });
  const page = ctx.pages()[0] || (await ctx.newPage());
  const devices = (await (await fetch(base + "/api/v1/devices")).json()).devices;
  const hot = devices.find((d) => /950 PRO/.test(d.model)) || devices[0];
  const shots = [
    ["overview", "/", null],
    ["drive", "/#/drive/" + hot.id, "1y"],
  ];
  for (const [name, url, range] of shots) {
    for (const w of [1400, 390]) {
      for (const dark of [false, true]) {
        await page.setViewportSize({ width: w, height: w === 1400 ? 900 : 844 });
        await page.emulateMedia({ colorScheme: dark ? "dark" : "light" });
        await page.goto(base + url, { waitUntil: "networkidle" });
        if (range) {
          await page.click(`button[data-range="${range}"]`);
          await page.waitForSelector("#chart-temp canvas");
          await page.waitForLoadState("networkidle");
        }
        await page.waitForTimeout(300); // charts settle after their data arrives
        const file = path.join(out, name + (w === 1400 ? "" : "-" + w) + (dark ? "-dark" : "-light") + ".png");
        await page.screenshot({ path: file });
        console.log(file);
      }
    }
  }
  await ctx.close();
  fs.rmSync(userDataDir, { recursive: true, force: true });
}

main().catch((e) => { console.error(e); process.exit(1); });
