"""A msgpack decoder that leaves bins in place: each `bin` becomes a memoryview slice of the
message buffer, so a camera's pixels or a DVS's events reach numpy without a copy. The
msgpack package copies every bin into a new bytes object, which for a 640x360 camera is 0.9 MB
a frame; the headers around the bins are small, so decoding them in Python costs little.
"""
from __future__ import annotations

import struct

_u16 = struct.Struct(">H").unpack_from
_u32 = struct.Struct(">I").unpack_from
_u64 = struct.Struct(">Q").unpack_from
_i8 = struct.Struct(">b").unpack_from
_i16 = struct.Struct(">h").unpack_from
_i32 = struct.Struct(">i").unpack_from
_i64 = struct.Struct(">q").unpack_from
_f32 = struct.Struct(">f").unpack_from
_f64 = struct.Struct(">d").unpack_from


class MsgpackError(ValueError):
    pass


def unpack(buf: memoryview):
    """The one object in buf (a memoryview of bytes); bins are memoryview slices of buf."""
    obj, end = _obj(buf, 0)
    if end != len(buf):
        raise MsgpackError(f"{len(buf) - end} bytes after the object")
    return obj


def _str(buf, i, n):
    return str(buf[i:i + n], "utf-8"), i + n


def _seq(buf, i, n):
    out = []
    for _ in range(n):
        v, i = _obj(buf, i)
        out.append(v)
    return out, i


def _map(buf, i, n):
    out = {}
    for _ in range(n):
        k, i = _obj(buf, i)
        v, i = _obj(buf, i)
        out[k] = v
    return out, i


def _obj(buf, i):
    try:
        b = buf[i]
    except IndexError:
        raise MsgpackError(f"message cut at byte {i}") from None
    i += 1
    if b <= 0x7F:
        return b, i
    if b >= 0xE0:
        return b - 0x100, i
    if 0xA0 <= b <= 0xBF:
        return _str(buf, i, b & 0x1F)
    if 0x80 <= b <= 0x8F:
        return _map(buf, i, b & 0x0F)
    if 0x90 <= b <= 0x9F:
        return _seq(buf, i, b & 0x0F)
    if b == 0xC0:
        return None, i
    if b == 0xC2:
        return False, i
    if b == 0xC3:
        return True, i
    if b == 0xCB:
        return _f64(buf, i)[0], i + 8
    if b == 0xCA:
        return _f32(buf, i)[0], i + 4
    if b == 0xCC:
        return buf[i], i + 1
    if b == 0xCD:
        return _u16(buf, i)[0], i + 2
    if b == 0xCE:
        return _u32(buf, i)[0], i + 4
    if b == 0xCF:
        return _u64(buf, i)[0], i + 8
    if b == 0xD0:
        return _i8(buf, i)[0], i + 1
    if b == 0xD1:
        return _i16(buf, i)[0], i + 2
    if b == 0xD2:
        return _i32(buf, i)[0], i + 4
    if b == 0xD3:
        return _i64(buf, i)[0], i + 8
    if b in (0xC4, 0xC5, 0xC6):
        if b == 0xC4:
            n, i = buf[i], i + 1
        elif b == 0xC5:
            n, i = _u16(buf, i)[0], i + 2
        else:
            n, i = _u32(buf, i)[0], i + 4
        if i + n > len(buf):
            raise MsgpackError(f"bin of {n} bytes cut at byte {len(buf)}")
        return buf[i:i + n], i + n
    if b == 0xD9:
        return _str(buf, i + 1, buf[i])
    if b == 0xDA:
        return _str(buf, i + 2, _u16(buf, i)[0])
    if b == 0xDB:
        return _str(buf, i + 4, _u32(buf, i)[0])
    if b == 0xDC:
        return _seq(buf, i + 2, _u16(buf, i)[0])
    if b == 0xDD:
        return _seq(buf, i + 4, _u32(buf, i)[0])
    if b == 0xDE:
        return _map(buf, i + 2, _u16(buf, i)[0])
    if b == 0xDF:
        return _map(buf, i + 4, _u32(buf, i)[0])
    raise MsgpackError(f"unsupported msgpack byte 0x{b:02x} at {i - 1}")
