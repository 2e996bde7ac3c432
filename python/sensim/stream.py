"""A stream file: msgpack maps back to back, read one message at a time."""
import os

import msgpack

# A camera message is one bin of W*H*4 bytes; msgpack's default cap (100 MiB) would refuse
# large images, and a bin cannot exceed 4 GiB anyway.
_MAX_MESSAGE = 2**32 - 1


class StreamError(ValueError):
    """A stream that is not a sequence of complete msgpack maps."""


def read(path, *, partial=False):
    """Yields every message of the stream at `path` as a dict, reading lazily.

    Bins (`raw_data`, `depth`, `events`, ...) are `bytes`; the helpers of this package give
    numpy views of them without copying. A stream whose last message is cut short (a
    `.msgpack.part` left by a crashed run) raises StreamError after the complete messages,
    unless `partial` is true, which ends quietly there instead.
    """
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        unpacker = msgpack.Unpacker(f, raw=False, strict_map_key=False, max_buffer_size=_MAX_MESSAGE)
        end = 0
        for m in unpacker:
            if not isinstance(m, dict):
                raise StreamError(f"{path}: byte {end}: a message is a map, found {type(m).__name__}")
            end = unpacker.tell()
            yield m
        if end != size and not partial:
            raise StreamError(f"{path}: byte {end}: the last message is cut short ({size - end} bytes left)")


def read_all(path, *, partial=False):
    """The whole stream as a list of dicts."""
    return list(read(path, partial=partial))
