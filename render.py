"""Render a dataset config inside a real Blender:

    blender -b -P render.py -- CONFIG [-o DIR] [--limit N] [--resume]

Same options as `byo render`; renders in Blender's own process. The project's virtualenv
(.venv) supplies the pure-Python dependencies when Blender's Python lacks them.
"""

import os
import sys

ROOT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, ROOT)


def main() -> int:
    import argparse

    from byo.core.blender_python import use_checkout

    use_checkout(ROOT)
    from byo.cli import invoke
    from byo.cli.render import add_render_arguments, cmd_render

    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    parser = argparse.ArgumentParser(prog="blender -b -P render.py --")
    add_render_arguments(parser)
    args = parser.parse_args(argv)
    args.in_process = True  # bpy is this Blender; no worker processes
    return invoke(cmd_render, args)


if __name__ == "__main__":
    sys.exit(main())
