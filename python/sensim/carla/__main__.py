"""`python3 -m sensim.carla SCRIPT [ARGS...]`: runs a CARLA script unchanged on sensim.

The script runs as `__main__` with its own sys.argv and its folder first on sys.path (as
`python3 SCRIPT` would); its exceptions, exit status and Ctrl+C are its own.
"""
import os
import runpy
import sys

from sensim.carla import install


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print("usage: python3 -m sensim.carla SCRIPT [ARGS...]\n"
              "runs a CARLA Python script with `import carla` giving sensim (docs/python.md)",
              file=sys.stderr if len(sys.argv) < 2 else sys.stdout)
        sys.exit(2 if len(sys.argv) < 2 else 0)
    script = sys.argv[1]
    if not os.path.isfile(script):
        print(f"sensim: error: {script}: no such script", file=sys.stderr)
        sys.exit(2)
    install()
    sys.argv = sys.argv[1:]
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
