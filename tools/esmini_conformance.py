#!/usr/bin/env python3
"""esmini conformance (issue 34; docs/openscenario.md, "Conformance with esmini").

Runs every scenario of esmini's smoke test (test/smoke_test.py of github.com/esmini/esmini, MPL-2.0:
fetch it yourself, it is not shipped) with sensim at the test's time step, and compares the event
times the smoke test expects in esmini's log with sensim's storyboard stream:

  "NAME: true, delay: D, ..."             condition NAME fires at T + D (esmini logs the edge, sensim the firing)
  "NAME: true" (alone)                    esmini listing a fired trigger's conditions: not comparable
  "NAME a -> xTransition -> b"            element NAME's transition xTransition at T
  "NAME complete after N execution(s)"    element NAME completes (endTransition) at T
  "NAME completed run N (of max M)"       likewise

Other expected log lines (controllers, esmini's internals) are counted as not comparable.
A match is within one step (the scenario's dt). Positions are not compared here.

    python3 tools/esmini_conformance.py ESMINI_DIR SENSIM [OUT_DIR] [--only NAME] [--markdown]
"""
import json
import os
import re
import subprocess
import sys


def parse_smoke(path):
    """[(test name, xosc relative path, dt, [(time, kind, name, delay), ...], n_uncomparable)]"""
    src = open(path).read()
    tests = []
    for m in re.finditer(r"\n    def (test_\w+)\(self\):\n(.*?)(?=\n    def |\Z)", src, re.S):
        name, body = m.group(1), m.group(2)
        rs = re.search(r"run_scenario\(os\.path\.join\(ESMINI_PATH, '([^']+\.xosc)'\),\s*COMMON_ESMINI_ARGS([^\n]*)", body)
        if not rs:
            continue
        args = rs.group(2)
        dt = 0.01
        ts = re.findall(r"--fixed_timestep\s+([0-9.]+)", args)
        if ts:
            dt = float(ts[-1])
        if "run_scenario" in body[rs.end():]:  # a second run (other arguments): the first only
            body = body[:body.index("run_scenario", rs.end())]
        expects, other, alone = [], 0, []
        for pat in re.findall(r"re\.search\('([^']*)', log[,)]", body):
            t = re.match(r"^\^?(?:\\\\n)?(?:\.\*)?\.?\\?\[?\.?([0-9]+\.[0-9]+)", pat)
            if not t:
                continue
            time = float(t.group(1))
            # esmini's pattern "9.9.*" matches 9.90 ... 9.99: a time of fewer decimals than the log's
            # three is a window, [time, time + 10^-decimals)
            span = 10.0 ** -len(t.group(1).split(".")[1]) if len(t.group(1).split(".")[1]) < 3 else 0.0
            rest = pat[t.end():].replace("\\\\n", "").replace("\\\\(", "(").replace("\\\\)", ")")
            rest = re.sub(r"^\\?\]?\.\*\s?", "", rest)
            c = re.match(r"^(.+?): true(?:, delay: ([0-9.]+))?", rest)
            tr = re.match(r"^(\S+) (\w+State) -> (\w+Transition) -> (\w+State)", rest)
            ce = re.match(r"^(\S+) (?:complete after \d+ execution|completed run \d+)", rest)
            if tr:
                expects.append((time, "transition", tr.group(1), tr.group(3), tr.group(4), span))
            elif ce:
                expects.append((time, "transition", ce.group(1), "endTransition", "completeState", span))
            elif c and c.group(2) is not None:
                expects.append((time + float(c.group(2)), "condition", c.group(1).strip(), None, None, span))
            elif c:
                alone.append((time, c.group(1).strip()))
            else:
                other += 1
        # "NAME: true" alone is esmini listing a fired trigger's conditions: comparable (sensim logs
        # a condition when it fires) only for a delayed one, whose firing the first form gave already
        for time, cname in alone:
            if not any(e[2] == cname and abs(e[0] - time) < 1e-9 for e in expects):
                other += 1
        tests.append((name, rs.group(1), dt, expects, other))
    return tests


