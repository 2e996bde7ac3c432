// studio_check.mjs URL TOOLS_DIR SHOT.png — opens a sensim MCAP in Foxglove Studio's own web app
// (tools/foxglove-shot: @foxglove/studio-base 1.48.0 in Debian's chromium through puppeteer-core)
// with tests/foxglove/layout.json: a Plot of /imu.accelerometer[0] (docs/mcap.md's example) and a
// Raw Messages panel on /imu (JSON). Passes when, within the time limit:
//   - the Raw Messages panel shows the message's fields (accelerometer, gyroscope, compass), not
//     "Waiting for next message" (issue 33 item 3: the app could not read the schema);
//   - the Plot's legend shows a number for the series (its value at the playback time), and its
//     chart has the series' colour in at least half of its columns (a line across the run,
//     counted in a screenshot);
//   - the page logged no error and threw no exception.
// Prints what it saw; exits 1 otherwise (and saves the screenshot for a look).
import { createRequire } from "node:module";
import { join, resolve } from "node:path";

const [url, tools, shot] = process.argv.slice(2);
const require = createRequire(join(resolve(tools), "package.json"));
const puppeteer = require("puppeteer-core");

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist"],
});
const errors = [];
let failed = false;
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 720 });
  page.on("console", async (m) => {
    if (m.type() === "error") {
      // the arguments as JSON (a player problem is an object: its message says what)
      const args = await Promise.all(m.args().map((a) => a.jsonValue().then((v) => JSON.stringify(v), () => String(a))));
      errors.push(`[console] ${args.join(" ") || m.text()}`);
    }
    if (process.env.VERBOSE) console.log(`[page ${m.type()}] ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`[exception] ${e.message}`));
  await page.goto(url, { waitUntil: "load", timeout: 120000 }); /* a loaded machine loads Studio slowly (30 s default: flaked in ASan) */
  // Both panels have their data: the raw message's keys are on the page and the legend has a value.
  const ready = await page.waitForFunction(() => {
    const text = document.body.innerText;
    return /accelerometer/.test(text) && /gyroscope/.test(text) && /compass/.test(text) &&
      !/Waiting for|Loading/i.test(text) && /-?\d+\.\d+/.test(text) && document.querySelector("canvas") !== null;
  }, { timeout: Number(process.env.TIMEOUT_MS ?? 90000), polling: 500 }).then(() => true, () => false);
  // The Plot's canvas: the largest canvas of the left panel; its series' colour is the first of
  // Foxglove's palette (#4e98e2), counted in a screenshot of that rectangle.
  const plotRect = () => page.evaluate(() => {
    let best;
    for (const c of document.querySelectorAll("canvas")) {
      const r = c.getBoundingClientRect();
      if (r.left < 640 && r.width * r.height > (best ? best.width * best.height : 0)) best = { x: r.left, y: r.top, width: r.width, height: r.height };
    }
    return best;
  });
  // The page's screenshot (a clip of the canvas alone comes out blank: the chart draws again
  // on the resize a clip makes), its Plot rectangle read back in the page; again for a while
  // until the line is there: the chart draws after its data arrive (in a worker, on an offscreen
  // canvas). Polled every 0.5 s for up to 20 s, the rectangle taken again each time (no fixed
  // 2 s wait before the first look any more).
  let lineSeen = 0, rect;
  for (let tries = 0; tries < 40 && lineSeen < 0.5; tries++) {
    if (tries) await new Promise((r) => setTimeout(r, 500));
    rect = await plotRect();
    if (!rect || rect.width <= 10 || rect.height <= 10) continue;
    const png = await page.screenshot({ encoding: "base64" });
    lineSeen = await page.evaluate(async (b64, r) => {
      const img = new Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const c = document.createElement("canvas");
      c.width = Math.floor(r.width), c.height = Math.floor(r.height);
      const g = c.getContext("2d");
      g.drawImage(img, r.x, r.y, c.width, c.height, 0, 0, c.width, c.height);
      const d = g.getImageData(0, 0, c.width, c.height).data;
      // columns with the series' colour: a line crosses the whole width, the legend's swatch
      // (which floats over the chart) a few columns only
      let n = 0;
      for (let x = 0; x < c.width; x++)
        for (let y = 0; y < c.height; y++) {
          const i = 4 * (y * c.width + x);
          if (Math.abs(d[i] - 0x4e) < 60 && Math.abs(d[i + 1] - 0x98) < 60 && Math.abs(d[i + 2] - 0xe2) < 60) { n++; break; }
        }
      return n / c.width;
    }, png, rect);
    (await import("node:fs")).writeFileSync(shot, Buffer.from(png, "base64"));
  }
  const text = await page.evaluate(() => document.body.innerText);
  const raw = /accelerometer/.test(text) && /gyroscope/.test(text) && !/Waiting for next message/.test(text);
  const value = (text.match(/\/imu\.accelerometer\[0\][\s\S]{0,80}?(-?\d+\.\d+)/) ?? [])[1];
  console.log(`studio_check: panels ready ${ready}; raw messages show the fields ${raw}; ` +
    `plot legend value ${value ?? "none"}; plot columns with the series' colour ${(100 * lineSeen).toFixed(0)} % ` +
    `(canvas ${rect ? `${Math.round(rect.width)}x${Math.round(rect.height)}` : "none"}); page errors ${errors.length}`);
  for (const e of errors) console.log(`studio_check: ${e}`);
  if (!ready || !raw || value === undefined || lineSeen < 0.5 || errors.length) failed = true;
  if (failed) console.log(`studio_check: page text:\n${text.slice(0, 2000)}`);
} catch (e) {
  console.error(`studio_check: ${e.message}`);
  failed = true;
} finally {
  await browser.close();
}
process.exitCode = failed ? 1 : 0;
