#!/usr/bin/env python3
"""mapgen.py — writes the ASAM OpenDRIVE 1.6 maps sensim ships (maps/*.xodr) and checks them.

    mapgen.py [--out DIR]                 write town.xodr, highway.xodr, roundabout.xodr, signals.xodr into DIR
                                          (default: the repository's maps/)
    mapgen.py --check [FILE.xodr ...]     re-read each file and verify its links (exit 1 on failure)
    mapgen.py --summary [FILE.xodr ...]   roads, junctions, lanes, driving-lane km per file

With no FILE, --check and --summary read the three maps in --out.

Python 3.11 standard library only. The output is deterministic (no dates, fixed number
formatting, fixed iteration order), so tests/map_gen/test_mapgen.sh compares it byte for byte with
the committed maps.

How continuity is made exact: every road's plan view is built piece by piece by `Plan`, which
evaluates each piece's end with the same functions the checker uses on the file (closed forms for
line and arc, composite Simpson for spiral / poly3 arc length / paramPoly3 length), and the next
piece or road starts exactly there. Numbers are written with 12 significant digits, so what the
file says and what was computed differ by < 1e-9 m.

Conventions (OpenDRIVE): heading counter-clockwise from +x; t to the left of the reference line;
right lanes (negative ids) carry traffic along +s, left lanes (positive ids) against s
(right-hand traffic).
"""

import argparse
import math
import os
import sys
import xml.etree.ElementTree as ET

# ----------------------------------------------------------------------------------------------
# Numbers

SIMPSON_STEPS = 2048  # even; spirals here turn < 0.1 rad, the error is far below 1e-9 m


def fmt(v):
    """A float as the file holds it: 12 significant digits, no '-0', no noise below 1e-12."""
    v = float(v)
    if abs(v) < 5e-13:
        return "0"
    s = "%.12g" % v
    return s


def wrap(a):
    """An angle in [-pi, pi)."""
    return (a + math.pi) % (2 * math.pi) - math.pi


def simpson(f, a, b, n=SIMPSON_STEPS):
    if b == a:
        return 0.0
    h = (b - a) / n
    acc = f(a) + f(b)
    for i in range(1, n):
        acc += (4.0 if i & 1 else 2.0) * f(a + i * h)
    return acc * h / 3.0


def cubic(rec, x):
    """(value, slope) of a + b x + c x^2 + d x^3 for rec = (a, b, c, d)."""
    a, b, c, d = rec
    return a + x * (b + x * (c + x * d)), b + x * (2 * c + 3 * d * x)


def smoothstep(s0, z0, s1, z1):
    """The cubic record (s0, a, b, c, d) going from z0 to z1 over [s0, s1] with zero slope at both
    ends: elevation ramps and lane tapers that join their neighbours without a kink."""
    L = s1 - s0
    dz = z1 - z0
    return (s0, z0, 0.0, 3 * dz / L ** 2, -2 * dz / L ** 3)


# ----------------------------------------------------------------------------------------------
# Data model: the same classes hold a map being built and a map read back from a file.

class Geom:
    """One planView/geometry record. p holds the kind's parameters."""

    def __init__(self, kind, s, x, y, hdg, length, p):
        self.kind, self.s, self.x, self.y, self.hdg, self.length, self.p = kind, s, x, y, hdg, length, p

    # -- evaluation ---------------------------------------------------------------------------
    def eval(self, ds):
        """(x, y, heading) at ds from the piece's start."""
        x, y, h = self.x, self.y, self.hdg
        k = self.kind
        if k == "line":
            return x + ds * math.cos(h), y + ds * math.sin(h), h
        if k == "arc":
            c = self.p["curvature"]
            if c == 0:
                return x + ds * math.cos(h), y + ds * math.sin(h), h
            # chord form: no cancellation for small curvature
            chord = 2.0 * math.sin(0.5 * c * ds) / c
            mid = h + 0.5 * c * ds
            return x + chord * math.cos(mid), y + chord * math.sin(mid), h + c * ds
        if k == "spiral":
            k0 = self.p["curvStart"]
            dk = (self.p["curvEnd"] - k0) / self.length if self.length > 0 else 0.0
            if ds <= 0:
                return x, y, h
            th = lambda u: h + u * (k0 + 0.5 * dk * u)  # noqa: E731
            # Composite Simpson on cos/sin of the clothoid's heading, both in one pass.
            n = SIMPSON_STEPS
            step = ds / n
            sx = math.cos(th(0.0)) + math.cos(th(ds))
            sy = math.sin(th(0.0)) + math.sin(th(ds))
            for i in range(1, n):
                w = 4.0 if i & 1 else 2.0
                t = th(i * step)
                sx += w * math.cos(t)
                sy += w * math.sin(t)
            return x + sx * step / 3.0, y + sy * step / 3.0, th(ds)
        if k == "poly3":
            u = self._poly3_u(ds)
            v, dv = cubic((self.p["a"], self.p["b"], self.p["c"], self.p["d"]), u)
            ch, sh = math.cos(h), math.sin(h)
            return x + ch * u - sh * v, y + sh * u + ch * v, h + math.atan(dv)
        if k == "paramPoly3":
            P = self.p
            t = ds / self.length if P["pRange"] == "normalized" else ds
            u, du = cubic((P["aU"], P["bU"], P["cU"], P["dU"]), t)
            v, dv = cubic((P["aV"], P["bV"], P["cV"], P["dV"]), t)
            ch, sh = math.cos(h), math.sin(h)
            return x + ch * u - sh * v, y + sh * u + ch * v, h + math.atan2(dv, du)
        raise ValueError("unknown geometry " + k)

    def curvature(self, ds):
        k = self.kind
        if k == "line":
            return 0.0
        if k == "arc":
            return self.p["curvature"]
        if k == "spiral":
            return self.p["curvStart"] + (self.p["curvEnd"] - self.p["curvStart"]) * ds / self.length
        if k == "poly3":
            u = self._poly3_u(ds)
            _, d1 = cubic((self.p["a"], self.p["b"], self.p["c"], self.p["d"]), u)
            d2 = 2 * self.p["c"] + 6 * self.p["d"] * u
            return d2 / (1 + d1 * d1) ** 1.5
        P = self.p
        t = ds / self.length if P["pRange"] == "normalized" else ds
        _, du = cubic((P["aU"], P["bU"], P["cU"], P["dU"]), t)
        _, dv = cubic((P["aV"], P["bV"], P["cV"], P["dV"]), t)
        ddu = 2 * P["cU"] + 6 * P["dU"] * t
        ddv = 2 * P["cV"] + 6 * P["dV"] * t
        return (du * ddv - dv * ddu) / (du * du + dv * dv) ** 1.5

    def _poly3_arclen(self, u):
        b, c, d = self.p["b"], self.p["c"], self.p["d"]
        return simpson(lambda x: math.sqrt(1 + (b + x * (2 * c + 3 * d * x)) ** 2), 0.0, u, 1024)

    def _poly3_u(self, ds):
        """poly3 is parameterised by u (along the local heading) but positioned by arc length:
        invert the arc length by Newton's method."""
        if ds <= 0:
            return 0.0
        b, c, d = self.p["b"], self.p["c"], self.p["d"]
        u = ds
        for _ in range(50):
            err = self._poly3_arclen(u) - ds
            if abs(err) < 1e-12:
                break
            u -= err / math.sqrt(1 + (b + u * (2 * c + 3 * d * u)) ** 2)
        return u


class Lane:
    def __init__(self, id, type, widths=(), marks=(), pred=None, succ=None, height=None, level=False):
        self.id, self.type = id, type
        self.widths = list(widths)  # (sOffset, a, b, c, d)
        self.marks = list(marks)  # dicts, see mark()
        self.pred, self.succ = pred, succ
        self.height = height  # (inner, outer) or None
        self.level = level


class Section:
    def __init__(self, s, lanes):
        self.s = s
        self.lanes = {l.id: l for l in lanes}  # includes the centre lane 0

    def ids(self, side):
        """Lane ids of one side ('left' / 'right'), from the centre outward."""
        if side == "left":
            return sorted(i for i in self.lanes if i > 0)
        return sorted((i for i in self.lanes if i < 0), reverse=True)


class Link:
    def __init__(self, etype, eid, contact=None):
        self.etype, self.eid, self.contact = etype, eid, contact


class Road:
    def __init__(self, id, name, junction=-1):
        self.id, self.name, self.junction = id, name, junction
        self.length = 0.0
        self.pred = self.succ = None  # Link
        self.rtype, self.speed = "town", 50.0  # road type and its speed (km/h)
        self.geoms = []
        self.elevation = [(0.0, 0.0, 0.0, 0.0, 0.0)]  # (s, a, b, c, d)
        self.superelevation = []
        self.lane_offsets = []
        self.sections = []
        self.signals = []  # dicts
        self.refs = []     # dicts: <signalReference>s
        self.objects = []  # dicts

    def set_plan(self, plan):
        self.geoms = plan.geoms
        self.length = plan.s


class Connection:
    def __init__(self, id, incoming, connecting, contact, links):
        self.id, self.incoming, self.connecting, self.contact, self.links = id, incoming, connecting, contact, links


