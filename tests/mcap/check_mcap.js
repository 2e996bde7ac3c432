// check_mcap.js — reads an MCAP file sensim wrote with Foxglove's own packages (@mcap/core,
// @foxglove/schemas, protobufjs as Foxglove loads protobuf schemas) and checks it against the run's
// streams, which it knows only through `sensim dump --json` and `sensim convert`:
//   - the file parses as an indexed MCAP (footer, summary, chunk indexes, statistics) and as a
//     stream of records with every CRC checked (chunks, data section, summary);
//   - every chunk index points at its chunk and message indexes, whose entries point at
//     messages of their channel with their log times; start/end times bound the chunk's messages;
//   - statistics count what the file holds; per channel, log times never go back and sequence
//     numbers count 0, 1, 2, ...;
//   - every schema is a Foxglove schema whose message types (and the ones it nests) have
//     @foxglove/schemas' fields, numbers, types and labels, and enums its values (the package's
//     own .proto generator parsed by protobufjs), and every message decodes (protobuf through the
//     schema's FileDescriptorSet, JSON parses);
//   - images are the PNG files `sensim convert` wrote for the stream, byte for byte;
//   - boxes (SceneUpdate) and the transform tree (FrameTransforms) give the poses of the actors
//     stream and of every sensor message's transform, with y negated (CARLA -> right-handed);
//   - point clouds carry the streams' points with y negated; location fixes the GNSS values;
//   - what Foxglove's Image, 3D and Map panels need of each schema (known image formats and
//     encodings, x/y/z float fields inside the point stride, unique entity ids, visible colours,
//     unit quaternions, timestamps equal to log times, a transform tree rooted at world).
// usage: node check_mcap.js FILE.mcap DUMPS_DIR PNG_DIR   (DUMPS_DIR/<sensor>.jsonl, PNG_DIR/<sensor>/*.png)
// Prints "ok: ..." lines and exits 1 after printing every FAIL.
"use strict";
const fs = require("fs");
const path = require("path");
const { McapIndexedReader, McapStreamReader } = require("@mcap/core");
const { foxgloveMessageSchemas } = require("@foxglove/schemas/internal");
const protobuf = require("protobufjs");
const descriptor = require("protobufjs/ext/descriptor");
const fzstd = require("fzstd");

const [file, dumpsDir, pngDir] = process.argv.slice(2);
let fails = 0;
const fail = (what) => {
  fails++;
  if (fails <= 40) console.log(`FAIL: ${what}`);
};
const check = (cond, what) => {
  if (!cond) fail(what);
  return cond;
};
const bytes = fs.readFileSync(file);
const zstd = { zstd: (buf, size) => fzstd.decompress(buf, new Uint8Array(Number(size))) };

