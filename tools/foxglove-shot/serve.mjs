// A static server for the page: the app's files from node_modules and the run's MCAP, with HTTP
// Range requests (Foxglove's remote-file source reads an MCAP by ranges: the summary first, then
// the chunks it needs) and wasm's MIME type (studio-base compiles its decoders by streaming).
// Usage: node serve.mjs RUN.mcap PORT [LAYOUT.json]   (prints "listening PORT" once ready; PORT 0
// takes a free one; LAYOUT replaces this folder's layout.json, as tests/foxglove does)
import { createServer } from "node:http";
import { createReadStream, statSync } from "node:fs";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const [mcap, port = "8765", layout] = process.argv.slice(2);
const mounts = [
  ["/studio/", join(here, "node_modules/@foxglove/studio-base/assets")],
  ["/react/", join(here, "node_modules/react/umd")],
  ["/react-dom/", join(here, "node_modules/react-dom/umd")],
  ["/", here],
];
const own = new Set(["/", "/index.html", "/entry.js", "/layout.json"]);
const types = {
  ".html": "text/html", ".js": "text/javascript", ".json": "application/json",
  ".wasm": "application/wasm", ".png": "image/png", ".svg": "image/svg+xml",
  ".ttf": "font/ttf", ".woff": "font/woff", ".woff2": "font/woff2", ".css": "text/css",
};

function resolve(path) {
  if (path === "/run.mcap") return mcap;
  if (path === "/layout.json" && layout) return layout;
  for (const [prefix, dir] of mounts) {
    if (!path.startsWith(prefix)) continue;
    if (prefix === "/" && !own.has(path)) return undefined;
    const rel = normalize(path.slice(prefix.length) || "index.html");
    return rel.startsWith("..") ? undefined : join(dir, rel);
  }
  return undefined;
}

const server = createServer((req, res) => {
  if (req.url === "/favicon.ico") { res.writeHead(204).end(); return; }
  const file = resolve(new URL(req.url, "http://x").pathname);
  let size;
  try { size = file && statSync(file).isFile() ? statSync(file).size : undefined; } catch { size = undefined; }
  if (size === undefined) { console.error(`404 ${req.url}`); res.writeHead(404).end(); return; }
  const headers = {
    "content-type": types[extname(file)] ?? "application/octet-stream",
    "accept-ranges": "bytes",
    "access-control-allow-origin": "*",
    "cache-control": "no-store",
  };
  const m = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? "");
  if (m) {
    const start = m[1] === "" ? Math.max(0, size - Number(m[2])) : Number(m[1]);
    const end = m[1] !== "" && m[2] !== "" ? Math.min(Number(m[2]), size - 1) : size - 1;
    if (start > end || start >= size) {
      res.writeHead(416, { "content-range": `bytes */${size}` }).end();
      return;
    }
    res.writeHead(206, { ...headers, "content-range": `bytes ${start}-${end}/${size}`, "content-length": end - start + 1 });
    if (req.method === "HEAD") { res.end(); return; }
    createReadStream(file, { start, end }).pipe(res);
    return;
  }
  res.writeHead(200, { ...headers, "content-length": size });
  if (req.method === "HEAD") { res.end(); return; }
  createReadStream(file).pipe(res);
});
server.listen(Number(port), "127.0.0.1", () => console.log(`listening ${server.address().port}`));
