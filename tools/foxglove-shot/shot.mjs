// shot.mjs URL OUT.png [WIDTH HEIGHT] — opens the page in Debian's chromium (WebGL on SwiftShader,
// no GPU), waits until the app has opened the MCAP, seeked, and every panel has its data, then
// saves a PNG. The page's console errors are printed; exits 1 if the panels never got their data.
import puppeteer from "puppeteer-core";

const [url, out, width = "1280", height = "720"] = process.argv.slice(2);
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist"],
});
let errors = 0;
try {
  const page = await browser.newPage();
  await page.setViewport({ width: Number(width), height: Number(height) });
  page.on("console", (m) => {
    if (m.type() === "error") errors++;
    if (m.type() === "error" || process.env.VERBOSE) console.log(`[page ${m.type()}] ${m.text()}`);
  });
  page.on("pageerror", (e) => { errors++; console.log(`[page exception] ${e.message}`); });
  await page.goto(url, { waitUntil: "load" });
  // Ready: every Image panel shows its picture's stamp (seconds with 9 decimals) instead of
  // "Waiting for images", and nothing says it is loading or misses a frame.
  const images = Number(process.env.IMAGE_PANELS ?? 2);
  await page.waitForFunction((n) => {
    const text = document.body.innerText;
    return document.querySelector("canvas") !== null &&
      (text.match(/^\d+\.\d{9}$/gm) ?? []).length >= n && !/Waiting for|Loading|not found/i.test(text);
  }, { timeout: 120000, polling: 500 }, images);
  // The 3D panel draws on animation frames after its messages arrive: give it a few.
  await new Promise((r) => setTimeout(r, Number(process.env.SETTLE_MS ?? 4000)));
  await page.screenshot({ path: out });
} catch (e) {
  console.error(`shot.mjs: ${e.message}`);
  process.exitCode = 1;
} finally {
  await browser.close();
}
if (errors) console.error(`shot.mjs: ${errors} console error(s) on the page`);
