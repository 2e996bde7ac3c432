#!/bin/sh
# Plugins built for ABI 1.1 to 1.5 load into this (1.6) engine and write the same bytes: one probe
# source (tests/sdk12/abi11_probe.c) built against each minor's frozen headers (sdk/abi/1.N, also
# installed under <includedir>/sensim-abi), run alone on one scene; `sensim plugins --json`
# reports the minor each was built for, and every stream is byte-identical to 1.5's.
# Args: build root, temp folder.
set -u
build=$1
tmp=$2/abi_compat
sensim=$build/engine/sensim
fail() { echo "FAIL abi_compat: $*" >&2; exit 1; }
rm -rf "$tmp" && mkdir -p "$tmp" || fail "mkdir $tmp"
cat >"$tmp/scene.yaml" <<'YAML'
settings: {frames: 3, seed: 9}
actors:
  - {name: ground, blueprint: static.ground}
  - {name: box, blueprint: static.prop.box, transform: {location: [3, 4, 2]}, attributes: {extent: "1,1,1"}}
sensors:
  - name: old
    blueprint: sensor.test.abi11
    transform: {location: [3, 4, 10]}
    attributes: {label: hello, count: 42}
    calls: [{at: 0.05, method: mark, args: [seen]}]
YAML
for v in 1_1 1_2 1_3 1_4 1_5; do
  mkdir -p "$tmp/p$v" && cp "$build/tests/compat/compat_probe_$v.so" "$tmp/p$v/" || fail "no probe for $v"
  minor=${v#1_}
  "$sensim" plugins --json --plugin-dir "$tmp/p$v" >"$tmp/plugins$v.json" 2>&1 || fail "$v: plugins: $(cat "$tmp/plugins$v.json")"
  grep -q "\"abi\":\"1.$minor\"" "$tmp/plugins$v.json" || fail "$v: not reported as ABI 1.$minor: $(cat "$tmp/plugins$v.json")"
  SENSIM_PLUGIN_PATH= "$sensim" run "$tmp/scene.yaml" --plugin-dir "$tmp/p$v" --out "$tmp/out$v" --quiet \
    >"$tmp/run$v.log" 2>&1 || fail "$v: run: $(cat "$tmp/run$v.log")"
  [ -s "$tmp/out$v/old.msgpack" ] || fail "$v: no stream"
  "$sensim" dump "$tmp/out$v/old.msgpack" >"$tmp/dump$v.jsonl" || fail "$v: dump"
done
# what the probe saw: attributes, the method, the ray down onto the box's top (z 3, 7 m)
grep -q '"label":"hello"' "$tmp/dump1_1.jsonl" && grep -q '"count":42' "$tmp/dump1_1.jsonl" &&
  grep -q '"marked":"seen"' "$tmp/dump1_1.jsonl" && grep -q '"distance":7' "$tmp/dump1_1.jsonl" ||
  fail "1.1 probe's messages: $(head -3 "$tmp/dump1_1.jsonl")"
for v in 1_1 1_2 1_3 1_4; do
  cmp -s "$tmp/out$v/old.msgpack" "$tmp/out1_5/old.msgpack" || fail "ABI $v's stream differs from 1.5's"
done
echo "abi_compat: ABI 1.1 to 1.5 probes load and write identical streams"
