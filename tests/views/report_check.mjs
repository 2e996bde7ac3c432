// report_check.mjs CHROMIUM PAGE... — loads `sensim report` pages in a real headless browser
// (Debian's chromium, driven by puppeteer-core) and prints what each shows as one JSON object a
// line, in order: console errors, failed or external requests, and the content of every plot and
// thumbnail ({"error": ...} for a page that did not load). Each page has a tab of its own; one
// browser for all (its start-up was most of a page's time). tests/integration/views.sh compares
// that with what the run folder holds.
import puppeteer from 'puppeteer-core';

const [chromium, ...pages] = process.argv.slice(2);
const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
try {
  for (const page_path of pages) console.log(JSON.stringify(await check(page_path)));
} finally {
  await browser.close();
}

async function check(page_path) {
  const problems = [];
  const page = await browser.newPage();
  try {
    page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warn') problems.push(`console ${m.type()}: ${m.text()}`); });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
    await page.setRequestInterception(true);
    page.on('request', (r) => {
      const u = r.url();
      // the page must be self-contained: only itself (file:) and inline data: URIs
      if (u.startsWith('data:') || u === `file://${page_path}`) r.continue();
      else { problems.push(`external request: ${u}`); r.abort(); }
    });
    await page.goto(`file://${page_path}`, { waitUntil: 'load' });
    const facts = await page.evaluate(() => {
      const box = (el) => { if (!el) return null; const b = el.getBBox(); return [b.width, b.height]; };
      const paths = document.querySelector('svg#paths');
      const counts = document.querySelector('svg#counts');
      const lines = paths ? [...paths.querySelectorAll('g.actor polyline')] : [];
      return {
        title: document.title,
        summary_rows: document.querySelectorAll('#summary tr').length,
        paths_box: box(paths),
        polylines: lines.length,
        map_lanes: paths ? paths.querySelectorAll('g.map polyline').length : 0,
        polyline_points: lines.map((l) => l.points.numberOfItems),
        starts: paths ? paths.querySelectorAll('g.actor circle').length : 0,
        collisions: paths ? paths.querySelectorAll('g.collision path').length : 0,
        legend: [...document.querySelectorAll('.legend li')].map((li) => li.textContent),
        counts_box: box(counts),
        count_rows: counts ? counts.querySelectorAll('g.sensor').length : 0,
        count_bars: counts ? counts.querySelectorAll('g.sensor rect').length : 0,
        totals: counts ? [...counts.querySelectorAll('g.sensor')].map((g) => Number(g.lastElementChild.textContent)) : [],
        strips: document.querySelectorAll('.strip').length,
        images: [...document.querySelectorAll('img')].map((i) => [i.complete, i.naturalWidth, i.naturalHeight]),
      };
    });
    facts.problems = problems;
    return facts;
  } catch (e) {
    return { error: e.message, problems };
  } finally {
    await page.close();
  }
}