class Junction:
    def __init__(self, id, name):
        self.id, self.name = id, name
        self.connections = []
        self.controllers = []


class Controller:
    def __init__(self, id, name, signals):
        self.id, self.name, self.signals = id, name, signals


class Map:
    def __init__(self, name, lat, lon):
        self.name, self.lat, self.lon = name, lat, lon
        self.roads, self.junctions, self.controllers = [], [], []
        self.header = {}
        self._ids = {}

    def next_id(self, kind, first):
        """Deterministic integer ids, one counter per kind (roads, junctions, signals, ...)."""
        v = self._ids.get(kind, first)
        self._ids[kind] = v + 1
        return v

    def road(self, id):
        for r in self.roads:
            if r.id == id:
                return r
        return None


# ----------------------------------------------------------------------------------------------
# Evaluating a road: reference line, records, lanes (used by the builder, the bounding box, the
# checker and the summary alike).

def geom_at(road, s):
    g = road.geoms[0]
    for cand in road.geoms:
        if cand.s <= s + 1e-9:
            g = cand
    return g


def ref_pose(road, s):
    g = geom_at(road, s)
    return g.eval(min(max(s - g.s, 0.0), g.length))


def ref_curvature(road, s):
    g = geom_at(road, s)
    return g.curvature(min(max(s - g.s, 0.0), g.length))


def record_at(records, s):
    """(value, slope) of a list of (s, a, b, c, d) records at s; (0, 0) when there is none."""
    rec = None
    for r in records:
        if r[0] <= s + 1e-9:
            rec = r
    if rec is None:
        return 0.0, 0.0
    return cubic(rec[1:], s - rec[0])


def section_index(road, s, before):
    """The section holding s; at a boundary `before` picks the one ending there."""
    idx = 0
    for i, sec in enumerate(road.sections):
        if sec.s <= s + 1e-9 and not (before and i > 0 and abs(sec.s - s) <= 1e-9):
            idx = i
    return idx


def section_end(road, i):
    return road.sections[i + 1].s if i + 1 < len(road.sections) else road.length


def lane_width(sec, lane, s):
    ds = s - sec.s
    rec = None
    for w in lane.widths:
        if w[0] <= ds + 1e-9:
            rec = w
    if rec is None:
        return 0.0, 0.0
    return cubic(rec[1:], ds - rec[0])


def lane_span(road, sec, lane_id, s):
    """(t_inner, t_outer, dt_inner/ds, dt_outer/ds) of lane `lane_id` at road s."""
    t, dt = record_at(road.lane_offsets, s)
    if lane_id == 0:
        return t, t, dt, dt
    sign = 1 if lane_id > 0 else -1
    inner, dinner = t, dt
    for k in range(1, abs(lane_id) + 1):
        w, dw = lane_width(sec, sec.lanes[sign * k], s)
        inner, dinner = t, dt
        t += sign * w
        dt += sign * dw
    return inner, t, dinner, dt


def lane_point(road, sec, lane_id, s, where="centre"):
    """(x, y, z, heading) of a lane's centre (or 'outer' border) at s; heading along +s."""
    x, y, h = ref_pose(road, s)
    ti, to, dti, dto = lane_span(road, sec, lane_id, s)
    if where == "outer":
        t, dt = to, dto
    else:
        t, dt = 0.5 * (ti + to), 0.5 * (dti + dto)
    z, _ = record_at(road.elevation, s)
    roll, _ = record_at(road.superelevation, s)
    # superelevation: positive falls to the right (t < 0 lower)
    tl = t * math.cos(roll)
    z += t * math.sin(roll)
    k = ref_curvature(road, s) if dt != 0 else 0.0
    return (x - tl * math.sin(h), y + tl * math.cos(h), z, h + math.atan2(dt, 1 - k * t))


# ----------------------------------------------------------------------------------------------
# Building plan views

class Plan:
    """A reference line built piece by piece: each piece starts exactly where the previous one
    ends, as evaluated by Geom.eval (the checker's own function)."""

    def __init__(self, x, y, hdg):
        self.x, self.y, self.hdg = x, y, wrap(hdg)
        self.s = 0.0
        self.geoms = []

    def _add(self, kind, length, **p):
        g = Geom(kind, self.s, self.x, self.y, self.hdg, length, p)
        self.geoms.append(g)
        self.x, self.y, h = g.eval(length)
        self.hdg = wrap(h)
        self.s += length
        return self

    def end(self):
        return self.x, self.y, self.hdg

    def line(self, length):
        return self._add("line", length)

    def arc(self, curvature, length):
        return self._add("arc", length, curvature=curvature)

    def spiral(self, k0, k1, length):
        """A clothoid: curvature linear in s from k0 to k1 (eases a line into an arc)."""
        return self._add("spiral", length, curvStart=k0, curvEnd=k1)

    def poly3(self, a, b, c, d, u_end):
        """v(u) = a + b u + c u^2 + d u^3 in the local frame, from u = 0 to u_end; the record's
        length is the arc length."""
        g = Geom("poly3", 0, 0, 0, 0, 0, dict(a=a, b=b, c=c, d=d))
        return self._add("poly3", g._poly3_arclen(u_end), a=a, b=b, c=c, d=d)

    def parampoly3(self, U, V):
        """u(p), v(p) cubics (U, V = (a, b, c, d)), p normalised to [0, 1]; length is the arc
        length of the curve."""
        def speed(p):
            _, du = cubic(U, p)
            _, dv = cubic(V, p)
            return math.hypot(du, dv)
        L = simpson(speed, 0.0, 1.0)
        return self._add("paramPoly3", L, aU=U[0], bU=U[1], cU=U[2], dU=U[3],
                         aV=V[0], bV=V[1], cV=V[2], dV=V[3], pRange="normalized")


# ----------------------------------------------------------------------------------------------
# Lanes and marks

def mark(type="solid", color="white", width=0.15, lane_change="none", weight="standard"):
    if type == "none":
        return dict(sOffset=0.0, type="none", weight="standard", color="standard", width=0.0, laneChange="none")
    return dict(sOffset=0.0, type=type, weight=weight, color=color, width=width, laneChange=lane_change)


NO_MARK = mark("none")
SOLID_WHITE = mark("solid", "white")
SOLID_YELLOW = mark("solid", "yellow")
BROKEN_WHITE = mark("broken", "white", lane_change="both")
# A sidewalk's own mark is on its outer (building-side) border: none. The kerb itself is the
# driving lane's outer border, marked solid white.
WALK_MARK = NO_MARK


def lane(id, type, width, mk=NO_MARK, pred=None, succ=None, height=None, widths=None):
    return Lane(id, type, widths if widths is not None else [(0.0, width, 0.0, 0.0, 0.0)], [mk],
                pred=pred, succ=succ, height=height)


def centre(mk=NO_MARK):
    return Lane(0, "none", [], [mk])


# ----------------------------------------------------------------------------------------------
# Town: a 3 x 3 grid of two-lane streets with signalised four-way junctions

TOWN_SPACING = 100.0   # between junction centres
TOWN_STUB = 50.0       # the outer streets run on past the outer junctions, then end
TOWN_D = 10.0          # junction boundary: streets end 10 m from the junction centre
TOWN_LANE = 3.5
TOWN_WALK = 3.0
KERB = 0.15            # sidewalk height


def street_lanes(centre_mark):
    """One driving lane each way and a raised sidewalk on each side."""
    h = (KERB, KERB)
    return Section(0.0, [
        lane(2, "sidewalk", TOWN_WALK, WALK_MARK, height=h),
        lane(1, "driving", TOWN_LANE, SOLID_WHITE),
        centre(centre_mark),
        lane(-1, "driving", TOWN_LANE, SOLID_WHITE),
        lane(-2, "sidewalk", TOWN_WALK, WALK_MARK, height=h),
    ])


def straight_street(m, name, x0, y0, hdg, length, centre_mark):
    """A straight street road from (x0, y0) along hdg."""
    r = Road(m.next_id("road", 1), name)
    r.set_plan(Plan(x0, y0, hdg).line(length))
    r.sections = [street_lanes(centre_mark)]
    m.roads.append(r)
    return r


def town_connector(m, jid, arm_in, arm_out, turn):
    """A connecting road inside a junction from arm_in's incoming lane to arm_out's outgoing lane.

    It starts on arm_in's reference line at the junction boundary, heading into the junction,
    so its lane -1 lies exactly on arm_in's incoming lane; straight on is a line, left and right
    turns are quarter arcs of radius TOWN_D about the corners, which end on arm_out's reference
    line with arm_out's heading (lane -1 then lies on arm_out's outgoing lane). Right turns also
    carry the corner's sidewalk as lane -2 (the inside of the turn), joining the two sidewalks
    that meet at that corner."""
    road_in, end_in = arm_in["road"], arm_in["end"]
    road_out, end_out = arm_out["road"], arm_out["end"]
    x, y, h = ref_pose(road_in, road_in.length if end_in == "end" else 0.0)
    if end_in == "start":
        h += math.pi  # the road points away from the junction: its traffic arrives against s
    p = Plan(x, y, h)
    if turn == "straight":
        p.line(2 * TOWN_D)
    else:
        k = (1.0 if turn == "left" else -1.0) / TOWN_D
        p.arc(k, 0.5 * math.pi * TOWN_D)
    r = Road(m.next_id("road", 1), "J%d_%s_%d_%d" % (jid, turn, road_in.id, road_out.id), junction=jid)
    r.set_plan(p)
    r.pred = Link("road", road_in.id, end_in)
    r.succ = Link("road", road_out.id, end_out)
    lane_in = -1 if end_in == "end" else 1      # the lane of road_in that drives into the junction
    lane_out = -1 if end_out == "start" else 1  # the lane of road_out that drives out of it
    lanes = [centre(), lane(-1, "driving", TOWN_LANE, NO_MARK, pred=lane_in, succ=lane_out)]
    links = [(lane_in, -1)]
    if turn == "right":
        lanes.append(lane(-2, "sidewalk", TOWN_WALK, WALK_MARK, pred=2 * lane_in, succ=2 * lane_out,
                          height=(KERB, KERB)))
        links.append((2 * lane_in, -2))
    r.sections = [Section(0.0, lanes)]
    m.roads.append(r)
    return r, links


