"""carla.WeatherParameters over sensim's weather (sensim/types.h sn_weather; docs/weather.md).

    world.set_weather(carla.WeatherParameters.WetCloudySunset)
    w = world.get_weather(); w.fog_density = 30; world.set_weather(w)

The constructor takes CARLA 0.9.15's fields with its defaults (all 0 but rayleigh_scattering_scale
0.0331). The presets (ClearNoon, WetCloudySunset, ..., DustStorm, and Default: sensim's clear
day) come from libsensim's own table, so Python and C never disagree. Values are float32 as in
CARLA: equality compares them as float32, and the engine rounds what it is given.
"""
from __future__ import annotations

import ctypes
import struct

from . import _lib

_F32 = struct.Struct("<f")


def _f32(v: float) -> float:
    return _F32.unpack(_F32.pack(float(v)))[0]


class _Presets(type):
    """CARLA's presets as class attributes, looked up in libsensim at first use."""

    def __getattr__(cls, name: str) -> "WeatherParameters":
        if name.startswith("_"):
            raise AttributeError(name)
        w = _lib.Weather()
        err = _lib.Error()
        st = _lib.lib().sn_weather_preset_get(name.encode(), ctypes.byref(w), ctypes.byref(err))
        if st:
            raise AttributeError(f"WeatherParameters has no preset {name!r}")
        return cls._from(w)

    def presets(cls) -> list[str]:
        """The preset names libsensim knows, in CARLA's order (Default first)."""
        out, i = [], 0
        while (n := _lib.lib().sn_weather_preset_at(i)) is not None:
            out.append(n.decode())
            i += 1
        return out


class WeatherParameters(metaclass=_Presets):
    def __init__(self, cloudiness: float = 0.0, precipitation: float = 0.0, precipitation_deposits: float = 0.0,
                 wind_intensity: float = 0.0, sun_azimuth_angle: float = 0.0, sun_altitude_angle: float = 0.0,
                 fog_density: float = 0.0, fog_distance: float = 0.0, fog_falloff: float = 0.0, wetness: float = 0.0,
                 scattering_intensity: float = 0.0, mie_scattering_scale: float = 0.0,
                 rayleigh_scattering_scale: float = 0.0331, dust_storm: float = 0.0):
        args = locals()
        for n in _lib.WEATHER_FIELDS:
            setattr(self, n, _f32(args[n]))

    def __setattr__(self, name: str, value) -> None:
        if name not in _lib.WEATHER_FIELDS:
            raise AttributeError(f"WeatherParameters has no field {name!r}")
        object.__setattr__(self, name, _f32(value))

    @classmethod
    def _from(cls, w: _lib.Weather) -> "WeatherParameters":
        return cls(**{n: getattr(w, n) for n in _lib.WEATHER_FIELDS})

    def _c(self) -> _lib.Weather:
        return _lib.Weather(*(getattr(self, n) for n in _lib.WEATHER_FIELDS))

    def __eq__(self, other) -> bool:
        return isinstance(other, WeatherParameters) and all(
            getattr(self, n) == getattr(other, n) for n in _lib.WEATHER_FIELDS)

    def __ne__(self, other) -> bool:
        return not self == other

    __hash__ = None

    def __repr__(self) -> str:
        return "WeatherParameters(" + ", ".join(f"{n}={getattr(self, n):.6f}" for n in _lib.WEATHER_FIELDS) + ")"

    __str__ = __repr__
