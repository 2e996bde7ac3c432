#!/usr/bin/env python3
"""tile_xodr.py — K copies of an OpenDRIVE map side by side, for traffic's growth at a constant density.

    python3 tools/tile_xodr.py IN.xodr K OUT.xodr

Copy i is moved by i times the map's width in x plus 100 m, and every road, junction, signal,
controller and object id in it is offset by 100000 * i; the copies are not connected. K * N cars
on the tiled map have the cars per lane-km, roads and junctions of N cars on one copy, so the
frame's cost at 100 K cars against 100 on the map is its growth as a city grows, without the
denser jam that more cars on one map also bring (bench_traffic hybrid with
SENSIM_BENCH_BIGMAP=OUT.xodr SENSIM_BENCH_ONLY=N; docs/performance.md, tm50). Lane ids and
lane links are not ids of the network and stay as they are.
"""
import copy
import sys
import xml.etree.ElementTree as ET

OFF = 100000
ID_ATTRS = {('road', 'id'), ('road', 'junction'), ('predecessor', 'elementId'), ('successor', 'elementId'),
            ('connection', 'incomingRoad'), ('connection', 'connectingRoad'), ('junction', 'id'),
            ('signal', 'id'), ('signalReference', 'id'), ('control', 'signalId'), ('controller', 'id'),
            ('object', 'id'), ('objectReference', 'id'), ('bridge', 'id'), ('tunnel', 'id')}


def shift(node, i, dx):
    """Copy i of node: its network ids offset, its reference line moved by i * dx in x."""
    for e in node.iter():
        for a in list(e.attrib):
            if (e.tag, a) not in ID_ATTRS:
                continue
            try:
                v = int(e.get(a))
            except ValueError:
                continue  # a named id: left as it is (Town04's are numbers)
            if v >= 0:  # a road's junction="-1": in no junction
                e.set(a, str(v + i * OFF))
        if e.tag == 'geometry':
            e.set('x', repr(float(e.get('x')) + i * dx))


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    src, k, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    tree = ET.parse(src)
    root = tree.getroot()
    xs = [float(g.get('x')) for g in root.iter('geometry')]
    dx = (max(xs) - min(xs)) + 100.0
    top = [c for c in root if c.tag in ('road', 'junction', 'controller')]
    for i in range(1, k):
        for c in top:
            n = copy.deepcopy(c)
            shift(n, i, dx)
            root.append(n)
    hdr = root.find('header')
    if hdr is not None and hdr.get('east') is not None:
        hdr.set('east', repr(float(hdr.get('east')) + (k - 1) * dx))
    tree.write(out, encoding='utf-8', xml_declaration=True)


if __name__ == '__main__':
    main()