def crosswalk(m, road, s):
    """A zebra crossing 4 m deep at s across the carriageway: the driving lanes next to the
    centre lane (the streets and arms here have one each way, between the sidewalks)."""
    sec = road.sections[section_index(road, s, False)]
    half = max(abs(lane_span(road, sec, i, s)[1]) for i in (-1, 1))
    corners = [(-2.0, -half), (2.0, -half), (2.0, half), (-2.0, half)]
    road.objects.append(dict(id=m.next_id("object", 4000), type="crosswalk", name="crosswalk", s=s, t=0.0,
                             zOffset=0.0, hdg=0.0, orientation="none", length=4.0, width=2 * half,
                             corners=corners))


def town_junction(m, jid, name, arms):
    """A signalised four-way junction. arms: dicts psi (heading from the centre out along the
    arm), road, end ('start' or 'end': which end of the road touches the junction)."""
    j = Junction(jid, name)
    # Two controllers, as CARLA's UTrafficLightController: opposite approaches (arms k and k + 2)
    # share one and turn green together; the group runs the two in turn.
    ctrls = [Controller(m.next_id("controller", 2000), "Controller_%s_%d" % (name, k), []) for k in range(2)]
    cid = 0
    for ai, a in enumerate(arms):
        for b in arms:
            if b is a:
                continue  # no U-turns
            turn = wrap(b["psi"] - (a["psi"] + math.pi))
            kind = "straight" if abs(turn) < 0.1 else ("left" if turn > 0 else "right")
            r, links = town_connector(m, j.id, a, b, kind)
            j.connections.append(Connection(cid, a["road"].id, r.id, "start", links))
            cid += 1
        # The stop line, its traffic light and the crossing on the arm's road, CARLA-style: the
        # light stands on the sidewalk 0.5 m beyond the kerb, to the right of arriving traffic.
        road = a["road"]
        at_end = a["end"] == "end"
        s_light = road.length - 6.0 if at_end else 6.0
        sid = m.next_id("signal", 3000)
        road.signals.append(dict(id=sid, name="Signal_3Light_Post01", s=s_light,
                                 t=-(TOWN_LANE + 0.5) if at_end else TOWN_LANE + 0.5, zOffset=0.0,
                                 hOffset=0.0, dynamic="yes", orientation="+" if at_end else "-",
                                 country="OpenDRIVE", type="1000001", subtype="-1", height=4.0, width=0.5,
                                 validity=(-1, -1) if at_end else (1, 1)))
        ctrls[ai % 2].signals.append(sid)
        crosswalk(m, road, road.length - 3.0 if at_end else 3.0)
    for ctrl in ctrls:
        j.controllers.append(ctrl.id)
        m.controllers.append(ctrl)
    m.junctions.append(j)


def build_town():
    m = Map("town", 49.0, 8.4)
    n = 3
    xs = [i * TOWN_SPACING for i in range(n)]
    # Streets are split at every junction: stub, n-1 blocks, stub. East-west streets run
    # towards +x, north-south ones towards +y.
    ew, ns = {}, {}  # (street, segment index) -> road
    for j, y in enumerate(xs):
        stops = [xs[0] - TOWN_STUB] + xs + [xs[-1] + TOWN_STUB]
        for k in range(n + 1):
            a = stops[k] + (0 if k == 0 else TOWN_D)
            b = stops[k + 1] - (0 if k == n else TOWN_D)
            stub = k in (0, n)
            ew[j, k] = straight_street(m, "Street_EW%d_%d" % (j, k), a, y, 0.0, b - a,
                                       BROKEN_WHITE if stub else SOLID_YELLOW)
    for i, x in enumerate(xs):
        stops = [xs[0] - TOWN_STUB] + xs + [xs[-1] + TOWN_STUB]
        for k in range(n + 1):
            a = stops[k] + (0 if k == 0 else TOWN_D)
            b = stops[k + 1] - (0 if k == n else TOWN_D)
            stub = k in (0, n)
            ns[i, k] = straight_street(m, "Street_NS%d_%d" % (i, k), x, a, 0.5 * math.pi, b - a,
                                       BROKEN_WHITE if stub else SOLID_YELLOW)
    for j, y in enumerate(xs):
        for i, x in enumerate(xs):
            arms = [dict(psi=0.0, road=ew[j, i + 1], end="start"),
                    dict(psi=0.5 * math.pi, road=ns[i, j + 1], end="start"),
                    dict(psi=math.pi, road=ew[j, i], end="end"),
                    dict(psi=-0.5 * math.pi, road=ns[i, j], end="end")]
            jid = m.next_id("junction", 1000)
            for a in arms:
                if a["end"] == "end":
                    a["road"].succ = Link("junction", jid)
                else:
                    a["road"].pred = Link("junction", jid)
            town_junction(m, jid, "Junction_%d_%d" % (i, j), arms)
    return m


# ----------------------------------------------------------------------------------------------
# Signals: two junctions bound as CARLA's towns bind their signals

def sign(m, name, type, s, t, orientation, validity, dynamic="no", subtype="-1", **kw):
    g = dict(id=m.next_id("signal", 3000), name=name, s=s, t=t, zOffset=0.0, hOffset=0.0, dynamic=dynamic,
             orientation=orientation, country="OpenDRIVE", type=type, subtype=subtype, height=1.0, width=0.9,
             validity=validity)
    g.update(kw)
    return g


def signals_junction(m, jid, name, arms):
    """A four-way junction whose arms are controlled as CARLA's towns control theirs (Town01..
    Town10HD): each arm's <signal> (a 3-light head, a stop or a yield sign; arm["control"])
    stands with validity 0..0 (it names no lane itself: CARLA drops such references), and every
    connecting road leaving that arm carries a <signalReference> to it on its lane -1, 0.5 m
    into the junction. Lights get one controller each, listed by the junction."""
    j = Junction(jid, name)
    cid = 0
    for a in arms:
        conns = []
        for b in arms:
            if b is a:
                continue
            turn = wrap(b["psi"] - (a["psi"] + math.pi))
            kind = "straight" if abs(turn) < 0.1 else ("left" if turn > 0 else "right")
            r, links = town_connector(m, j.id, a, b, kind)
            j.connections.append(Connection(cid, a["road"].id, r.id, "start", links))
            conns.append((kind, r))
            cid += 1
        ctl = a.get("control")
        if not ctl:
            continue
        road, at_end = a["road"], a["end"] == "end"
        s_sig = road.length - 2.0 if at_end else 2.0
        t_sig = -(TOWN_LANE + 0.5) if at_end else TOWN_LANE + 0.5
        if ctl == "light":
            g = sign(m, "Signal_3Light_Post01", "1000001", 5.0, -(TOWN_LANE + 0.5), "+", (0, 0), dynamic="yes")
            straight = [r for k, r in conns if k == "straight"][0]
            straight.signals.append(g)  # CARLA's towns put the head on a connecting road
            c = Controller(m.next_id("controller", 2000), "ctrl_%d" % g["id"], [g["id"]])
            m.controllers.append(c)
            j.controllers.append(c.id)
        else:
            g = sign(m, "Sign_Stop" if ctl == "stop" else "Sign_Yield", "206" if ctl == "stop" else "205",
                     s_sig, t_sig, "+" if at_end else "-", (0, 0))
            road.signals.append(g)
        for k, r in conns:
            r.refs.append(dict(id=g["id"], s=0.5, orientation="-", validity=(-1, -1)))
    m.junctions.append(j)


