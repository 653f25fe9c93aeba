"""A screenshot of the add-on's panel in a real Blender window: docs/addon_panel.png.

    make screenshot                 # or: python3 docs/addon_screenshot.py [OUT.png]

It starts Xvfb (a virtual X display) and Debian's `blender` with the add-on installed as a
legacy add-on in a throw-away user folder, loads docs/addon_design.yaml on the panel, builds the
scene, renders the preview in the background, opens the sidebar on the BYO tab with the design's
sections, and saves the window with Blender's own screenshot operator.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DESIGN = HERE / "addon_design.yaml"
SIZE = (1600, 1400)

PREFERENCES = """
import addon_utils, bpy
bpy.context.preferences.view.show_splash = False
addon_utils.enable("byo_render", default_set=True)
bpy.context.preferences.addons["byo_render"].preferences.byo_path = {root!r}
bpy.ops.wm.save_userpref()
"""


def outside(out: Path) -> int:
    """Start Xvfb and a Blender window that runs this file inside."""
    out = out.resolve()
    missing = [tool for tool in ("blender", "Xvfb") if shutil.which(tool) is None]
    if missing:
        print(f"needs {' and '.join(missing)}: `make install` installs Debian's blender and xvfb", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="byo_screenshot_") as tmp:
        home = Path(tmp)
        (home / "scripts" / "addons").mkdir(parents=True)
        (home / "scripts" / "addons" / "byo_render").symlink_to(ROOT / "blender_addon")
        env = {**os.environ, "BLENDER_USER_CONFIG": str(home / "config"),
               "BLENDER_USER_SCRIPTS": str(home / "scripts")}
        env.pop("PYTHONPATH", None)
        subprocess.run(["blender", "-b", "--python-expr", PREFERENCES.format(root=str(ROOT))], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
        read, write = os.pipe()
        xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", f"{SIZE[0]}x{SIZE[1]}x24",
                                 "-nolisten", "tcp"], pass_fds=(write,), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        os.close(write)
        try:
            display = b""
            while not display.endswith(b"\n"):  # Xvfb writes the display number once it is ready
                display += os.read(read, 16)
            proc = subprocess.run(
                ["blender", "--window-geometry", "0", "0", str(SIZE[0]), str(SIZE[1]),
                 "--python", __file__, "--", str(out)],
                env={**env, "DISPLAY": f":{display.decode().strip()}"}, cwd=home, capture_output=True, text=True,
                timeout=900)
        finally:
            xvfb.terminate()
            xvfb.wait(timeout=30)
            os.close(read)  # only now: a closed pipe would kill Xvfb when it writes to it
    if proc.returncode != 0 or not out.is_file():
        print(proc.stdout[-3000:], proc.stderr[-3000:], file=sys.stderr)
        return 1
    print(f"screenshot: {out}")
    return 0


def sidebar_panels_after_byo() -> None:
    """Register the 3D viewport's other sidebar panels again, so that they come after the BYO
    tab, which Blender 3.x then shows first (it has no way to pick a tab from Python)."""
    import bpy

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    others = [p for p in dict.fromkeys(subclasses(bpy.types.Panel)) if getattr(p, "bl_space_type", "") == "VIEW_3D"
              and getattr(p, "bl_region_type", "") == "UI" and getattr(p, "bl_category", "") != "BYO"
              and getattr(p, "is_registered", False)]
    parents_first = sorted(others, key=lambda p: bool(getattr(p, "bl_parent_id", "")))
    for panel in reversed(parents_first):
        bpy.utils.unregister_class(panel)
    for panel in parents_first:
        bpy.utils.register_class(panel)


def inside(out: Path) -> None:
    """Inside the Blender window: steps run from a timer, so that the window draws in between."""
    import bpy

    preview = sys.modules["byo_render.preview"]
    window = bpy.context.window_manager.windows[0]

    def steps():
        with bpy.context.temp_override(window=window):
            bpy.ops.byo.load_yaml(filepath=str(DESIGN))
            bpy.ops.byo.build_scene()
            bpy.ops.byo.render_preview()
        image_editor = next(a for a in window.screen.areas if a.type == "PROPERTIES")
        image_editor.type = "IMAGE_EDITOR"  # where the preview will show
        view = max((a for a in window.screen.areas if a.type == "VIEW_3D"), key=lambda a: a.width * a.height)
        view.spaces.active.show_region_ui = True
        view.spaces.active.shading.color_type = "MATERIAL"
        region = next(r for r in view.regions if r.type == "UI")
        if hasattr(region, "active_panel_category"):  # Blender 4.x and later
            region.active_panel_category = "BYO"
        else:  # 3.x shows the first tab: the other sidebar panels register again, after BYO's
            sidebar_panels_after_byo()
        with bpy.context.temp_override(window=window, area=view, region=next(r for r in view.regions
                                                                             if r.type == "WINDOW")):
            bpy.ops.view3d.view_center_camera()
        while preview.JOBS:
            yield 1.0
        with bpy.context.temp_override(window=window, area=image_editor,
                                       region=next(r for r in image_editor.regions if r.type == "WINDOW")):
            bpy.ops.image.view_all(fit_view=True)
        yield 2.0
        with bpy.context.temp_override(window=window, area=view):
            bpy.ops.screen.screenshot(filepath=str(out))
        bpy.ops.wm.quit_blender()

    sequence = steps()

    def run():
        try:
            return next(sequence, None)
        except Exception:  # a timer that fails is dropped silently: end Blender instead
            traceback.print_exc()
            sys.stdout.flush()
            os._exit(1)

    bpy.app.timers.register(run, first_interval=2.0)


if __name__ == "__main__":
    if "--" in sys.argv:
        inside(Path(sys.argv[sys.argv.index("--") + 1]))
    else:
        sys.exit(outside(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "addon_panel.png"))
