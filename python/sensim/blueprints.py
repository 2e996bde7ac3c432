"""CARLA's blueprint library: BlueprintLibrary, ActorBlueprint, ActorAttribute (copied out of the engine)."""
from __future__ import annotations

import ctypes
import enum
import fnmatch
from typing import Iterator

import numpy as np

from . import _lib
from ._common import _KIND_SENSOR, _err
from ._lib import check

__all__ = ["BlueprintLibrary", "ActorBlueprint", "ActorAttribute", "ActorAttributeType"]


class ActorAttributeType:
    Bool, Int, Float, String, RGBColor, Enum = "bool", "int", "float", "string", "rgb", "enum"


class _AttrSpec:
    """An attribute definition copied out of the engine (its tables live only as long as it)."""
    __slots__ = ("type", "default", "recommended", "choices", "min", "max", "unit", "doc")

    def __init__(self, d: _lib.AttrDef | None):
        self.type = _lib.lib().sn_attr_type_name(d.type).decode() if d else "string"
        self.default = (d.default or b"").decode() if d else ""
        self.recommended = _strings(d.recommended) if d else []
        self.choices = _strings(d.choices) if d else []
        self.min = d.min if d and d.has_range else None
        self.max = d.max if d and d.has_range else None
        self.unit = (d.unit or b"").decode() if d else ""
        self.doc = (d.doc or b"").decode() if d else "the sensor's name in streams and listen (host's)"


class ActorAttribute:
    """One attribute of a blueprint: id, type, value (a string, CARLA's), recommended_values,
    and, sensim's, choices, min, max, unit, doc."""

    def __init__(self, spec: _AttrSpec, name: str, value: str):
        self.id = name
        self.type = spec.type
        self.recommended_values = list(spec.recommended)
        self.choices = list(spec.choices)
        self.min, self.max = spec.min, spec.max
        self.unit, self.doc = spec.unit, spec.doc
        self.is_modifiable = True
        self.value = value

    def __repr__(self) -> str:
        return f"ActorAttribute(id={self.id}, type={self.type}, value={self.value})"

    def __str__(self) -> str:
        return self.value

    # CARLA's conversions: int(attr), float(attr), bool(attr), attr == "value"
    def __int__(self) -> int:
        return self.as_int()

    def __float__(self) -> float:
        return self.as_float()

    def __bool__(self) -> bool:
        return self.as_bool() if self.type == "bool" else bool(self.value)

    def __eq__(self, o) -> bool:
        if isinstance(o, ActorAttribute):
            return o.id == self.id and o.value == self.value
        if isinstance(o, bool):
            return self.as_bool() == o
        if isinstance(o, (int, float)):
            return self.as_float() == float(o)
        return self.value == str(o)

    def __ne__(self, o) -> bool:
        return not self.__eq__(o)

    __hash__ = None

    def as_bool(self) -> bool:
        return self.value.lower() in ("true", "1")

    def as_int(self) -> int:
        f = float(self.value)
        return int(f)

    def as_float(self) -> float:
        return float(self.value)

    def as_str(self) -> str:
        return self.value

    def as_color(self) -> tuple[int, int, int]:
        return tuple(int(x) for x in self.value.split(","))


def _strings(p) -> list[str]:
    out = []
    if p:
        i = 0
        while p[i]:
            out.append(p[i].decode())
            i += 1
    return out


# sn_rec_type (sensim/records.h) as numpy's little-endian type strings
_REC_TYPES = {1: "u1", 2: "i1", 3: "<u2", 4: "<i2", 5: "<u4", 6: "<i4", 7: "<u8", 8: "<i8", 9: "<f4", 10: "<f8"}


def _record_dtypes(b) -> dict:
    """The record layouts a sensor class declares (SDK 1.6) as {bin key: numpy structured dtype},
    fields at their offsets, itemsize the record's size; units in dtype.metadata["units"]."""
    out = {}
    for i in range(getattr(b, "n_records", 0) if b.struct_size >= ctypes.sizeof(_lib.BlueprintInfo) else 0):
        lay = _lib.RecLayout.from_address(b.records + i * b.rec_layout_size)
        names, formats, offsets, units = [], [], [], {}
        for j in range(lay.n_fields):
            f = _lib.RecField.from_address(lay.fields + j * lay.field_size)
            names.append(f.name.decode())
            formats.append(_REC_TYPES[f.type])
            offsets.append(f.offset)
            if f.unit:
                units[names[-1]] = f.unit.decode()
        out[lay.key.decode()] = np.dtype({"names": names, "formats": formats, "offsets": offsets,
                                          "itemsize": lay.size}, metadata={"record": lay.name.decode(),
                                                                           "units": units})
    return out


