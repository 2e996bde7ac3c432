"""Helpers of the CARLA-compatibility tests: run a CARLA-style script through `python3 -m sensim.carla`."""
import os
import subprocess
import sys
import textwrap


def run_carla(tmp_path, source: str, *args, timeout: float = 120, env=None):
    """Writes `source` to a script and runs it as a CARLA user would; returns the CompletedProcess."""
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(source))
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "sensim.carla", str(script), *args], capture_output=True,
                          text=True, timeout=timeout, env=e, cwd=tmp_path)