// CRC-32 (IEEE), as MCAP uses
const CRC = new Uint32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (b) => {
  let c = 0xffffffff;
  for (let i = 0; i < b.length; i++) c = CRC[(c ^ b[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};

// Every record of a byte range, parsed by @mcap/core's stream reader.
function records(buf, opts, max = Infinity) {
  const r = new McapStreamReader({ decompressHandlers: zstd, validateCrcs: true, ...opts });
  r.append(buf);
  const out = [];
  for (let rec; out.length < max && (rec = r.nextRecord()); ) out.push(rec);
  return out;
}

// ---- CARLA's rotation (UE's FRotationMatrix) and the change to right-handed axes ----
const rad = (d) => (d * Math.PI) / 180;
function carlaMatrix([pitch, yaw, roll]) {
  const [sp, cp, sy, cy, sr, cr] = [Math.sin(rad(pitch)), Math.cos(rad(pitch)), Math.sin(rad(yaw)), Math.cos(rad(yaw)), Math.sin(rad(roll)), Math.cos(rad(roll))];
  const X = [cp * cy, cp * sy, sp], Y = [sr * sp * cy - cr * sy, sr * sp * sy + cr * cy, -sr * cp], Z = [-(cr * sp * cy + sr * sy), cy * sr - cr * sp * sy, cr * cp];
  return [0, 1, 2].map((i) => [X[i], Y[i], Z[i]]); // rows; columns are the body axes
}
const flipM = (m) => m.map((row, i) => row.map((v, j) => ((i === 1) !== (j === 1) ? -v : v)));
const flipV = ([x, y, z]) => [x, -y, z];
const mulMV = (m, v) => m.map((r) => r[0] * v[0] + r[1] * v[1] + r[2] * v[2]);
const mulMM = (a, b) => a.map((r) => [0, 1, 2].map((j) => r[0] * b[0][j] + r[1] * b[1][j] + r[2] * b[2][j]));
function quatMatrix({ x, y, z, w }) {
  x = x || 0, y = y || 0, z = z || 0, w = w || 0;
  return [
    [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
    [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
    [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
  ];
}
const vecOf = (v) => [v?.x || 0, v?.y || 0, v?.z || 0];
const near = (a, b, eps) => a.flat().every((v, i) => Math.abs(v - b.flat()[i]) <= eps);

function loadJsonl(name) {
  const p = path.join(dumpsDir, `${name}.jsonl`);
  return fs.existsSync(p) ? fs.readFileSync(p, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)) : null;
}
const ns = (ts) => BigInt(Math.round(ts * 1e9));

// ---- Foxglove's panels: the preconditions its Image, 3D and Map panels have for each schema ----
// (foxglove.dev/docs/visualization/message-schemas; a failure here is what the app would show as
// an error, a warning or nothing drawn). Values are protobufjs objects (defaults omitted).
const num = (v) => Number(v || 0);
const timeNs = (t) => BigInt(t?.seconds || 0) * 1000000000n + BigInt(t?.nanos || 0);
const unitQuat = (q) => Math.abs(Math.hypot(num(q?.x), num(q?.y), num(q?.z), num(q?.w)) - 1) < 1e-6;
const finite = (...v) => v.every((x) => Number.isFinite(num(x)));
const FIELD_SIZE = { 1: 1, 2: 1, 3: 2, 4: 2, 5: 4, 6: 4, 7: 4, 8: 8 }; // foxglove.PackedElementField.NumericType
const visible = (c) => c && num(c.a) > 0 && [c.r, c.g, c.b, c.a].every((v) => num(v) >= 0 && num(v) <= 1);
function poseOk(p) { // a Pose that is absent is the identity; one that is there has a unit quaternion
  return !p || (finite(p.position?.x, p.position?.y, p.position?.z) && unitQuat(p.orientation || {}));
}
function panelChecks(decoded) {
  const counts = {}, before = fails;
  const rule = (cond, d, what) => check(cond, `${d.topic} (${d.schema}) at ${d.logTime}: ${what}`);
  const tree = new Map(); // child -> parent, every transform seen: Foxglove's 3D panel needs a root
  for (const d of decoded) {
    const v = d.value;
    counts[d.schema] = (counts[d.schema] || 0) + 1;
    switch (d.schema) {
      case "foxglove.CompressedImage": {
        rule(["png", "jpeg", "webp", "avif"].includes(v.format), d, `format '${v.format}' is one the Image panel decodes`);
        const b = Buffer.from(v.data || []);
        rule(v.format !== "png" || (b.length > 24 && b.readUInt32BE(0) === 0x89504e47 && b.toString("latin1", 12, 16) === "IHDR" && b.readUInt32BE(16) > 0 && b.readUInt32BE(20) > 0), d, "data is a PNG with a size");
        rule(v.frame_id, d, "a frame_id (the 3D panel places the image by it)");
        rule(timeNs(v.timestamp) === d.logTime, d, "its timestamp is its log time");
        break;
      }
      case "foxglove.RawImage": {
        const bpp = { rgb8: 3, bgr8: 3, rgba8: 4, bgra8: 4, mono8: 1, "8UC1": 1, mono16: 2, "16UC1": 2, "32FC1": 4 }[v.encoding];
        rule(bpp, d, `encoding '${v.encoding}' is one the Image panel knows`);
        rule(num(v.width) > 0 && num(v.height) > 0 && num(v.step) >= num(v.width) * bpp && (v.data || []).length >= num(v.step) * num(v.height), d, "width, height, step and data agree");
        rule(timeNs(v.timestamp) === d.logTime && v.frame_id, d, "timestamp is the log time, and a frame_id");
        break;
      }
      case "foxglove.PointCloud": {
        const stride = num(v.point_stride), fields = v.fields || [];
        rule(stride > 0 && (v.data || []).length % stride === 0, d, `data is whole points of ${stride} bytes`);
        rule(["x", "y", "z"].every((n) => fields.some((f) => f.name === n && num(f.type) === 7)), d, "float32 x, y and z fields (the 3D panel draws nothing without them)");
        for (const f of fields)
          rule(FIELD_SIZE[num(f.type)] && num(f.offset) + FIELD_SIZE[num(f.type)] <= stride, d, `field ${f.name} of type ${f.type} fits in the point at ${f.offset}`);
        rule(new Set(fields.map((f) => f.name)).size === fields.length, d, "field names are unique");
        rule(poseOk(v.pose) && v.frame_id && timeNs(v.timestamp) === d.logTime, d, "a unit pose, a frame_id, the log time");
        break;
      }
      case "foxglove.SceneUpdate": {
        const ids = new Set();
        for (const e of v.entities || []) {
          rule(e.id !== undefined && e.id !== "" && !ids.has(e.id), d, `entity id '${e.id}' is set and unique in the update`);
          ids.add(e.id);
          rule(e.frame_id, d, `entity ${e.id} has a frame_id`);
          rule(timeNs(e.timestamp) === d.logTime || (!e.timestamp && !num(e.lifetime?.seconds) && !num(e.lifetime?.nanos)), d, `entity ${e.id}'s timestamp is the log time (or none, for a permanent entity)`);
          for (const c of e.cubes || []) {
            rule(poseOk(c.pose) && num(c.size?.x) > 0 && num(c.size?.y) > 0 && num(c.size?.z) > 0, d, `entity ${e.id}: a cube with a unit pose and a size`);
            rule(visible(c.color), d, `entity ${e.id}: a cube colour in [0, 1] that is not transparent`);
          }
          for (const a of e.arrows || []) {
            rule(poseOk(a.pose) && num(a.shaft_length) >= 0 && num(a.head_length) >= 0 && num(a.shaft_diameter) > 0 && num(a.head_diameter) > 0, d, `entity ${e.id}: an arrow with a unit pose and sizes`);
            rule(visible(a.color), d, `entity ${e.id}: an arrow colour that is not transparent`);
          }
          for (const sp of e.spheres || []) {
            rule(poseOk(sp.pose) && num(sp.size?.x) > 0 && num(sp.size?.y) > 0 && num(sp.size?.z) > 0, d, `entity ${e.id}: a sphere with a unit pose and a size`);
            rule(visible(sp.color), d, `entity ${e.id}: a sphere colour that is not transparent`);
          }
          for (const t of e.texts || []) {
            rule(poseOk(t.pose) && num(t.font_size) > 0 && t.text, d, `entity ${e.id}: a text with a unit pose, a font size and words`);
            rule(visible(t.color), d, `entity ${e.id}: a text colour that is not transparent`);
          }
          for (const l of e.lines || []) {
            rule((l.points || []).length >= 2 && num(l.thickness) > 0 && poseOk(l.pose), d, `entity ${e.id}: a line of 2+ points, a thickness, a unit pose`);
            rule(visible(l.color) || ((l.colors || []).length === (l.points || []).length && l.colors.every(visible)), d, `entity ${e.id}: a line colour that is not transparent`);
          }
        }
        for (const del of v.deletions || []) rule(timeNs(del.timestamp) === d.logTime && [0, 1].includes(num(del.type)), d, "deletions at the log time, by id or all");
        break;
      }
      case "foxglove.FrameTransforms":
        for (const t of v.transforms || []) {
          rule(t.parent_frame_id && t.child_frame_id && t.parent_frame_id !== t.child_frame_id, d, `transform ${t.parent_frame_id} -> ${t.child_frame_id}: two different frames`);
          rule(unitQuat(t.rotation || {}) && finite(t.translation?.x, t.translation?.y, t.translation?.z), d, `transform -> ${t.child_frame_id}: a unit rotation, a finite translation`);
          rule(timeNs(t.timestamp) === d.logTime, d, `transform -> ${t.child_frame_id}: its timestamp is the log time`);
          tree.set(t.child_frame_id, t.parent_frame_id);
        }
        break;
      case "foxglove.LocationFix":
        rule(Math.abs(num(v.latitude)) <= 90 && Math.abs(num(v.longitude)) <= 180 && finite(v.altitude), d, "a latitude and longitude the Map panel can place");
        rule([0, 9].includes((v.position_covariance || []).length) && num(v.position_covariance_type) <= 3, d, "a covariance of 9 values (or none) and a known covariance type");
        rule(v.frame_id && timeNs(v.timestamp) === d.logTime, d, "a frame_id, the log time");
        break;
      default:
        break;
    }
  }
  // the tree has no cycle and one root, "world" (the 3D panel's display frame)
  for (const child of tree.keys()) {
    let f = child, n = 0;
    while (tree.has(f) && n++ < 256) f = tree.get(f);
    check(f === "world", `the transform tree: ${child} leads to ${n >= 256 ? "a cycle" : `'${f}'`}, not to world`);
  }
  if (fails === before) console.log(`ok: Foxglove's panel preconditions hold (${Object.entries(counts).map(([k, n]) => `${n} ${k.replace("foxglove.", "")}`).join(", ")})`);
}

// ---- each schema against @foxglove/schemas' own protobuf, field by field ----
// The package's generator (what Foxglove publishes its .proto files from) makes the .proto of the
// schema and of every schema it nests; protobufjs parses them; every message type the file's
// FileDescriptorSet holds must have the same fields with the same numbers, types and labels
// (names alone would let a renumbered or retyped field through, which decodes as garbage).
const foxInternal = (() => {
  try {
    const dir = path.join(path.dirname(require.resolve("@foxglove/schemas/package.json")), "dist/internal");
    return { ...require(path.join(dir, "schemas.js")), ...require(path.join(dir, "generateProto.js")) };
  } catch (e) {
    return null;
  }
})();
function foxgloveRoot(name) {
  const { foxgloveMessageSchemas: msgs, foxgloveEnumSchemas: enums, generateProto } = foxInternal;
  const root = new protobuf.Root();
  for (const f of ["google/protobuf/timestamp.proto", "google/protobuf/duration.proto"]) root.addJSON(protobuf.common.get(f).nested);
  const seen = new Set();
  const add = (n) => {
    const sch = msgs[n];
    if (!sch || seen.has(n) || sch.protoEquivalent) return;
    seen.add(n);
    protobuf.parse(generateProto(sch, Object.values(enums).filter((e) => e.parentSchemaName === n)), root, { keepCase: true });
    for (const f of sch.fields) if (f.type.type === "nested") add(f.type.schema.name);
  };
  add(name);
  return root.resolveAll();
}
const foxCompared = { types: 0, enums: 0 };
function compareWithFoxglove(fileRoot, fullName) {
  if (!check(foxInternal, "@foxglove/schemas' generator is there (dist/internal)")) return;
  const want = foxgloveRoot(fullName.slice(9));
  const walk = (ns, out = []) => {
    for (const o of ns.nestedArray || []) {
      if (o instanceof protobuf.Type) out.push(o);
      if (o.nestedArray) walk(o, out);
    }
    return out;
  };
  const wantTypes = walk(want).filter((t) => t.fullName.startsWith(".foxglove."));
  let compared = 0;
  for (const w of wantTypes) {
    const h = fileRoot.lookup(w.fullName);
    if (!check(h instanceof protobuf.Type, `${fullName}: the file's descriptors hold ${w.fullName}`)) continue;
    const sig = (t) => Object.values(t.fields).map((f) => `${f.name}=${f.id}:${f.resolvedType ? f.resolvedType.fullName : f.type}${f.repeated ? "[]" : ""}`).sort().join(" ");
    h.resolveAll();
    check(sig(h) === sig(w), `${w.fullName}: fields ${sig(h)} are @foxglove/schemas' ${sig(w)}`);
    compared++;
    foxCompared.types++;
  }
  for (const e of walk2Enums(want)) {
    const h = fileRoot.lookup(e.fullName);
    check(h && JSON.stringify(h.values) === JSON.stringify(e.values), `${e.fullName}: the enum's values are @foxglove/schemas'`);
    foxCompared.enums++;
  }
  check(compared > 0, `${fullName}: compared with @foxglove/schemas`);
}
function walk2Enums(ns, out = []) {
  for (const o of ns.nestedArray || []) {
    if (o instanceof protobuf.Enum && o.fullName.startsWith(".foxglove.")) out.push(o);
    if (o.nestedArray) walk2Enums(o, out);
  }
  return out;
}

async function main() {
  // ---- the index: what a viewer reads first ----
  const reader = await McapIndexedReader.Initialize({
    readable: { size: async () => BigInt(bytes.length), read: async (o, n) => bytes.subarray(Number(o), Number(o + n)) },
    decompressHandlers: zstd,
  });
  check(reader.chunkIndexes.length > 0, "the summary has chunk indexes");
  check(reader.statistics, "the summary has statistics");
  const stats = reader.statistics;

  // ---- every record in file order, every CRC checked ----
  const all = records(bytes, { includeChunks: true });
  const dataEnd = all.find((r) => r.type === "DataEnd");
  check(dataEnd, "a DataEnd record");
  // the data section: magic, header and every record up to DataEnd
  const dataEndOffset = Number(reader.dataEndOffset);
  check(dataEnd && dataEnd.dataSectionCrc === crc32(bytes.subarray(0, dataEndOffset)), "the data section's CRC");
  const messages = all.filter((r) => r.type === "Message");
  check(BigInt(messages.length) === stats.messageCount, `statistics count ${stats.messageCount} messages, the file has ${messages.length}`);
  check(stats.chunkCount === reader.chunkIndexes.length, "statistics count the chunks");
  check(stats.channelCount === reader.channelsById.size && stats.schemaCount === reader.schemasById.size, "statistics count channels and schemas");
  const perChannel = new Map();
  for (const m of messages) {
    const list = perChannel.get(m.channelId) || [];
    const last = list[list.length - 1];
    if (last && m.logTime < last.logTime) fail(`channel ${m.channelId}: log time goes back at message ${list.length}`);
    if (m.sequence !== list.length) fail(`channel ${m.channelId}: sequence ${m.sequence} at message ${list.length}`);
    list.push(m);
    perChannel.set(m.channelId, list);
  }
  for (const [id, list] of perChannel) check(stats.channelMessageCounts.get(id) === BigInt(list.length), `statistics count channel ${id}'s messages`);
  const times = messages.map((m) => m.logTime);
  check(stats.messageStartTime === times.reduce((a, b) => (b < a ? b : a)) && stats.messageEndTime === times.reduce((a, b) => (b > a ? b : a)), "statistics' start and end times");
  console.log(`ok: ${messages.length} messages on ${reader.channelsById.size} channels in ${reader.chunkIndexes.length} chunks, CRCs and statistics consistent`);

  // ---- chunk indexes -> chunks -> message indexes -> messages ----
  let indexed = 0;
  for (const ci of reader.chunkIndexes) {
    const start = Number(ci.chunkStartOffset), len = Number(ci.chunkLength);
    const [chunk] = records(bytes.subarray(start, start + len), { noMagicPrefix: true, includeChunks: true }, 1);
    if (!check(chunk && chunk.type === "Chunk", `a chunk at ${start}`)) continue;
    // zstd, or MCAP's empty compression (export --zstd-level 0): stored as they are
    check((chunk.compression === "zstd" || chunk.compression === "") && ci.compression === chunk.compression, "chunks are zstd-compressed or stored");
    check(BigInt(chunk.records.length) === ci.compressedSize && chunk.uncompressedSize === ci.uncompressedSize, `chunk at ${start}: sizes as indexed`);
    const inner = chunk.compression === "" ? chunk.records : fzstd.decompress(chunk.records, new Uint8Array(Number(chunk.uncompressedSize)));
    // the chunk's records by hand: a chunk alone may use channels defined in earlier chunks
    const innerMsgs = [];
    const view = new DataView(inner.buffer, inner.byteOffset, inner.byteLength);
    for (let off = 0; off < inner.length; ) {
      const op = inner[off], recLen = 9 + Number(view.getBigUint64(off + 1, true));
      if (op === 0x05) innerMsgs.push({ offset: BigInt(off), channelId: view.getUint16(off + 9, true), logTime: view.getBigUint64(off + 15, true) });
      check([0x03, 0x04, 0x05].includes(op), `chunk at ${start}: only schemas, channels and messages (opcode ${op})`);
      off += recLen;
    }
    const lo = innerMsgs.reduce((a, m) => (m.logTime < a ? m.logTime : a), innerMsgs[0].logTime);
    const hi = innerMsgs.reduce((a, m) => (m.logTime > a ? m.logTime : a), innerMsgs[0].logTime);
    check(lo === ci.messageStartTime && hi === ci.messageEndTime && lo === chunk.messageStartTime && hi === chunk.messageEndTime, `chunk at ${start}: start/end times`);
    let entries = 0, idxBytes = 0;
    for (const [channelId, mio] of ci.messageIndexOffsets) {
      const at = Number(mio), miLen = 9 + Number(bytes.readBigUInt64LE(at + 1));
      const [mi] = records(bytes.subarray(at, at + miLen), { noMagicPrefix: true });
      if (!check(mi && mi.type === "MessageIndex" && mi.channelId === channelId, `a message index for channel ${channelId} at ${mio}`)) continue;
      idxBytes += 9 + 2 + 4 + 16 * mi.records.length;
      for (const [t, o] of mi.records) {
        const m = innerMsgs.find((x) => x.offset === o);
        check(m && m.channelId === channelId && m.logTime === t, `message index of channel ${channelId}: offset ${o} is its message at ${t}`);
        entries++;
      }
    }
    check(entries === innerMsgs.length, `chunk at ${start}: every message indexed (${entries} of ${innerMsgs.length})`);
    check(BigInt(idxBytes) === ci.messageIndexLength, `chunk at ${start}: message index length`);
    indexed += entries;
  }
  check(indexed === messages.length, "the chunks hold every message");
  let viaIndex = 0, prev = -1n;
  for await (const m of reader.readMessages()) {
    check(m.logTime >= prev, "readMessages yields messages in log-time order");
    prev = m.logTime;
    viaIndex++;
  }
  check(viaIndex === messages.length, `readMessages through the index yields every message (${viaIndex})`);
  console.log(`ok: chunk and message indexes point at every message`);

  // ---- schemas and decoding ----
  const types = new Map(); // schema id -> protobuf type
  const jsonSchemas = new Map(); // schema id -> JSON schema
  // A value against its schema: types of objects, arrays, numbers, strings, booleans; every
  // property the message has is in the schema (an object schema without properties takes any:
  // an empty array's items when the schema was made; a null takes any schema).
  const conforms = (v, sc, where) => {
    if (!sc || sc.type === undefined || v === null) return null;
    const t = Array.isArray(v) ? "array" : typeof v === "number" ? "number" : typeof v === "string" ? "string" :
              typeof v === "boolean" ? "boolean" : "object";
    if (t !== sc.type) return `${where}: ${t}, the schema says ${sc.type}`;
    if (t === "object" && sc.properties && Object.keys(sc.properties).length) {
      for (const k of Object.keys(v)) {
        if (!sc.properties || !(k in sc.properties)) return `${where}.${k}: not in the schema`;
        const e = conforms(v[k], sc.properties[k], `${where}.${k}`);
        if (e) return e;
      }
    }
    if (t === "array" && sc.items)
      for (let i = 0; i < v.length; i++) {
        const e = conforms(v[i], sc.items, `${where}[${i}]`);
        if (e) return e;
      }
    return null;
  };
  // What Foxglove Studio's parser takes (mcap-support's parseJsonSchema, studio 1.48): every
  // property typed boolean, string, number, integer, object (recursively) or array whose items
  // are one of those but array; anything else fails the whole channel in the app.
  const foxgloveRefuses = (sc, where) => {
    if (sc.type !== "object") return `${where}: not an object`;
    for (const [k, f] of Object.entries(sc.properties ?? {})) {
      const at = `${where}.${k}`;
      if (["boolean", "string", "number", "integer"].includes(f.type)) continue;
      if (f.type === "object") { const e = foxgloveRefuses(f, at); if (e) return e; continue; }
      if (f.type !== "array") return `${at}: type ${JSON.stringify(f.type)}`;
      if (!f.items) return `${at}: an array without items`;
      if (["boolean", "string", "number", "integer"].includes(f.items.type)) continue;
      if (f.items.type !== "object") return `${at}: items of type ${JSON.stringify(f.items.type)}`;
      const e = foxgloveRefuses(f.items, at);
      if (e) return e;
    }
    return null;
  };
  for (const [id, s] of reader.schemasById) {
    if (s.encoding === "jsonschema") {
      // a real schema of the message (issue 33 item 3): an object with its properties, which
      // Foxglove's panels list (with {"type":"object"} alone its Raw Messages panel waited)
      const js = JSON.parse(new TextDecoder().decode(s.data));
      check(js.type === "object" && js.properties && Object.keys(js.properties).length > 0,
            `schema ${s.name}: a JSON schema with the message's properties`);
      const refused = foxgloveRefuses(js, s.name);
      check(!refused, `schema ${s.name}: Foxglove Studio's parser refuses it (${refused})`);
      jsonSchemas.set(id, js);
      continue;
    }
    check(s.encoding === "protobuf" && s.name.startsWith("foxglove."), `schema ${s.name}: a Foxglove protobuf schema`);
    const root = protobuf.Root.fromDescriptor(descriptor.FileDescriptorSet.decode(s.data));
    const type = root.lookupType(s.name);
    const fox = foxgloveMessageSchemas[s.name.slice(9)];
    if (check(fox, `${s.name} is one of @foxglove/schemas'`)) {
      const want = fox.fields.map((f) => f.name).sort().join(","), have = Object.keys(type.fields).sort().join(",");
      check(want === have, `${s.name}: fields ${have} are @foxglove/schemas' ${want}`);
    }
    if (fox) compareWithFoxglove(root, s.name);
    types.set(id, type);
  }
  const decoded = []; // {topic, schema, logTime, value}
  for (const m of messages) {
    const ch = reader.channelsById.get(m.channelId), s = reader.schemasById.get(ch.schemaId);
    try {
      const value = ch.messageEncoding === "json" ? JSON.parse(new TextDecoder().decode(m.data)) : types.get(ch.schemaId).toObject(types.get(ch.schemaId).decode(m.data), { longs: String, defaults: false });
      decoded.push({ topic: ch.topic, schema: s.name, logTime: m.logTime, value });
      if (ch.messageEncoding === "json") {
        const e = conforms(value, jsonSchemas.get(ch.schemaId), ch.topic);
        check(!e, `${ch.topic}: a message that does not fit its channel's JSON schema: ${e}`);
      }
    } catch (e) {
      fail(`${ch.topic}: a message does not decode as ${s.name}: ${e.message}`);
    }
  }
  check(decoded.length === messages.length, "every message decodes");
  console.log(`ok: ${reader.schemasById.size} schemas valid (${foxCompared.types} message types and ${foxCompared.enums} enums as @foxglove/schemas' own .proto), every message decodes`);

  // ---- what Foxglove's panels need of each message (the app itself cannot be run here) ----
  panelChecks(decoded);

  const byTopic = (t) => decoded.filter((d) => d.topic === t);
  const topics = [...new Set(decoded.map((d) => d.topic))];

  // ---- images: the PNGs of sensim convert ----
  let images = 0;
  for (const t of topics) {
    const imgs = byTopic(t).filter((d) => d.schema === "foxglove.CompressedImage");
    if (!imgs.length) continue;
    const dir = path.join(pngDir, t.slice(1));
    const pngs = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith(".png")).sort() : [];
    check(pngs.length === imgs.length, `${t}: ${imgs.length} images, sensim convert wrote ${pngs.length}`);
    imgs.forEach((d, i) => {
      check(d.value.format === "png" && d.value.frame_id === t.slice(1), `${t}: png in the sensor's frame`);
      if (i < pngs.length) check(Buffer.compare(Buffer.from(d.value.data), fs.readFileSync(path.join(dir, pngs[i]))) === 0, `${t}: image ${i} is ${pngs[i]} byte for byte`);
      images++;
    });
  }
  for (const d of decoded.filter((x) => x.schema === "foxglove.RawImage"))
    check(d.value.encoding === "rgb8" && d.value.step === d.value.width * 3 && d.value.data.length === d.value.step * d.value.height, `${d.topic}: an rgb8 RawImage of its size`);
  console.log(`ok: ${images} images equal sensim convert's PNGs`);

  // ---- boxes and the transform tree against the streams ----
  const actors = loadJsonl("actors");
  // the tree at a time: the last /tf_static at or before it, and /tf at it (what a viewer holds)
  const tfAt = new Map(); // log time -> Map(child -> {parent, t, R})
  const tfMsgs = decoded.filter((d) => d.topic === "/tf" || d.topic === "/tf_static");
  let statics = new Map();
  for (const d of tfMsgs) {
    const put = (map) => {
      for (const tr of d.value.transforms || [])
        map.set(tr.child_frame_id, { parent: tr.parent_frame_id, t: vecOf(tr.translation), R: quatMatrix(tr.rotation || {}) });
    };
    if (d.topic === "/tf_static") {
      statics = new Map();
      put(statics);
      for (const [t, map] of tfAt) if (t >= d.logTime) for (const [k, v] of statics) if (!map.has(k)) map.set(k, v);
    }
    const map = tfAt.get(d.logTime) || new Map(statics);
    if (d.topic === "/tf") put(map);
    else for (const [k, v] of statics) map.set(k, v);
    tfAt.set(d.logTime, map);
  }
  const worldPose = (map, frame) => { // compose parent chains up to "world"
    let t = [0, 0, 0], R = [[1, 0, 0], [0, 1, 0], [0, 0, 1]], f = frame;
    const chain = [];
    for (let k = 0; f !== "world" && k < 64; k++) {
      const e = map.get(f);
      if (!e) return null;
      chain.push(e);
      f = e.parent;
    }
    for (const e of chain.reverse()) {
      t = mulMV(R, e.t).map((v, i) => v + t[i]);
      R = mulMM(R, e.R);
    }
    return { t, R };
  };
  if (actors) {
    const updates = byTopic("/actors"), staticUpdates = byTopic("/actors/static");
    check(updates.length === actors.length, `/actors: a scene update per actors message (${updates.length} of ${actors.length})`);
    check(staticUpdates.length >= 1 && staticUpdates.length < actors.length, `/actors/static: updates only when static actors change (${staticUpdates.length})`);
    let boxes = 0, tfs = 0;
    let prevDyn = new Set(), prevStatic = new Set();
    actors.forEach((a, k) => {
      const u = updates[k];
      if (!u) return;
      check(u.logTime === ns(a.timestamp), `/actors: update ${k} at the message's time`);
      const su = staticUpdates.filter((x) => x.logTime <= u.logTime).pop(); // what a viewer shows
      const ents = new Map((u.value.entities || []).map((e) => [e.id, e]));
      const sents = new Map(((su && su.value.entities) || []).map((e) => [e.id, e]));
      const tf = tfAt.get(ns(a.timestamp)) || new Map();
      const bin = Buffer.from(a.actors.$bin, "base64");
      const recs = [...Array(bin.length / 112)].map((_, i) => {
        const o = i * 112;
        return { id: bin.readUInt32LE(o), parent: bin.readUInt32LE(o + 4), kind: bin[o + 8], d: [...Array(12)].map((_, j) => bin.readDoubleLE(o + 16 + 8 * j)) };
      });
      const byId = new Map(recs.map((r) => [r.id, r]));
      const isStatic = (r) => { for (let x = r, n = 0; x && n < 64; n++) { if (x.kind !== 0) return false; x = x.parent ? byId.get(x.parent) : null; } return true; };
      const dyn = new Set(), stat = new Set();
      recs.forEach((rec, i) => {
        const { id, kind, d } = rec;
        const R = carlaMatrix(d.slice(3, 6)), loc = d.slice(0, 3);
        const frame = a.names[i] || `actor_${id}`;
        const w = worldPose(tf, frame);
        if (check(w, `/tf at ${a.timestamp}: a path from world to ${frame}`)) {
          check(near(w.t, flipV(loc), 1e-9) && near(w.R, flipM(R), 1e-9), `/tf: ${frame}'s world pose is the actors stream's (frame ${a.frame})`);
          tfs++;
        }
        if (kind === 3) { check(!ents.has(String(id)) && !sents.has(String(id)), `a sensor (${id}) has no box`); return; }
        const st = isStatic(rec);
        (st ? stat : dyn).add(String(id));
        const e = (st ? sents : ents).get(String(id));
        if (!check(e && e.frame_id === "world" && e.cubes?.length === 1, `${st ? "/actors/static" : "/actors"}: entity ${id} with one cube in world (frame ${a.frame})`)) return;
        const c = e.cubes[0];
        const centre = mulMV(R, d.slice(6, 9)).map((v, j) => v + loc[j]);
        check(near(vecOf(c.pose.position), flipV(centre), 1e-9) && near(quatMatrix(c.pose.orientation), flipM(R), 1e-9), `box ${id}'s pose is the stream's (frame ${a.frame})`);
        check(near(vecOf(c.size), d.slice(9, 12).map((v) => Math.max(2 * v, 0.001)), 0), `box ${id}'s size is twice its extent (at least 1 mm)`);
        check((e.metadata || []).some((kv) => kv.key === "type_id" && kv.value === a.type_ids[i]), `box ${id} carries its type_id`);
        boxes++;
      });
      check(dyn.size === ents.size && (!su || stat.size === sents.size), `frame ${a.frame}: no box beyond the stream's actors`);
      // an actor gone since the previous update is deleted
      const gone = [...prevDyn].filter((id) => !dyn.has(id)).sort().join(","), dels = (u.value.deletions || []).map((x) => x.id).sort().join(",");
      check(gone === dels, `/actors: frame ${a.frame} deletes exactly the boxes gone (${gone} vs ${dels})`);
      prevDyn = dyn;
      prevStatic = stat;
    });
    check(prevStatic.size > 0, "static actors were seen (the check of /actors/static ran)");
    console.log(`ok: ${boxes} boxes and ${tfs} frames of the transform tree are the actors stream's poses`);
  }
  // world.debug (sensor.other.debug): each message's shapes as /debug entities, their lifetimes
  const debug = loadJsonl("debug");
  if (debug) {
    const ups = byTopic("/debug");
    let shapes = 0;
    const kinds = new Set();
    check(ups.length === debug.length && debug.length > 0, `/debug: a scene update per debug message (${ups.length} of ${debug.length})`);
    debug.forEach((msg, k) => {
      const u = ups[k];
      if (!u) return;
      check(u.logTime === ns(msg.timestamp), `/debug: update ${k} at the message's time`);
      const ents = u.value.entities || [];
      check(ents.length === msg.shapes.length, `/debug: frame ${msg.frame} has ${ents.length} entities for ${msg.shapes.length} shapes`);
      msg.shapes.forEach((s, i) => {
        const e = ents[i];
        if (!check(e && e.frame_id === "world" && e.id === `${msg.frame}/${i}`, `/debug: shape ${i} of frame ${msg.frame} is entity ${msg.frame}/${i} in world`)) return;
        kinds.add(s.kind);
        const life = s.life_time < 0 ? msg.delta_seconds : s.life_time;
        check(timeNs(e.lifetime) === ns(life), `/debug: ${s.kind} ${e.id}'s lifetime ${timeNs(e.lifetime)} ns is life_time ${s.life_time} (${life} s)`);
        check(timeNs(e.timestamp) === ns(msg.timestamp), `/debug: ${e.id} stamped at its frame`);
        const col = (c) => near([num(c.r), num(c.g), num(c.b), num(c.a)], s.color.map((v) => v / 255), 1e-12);
        const P = (p) => flipV(p);
        if (s.kind === "point") {
          const sp = (e.spheres || [])[0];
          check(sp && near(vecOf(sp.pose.position), P(s.location), 1e-12) && near(vecOf(sp.size), [s.size, s.size, s.size], 1e-12) && col(sp.color), `/debug: point ${e.id} is a sphere of its size at its location`);
        } else if (s.kind === "line") {
          const l = (e.lines || [])[0];
          check(l && num(l.type) === 0 && l.points.length === 2 && near(vecOf(l.points[0]), P(s.begin), 1e-12) && near(vecOf(l.points[1]), P(s.end), 1e-12) && num(l.thickness) === s.thickness && col(l.color), `/debug: line ${e.id} from begin to end`);
        } else if (s.kind === "arrow") {
          const a = (e.arrows || [])[0], d = s.end.map((v, j) => v - s.begin[j]), len = Math.hypot(...d);
          const dir = a && mulMV(quatMatrix(a.pose.orientation), [1, 0, 0]);
          check(a && near(vecOf(a.pose.position), P(s.begin), 1e-12) && near(dir, P(d.map((v) => v / len)), 1e-9) && Math.abs(num(a.shaft_length) + num(a.head_length) - len) < 1e-9 && num(a.head_length) === Math.min(s.arrow_size, len) && col(a.color), `/debug: arrow ${e.id} points from begin to end, ${len} m long`);
        } else if (s.kind === "box") {
          const l = (e.lines || [])[0];
          const R = carlaMatrix(s.rotation);
          const want = new Set(), got = new Set();
          for (const sx of [-1, 1]) for (const sy of [-1, 1]) for (const sz of [-1, 1])
            want.add(flipV(mulMV(R, [sx * s.extent[0], sy * s.extent[1], sz * s.extent[2]]).map((v, j) => v + s.location[j])).map((v) => v.toFixed(6)).join());
          const Rq = l && quatMatrix(l.pose.orientation), t = l && vecOf(l.pose.position);
          for (const p of (l && l.points) || []) got.add(mulMV(Rq, vecOf(p)).map((v, j) => (v + t[j]).toFixed(6)).join());
          check(l && num(l.type) === 2 && l.points.length === 24 && [...want].every((c) => got.has(c)) && got.size === 8 && col(l.color), `/debug: box ${e.id} is its 12 edges at its 8 corners`);
        } else if (s.kind === "string") {
          const t = (e.texts || [])[0];
          check(t && t.text === s.text && t.billboard && near(vecOf(t.pose.position), P(s.location), 1e-12) && col(t.color), `/debug: string ${e.id} reads '${s.text}' at its location`);
        } else fail(`/debug: unknown kind ${s.kind}`);
        shapes++;
      });
    });
    console.log(`ok: ${shapes} debug shapes (${[...kinds].sort().join(", ")}) with their lifetimes on /debug`);
  }
  // every sensor message's transform: its frame's world pose in the tree
  let sensorPoses = 0, declaredClouds = 0;
  for (const t of topics) {
    const name = t.slice(1), dump = ["actors", "actors/static", "tf", "tf_static", "map"].includes(name) ? null : loadJsonl(name);
    if (!dump) continue;
    const msgs = byTopic(t);
    check(msgs.length === dump.length, `${t}: one message per stream message (${msgs.length} of ${dump.length})`);
    dump.forEach((s, i) => {
      const w = worldPose(tfAt.get(ns(s.timestamp)) || new Map(), name);
      if (check(w, `/tf: a path from world to sensor ${name} at ${s.timestamp}`)) {
        check(near(w.t, flipV(s.transform.location), 1e-9) && near(w.R, flipM(carlaMatrix(s.transform.rotation)), 1e-9), `${name}: the tree's pose is the message's transform (frame ${s.frame})`);
        sensorPoses++;
      }
      const m = msgs[i];
      if (!m) return;
      check(m.logTime === ns(s.timestamp), `${t}: message ${i} at the stream's time`);
      if (m.schema === "foxglove.PointCloud" && s.type.startsWith("sensor.lidar")) {
        const raw = Buffer.from(s.raw_data.$bin, "base64"), data = Buffer.from(m.value.data || []);
        const rs = s.type.endsWith("semantic") ? 24 : 16;
        let same = data.length === raw.length && m.value.point_stride === rs;
        for (let p = 0; same && p < raw.length; p += rs)
          same = raw.readFloatLE(p) === data.readFloatLE(p) && -raw.readFloatLE(p + 4) === data.readFloatLE(p + 4) && raw.compare(data, p + 8, p + rs, p + 8, p + rs) === 0;
        check(same, `${t}: points are the stream's with y negated (frame ${s.frame})`);
      }
      if (m.schema === "foxglove.PointCloud" && s.type === "sensor.test.records") { // a declared layout (SDK 1.6)
        const raw = Buffer.from(s.points.$bin, "base64"), data = Buffer.from(m.value.data || []);
        let same = data.length === raw.length && m.value.point_stride === 12 && (m.value.fields || []).length === 3;
        for (let p = 0; same && p < raw.length; p += 12)
          same = raw.readFloatLE(p) === data.readFloatLE(p) && -raw.readFloatLE(p + 4) === data.readFloatLE(p + 4) && raw.readFloatLE(p + 8) === data.readFloatLE(p + 8);
        check(same, `${t}: the declared points are the stream's with y negated (frame ${s.frame})`);
        declaredClouds++;
      }
      if (m.schema === "foxglove.PointCloud" && s.type === "sensor.other.radar")
        check((m.value.data || []).length === (Buffer.from(s.raw_data.$bin, "base64").length / 16) * 20, `${t}: a point per detection`);
      if (m.schema === "foxglove.LocationFix")
        check(m.value.latitude === s.latitude && m.value.longitude === s.longitude && m.value.altitude === s.altitude, `${t}: the fix is the stream's`);
      if (m.schema.startsWith("sensor."))
        check(m.value.frame === s.frame && m.value.sensor === s.sensor, `${t}: the JSON message is the stream's`);
    });
  }
  console.log(`ok: ${sensorPoses} sensor messages' transforms found in the tree`);
  if (declaredClouds) console.log(`ok: ${declaredClouds} PointClouds of a declared record layout`);
  const map = byTopic("/map");
  if (map.length) {
    const lines = map[0].value.entities[0].lines || [];
    check(map.length === 1 && lines.length > 0 && lines.every((l) => l.points.length >= 2), "/map: one update of lane lines");
    console.log(`ok: /map has ${lines.length} lines`);
  }
  if (fails) {
    console.log(`${fails} checks failed`);
    process.exit(1);
  }
}
main().catch((e) => {
  console.log(`FAIL: ${e.stack || e}`);
  process.exit(1);
});
