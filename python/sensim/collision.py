"""sensor.other.collision: the events of a stream as one table."""
import numpy as np

from .stream import read

COLLISION_DTYPE = np.dtype([
    ("frame", "<u8"), ("timestamp", "<f8"),
    ("actor_id", "<u4"), ("other_id", "<u4"), ("other_tag", "u1"),
    ("normal_impulse", "<f8", (3,)),  # N s, world frame, summed over the frame's substeps
    ("location", "<f8", (3,)),        # world point of the strongest contact
    ("normal", "<f8", (3,)),          # from other_actor into actor
])


def collisions(source):
    """Every collision event of `source` (a stream path or an iterable of messages) as a
    structured array with one row per event; other_actor's type_id and attributes stay in the
    messages."""
    msgs = read(source) if isinstance(source, (str, bytes)) or hasattr(source, "__fspath__") else source
    rows = []
    for m in msgs:
        if m.get("type") != "sensor.other.collision":
            continue
        rows.append((m["frame"], m["timestamp"], m["actor"]["id"], m["other_actor"]["id"],
                     m["other_actor"]["semantic_tag"], m["normal_impulse"], m["location"], m["normal"]))
    return np.array(rows, COLLISION_DTYPE)
