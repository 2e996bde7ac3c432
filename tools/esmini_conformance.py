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
A match is within one step (the scenario's dt).

Positions: the entity states the test expects in esmini's CSV (dat2csv's "time, id, name, x, y, z,
h, ...") are compared with the same entity's pose in sensim's actors stream at the frame of that
time: the x-y distance between the two reference points (sensim's actor origin is its box's, so
the box's centre offset is taken off; OpenDRIVE's y, CARLA's negated), |dz| and the heading's
difference. A row counts as within when the distance is at most 0.1 m.

    python3 tools/esmini_conformance.py ESMINI_DIR SENSIM [OUT_DIR] [--only NAME] [--markdown] [--keep]

--keep keeps each run's actors.msgpack (removed once read: they are large).
"""
import json
import os
import re
import subprocess
import sys

POS_TOL = 0.1  # m, x-y distance of the reference points (issue 34's target)
HEADING_TOL = 0.01  # rad


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
        tests.append((name, rs.group(1), dt, expects, other, parse_rows(body)))
    return tests


def parse_rows(body):
    """The entity states the test expects in esmini's CSV (dat2csv: time, id, name, x, y, z, h, p, r,
    speed, ...): [(time, name, x, y, z, h, decimals of x, y)]. A field written "10.20.*" is
    esmini's regular expression for [10.20, 10.21): its window's middle, and fewer decimals."""
    rows = []
    for pat in re.findall(r"re\.search\('([^']*)', csv[,)]", body):
        p = re.sub(r"^(\^|\\\\n)", "", pat)
        p = re.sub(r"\\\\n$", "", p)
        f = [x.strip() for x in p.split(", ")]
        if len(f) < 7:
            continue
        vals = []
        for x in f[:1] + f[3:7]:
            m = re.match(r"^(-?[0-9]+)\.([0-9]+)(\.\*)?$", x)
            if not m:
                break
            v, d = float(m.group(1) + "." + m.group(2)), len(m.group(2))
            if m.group(3):  # a window [v, v + 10^-d) (away from zero for a negative v)
                v += (0.5 if not m.group(1).startswith("-") else -0.5) * 10.0 ** -d
            vals.append((v if vals else float(m.group(1) + "." + m.group(2)), d))
        if len(vals) < 5:
            continue
        name = f[2].replace("\\\\", "").replace("\\", "")
        rows.append((vals[0][0], name, vals[1][0], vals[2][0], vals[3][0], vals[4][0], min(vals[1][1], vals[2][1])))
    return rows


def _params(el, into):
    for p in el.findall("ParameterDeclarations/ParameterDeclaration"):
        into[p.get("name")] = p.get("value")
    return into


def _value(s, params):
    """An attribute with esmini's $name and ${expression} (arithmetic on parameters) resolved."""
    if s is None:
        return 0.0
    s = s.strip()
    for _ in range(5):
        if s.startswith("${") and s.endswith("}"):
            expr = re.sub(r"\$(\w+)", lambda m: str(params.get(m.group(1), "0")), s[2:-1])
            return float(eval(expr, {"__builtins__": {}}, {}))  # esmini's own files: arithmetic only
        if s.startswith("$"):
            s = str(params.get(s[1:], "0"))
            continue
        return float(s)
    return 0.0


def boxes(xosc):
    """{entity name: (vehicle?, centre x, y, z, height)}: each entity's BoundingBox from the
    scenario or its catalog (found as sensim finds it: the Catalog's name, else its file's)."""
    import xml.etree.ElementTree as ET
    root = ET.parse(xosc).getroot()
    top = _params(root, {})
    dirs = [os.path.join(os.path.dirname(xosc), _d.get("path")) for _d in root.findall("CatalogLocations/*/Directory")]
    out = {}
    for so in root.findall("Entities/ScenarioObject"):
        params, el = dict(top), None
        for kind in ("Vehicle", "Pedestrian", "MiscObject"):
            el = so.find(kind)
            if el is not None:
                break
        ref = so.find("CatalogReference")
        if el is None and ref is not None:
            cat, entry = str(_value_str(ref.get("catalogName"), top)), str(_value_str(ref.get("entryName"), top))
            el = _catalog_entry(dirs, cat, entry)
        if el is None:
            continue
        _params(el, params)  # the entry's defaults, then the reference's assignments
        for a in (ref.findall("ParameterAssignments/ParameterAssignment") if ref is not None else []):
            params[a.get("parameterRef")] = _value_str(a.get("value"), top)
        c, d = el.find("BoundingBox/Center"), el.find("BoundingBox/Dimensions")
        try:
            out[so.get("name")] = (el.tag == "Vehicle", _value(c.get("x"), params), _value(c.get("y"), params),
                                   _value(c.get("z"), params), _value(d.get("height"), params))
        except (AttributeError, ValueError, SyntaxError, NameError, TypeError):
            continue
    return out


def _value_str(s, params):
    return params.get(s[1:], s) if s and s.startswith("$") else s


def _catalog_entry(dirs, cat, entry):
    import xml.etree.ElementTree as ET
    for d in dirs:
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if not f.endswith(".xosc"):
                continue
            try:
                c = ET.parse(os.path.join(d, f)).getroot().find("Catalog")
            except ET.ParseError:
                continue
            if c is None or (c.get("name") != cat and os.path.splitext(f)[0] != cat):
                continue
            for el in c:
                if el.get("name") == entry:
                    return el
    return None


def poses(sensim, out, box):
    """{(frame's time, actor name): (x, y, z, h)} of the run's actors stream, in esmini's terms:
    OpenDRIVE's y (CARLA's negated) and the entity's reference point — the actor's origin (the
    box's bottom centre for a vehicle, its centre otherwise: xosc_engine.c actor_pose) less the
    box's centre offset turned by the actor's rotation — heading in [0, 2 pi)."""
    import base64
    import struct
    path = os.path.join(out, "actors.msgpack")
    d = subprocess.run([sensim, "dump", "--json", path], capture_output=True, text=True)
    if "--keep" not in sys.argv and os.path.exists(path):
        os.remove(path)  # star_position_types' is hundreds of MB: kept only with --keep
    res = {}
    for line in d.stdout.splitlines():
        if not line.startswith("{"):
            continue
        m = json.loads(line)
        blob = base64.b64decode(m["actors"]["$bin"])
        for k, name in enumerate(m.get("names", [])):
            if name not in box or 112 * (k + 1) > len(blob):
                continue
            r = struct.unpack_from("<IIBB6x12d", blob, 112 * k)
            res[(round(m["timestamp"], 6), name)] = reference_point(r[4:7], r[7:10], box[name])
    return res


def reference_point(loc, rot, box):
    """(x, y, z, h) in esmini's terms of an actor at CARLA location loc, rotation rot (pitch, yaw,
    roll in degrees), box (vehicle?, centre x, y, z, height): xosc_engine.c actor_pose undone."""
    import math
    pi, ya, ro = [math.radians(a) for a in rot]
    veh, cx, cy, cz, hgt = box
    up = max(cz - hgt / 2, 0) if veh else cz
    cp, sp, cyw, syw, cr, sr = math.cos(pi), math.sin(pi), math.cos(ya), math.sin(ya), math.cos(ro), math.sin(ro)
    a = (cp * cyw, sr * sp * cyw - cr * syw, -(cr * sp * cyw + sr * syw),  # sn_mat3_from_rotation
         cp * syw, sr * sp * syw + cr * cyw, cyw * sr - cr * sp * syw,
         sp, -sr * cp, cr * cp)
    l = (cx, -cy, up)
    o = [loc[i] - sum(a[3 * i + j] * l[j] for j in range(3)) for i in range(3)]
    return (o[0], -o[1], o[2], (-ya) % (2 * math.pi))


def compare_rows(rows, pose, dt):
    """[(row, (dx-y distance, |dz|, |dh|) or None)]: each expected row against sensim's pose of the
    entity at the frame nearest the row's time (none within half a step, or before 0: None)."""
    import math
    times = sorted({t for t, _ in pose})
    res = []
    for row in rows:
        t, name, x, y, z, h = row[:6]
        hit, p = None, None
        if t >= 0 and times:
            k = min(times, key=lambda s: abs(s - t))
            p = pose.get((k, name)) if abs(k - t) <= dt / 2 + 1e-9 else None
            if p is None and t < dt / 2 and len(times) > 1:
                # the stream's first frame is the first step's (t = dt): the pose at 0 is taken back
                # from the first two frames, exact for a constant velocity (off by a dt^2 otherwise)
                p1, p2 = pose.get((times[0], name)), pose.get((times[1], name))
                if p1 and p2:
                    dh = (p2[3] - p1[3] + math.pi) % (2 * math.pi) - math.pi
                    p = tuple(2 * a - b for a, b in zip(p1[:3], p2[:3])) + ((p1[3] - dh) % (2 * math.pi),)
            if p:
                dh = abs((p[3] - h + math.pi) % (2 * math.pi) - math.pi)
                # the offset along esmini's heading and across it (left positive): a timing or
                # integration difference is along, a lateral model's across
                ax, ay = p[0] - x, p[1] - y
                hit = (math.hypot(ax, ay), abs(p[2] - z), dh, ax * math.cos(h) + ay * math.sin(h),
                       -ax * math.sin(h) + ay * math.cos(h))
        res.append((row, hit))
    return res


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
    ptot = {"scen": 0, "rows": 0, "cmp": 0, "ok": 0, "hok": 0, "worst": 0.0, "step": 0}
    for name, rel, dt, expects, other, prow in tests:
        if only and only not in name and only not in rel:
            continue
        key = (rel, dt, tuple(expects), tuple(prow))
        if key in seen:
            continue
        seen.add(key)
        xosc = os.path.join(esmini, rel)
        if not os.path.isfile(xosc):
            continue
        tot["scen"] += 1
        rdir = os.path.join(out, name)
        log, err = run(sensim, xosc, dt, rdir)
        if log is None:
            rows.append((os.path.basename(rel), dt, "refused", len(expects), 0, 0, 0, other, err, [], len(prow), []))
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
        pose_all = poses(sensim, rdir, boxes(xosc)) if prow else {}
        pres = compare_rows(prow, pose_all, dt) if prow else []
        if pres:
            # an off row within 0.1 m of sensim's pose a step earlier or later: the row is taken
            # in the step of an event that sensim plays a step apart (a teleport, a start)
            pose_ = pose_all
            pres = [(row, h, h is not None and h[0] > POS_TOL and any(
                s and s[0] <= POS_TOL for _, s in compare_rows([(row[0] + k * dt,) + row[1:] for k in (-1, 1)], pose_, dt)))
                for row, h in pres]
            ptot["step"] += sum(1 for p in pres if p[2])
            ptot["scen"] += 1
            ptot["rows"] += len(pres)
            ptot["cmp"] += sum(1 for _, h, _ in pres if h)
            ptot["ok"] += sum(1 for _, h, _ in pres if h and h[0] <= POS_TOL)
            ptot["hok"] += sum(1 for _, h, _ in pres if h and h[0] <= POS_TOL and h[2] <= HEADING_TOL)
            ptot["worst"] = max([ptot["worst"]] + [h[0] for _, h, _ in pres if h])
        rows.append((os.path.basename(rel), dt, "runs", len(res), ok, off, miss, other, "", res, len(prow), pres))
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
    if md:
        print("\n| scenario | dt | position rows | compared | within 0.1 m | and heading within 0.01 rad | "
              "off, within a step earlier or later | worst (m) |")
        print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        if not r[10]:
            continue
        hits = [h for _, h, _ in r[11] if h]
        ok = sum(1 for h in hits if h[0] <= POS_TOL)
        hok = sum(1 for h in hits if h[0] <= POS_TOL and h[2] <= HEADING_TOL)
        step = sum(1 for p in r[11] if p[2])
        worst = max((h[0] for h in hits), default=None)
        w = "-" if worst is None else f"{worst:.3f}"
        if md:
            print(f"| {r[0]} | {r[1]} | {r[10]} | {len(hits) if r[2] == 'runs' else 'refused'} | {ok} | {hok} | {step} | {w} |")
            continue
        print(f"{r[0]:50s} dt {r[1]:<5} positions {r[10]:3d} compared {len(hits):3d} within {POS_TOL} m {ok:3d} "
              f"(heading too {hok:3d}) a step apart {step:3d} worst {w}")
        for row, h, st in r[11]:
            if h is None or h[0] > POS_TOL or h[2] > HEADING_TOL:
                what = "no pose (not in the run, or time < 0)" if h is None else \
                    f"off {h[0]:.3f} m (along {h[3]:.3f}, across {h[4]:.3f}, dz {h[1]:.3f}, dh {h[2]:.4f})" + \
                    (" within a step apart" if st else "")
                print(f"    {row[0]:8.3f} {row[1]:20s} esmini x {row[2]:9.3f} y {row[3]:9.3f} h {row[5]:.3f}  {what}")
    print(f"\n{tot['scen']} scenarios, {tot['ran']} run, {tot['exp']} expected events, {tot['ok']} within a step, "
          f"{tot['off']} off, {tot['miss']} missing (of those that ran)")
    print(f"{ptot['scen']} run scenarios with expected positions: {ptot['rows']} rows, {ptot['cmp']} with a sensim "
          f"pose, {ptot['ok']} within {POS_TOL} m ({ptot['hok']} with heading within {HEADING_TOL} rad too), "
          f"{ptot['step']} more within a step earlier or later, worst {ptot['worst']:.3f} m")

if __name__ == "__main__":
    main()
