"""A small MCAP reader for the tests (no Debian package reads MCAP or protobuf in Python): the
records of an MCAP file (mcap.dev/spec), chunks decompressed with libzstd through ctypes, and
protobuf messages decoded by field number. Independent of the writer (engine/views/mcap_write.c)."""
from __future__ import annotations

import ctypes
import ctypes.util
import struct

MAGIC = b"\x89MCAP0\r\n"


def _zstd(data: bytes, size: int) -> bytes:
    z = ctypes.CDLL(ctypes.util.find_library("zstd") or "libzstd.so.1")
    z.ZSTD_decompress.restype = ctypes.c_size_t
    z.ZSTD_decompress.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t]
    out = ctypes.create_string_buffer(size)
    n = z.ZSTD_decompress(out, size, data, len(data))
    assert n == size, f"zstd gave {n} bytes, the chunk says {size}"
    return out.raw


def _str(b: bytes, o: int):
    n, = struct.unpack_from("<I", b, o)
    return b[o + 4:o + 4 + n].decode(), o + 4 + n


def _records(b: bytes):
    o = 0
    while o < len(b):
        op, n = struct.unpack_from("<BQ", b, o)
        yield op, b[o + 9:o + 9 + n]
        o += 9 + n


def messages(path: str) -> list[dict]:
    """Every message of the file in order: {topic, schema, log_time, data}."""
    with open(path, "rb") as f:
        b = f.read()
    assert b[:8] == MAGIC and b[-8:] == MAGIC, "not an MCAP file"
    schemas, channels, out = {}, {}, []

    def walk(recs):
        for op, c in recs:
            if op == 0x03:  # Schema
                sid, = struct.unpack_from("<H", c, 0)
                name, _ = _str(c, 2)
                schemas[sid] = name
            elif op == 0x04:  # Channel
                cid, sid = struct.unpack_from("<HH", c, 0)
                topic, _ = _str(c, 4)
                channels[cid] = (topic, schemas.get(sid, ""))
            elif op == 0x05:  # Message
                cid, _seq, log_time, _pub = struct.unpack_from("<HIQQ", c, 0)
                topic, schema = channels[cid]
                out.append({"topic": topic, "schema": schema, "log_time": log_time, "data": c[22:]})
            elif op == 0x06:  # Chunk
                _s, _e, usize, _crc = struct.unpack_from("<QQQI", c, 0)
                comp, o = _str(c, 28)
                n, = struct.unpack_from("<Q", c, o)
                data = c[o + 8:o + 8 + n]
                walk(_records(_zstd(data, usize) if comp == "zstd" else data))
            elif op == 0x0F:  # DataEnd: the summary repeats schemas and channels
                return True
        return False

    walk(_records(b[8:-8]))
    return out


def pb(data: bytes) -> dict:
    """A protobuf message as {field: [values]}: varints as int, fixed64 as float (double),
    fixed32 as int, length-delimited as bytes (decode nested messages with pb again)."""
    out: dict = {}
    o = 0

    def varint():
        nonlocal o
        v = s = 0
        while True:
            x = data[o]
            o += 1
            v |= (x & 0x7F) << s
            s += 7
            if x < 0x80:
                return v

    while o < len(data):
        key = varint()
        field, wire = key >> 3, key & 7
        if wire == 0:
            v = varint()
        elif wire == 1:
            v, = struct.unpack_from("<d", data, o)
            o += 8
        elif wire == 5:
            v, = struct.unpack_from("<I", data, o)
            o += 4
        elif wire == 2:
            n = varint()
            v = data[o:o + n]
            o += n
        else:
            raise ValueError(f"wire type {wire}")
        out.setdefault(field, []).append(v)
    return out


def one(m: dict, field: int, default=None):
    v = m.get(field)
    return v[0] if v else default


def duration_ns(b: bytes | None) -> int:
    if not b:
        return 0
    d = pb(b)
    return one(d, 1, 0) * 1_000_000_000 + one(d, 2, 0)


def vec3(b: bytes | None) -> tuple:
    d = pb(b or b"")
    return (one(d, 1, 0.0), one(d, 2, 0.0), one(d, 3, 0.0))


def quat(b: bytes | None) -> tuple:
    d = pb(b or b"")
    return (one(d, 1, 0.0), one(d, 2, 0.0), one(d, 3, 0.0), one(d, 4, 0.0))


def pose(b: bytes | None) -> tuple:
    d = pb(b or b"")
    return vec3(one(d, 1)), quat(one(d, 2))


def rotate(q: tuple, v: tuple) -> tuple:
    x, y, z, w = q
    m = [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
         [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
         [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
    return tuple(sum(m[r][c] * v[c] for c in range(3)) for r in range(3))
