"""carla.WeatherParameters: presets by name equal their fields, set/get through the world, errors."""
import pytest

import sensim
from sensim import WeatherParameters


def test_presets_equal_their_fields(client):
    client.load_world()
    # CARLA 0.9.15's WetCloudySunset, field by field (LibCarla/source/carla/rpc/WeatherParameters.cpp)
    w = WeatherParameters(cloudiness=60, precipitation=0, precipitation_deposits=50, wind_intensity=10,
                          sun_azimuth_angle=-1, sun_altitude_angle=15, fog_density=2, fog_distance=0.75,
                          fog_falloff=0.1, wetness=0, scattering_intensity=1, mie_scattering_scale=0.03,
                          rayleigh_scattering_scale=0.0331, dust_storm=0)
    assert WeatherParameters.WetCloudySunset == w
    assert WeatherParameters.ClearNoon != w
    assert WeatherParameters.ClearNoon.sun_altitude_angle == 45
    names = WeatherParameters.presets()
    assert names[0] == "Default" and "DustStorm" in names and len(names) == 23
    with pytest.raises(AttributeError):
        WeatherParameters.SunnyDay


def test_constructor_defaults_are_carlas():
    w = WeatherParameters()
    assert w.cloudiness == 0 and w.sun_altitude_angle == 0 and w.dust_storm == 0
    assert abs(w.rayleigh_scattering_scale - 0.0331) < 1e-7
    with pytest.raises(AttributeError):
        w.fog = 3


def test_world_set_get_weather(client):
    world = client.load_world()
    world.set_weather(WeatherParameters.HardRainNight)
    assert world.get_weather() == WeatherParameters.HardRainNight
    w = world.get_weather()
    w.fog_density = 30.5
    world.set_weather(w)
    assert world.get_weather().fog_density == 30.5
    w.fog_density = 101
    with pytest.raises(sensim.SensimError) as e:
        world.set_weather(w)
    assert "fog_density" in str(e.value)
    assert world.get_weather().fog_density == 30.5