def build_signals():
    """An east-west street through a signalised junction (x = 0) and a junction with a stop sign
    on its north arm and a yield sign on its south arm (x = 100; the street has priority), with
    north-south arms 40 m long; speed-limit signs (type 274, km/h) on the street's lanes."""
    m = Map("signals", 49.01, 8.41)
    L = 40.0
    w = straight_street(m, "Street_W", -90.0, 0.0, 0.0, 80.0, SOLID_YELLOW)
    mid = straight_street(m, "Street_M", TOWN_D, 0.0, 0.0, 100.0 - 2 * TOWN_D, SOLID_YELLOW)
    e = straight_street(m, "Street_E", 100.0 + TOWN_D, 0.0, 0.0, 80.0, SOLID_YELLOW)
    arms_ns = {}
    for x in (0.0, 100.0):
        arms_ns[x, "s"] = straight_street(m, "Arm_S_%d" % x, x, -TOWN_D - L, 0.5 * math.pi, L, SOLID_YELLOW)
        arms_ns[x, "n"] = straight_street(m, "Arm_N_%d" % x, x, TOWN_D, 0.5 * math.pi, L, SOLID_YELLOW)
    # Speed limits: 40 on the west street's eastbound lane, 30 on the middle street both ways,
    # 50 on the east street's eastbound lane. validity names the lane each applies to.
    w.signals.append(sign(m, "Speed_40", "274", 10.0, -(TOWN_LANE + 0.5), "+", (-1, -1), subtype="40",
                          value=40.0, unit="km/h"))
    mid.signals.append(sign(m, "Speed_30", "274", 5.0, -(TOWN_LANE + 0.5), "+", (-1, -1), subtype="30",
                            value=30.0, unit="km/h"))
    mid.signals.append(sign(m, "Speed_30", "274", mid.length - 5.0, TOWN_LANE + 0.5, "-", (1, 1), subtype="30",
                            value=30.0, unit="km/h"))
    e.signals.append(sign(m, "Speed_50", "274", 5.0, -(TOWN_LANE + 0.5), "+", (-1, -1), subtype="50",
                          value=50.0, unit="km/h"))
    for x, road_w, road_e, ctl in ((0.0, w, mid, ("light",) * 4), (100.0, mid, e, (None, "yield", None, "stop"))):
        arms = [dict(psi=0.0, road=road_e, end="start", control=ctl[0]),
                dict(psi=-0.5 * math.pi, road=arms_ns[x, "s"], end="end", control=ctl[1]),
                dict(psi=math.pi, road=road_w, end="end", control=ctl[2]),
                dict(psi=0.5 * math.pi, road=arms_ns[x, "n"], end="start", control=ctl[3])]
        jid = m.next_id("junction", 1000)
        for a in arms:
            if a["end"] == "end":
                a["road"].succ = Link("junction", jid)
            else:
                a["road"].pred = Link("junction", jid)
        signals_junction(m, jid, "Junction_%d" % x, arms)
    return m


# ----------------------------------------------------------------------------------------------
# Highway: a curved 3+3 lane motorway with an on-ramp merging through a junction

HW_LANE = 3.75
HW_SHOULDER = 2.5
HW_MEDIAN = 1.5        # per side: 3 m of median in all
HW_JUNCTION = 20.0     # length of the merge junction
HW_TAPER = 150.0       # the acceleration lane runs 150 m at full width, then tapers over 150 m


def hw_side(sign, driving_marks):
    """One carriageway's inner lanes: its half of the median, then three driving lanes (sign +1:
    the left lanes, -1: the right lanes). Callers add what lies beyond lane 4."""
    lanes = [lane(sign * 1, "median", HW_MEDIAN, SOLID_WHITE)]
    for k, mk in enumerate(driving_marks):
        lanes.append(lane(sign * (2 + k), "driving", HW_LANE, mk))
    return lanes


def hw_section(s, right_extra):
    """Median, three lanes each way and the left shoulder (lane 5); right_extra: the lanes
    beyond lane -4 (shoulder, acceleration lane), which differ between sections and roads."""
    marks = [BROKEN_WHITE, BROKEN_WHITE, SOLID_WHITE]
    lanes = hw_side(1, marks) + [centre(NO_MARK)] + hw_side(-1, marks)
    lanes.append(lane(5, "shoulder", HW_SHOULDER, NO_MARK))
    lanes += right_extra
    return Section(s, lanes)


def link_sections(road):
    """Lanes of consecutive sections of one road with the same id continue into each other,
    unless the caller already said otherwise."""
    for a, b in zip(road.sections, road.sections[1:]):
        for i, l in a.lanes.items():
            if i != 0 and i in b.lanes and l.succ is None and b.lanes[i].pred is None:
                l.succ = i
                b.lanes[i].pred = i


def build_highway():
    m = Map("highway", 49.02, 8.43)
    rid = lambda: m.next_id("road", 1)  # noqa: E731

    # Road A: line -> spiral -> left arc (R 800) -> spiral -> line, ending at the merge.
    k1 = 1.0 / 800.0
    pa = Plan(0.0, 0.0, 0.0).line(300).spiral(0, k1, 100).arc(k1, 250).spiral(k1, 0, 100).line(300)
    A = Road(rid(), "Highway_A")
    A.set_plan(pa)
    A.rtype, A.speed = "motorway", 120.0
    A.elevation = [(0.0, 0.0, 0.0, 0.0, 0.0), smoothstep(300.0, 0.0, 850.0, 8.0), (850.0, 8.0, 0, 0, 0)]
    # bank into the left curve (negative: falls to the left), ramped along the spirals
    A.superelevation = [(0.0, 0, 0, 0, 0), (300.0, 0, -0.03 / 100, 0, 0), (400.0, -0.03, 0, 0, 0),
                        (650.0, -0.03, 0.03 / 100, 0, 0), (750.0, 0, 0, 0, 0)]
    # Over its last 120 m (beside the ramp's S-bend) A's right shoulder narrows to nothing, a
    # cubic width taper, so that the ramp's lane does not overlap it where it comes alongside.
    gore = A.length - 120.0
    A.sections = [hw_section(0.0, [lane(-5, "shoulder", HW_SHOULDER, NO_MARK)]),
                  hw_section(gore, [lane(-5, "shoulder", 0, NO_MARK,
                                         widths=[smoothstep(0.0, HW_SHOULDER, 120.0, 0.0)])])]
    link_sections(A)

    J = Junction(m.next_id("junction", 1000), "Merge")
    C1 = Road(rid(), "Merge_through", junction=J.id)
    C2 = Road(rid(), "Merge_ramp", junction=J.id)
    B = Road(rid(), "Highway_B")
    R = Road(rid(), "OnRamp")
    for r in (C1, C2, B, R):
        r.rtype, r.speed = "motorway", 120.0
    R.speed = C2.speed = 80.0

    # C1: the carriageways straight through the junction (both directions), no right shoulder:
    # the ramp's lane comes in there.
    xa, ya, ha = pa.end()
    C1.set_plan(Plan(xa, ya, ha).line(HW_JUNCTION))
    C1.elevation = [(0.0, 8.0, 0, 0, 0)]
    sec = hw_section(0.0, [])
    for i, l in sec.lanes.items():
        if i != 0:
            l.pred = l.succ = i
    C1.sections = [sec]
    C1.pred, C1.succ = Link("road", A.id, "end"), Link("road", B.id, "start")

    # C2: the ramp's lane beside lane -4, on a reference line along lane -4's outer border.
    t_edge = -(HW_MEDIAN + 3 * HW_LANE)
    x2, y2 = xa - t_edge * math.sin(ha), ya + t_edge * math.cos(ha)
    C2.set_plan(Plan(x2, y2, ha).line(HW_JUNCTION))
    C2.elevation = [(0.0, 8.0, 0, 0, 0)]
    C2.sections = [Section(0.0, [centre(SOLID_WHITE),
                                 lane(-1, "onRamp", HW_LANE, SOLID_WHITE, pred=-1, succ=-5),
                                 lane(-2, "shoulder", HW_SHOULDER, NO_MARK, pred=-2, succ=-6)])]
    C2.pred, C2.succ = Link("road", R.id, "end"), Link("road", B.id, "start")

    # Road B: line (acceleration lane, then its taper) -> spiral -> right arc (R 600) -> spiral -> line.
    k2 = -1.0 / 600.0
    xb, yb, hb = C1.geoms[-1].eval(HW_JUNCTION)
    pb = Plan(xb, yb, hb).line(400).spiral(0, k2, 100).arc(k2, 200).spiral(k2, 0, 100).line(300)
    B.set_plan(pb)
    B.elevation = [(0.0, 8.0, 0, 0, 0), smoothstep(500.0, 8.0, 900.0, 3.0), (900.0, 3.0, 0, 0, 0)]
    B.superelevation = [(0.0, 0, 0, 0, 0), (400.0, 0, 0.03 / 100, 0, 0), (500.0, 0.03, 0, 0, 0),
                        (700.0, 0.03, -0.03 / 100, 0, 0), (800.0, 0, 0, 0, 0)]
    s0 = hw_section(0.0, [lane(-5, "onRamp", HW_LANE, SOLID_WHITE),
                          lane(-6, "shoulder", HW_SHOULDER, NO_MARK)])
    s0.lanes[-4].marks = [BROKEN_WHITE]  # vehicles may move over from the acceleration lane
    # The taper: lane -5's width is a cubic from 3.75 m to 0 with zero slope at both ends.
    taper = smoothstep(0.0, HW_LANE, HW_TAPER, 0.0)
    s1 = hw_section(HW_TAPER, [lane(-5, "onRamp", 0, SOLID_WHITE, widths=[taper]),
                               lane(-6, "shoulder", HW_SHOULDER, NO_MARK, succ=-5)])
    s1.lanes[-4].marks = [BROKEN_WHITE]
    s2 = hw_section(2 * HW_TAPER, [lane(-5, "shoulder", HW_SHOULDER, NO_MARK, pred=-6)])
    B.sections = [s0, s1, s2]
    link_sections(B)
    B.pred = Link("junction", J.id)
    A.succ = Link("junction", J.id)

    # The on-ramp, built backwards from C2's start so that it ends there exactly in position and
    # heading: a poly3 easing in from 25 m out (zero slope at both ends), a line, then a
    # paramPoly3 S-bend (u linear, v a Hermite cubic) that closes the last 15 m sideways.
    POLY_U, POLY_V, LINE, PP_U, PP_V = 80.0, 10.0, 100.0, 120.0, 15.0
    du, dv = POLY_U + LINE + PP_U, POLY_V + PP_V
    ch, sh = math.cos(ha), math.sin(ha)
    pr = Plan(x2 - ch * du + sh * dv, y2 - sh * du - ch * dv, ha)
    pr.poly3(0.0, 0.0, 3 * POLY_V / POLY_U ** 2, -2 * POLY_V / POLY_U ** 3, POLY_U)
    pr.line(LINE)
    pr.parampoly3((0.0, PP_U, 0.0, 0.0), (0.0, 0.0, 3 * PP_V, -2 * PP_V))
    R.set_plan(pr)
    R.elevation = [smoothstep(0.0, 2.0, R.length, 8.0)]  # climbs 6 m to the highway
    # The lanes start 0.5 m left of the reference line and ease onto it within 60 m.
    R.lane_offsets = [smoothstep(0.0, 0.5, 60.0, 0.0), (60.0, 0.0, 0, 0, 0)]
    R.sections = [Section(0.0, [centre(SOLID_WHITE), lane(-1, "onRamp", HW_LANE, SOLID_WHITE),
                                lane(-2, "shoulder", HW_SHOULDER, NO_MARK)])]
    R.succ = Link("junction", J.id)

    J.connections = [
        Connection(0, A.id, C1.id, "start", [(-i, -i) for i in range(1, 5)]),
        Connection(1, B.id, C1.id, "end", [(i, i) for i in range(1, 6)]),
        Connection(2, R.id, C2.id, "start", [(-1, -1), (-2, -2)]),
    ]
    m.roads += [A, C1, C2, B, R]
    m.junctions.append(J)
    return m


