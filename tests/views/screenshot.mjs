// screenshot.mjs PAGE OUT.png — the whole page as docs/report.png shows it (1000 px wide), taken
// with Debian's chromium: cd tests/views && node screenshot.mjs /abs/report.html ../../docs/report.png
import puppeteer from 'puppeteer-core';
const [page_path, out] = process.argv.slice(2);
const b = await puppeteer.launch({executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu']});
const p = await b.newPage();
await p.setViewport({width: 1000, height: 800});
await p.goto('file://' + page_path, {waitUntil: 'load'});

await p.screenshot({path: out, fullPage: true});
await b.close();
