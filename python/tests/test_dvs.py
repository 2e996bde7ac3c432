"""DVS events and labels as structured arrays (scenes/dvs.yaml: a car crossing at 12 m/s)."""
import os
import struct

import numpy as np

import sensim


def test_events_layout(dvs_dir):
    msgs = sensim.read_all(os.path.join(dvs_dir, "dvs_sub.msgpack"))
    assert msgs
    dt_ns = 50_000_000
    total = 0
    for m in msgs:
        ev = sensim.events(m)
        assert ev.dtype.itemsize == 13 and len(ev) == len(m["events"]) // 13 > 0
        assert not ev.flags.owndata
        # against a decoder of the documented bytes, on the first and last record
        for i in (0, len(ev) - 1):
            x, y, t, pol = struct.unpack_from("<HHqB", m["events"], 13 * i)
            assert (ev["x"][i], ev["y"][i], ev["t"][i], ev["pol"][i]) == (x, y, t, pol)
        assert (ev["x"] < m["width"]).all() and (ev["y"] < m["height"]).all()
        assert set(np.unique(ev["pol"])) <= {0, 1}
        assert (np.diff(ev["t"]) >= 0).all()  # ordered by time
        # inside the frame that made them: (previous tick, this tick]
        assert ev["t"].min() >= (m["frame"] - 1) * dt_ns and ev["t"].max() <= m["frame"] * dt_ns
        total += len(ev)
    assert total > 1000


def test_labels_name_the_car(dvs_dir):
    msgs = sensim.read_all(os.path.join(dvs_dir, "dvs_sub.msgpack"))
    car = 3  # ground 1, wall 2, car 3: scene order
    for m in msgs:
        ev, lab = sensim.events(m), sensim.labels(m)
        assert len(lab) == len(ev) and lab.dtype.itemsize == 5
        assert set(np.unique(lab["id"])) <= {1, 2, car}
        assert (lab["tag"][lab["id"] == car] == 14).all()  # Car
        assert (lab["id"] == car).sum() > len(lab) // 2  # the moving car makes most events
    plain = sensim.read_all(os.path.join(dvs_dir, "dvs.msgpack"))
    assert "labels" not in plain[0]