# ----------------------------------------------------------------------------------------------
# Roundabout: a one-lane ring (lane centre radius 20 m) with four two-lane arms 1 km long, yield on entry

RB_LANE = 3.5
RB_WALK = 3.0
RB_RC = 20.0                   # ring lane centre radius
RB_REF = RB_RC - RB_LANE / 2   # ring reference line (inner edge of the lane)
RB_RF = 12.0                   # entry / exit fillet radius of the lane centre
RB_ARM0 = 32.0                 # arms start this far from the centre
# Arms 1 km long: 100 vehicles fit at the spawn spacing of 20 m from 260 m on (13 points a lane),
# but a one-lane ring serves about 2 400 entering vehicles an hour (HCM 2010 equation 21-1,
# docs/traffic.md "The roundabout's size"), and 100 vehicles that turn round at the arms' ends
# bring it 100 x 3600 / (their round trip, 2 arms + the ring at ~9.7 m/s): 1 700 an hour with
# 1 km arms, 2 100 with 800 m, 6 000 with 260 m (where it gridlocked).
RB_ARM = 1000.0


def rb_fillet():
    """The entry fillet, in the frame of an arm along +x: the arc (radius RB_RF, at the lane
    centre) that is tangent to the inbound lane's centre line y = +lane/2 and externally tangent
    to the ring lane's centre circle. Returns the arc start's x on the axis and the ring angle at
    which it meets the ring."""
    cy = RB_LANE / 2 + RB_RF
    cx = math.sqrt((RB_RC + RB_RF) ** 2 - cy ** 2)
    return cx, math.atan2(cy, cx)


def rb_lanes(kind, walk):
    """Lanes of a ring road ('ring': marked) or of a connecting road ('conn': unmarked): lane -1
    driving, and lane -2 sidewalk when walk."""
    mk = SOLID_WHITE if kind == "ring" else NO_MARK
    lanes = [centre(mk), lane(-1, "driving", RB_LANE, mk)]
    if walk:
        lanes.append(lane(-2, "sidewalk", RB_WALK, WALK_MARK, height=(KERB, KERB)))
    return lanes


def build_roundabout():
    m = Map("roundabout", 48.99, 8.37)
    xc, alpha = rb_fillet()
    # connector reference lines run on the left of their lane (lane -1), so the fillet's
    # reference radius is RB_RF + lane/2 and it starts on the arm's axis at x = xc
    rf_ref = RB_RF + RB_LANE / 2
    turn = 0.5 * math.pi - alpha
    arms, rings = [], []
    for k in range(4):
        phi = 0.5 * math.pi * k
        r = Road(m.next_id("road", 1), "Arm_%d" % k)
        r.set_plan(Plan(RB_ARM0 * math.cos(phi), RB_ARM0 * math.sin(phi), phi).line(RB_ARM))
        h = (KERB, KERB)
        r.sections = [Section(0.0, [lane(2, "sidewalk", RB_WALK, WALK_MARK, height=h),
                                    lane(1, "driving", RB_LANE, SOLID_WHITE), centre(BROKEN_WHITE),
                                    lane(-1, "driving", RB_LANE, SOLID_WHITE),
                                    lane(-2, "sidewalk", RB_WALK, WALK_MARK, height=h)])]
        arms.append(r)
    for k in range(4):
        # ring road k: counter-clockwise from junction k to junction k+1
        a0 = 0.5 * math.pi * k + alpha
        a1 = 0.5 * math.pi * (k + 1) - alpha
        r = Road(m.next_id("road", 1), "Ring_%d" % k)
        r.speed = 30.0
        r.set_plan(Plan(RB_REF * math.cos(a0), RB_REF * math.sin(a0), a0 + 0.5 * math.pi)
                   .arc(1 / RB_REF, RB_REF * (a1 - a0)))
        r.sections = [Section(0.0, rb_lanes("ring", True))]
        rings.append(r)
    for k in range(4):
        phi = 0.5 * math.pi * k
        arm, ring_in, ring_out = arms[k], rings[k - 1], rings[k]
        j = Junction(m.next_id("junction", 1000), "Roundabout_%d" % k)
        arm.pred = Link("junction", j.id)
        ring_in.succ = Link("junction", j.id)
        ring_out.pred = Link("junction", j.id)
        # entry: from the arm's inbound lane (1) turning right onto the ring
        ch, sh = math.cos(phi), math.sin(phi)
        entry = Road(m.next_id("road", 1), "Entry_%d" % k, junction=j.id)
        entry.speed = 30.0
        entry.set_plan(Plan(RB_ARM0 * ch, RB_ARM0 * sh, phi + math.pi).line(RB_ARM0 - xc)
                       .arc(-1 / rf_ref, rf_ref * turn))
        entry.sections = [Section(0.0, rb_lanes("conn", True))]
        entry.sections[0].lanes[-1].pred, entry.sections[0].lanes[-1].succ = 1, -1
        entry.sections[0].lanes[-2].pred, entry.sections[0].lanes[-2].succ = 2, -2
        entry.pred, entry.succ = Link("road", arm.id, "start"), Link("road", ring_out.id, "start")
        # through: the ring across the arm's mouth
        thru = Road(m.next_id("road", 1), "Ring_through_%d" % k, junction=j.id)
        thru.speed = 30.0
        a0 = phi - alpha
        thru.set_plan(Plan(RB_REF * math.cos(a0), RB_REF * math.sin(a0), a0 + 0.5 * math.pi)
                      .arc(1 / RB_REF, RB_REF * 2 * alpha))
        thru.sections = [Section(0.0, rb_lanes("conn", False))]
        thru.sections[0].lanes[-1].pred = thru.sections[0].lanes[-1].succ = -1
        thru.pred, thru.succ = Link("road", ring_in.id, "end"), Link("road", ring_out.id, "start")
        # exit: the mirror image of the entry, from the ring onto the arm's outbound lane (-1)
        ex = Road(m.next_id("road", 1), "Exit_%d" % k, junction=j.id)
        ex.speed = 30.0
        ex.set_plan(Plan(RB_REF * math.cos(a0), RB_REF * math.sin(a0), a0 + 0.5 * math.pi)
                    .arc(-1 / rf_ref, rf_ref * turn).line(RB_ARM0 - xc))
        ex.sections = [Section(0.0, rb_lanes("conn", True))]
        for i in (-1, -2):
            ex.sections[0].lanes[i].pred = ex.sections[0].lanes[i].succ = i
        ex.pred, ex.succ = Link("road", ring_in.id, "end"), Link("road", arm.id, "start")
        j.connections = [Connection(0, arm.id, entry.id, "start", [(1, -1), (2, -2)]),
                         Connection(1, ring_in.id, thru.id, "start", [(-1, -1)]),
                         Connection(2, ring_in.id, ex.id, "start", [(-1, -1), (-2, -2)])]
        m.roads += [entry, thru, ex]
        m.junctions.append(j)
        # yield to the ring: sign at the junction boundary, crossing 8 m out
        arm.signals.append(dict(id=m.next_id("signal", 3000), name="Signal_Yield", s=1.0, t=RB_LANE + 0.5,
                                zOffset=0.0, hOffset=0.0, dynamic="no", orientation="-", country="DE",
                                type="205", subtype="-1", height=2.0, width=0.9, validity=(1, 1)))
        crosswalk(m, arm, 8.0)
    m.roads = arms + rings + m.roads
    return m


