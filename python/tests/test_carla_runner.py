"""Issue 32, item 1 and 2: `python3 -m sensim.carla SCRIPT` runs a CARLA script unchanged (import carla,
carla.command, its argv, exceptions and exit status), and a world always has a town."""
import os

import pytest

from carla_util import run_carla


def test_script_sees_carla_argv_and_exit_status(tmp_path):
    r = run_carla(tmp_path, """
        import sys
        import carla
        from carla import command
        import carla.command as cc
        assert cc is command and carla.command.SpawnActor is command.SpawnActor
        client = carla.Client('localhost', 2000, worker_threads=1)
        client.set_timeout(2.0)
        print("argv", sys.argv[1:], client.get_client_version() == client.get_server_version())
        sys.exit(7)
        """, "--host", "x")
    assert r.returncode == 7, r.stderr
    assert "argv ['--host', 'x'] True" in r.stdout


def test_script_exception_is_the_scripts(tmp_path):
    r = run_carla(tmp_path, """
        import carla
        raise ValueError("mine")
        """)
    assert r.returncode == 1 and "ValueError: mine" in r.stderr


def test_runner_refuses_a_missing_script(tmp_path):
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "sensim.carla", str(tmp_path / "nope.py")], capture_output=True, text=True)
    assert r.returncode == 2 and "no such script" in r.stderr


def test_get_world_before_any_load_has_the_projects_town(tmp_path):
    r = run_carla(tmp_path, """
        import carla
        client = carla.Client()
        world = client.get_world()
        m = world.get_map()
        print("town", m.name, len(m.get_spawn_points()) > 10, world.get_settings().synchronous_mode)
        print("maps", [p.rsplit('/', 1)[-1] for p in client.get_available_maps()])
        """, env={"SENSIM_TOWN": ""})
    assert r.returncode == 0, r.stderr
    assert "town town True False" in r.stdout  # CARLA's server default: asynchronous
    assert "'town.xodr'" in r.stdout


def test_sensim_town_names_a_map_on_sensim_maps(tmp_path):
    r = run_carla(tmp_path, """
        import carla
        print("town", carla.Client().get_world().get_map().name)
        """, env={"SENSIM_TOWN": "roundabout"})
    assert r.returncode == 0, r.stderr
    assert "town roundabout" in r.stdout


def test_load_world_takes_carlas_names(client):
    import sensim
    maps = os.environ["SENSIM_MAPS"]
    w = client.load_world("/Game/Carla/Maps/highway")
    assert w.get_map().name == "highway"
    assert os.path.join(maps, "highway.xodr") in client.get_available_maps()
    with pytest.raises(RuntimeError):  # SensimError is CARLA's RuntimeError
        client.load_world("Town99")
    assert issubclass(sensim.SensimError, RuntimeError)


def test_install_inside_a_program():
    import sys
    import sensim
    from sensim import carla as sc
    sc.install(asynchronous=False)
    try:
        import carla
        assert carla is sensim and sys.modules["carla.command"] is sensim.command
    finally:
        sc.uninstall()
    assert "carla" not in sys.modules
