"""`python3 -m sensim.carla [--mcap FILE] SCRIPT [ARGS...]`: runs a CARLA script unchanged on sensim.

The script runs as `__main__` with its own sys.argv and its folder first on sys.path (as
`python3 SCRIPT` would); its exceptions, exit status and Ctrl+C are its own. --mcap FILE writes
the world the script gets as an MCAP file for Foxglove (world.record_mcap: its sensors, boxes,
the map, world.debug's shapes on /debug), replacing FILE; a later load_world's world goes to
FILE-2.mcap and so on. The file is whole when the world closes or the script ends.
"""
import os
import runpy
import sys

from sensim.carla import install


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print("usage: python3 -m sensim.carla [--mcap FILE] SCRIPT [ARGS...]\n"
              "runs a CARLA Python script with `import carla` giving sensim (docs/python.md)",
              file=sys.stderr if len(sys.argv) < 2 else sys.stdout)
        sys.exit(2 if len(sys.argv) < 2 else 0)
    args = sys.argv[1:]
    mcap = None
    if args[0] == "--mcap" or args[0].startswith("--mcap="):
        if args[0] == "--mcap":
            if len(args) < 3:
                print("sensim: error: --mcap FILE SCRIPT: a file and a script are needed", file=sys.stderr)
                sys.exit(2)
            mcap, args = args[1], args[2:]
        else:
            mcap, args = args[0][len("--mcap="):], args[1:]
        if not mcap or not args:
            print("sensim: error: --mcap FILE SCRIPT: a file and a script are needed", file=sys.stderr)
            sys.exit(2)
    script = args[0]
    if not os.path.isfile(script):
        print(f"sensim: error: {script}: no such script", file=sys.stderr)
        sys.exit(2)
    install()
    if mcap:
        from sensim import _common
        _common.CARLA_MODE["mcap"] = os.path.abspath(mcap)
    sys.argv = args
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