# ----------------------------------------------------------------------------------------------
# Writing

def sample_road(road, step=2.0):
    """(s, section index) every <= step metres over each section, both ends included."""
    for i, sec in enumerate(road.sections):
        s0, s1 = sec.s, section_end(road, i)
        n = max(1, int(math.ceil((s1 - s0) / step)))
        for k in range(n + 1):
            yield s0 + (s1 - s0) * k / n, i


def bounds(m):
    xs, ys = [], []
    for r in m.roads:
        for s, i in sample_road(r, 5.0):
            sec = r.sections[i]
            for side in ("left", "right"):
                ids = sec.ids(side)
                lid = ids[-1] if ids else 0
                x, y, _, _ = lane_point(r, sec, lid, s, "outer")
                xs.append(x)
                ys.append(y)
    return max(ys), min(ys), max(xs), min(xs)


def attrs(**kw):
    return " ".join('%s="%s"' % (k, fmt(v) if isinstance(v, float) else v) for k, v in kw.items())


def rec_xml(tag, recs, names=("a", "b", "c", "d")):
    out = []
    for r in recs:
        out.append("<%s s=\"%s\" %s/>" % (tag, fmt(r[0]), " ".join('%s="%s"' % (n, fmt(v))
                                                                    for n, v in zip(names, r[1:]))))
    return out


def geom_xml(g):
    head = "<geometry %s>" % attrs(s=float(g.s), x=float(g.x), y=float(g.y), hdg=float(g.hdg), length=float(g.length))
    p = g.p
    if g.kind == "line":
        body = "<line/>"
    elif g.kind == "arc":
        body = "<arc curvature=\"%s\"/>" % fmt(p["curvature"])
    elif g.kind == "spiral":
        body = "<spiral curvStart=\"%s\" curvEnd=\"%s\"/>" % (fmt(p["curvStart"]), fmt(p["curvEnd"]))
    elif g.kind == "poly3":
        body = "<poly3 %s/>" % " ".join('%s="%s"' % (k, fmt(p[k])) for k in "abcd")
    else:
        body = "<paramPoly3 %s pRange=\"%s\"/>" % (
            " ".join('%s="%s"' % (k, fmt(p[k])) for k in ("aU", "bU", "cU", "dU", "aV", "bV", "cV", "dV")),
            p["pRange"])
    return head + body + "</geometry>"


def lane_xml(l, ind):
    out = ['%s<lane id="%d" type="%s" level="%s">' % (ind, l.id, l.type, "true" if l.level else "false")]
    if l.id != 0:
        ln = ""
        if l.pred is not None:
            ln += '<predecessor id="%d"/>' % l.pred
        if l.succ is not None:
            ln += '<successor id="%d"/>' % l.succ
        out.append("%s  <link>%s</link>" % (ind, ln) if ln else "%s  <link/>" % ind)
        for w in l.widths:
            out.append('%s  <width sOffset="%s" a="%s" b="%s" c="%s" d="%s"/>' % ((ind,) + tuple(fmt(v) for v in w)))
    for mk in l.marks:
        out.append("%s  <roadMark %s/>" % (ind, attrs(**mk)))
    if l.height:
        out.append('%s  <height sOffset="0" inner="%s" outer="%s"/>' % (ind, fmt(l.height[0]), fmt(l.height[1])))
    out.append("%s</lane>" % ind)
    return out


def link_xml(tag, ln):
    if ln.etype == "junction":
        return '<%s elementType="junction" elementId="%d"/>' % (tag, ln.eid)
    return '<%s elementType="road" elementId="%d" contactPoint="%s"/>' % (tag, ln.eid, ln.contact)


def road_xml(r):
    out = ['  <road name="%s" length="%s" id="%d" junction="%d" rule="RHT">' % (r.name, fmt(r.length), r.id, r.junction)]
    ln = (link_xml("predecessor", r.pred) if r.pred else "") + (link_xml("successor", r.succ) if r.succ else "")
    out.append("    <link>%s</link>" % ln if ln else "    <link/>")
    out.append('    <type s="0" type="%s"><speed max="%s" unit="km/h"/></type>' % (r.rtype, fmt(r.speed)))
    out.append("    <planView>")
    out += ["      " + geom_xml(g) for g in r.geoms]
    out.append("    </planView>")
    out.append("    <elevationProfile>")
    out += ["      " + x for x in rec_xml("elevation", r.elevation)]
    out.append("    </elevationProfile>")
    if r.superelevation:
        out.append("    <lateralProfile>")
        out += ["      " + x for x in rec_xml("superelevation", r.superelevation)]
        out.append("    </lateralProfile>")
    else:
        out.append("    <lateralProfile/>")
    out.append("    <lanes>")
    out += ["      " + x for x in rec_xml("laneOffset", r.lane_offsets)]
    for sec in r.sections:
        out.append('      <laneSection s="%s">' % fmt(sec.s))
        for side in ("left", "center", "right"):
            if side == "center":
                ids = [0]
            elif side == "left":
                ids = sorted((i for i in sec.lanes if i > 0), reverse=True)
            else:
                ids = sorted((i for i in sec.lanes if i < 0), reverse=True)
            if not ids:
                continue
            out.append("        <%s>" % side)
            for i in ids:
                out += lane_xml(sec.lanes[i], "          ")
            out.append("        </%s>" % side)
        out.append("      </laneSection>")
    out.append("    </lanes>")
    if r.objects:
        out.append("    <objects>")
        for o in r.objects:
            out.append("      <object %s>" % attrs(id=o["id"], type=o["type"], name=o["name"], s=float(o["s"]),
                                               t=float(o["t"]), zOffset=float(o["zOffset"]), hdg=float(o["hdg"]),
                                               orientation=o["orientation"], length=float(o["length"]),
                                               width=float(o["width"])))
            out.append("        <outline>")
            for u, v in o["corners"]:
                out.append('          <cornerLocal u="%s" v="%s" z="0" height="0"/>' % (fmt(u), fmt(v)))
            out.append("        </outline>")
            out.append("      </object>")
        out.append("    </objects>")
    else:
        out.append("    <objects/>")
    if r.signals or r.refs:
        out.append("    <signals>")
        for g in r.signals:
            extra = ' value="%s" unit="%s"' % (fmt(g["value"]), g["unit"]) if "value" in g else ""
            out.append("      <signal %s%s>" % (attrs(s=float(g["s"]), t=float(g["t"]), id=g["id"], name=g["name"],
                                                  dynamic=g["dynamic"], orientation=g["orientation"],
                                                  zOffset=float(g["zOffset"]), hOffset=float(g["hOffset"]),
                                                  country=g["country"], type=g["type"], subtype=g["subtype"],
                                                  height=float(g["height"]), width=float(g["width"])), extra))
            out.append('        <validity fromLane="%d" toLane="%d"/>' % g["validity"])
            out.append("      </signal>")
        for g in r.refs:
            out.append("      <signalReference %s>" % attrs(id=g["id"], s=float(g["s"]), t=0.0,
                                                        orientation=g["orientation"]))
            out.append('        <validity fromLane="%d" toLane="%d"/>' % g["validity"])
            out.append("      </signalReference>")
        out.append("    </signals>")
    else:
        out.append("    <signals/>")
    out.append("  </road>")
    return out


def map_xml(m):
    north, south, east, west = bounds(m)
    geo = ("+proj=tmerc +lat_0=%s +lon_0=%s +k=1 +x_0=0 +y_0=0 +datum=WGS84 +units=m "
           "+geoidgrids=egm96_15.gtx +vunits=m +no_defs " % (repr(m.lat), repr(m.lon)))
    out = ['<?xml version="1.0" encoding="UTF-8"?>', "<OpenDRIVE>",
           '  <header revMajor="1" revMinor="6" name="%s" version="1.0" north="%s" south="%s" east="%s" '
           'west="%s" vendor="sensim mapgen">' % (m.name, fmt(north), fmt(south), fmt(east), fmt(west)),
           "    <geoReference><![CDATA[%s]]></geoReference>" % geo,
           "  </header>"]
    for r in m.roads:
        out += road_xml(r)
    for c in m.controllers:
        out.append('  <controller id="%d" name="%s" sequence="0">' % (c.id, c.name))
        out += ['    <control signalId="%d" type="0"/>' % s for s in c.signals]
        out.append("  </controller>")
    for j in m.junctions:
        out.append('  <junction id="%d" name="%s">' % (j.id, j.name))
        for c in j.connections:
            out.append('    <connection id="%d" incomingRoad="%d" connectingRoad="%d" contactPoint="%s">'
                       % (c.id, c.incoming, c.connecting, c.contact))
            out += ['      <laneLink from="%d" to="%d"/>' % lk for lk in c.links]
            out.append("    </connection>")
        out += ['    <controller id="%d" type="0"/>' % c for c in j.controllers]
        out.append("  </junction>")
    out.append("</OpenDRIVE>")
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------------------------
# Reading a file back (for --check and --summary): into the same classes