class ActorBlueprint:
    """CARLA's carla.ActorBlueprint. set_attribute values are checked by the engine at spawn,
    with its message; unknown attribute names are refused here (IndexError, as CARLA)."""

    def __init__(self, bp_id: str, kind: int, doc: str, defs: dict[str, _AttrSpec]):
        self.id = bp_id
        self.kind = kind
        self.doc = doc
        self.tags = bp_id.split(".")
        self._defs = defs
        self._values: dict[str, str] = {}
        # {bin key: numpy dtype} of the records a sensor declares (SDK 1.6); {} when none
        self.record_dtypes: dict = {}

    def __repr__(self) -> str:
        return f"ActorBlueprint(id={self.id}, tags={self.tags})"

    def __iter__(self) -> Iterator[ActorAttribute]:
        return iter(self.get_attribute(k) for k in self._defs)

    def __len__(self) -> int:
        return len(self._defs)

    def has_tag(self, tag: str) -> bool:
        return tag in self.tags

    def match_tags(self, wildcard_pattern: str) -> bool:
        return fnmatch.fnmatchcase(self.id, wildcard_pattern) or \
            any(fnmatch.fnmatchcase(t, wildcard_pattern) for t in self.tags)

    def has_attribute(self, id: str) -> bool:
        return id in self._defs

    def get_attribute(self, id: str) -> ActorAttribute:
        if id not in self._defs:
            raise IndexError(f"blueprint '{self.id}' has no attribute '{id}'")
        spec = self._defs[id]
        return ActorAttribute(spec, id, self._values.get(id, spec.default))

    def set_attribute(self, id: str, value) -> None:
        if id not in self._defs:
            raise IndexError(f"blueprint '{self.id}' has no attribute '{id}' (it has: {', '.join(self._defs)})")
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif isinstance(value, enum.Enum) and isinstance(value, int):
            value = int(value)  # its number, as before CARLA's enums printed their names
        value = str(value)
        if self._defs[id].type == "int":
            # CARLA's strings: '64.0' is the int 64 (CARLA's attribute parser takes a whole float)
            try:
                f = float(value)
                if f.is_integer() and not value.strip().lstrip("+-").isdigit():
                    value = str(int(f))
            except ValueError:
                pass  # the engine refuses it at spawn, with its sentence
        self._values[id] = value

    def _copy(self) -> "ActorBlueprint":
        b = ActorBlueprint(self.id, self.kind, self.doc, self._defs)
        b._values = dict(self._values)
        b.record_dtypes = self.record_dtypes
        return b


class BlueprintLibrary:
    """CARLA's carla.BlueprintLibrary: find(id), filter(wildcard), iteration. find and indexing
    hand out copies, so attributes set on one blueprint do not leak into the next find."""

    def __init__(self, bps: list[ActorBlueprint]):
        self._bps = bps

    @classmethod
    def _from_handle(cls, h: int) -> "BlueprintLibrary":
        """Copies every blueprint out of an sn_blueprints list, then closes it."""
        L = _lib.lib()
        bps = []
        err = _err()
        try:
            for i in range(L.sn_blueprints_count(h)):
                b = _lib.BlueprintInfo(struct_size=ctypes.sizeof(_lib.BlueprintInfo))
                check(L.sn_blueprints_get(h, i, ctypes.byref(b), ctypes.byref(err)), err)
                defs = {b.attrs[k].contents.name.decode(): _AttrSpec(b.attrs[k].contents) for k in range(b.n_attrs)}
                if b.kind == _KIND_SENSOR:
                    defs.setdefault("role_name", _AttrSpec(None))  # handled by the host, not listed
                bp = ActorBlueprint(b.id.decode(), b.kind, (b.doc or b"").decode(), defs)
                bp.record_dtypes = _record_dtypes(b)
                bps.append(bp)
        finally:
            L.sn_blueprints_close(h)
        return cls(bps)

    def __len__(self) -> int:
        return len(self._bps)

    def __iter__(self) -> Iterator[ActorBlueprint]:
        return iter([b._copy() for b in self._bps])

    def __getitem__(self, i: int) -> ActorBlueprint:
        return self._bps[i]._copy()

    def __repr__(self) -> str:
        return f"BlueprintLibrary({[b.id for b in self._bps]})"

    def find(self, id: str) -> ActorBlueprint:
        for b in self._bps:
            if b.id == id:
                return b._copy()
        raise IndexError(f"no blueprint '{id}' (see `sensim blueprints`)")

    def filter(self, wildcard_pattern: str) -> "BlueprintLibrary":
        return BlueprintLibrary([b for b in self._bps if b.match_tags(wildcard_pattern)])

    def filter_by_attribute(self, name: str, value: str) -> "BlueprintLibrary":
        return BlueprintLibrary([b for b in self._bps if b.has_attribute(name)
                                 and b.get_attribute(name).value == value])