def run(sensim, xosc, dt, out):
    os.makedirs(out, exist_ok=True)
    frames = int(round(200 / dt))
    cmd = [sensim, "run", xosc, "--out", out, "--quiet", "--frames", str(frames),
           "--set", f"settings.fixed_delta_seconds={dt}"]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return None, "timed out"
    if p.returncode != 0:
        err = [l for l in p.stderr.splitlines() if "error" in l]
        return None, (err[-1] if err else p.stderr.strip()[-300:])
    d = subprocess.run([sensim, "dump", os.path.join(out, "storyboard.msgpack")], capture_output=True, text=True)
    return [json.loads(l) for l in d.stdout.splitlines() if l.startswith("{")], None


def compare(expects, log, dt):
    res = []
    for time, kind, name, trans, to, span in expects:
        if name == "storyBoard":
            name = "Storyboard"
        cands = []
        for m in log:
            if m.get("element") != name or m.get("event") != kind:
                continue
            if kind == "transition" and (m.get("transition") != trans or m.get("to") != to):
                # esmini's "-> endTransition -> standbyState" is sensim's end to complete, then a reset
                if not (trans == "endTransition" and to == "standbyState" and m.get("transition") == "endTransition"):
                    continue
            cands.append(m["timestamp"])
        if not cands:
            res.append((time, kind, name, None))
            continue
        best = min(cands, key=lambda t: 0 if time <= t < time + span else abs(t - time))
        res.append((time, kind, name, time if time <= best < time + span else best))
    return res


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    if only in args:
        args.remove(only)
    esmini, sensim = args[0], os.path.abspath(args[1])
    out = args[2] if len(args) > 2 else "/tmp/esmini_conformance"
    tests = parse_smoke(os.path.join(esmini, "test", "smoke_test.py"))
    seen, rows = set(), []
    tot = {"scen": 0, "ran": 0, "exp": 0, "ok": 0, "off": 0, "miss": 0}
    for name, rel, dt, expects, other in tests:
        if only and only not in name and only not in rel:
            continue
        key = (rel, dt, tuple(expects))
        if key in seen:
            continue
        seen.add(key)
        xosc = os.path.join(esmini, rel)
        if not os.path.isfile(xosc):
            continue
        tot["scen"] += 1
        log, err = run(sensim, xosc, dt, os.path.join(out, name))
        if log is None:
            rows.append((os.path.basename(rel), dt, "refused", len(expects), 0, 0, 0, other, err, []))
            tot["exp"] += len(expects)
            continue
        tot["ran"] += 1
        res = compare(expects, log, dt)
        ok = sum(1 for t, _, _, s in res if s is not None and abs(s - t) <= dt + 1e-6)
        miss = sum(1 for r in res if r[3] is None)
        off = len(res) - ok - miss
        tot["exp"] += len(res)
        tot["ok"] += ok
        tot["off"] += off
        tot["miss"] += miss
        rows.append((os.path.basename(rel), dt, "runs", len(res), ok, off, miss, other, "", res))
    md = "--markdown" in sys.argv
    if md:
        print("| scenario | dt | sensim | events compared | within a step | off | missing | not comparable |")
        print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        if md:
            status = r[2] if r[2] == "runs" else "refused: " + r[8].split("error: ")[-1][:120]
            print(f"| {r[0]} | {r[1]} | {status} | {r[3]} | {r[4]} | {r[5]} | {r[6]} | {r[7]} |")
        else:
            print(f"{r[0]:50s} dt {r[1]:<5} {r[2]:8s} expected {r[3]:3d} ok {r[4]:3d} off {r[5]:3d} missing {r[6]:3d} "
                  f"other {r[7]:3d} {r[8][:200]}")
            for t, kind, name, s in r[9]:
                if s is None or abs(s - t) > r[1] + 1e-6:
                    print(f"    {kind:10s} {name:45s} esmini {t:8.3f}  sensim {'-' if s is None else f'{s:.3f}'}")
    print(f"\n{tot['scen']} scenarios, {tot['ran']} run, {tot['exp']} expected events, {tot['ok']} within a step, "
          f"{tot['off']} off, {tot['miss']} missing (of those that ran)")


if __name__ == "__main__":
    main()