def load(path):
    root = ET.parse(path).getroot()
    hd = root.find("header")
    m = Map(hd.get("name"), 0, 0)
    m.header = dict(hd.attrib)
    gr = hd.find("geoReference")
    m.header["geoReference"] = (gr.text or "") if gr is not None else ""
    f = lambda e, k, d=0.0: float(e.get(k, d))  # noqa: E731
    for re_ in root.findall("road"):
        r = Road(int(re_.get("id")), re_.get("name"), int(re_.get("junction", "-1")))
        r.length = f(re_, "length")
        ln = re_.find("link")
        if ln is not None:
            for tag in ("predecessor", "successor"):
                e = ln.find(tag)
                if e is not None:
                    v = Link(e.get("elementType"), int(e.get("elementId")), e.get("contactPoint"))
                    setattr(r, "pred" if tag == "predecessor" else "succ", v)
        ty = re_.find("type")
        if ty is not None:
            r.rtype = ty.get("type")
            sp = ty.find("speed")
            r.speed = f(sp, "max") if sp is not None else 0.0
        for g in re_.find("planView").findall("geometry"):
            kind_e = list(g)[0]
            p = {k: (v if k == "pRange" else float(v)) for k, v in kind_e.attrib.items()}
            if kind_e.tag == "paramPoly3":
                p.setdefault("pRange", "normalized")
            r.geoms.append(Geom(kind_e.tag, f(g, "s"), f(g, "x"), f(g, "y"), f(g, "hdg"), f(g, "length"), p))
        cubic_recs = lambda parent, tag, skey="s": [  # noqa: E731
            (f(e, skey), f(e, "a"), f(e, "b"), f(e, "c"), f(e, "d")) for e in parent.findall(tag)] \
            if parent is not None else []
        r.elevation = cubic_recs(re_.find("elevationProfile"), "elevation")
        r.superelevation = cubic_recs(re_.find("lateralProfile"), "superelevation")
        lanes_e = re_.find("lanes")
        r.lane_offsets = cubic_recs(lanes_e, "laneOffset")
        for se in lanes_e.findall("laneSection"):
            lanes = []
            for side in ("left", "center", "right"):
                sd = se.find(side)
                if sd is None:
                    continue
                for le in sd.findall("lane"):
                    l = Lane(int(le.get("id")), le.get("type"), level=le.get("level") == "true")
                    lk = le.find("link")
                    if lk is not None:
                        if lk.find("predecessor") is not None:
                            l.pred = int(lk.find("predecessor").get("id"))
                        if lk.find("successor") is not None:
                            l.succ = int(lk.find("successor").get("id"))
                    l.widths = cubic_recs(le, "width", "sOffset")
                    l.marks = [dict(e.attrib) for e in le.findall("roadMark")]
                    h = le.find("height")
                    if h is not None:
                        l.height = (f(h, "inner"), f(h, "outer"))
                    lanes.append(l)
            r.sections.append(Section(f(se, "s"), lanes))
        for oe in re_.iter("object"):
            o = dict(oe.attrib)
            o["corners"] = [(f(c, "u"), f(c, "v")) for c in oe.iter("cornerLocal")]
            r.objects.append(o)
        for sg in re_.iter("signal"):
            d = dict(sg.attrib)
            d["validity"] = [(int(v.get("fromLane")), int(v.get("toLane"))) for v in sg.findall("validity")]
            r.signals.append(d)
        m.roads.append(r)
    for ce in root.findall("controller"):
        m.controllers.append(Controller(int(ce.get("id")), ce.get("name"),
                                        [int(c.get("signalId")) for c in ce.findall("control")]))
    for je in root.findall("junction"):
        j = Junction(int(je.get("id")), je.get("name"))
        for c in je.findall("connection"):
            j.connections.append(Connection(int(c.get("id")), int(c.get("incomingRoad")), int(c.get("connectingRoad")),
                                            c.get("contactPoint"),
                                            [(int(l.get("from")), int(l.get("to"))) for l in c.findall("laneLink")]))
        j.controllers = [int(c.get("id")) for c in je.findall("controller")]
        m.junctions.append(j)
    return m


# ----------------------------------------------------------------------------------------------
# Checking

GAP = 1e-3     # m
ANGLE = 1e-3   # rad
DRIVING = {"driving", "onRamp", "offRamp", "entry", "exit"}


