"""The preview's background job inside a Blender executable:

    blender -b --factory-startup -P preview_job.py -- BYO_FOLDER render CONFIG -o OUT --limit 1 --in-process

It finds byo the way the add-on does (connect.py, BYO_FOLDER may be empty), then runs `byo`."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import connect  # noqa: E402  (this folder, put on the path just above)


def main() -> int:
    argv = sys.argv[sys.argv.index("--") + 1:]
    folder, command = argv[0], argv[1:]
    error = connect.connect(folder)
    if error is not None:
        print(error, file=sys.stderr)
        return 2
    from byo.cli import main as byo

    return byo(command)


if __name__ == "__main__":
    sys.exit(main())
