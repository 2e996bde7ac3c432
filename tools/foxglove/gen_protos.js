// gen_protos.js — writes the .proto files of Foxglove's well-known schemas that sensim's MCAP
// export uses (and every schema they import), from @foxglove/schemas' own generator.
// usage: node gen_protos.js NODE_MODULES OUT_DIR SCHEMA...
"use strict";
const path = require("path");
const fs = require("fs");
const [modules, outDir, ...wanted] = process.argv.slice(2);
const internal = path.join(modules, "@foxglove/schemas/dist/internal");
const { foxgloveMessageSchemas: msgs, foxgloveEnumSchemas: enums } = require(path.join(internal, "schemas.js"));
const { generateProto } = require(path.join(internal, "generateProto.js"));

const done = new Set();
function emit(name) {
  const s = msgs[name];
  if (!s) throw new Error(`no schema ${name}`);
  if (done.has(name) || s.protoEquivalent) return; // google.protobuf.* come with protoc
  done.add(name);
  const nested = Object.values(enums).filter((e) => e.parentSchemaName === name);
  fs.mkdirSync(path.join(outDir, "foxglove"), { recursive: true });
  fs.writeFileSync(path.join(outDir, "foxglove", `${name}.proto`), generateProto(s, nested));
  for (const f of s.fields) if (f.type.type === "nested") emit(f.type.schema.name);
}
wanted.forEach(emit);