def check(m, stats=None):
    """Every failure as a line of text; [] when the map is consistent. stats (a dict), if given,
    receives the number of lane joints compared and the largest gap and heading jump seen."""
    bad = []
    st = stats if stats is not None else {}
    st.update(joints=0, gap=0.0, turn=0.0)
    roads = {}
    for r in m.roads:
        if r.id in roads:
            bad.append("road %d: duplicate id" % r.id)
        roads[r.id] = r
    juncs = {j.id: j for j in m.junctions}
    if len(juncs) != len(m.junctions):
        bad.append("duplicate junction id")
    ctrls = {c.id: c for c in m.controllers}
    sigs, objs = {}, set()
    for r in m.roads:
        for g in r.signals:
            sid = int(g["id"])
            if sid in sigs:
                bad.append("signal %d: duplicate id" % sid)
            sigs[sid] = (r, g)
        for o in r.objects:
            if int(o["id"]) in objs:
                bad.append("object %s: duplicate id" % o["id"])
            objs.add(int(o["id"]))

    def end_s(r, contact):
        return 0.0 if contact == "start" else r.length

    def end_sec(r, contact):
        return r.sections[0] if contact == "start" else r.sections[-1]

    def compare(what, ra, ca, la, rb, cb, lb):
        """Lane la of road ra at its end ca against lane lb of rb at cb: same point, same
        heading (opposite when both are starts or both ends)."""
        sa, sb = end_sec(ra, ca), end_sec(rb, cb)
        if la not in sa.lanes:
            bad.append("%s: road %d has no lane %d at its %s" % (what, ra.id, la, ca))
            return
        if lb not in sb.lanes:
            bad.append("%s: road %d has no lane %d at its %s" % (what, rb.id, lb, cb))
            return
        pa = lane_point(ra, sa, la, end_s(ra, ca))
        pb = lane_point(rb, sb, lb, end_s(rb, cb))
        gap = math.dist(pa[:3], pb[:3])
        turn = abs(wrap(pa[3] - pb[3] - (math.pi if ca == cb else 0.0)))
        st["joints"] += 1
        st["gap"], st["turn"] = max(st["gap"], gap), max(st["turn"], turn)
        if gap >= GAP:
            bad.append("%s: road %d lane %d (%s) to road %d lane %d (%s): gap %.6f m"
                       % (what, ra.id, la, ca, rb.id, lb, cb, gap))
        if turn >= ANGLE:
            bad.append("%s: road %d lane %d (%s) to road %d lane %d (%s): heading jumps %.6f rad"
                       % (what, ra.id, la, ca, rb.id, lb, cb, turn))

    for r in m.roads:
        where = "road %d" % r.id
        # plan view: pieces abut, lengths add up
        if not r.geoms:
            bad.append(where + ": no geometry")
            continue
        if abs(r.geoms[0].s) > 1e-6:
            bad.append(where + ": first geometry does not start at s=0")
        for g0, g1 in zip(r.geoms, r.geoms[1:]):
            x, y, h = g0.eval(g0.length)
            if abs(g0.s + g0.length - g1.s) > 1e-6:
                bad.append(where + ": geometry at s=%g: s does not follow on" % g1.s)
            if math.hypot(x - g1.x, y - g1.y) >= GAP or abs(wrap(h - g1.hdg)) >= ANGLE:
                bad.append(where + ": geometry at s=%g does not start where the previous ends (gap %.6f m, %.6f rad)"
                           % (g1.s, math.hypot(x - g1.x, y - g1.y), abs(wrap(h - g1.hdg))))
        g = r.geoms[-1]
        if abs(g.s + g.length - r.length) > 1e-6:
            bad.append(where + ": geometry lengths add to %.9f, road length %.9f" % (g.s + g.length, r.length))
        # lanes: ids without holes, a centre lane, widths given, sections in order
        if not r.sections or abs(r.sections[0].s) > 1e-9:
            bad.append(where + ": first lane section does not start at 0")
        for i, sec in enumerate(r.sections):
            if 0 not in sec.lanes:
                bad.append(where + ": section %d has no centre lane" % i)
            for side in ("left", "right"):
                ids = [abs(x) for x in sec.ids(side)]
                if ids != list(range(1, len(ids) + 1)):
                    bad.append(where + ": section %d: %s lane ids have holes %s" % (i, side, ids))
            for lid, l in sec.lanes.items():
                if lid != 0 and not l.widths:
                    bad.append(where + ": lane %d has no width" % lid)
            if i + 1 < len(r.sections) and not sec.s < r.sections[i + 1].s < r.length:
                bad.append(where + ": lane sections out of order")
        # lane links between consecutive sections
        for i in range(len(r.sections) - 1):
            a, b = r.sections[i], r.sections[i + 1]
            s = b.s
            for lid, l in a.lanes.items():
                if lid == 0 or l.succ is None:
                    continue
                if l.succ not in b.lanes:
                    bad.append(where + ": section %d lane %d: successor lane %d missing" % (i, lid, l.succ))
                    continue
                if b.lanes[l.succ].pred != lid:
                    bad.append(where + ": section %d lane %d: successor %d does not name it back" % (i, lid, l.succ))
                pa, pb = lane_point(r, a, lid, s), lane_point(r, b, l.succ, s)
                st["joints"] += 1
                st["gap"] = max(st["gap"], math.dist(pa[:3], pb[:3]))
                st["turn"] = max(st["turn"], abs(wrap(pa[3] - pb[3])))
                if math.dist(pa[:3], pb[:3]) >= GAP or abs(wrap(pa[3] - pb[3])) >= ANGLE:
                    bad.append(where + ": section boundary s=%g: lane %d -> %d breaks (%.6f m)"
                               % (s, lid, l.succ, math.dist(pa[:3], pb[:3])))
            for lid, l in b.lanes.items():
                if lid != 0 and l.pred is not None and l.pred not in a.lanes:
                    bad.append(where + ": section %d lane %d: predecessor lane %d missing" % (i + 1, lid, l.pred))
        # road links
        for contact, ln in (("start", r.pred), ("end", r.succ)):
            sec = end_sec(r, contact)
            attr = "pred" if contact == "start" else "succ"
            if ln is None:
                for lid, l in sec.lanes.items():
                    if getattr(l, attr) is not None:
                        bad.append(where + ": lane %d links at the road's %s, the road does not" % (lid, contact))
                continue
            if ln.etype == "junction":
                j = juncs.get(ln.eid)
                if j is None:
                    bad.append(where + ": %s links to missing junction %d" % (contact, ln.eid))
                    continue
                used = any(c.incoming == r.id for c in j.connections) or any(
                    (roads.get(c.connecting) is not None and
                     any(x is not None and x.etype == "road" and x.eid == r.id
                         for x in (roads[c.connecting].pred, roads[c.connecting].succ)))
                    for c in j.connections)
                if not used:
                    bad.append(where + ": links to junction %d, which never uses it" % j.id)
                continue
            if ln.etype != "road" or ln.contact not in ("start", "end"):
                bad.append(where + ": %s link malformed" % contact)
                continue
            o = roads.get(ln.eid)
            if o is None:
                bad.append(where + ": %s links to missing road %d" % (contact, ln.eid))
                continue
            back = o.pred if ln.contact == "start" else o.succ
            if back is None or not ((back.etype == "road" and back.eid == r.id and back.contact == contact) or
                                    (back.etype == "junction" and back.eid == r.junction)):
                bad.append(where + ": road %d (%s) does not link back" % (o.id, ln.contact))
            linked = False
            for lid, l in sec.lanes.items():
                target = getattr(l, attr)
                if lid == 0 or target is None:
                    continue
                linked = True
                compare("link", r, contact, lid, o, ln.contact, target)
            if not linked and r.junction >= 0:
                bad.append(where + ": connecting road with no lane linked at its %s" % contact)
        # signals and objects sit on the road and name its lanes
        for g in r.signals:
            s = float(g["s"])
            if not -1e-9 <= s <= r.length + 1e-9:
                bad.append(where + ": signal %s off the road (s=%g)" % (g["id"], s))
            sec = r.sections[section_index(r, s, False)]
            for fr, to in g["validity"]:
                for x in (fr, to):
                    if x not in sec.lanes:
                        bad.append(where + ": signal %s validity names missing lane %d" % (g["id"], x))
        for o in r.objects:
            if not -1e-9 <= float(o["s"]) <= r.length + 1e-9:
                bad.append(where + ": object %s off the road" % o["id"])

    for j in m.junctions:
        where = "junction %d" % j.id
        for c in j.connections:
            inc, con = roads.get(c.incoming), roads.get(c.connecting)
            if inc is None or con is None:
                bad.append(where + ": connection %d names a missing road" % c.id)
                continue
            if con.junction != j.id:
                bad.append(where + ": connecting road %d is not in the junction" % con.id)
            ends = [e for e, ln in (("start", inc.pred), ("end", inc.succ))
                    if ln is not None and ln.etype == "junction" and ln.eid == j.id]
            if len(ends) != 1:
                bad.append(where + ": incoming road %d touches the junction at %d ends" % (inc.id, len(ends)))
                continue
            ce = ends[0]
            cl = con.pred if c.contact == "start" else con.succ
            if cl is None or cl.etype != "road" or cl.eid != inc.id or cl.contact != ce:
                bad.append(where + ": connecting road %d's %s does not link to road %d's %s"
                           % (con.id, c.contact, inc.id, ce))
            if not c.links:
                bad.append(where + ": connection %d has no laneLink" % c.id)
            sec = end_sec(con, c.contact)
            # the connecting road's lanes that leave this contact point: all must be linked
            leaving = sec.ids("right" if c.contact == "start" else "left")
            listed = {to for _, to in c.links}
            for lid in leaving:
                if lid not in listed:
                    bad.append(where + ": connection %d lists no laneLink to lane %d of road %d" % (c.id, lid, con.id))
            attr = "pred" if c.contact == "start" else "succ"
            for fr, to in c.links:
                if to in sec.lanes and getattr(sec.lanes[to], attr) not in (None, fr):
                    bad.append(where + ": connection %d laneLink %d->%d disagrees with road %d's lane link"
                               % (c.id, fr, to, con.id))
                compare(where + " connection %d" % c.id, inc, ce, fr, con, c.contact, to)
        for cid in j.controllers:
            if cid not in ctrls:
                bad.append(where + ": controller %d missing" % cid)
    for c in m.controllers:
        for sid in c.signals:
            if sid not in sigs:
                bad.append("controller %d: signal %d missing" % (c.id, sid))
    return bad


# ----------------------------------------------------------------------------------------------
# Summary

def lane_length(road, i, lane_id):
    """Plan-view length of a lane's centre over section i: the integral of
    |d(centre)/ds| = hypot(1 - curvature * t, dt/ds), piecewise between geometry pieces and
    lane-offset records (where curvature or t' may jump), by Simpson's rule."""
    sec = road.sections[i]
    s0, s1 = sec.s, section_end(road, i)
    cuts = {s0, s1} | {g.s for g in road.geoms if s0 < g.s < s1} | {r[0] for r in road.lane_offsets if s0 < r[0] < s1}
    cuts = sorted(cuts)
    total = 0.0
    for a, b in zip(cuts, cuts[1:]):
        g = geom_at(road, 0.5 * (a + b))

        def speed(s):
            ti, to, dti, dto = lane_span(road, sec, lane_id, s)
            t, dt = 0.5 * (ti + to), 0.5 * (dti + dto)
            return math.hypot(1 - g.curvature(s - g.s) * t, dt)
        total += simpson(speed, a, b, 64)
    return total


def summary(m):
    lanes = driving = 0
    km = 0.0
    for r in m.roads:
        for i, sec in enumerate(r.sections):
            ids = [x for x in sec.lanes if x != 0]
            lanes += len(ids)
            drive = [x for x in ids if sec.lanes[x].type in DRIVING]
            driving += len(drive)
            km += sum(lane_length(r, i, x) for x in drive) / 1000.0
    conn = sum(1 for r in m.roads if r.junction >= 0)
    sig = sum(len(r.signals) for r in m.roads)
    obj = sum(len(r.objects) for r in m.roads)
    return ("%s: %d roads (%d connecting), %d junctions, %d lanes (%d driving) in %d lane sections, "
            "%.3f km of driving lane (driving and ramp lanes, along their centres), %d signals, %d controllers, %d objects"
            % (m.header.get("name", m.name), len(m.roads), conn, len(m.junctions), lanes, driving,
               sum(len(r.sections) for r in m.roads), km, sig, len(m.controllers), obj))


# ----------------------------------------------------------------------------------------------

BUILDERS = (("town", build_town), ("highway", build_highway), ("roundabout", build_roundabout),
            ("signals", build_signals))


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.normpath(os.path.join(here, "..", "..", "maps")))
    ap.add_argument("--check", action="store_true", help="check FILEs (or the maps in --out)")
    ap.add_argument("--summary", action="store_true", help="summarise FILEs (or the maps in --out)")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args(argv)
    if not (a.check or a.summary):
        os.makedirs(a.out, exist_ok=True)
        for name, build in BUILDERS:
            path = os.path.join(a.out, name + ".xodr")
            with open(path, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(map_xml(build()))
            print("wrote " + path)
        return 0
    files = a.files or [os.path.join(a.out, n + ".xodr") for n, _ in BUILDERS]
    rc = 0
    for path in files:
        m = load(path)
        if a.check:
            st = {}
            bad = check(m, st)
            if bad:
                rc = 1
                print("%s: %d failure(s)" % (path, len(bad)))
                for b in bad:
                    print("  " + b)
            else:
                print("%s: ok: %d lane joints, largest gap %.2e m, largest heading jump %.2e rad"
                      % (path, st["joints"], st["gap"], st["turn"]))
        if a.summary:
            print(summary(m))
    return rc


if __name__ == "__main__":
    sys.exit(main())
