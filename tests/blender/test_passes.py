"""`render.passes`: depth, normals, albedo and object ids beside each image, and the camera's
intrinsics and extrinsics in the legend. A CLEVR sphere's mean depth is within 1% of what its
legend position and the camera give; depth, K and the extrinsics put the sphere's surface back at
its radius, and the normals agree with that surface; the files are vouched for by the legend,
merged with the shards and repaired by --resume; without passes nothing changes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import clevr_config, write_config
from PIL import Image

from byo.cli import main
from byo.core.dataset import Layout

pytestmark = pytest.mark.render

ALL = ["depth", "normal", "albedo", "object_ids"]


def sphere_config(n_images: int = 2, **render) -> dict:
    return clevr_config("dense", seed=7, n_images=n_images, resolution=[128, 96],
                        render={"samples": 4, "denoise": "off", "passes": ALL, **render},
                        content={"mode": "random", "count": [3, 4], "shapes": ["sphere"]})


@pytest.fixture(scope="module")
def dense(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("dense")
    assert main(["render", str(write_config(tmp, sphere_config())), "-o", str(tmp / "data"), "--in-process"]) == 0
    return tmp / "data"


def load(dataset: Path, name: str) -> tuple[dict, dict[str, np.ndarray], np.ndarray]:
    legend = json.loads((dataset / "legends" / f"{name}.json").read_text())
    arrays = {kind: np.load(dataset / path) for kind, path in legend["passes"].items()}
    return legend, arrays, np.asarray(Image.open(dataset / legend["mask"]))


def camera_point(legend: dict, point) -> np.ndarray:
    w2c = np.array(legend["camera"]["world_to_camera"])
    return w2c[:3, :3] @ np.asarray(point) + w2c[:3, 3]


def names(dataset: Path) -> list[str]:
    return sorted(p.stem for p in (dataset / "legends").glob("*.json"))


def test_a_spheres_mean_depth_is_its_distance_from_the_camera_within_1_percent(dense):
    checked = 0
    for name in names(dense):
        legend, arrays, ids = load(dense, name)
        depth = arrays["depth"]
        assert depth.dtype == np.float32 and depth.shape == (96, 128)
        for obj in legend["objects"]:
            pixels = ids == obj["id"]
            if obj["visible_pixels"] < 30:
                continue
            centre = camera_point(legend, obj["location"])  # metres, the camera's frame
            radius = obj["scale"]  # a CLEVR sphere's radius
            # the distance along the optical axis, less the mean height of a sphere's visible
            # cap above its centre plane (2/3 of the radius)
            expected = centre[2] - 2 / 3 * radius
            assert abs(depth[pixels].mean() - expected) / expected < 0.01, (name, obj["name"])
            assert centre[2] == pytest.approx(obj["pixel_coords"][2], abs=1e-3)  # Blender's own projection
            checked += 1
    assert checked >= 4


def test_intrinsics_and_extrinsics_project_and_unproject_the_scene(dense):
    legend, arrays, ids = load(dense, names(dense)[0])
    k = np.array(legend["camera"]["K"])
    c2w, w2c = np.array(legend["camera"]["camera_to_world"]), np.array(legend["camera"]["world_to_camera"])
    assert np.allclose(c2w[:3, 3], legend["setup"]["camera"]["location"], atol=1e-5)
    for obj in legend["objects"]:  # K and world_to_camera give the legend's pixel coordinates
        uvw = k @ camera_point(legend, obj["location"])
        assert np.allclose(uvw[:2] / uvw[2], obj["pixel_coords"][:2], atol=0.02)
    height, width = ids.shape
    v, u = np.mgrid[0:height, 0:width]
    rays = np.linalg.inv(k) @ np.stack([u.ravel() + 0.5, v.ravel() + 0.5, np.ones(u.size)])
    points = (rays * arrays["depth"].ravel()).T.reshape(height, width, 3)  # each pixel's surface point
    for obj in legend["objects"]:
        pixels = ids == obj["id"]
        offsets = points[pixels] - camera_point(legend, obj["location"])
        radii = np.linalg.norm(offsets, axis=1)
        assert np.median(radii) == pytest.approx(obj["scale"], rel=0.02)  # the surface, at the radius
        normals = arrays["normal"][pixels]
        assert np.allclose(np.linalg.norm(normals, axis=1), 1, atol=1e-4)
        angles = np.degrees(np.arccos(np.clip((normals * offsets / radii[:, None]).sum(axis=1), -1, 1)))
        assert np.median(angles) < 5, obj["name"]  # the shading normal is the sphere's
    floor = (ids == 0) & np.isfinite(arrays["depth"])
    up = w2c[:3, :3] @ np.array([0.0, 0.0, 1.0])  # the floor's normal, in the camera frame
    assert np.allclose(np.median(arrays["normal"][floor], axis=0), up, atol=0.02)
    assert np.array_equal(arrays["object_ids"], ids)
    assert arrays["albedo"].shape == (height, width, 3) and arrays["albedo"][ids > 0].max() > 0.01


def test_pass_files_are_vouched_for_merged_and_repaired(dense, tmp_path):
    config = write_config(tmp_path, sphere_config(n_images=3))
    for i in (0, 1):
        assert main(["render", str(config), "-o", str(tmp_path / f"shard{i}"), "--shard", f"{i}/2",
                     "--in-process"]) == 0
    assert main(["merge", str(tmp_path / "shard0"), str(tmp_path / "shard1"), "-o", str(tmp_path / "merged")]) == 0
    merged = Layout(tmp_path / "merged")
    for name in names(tmp_path / "merged"):  # the shards' files, as they were, vouched for by their legends
        shard = tmp_path / f"shard{int(name[-1]) % 2}"
        assert merged.problems(name) == []
        for kind in ALL:
            path = Layout.pass_path(name, kind)
            assert (tmp_path / "merged" / path).read_bytes() == (shard / path).read_bytes()
    assert main(["render", str(config), "-o", str(tmp_path / "single"), "--in-process"]) == 0
    # Depth and ids exactly. Cycles sums normals and albedo in its threads' order, so their last bits
    # may differ; an edge pixel's normal is then divided by its (shorter) length, which scales the
    # rounding up: 4e-7 seen under load. Another image's file would differ by far more than 1e-4.
    tolerance = {"depth": 0.0, "object_ids": 0.0, "albedo": 1e-6, "normal": 1e-4}
    for name in names(tmp_path / "single"):
        for kind in ALL:
            a, b = (np.load(root / Layout.pass_path(name, kind)) for root in (tmp_path / "single", tmp_path / "merged"))
            assert np.allclose(a, b, rtol=0, atol=tolerance[kind]), (name, kind, np.nanmax(np.abs(a.astype(np.float64) - b)))
    single = Layout(tmp_path / "single")
    legend = json.loads(single.legend("dense_000001").read_text())
    assert set(legend["files"]) == {"image", "mask", "legend_text", *ALL}
    damaged = tmp_path / "single" / legend["passes"]["depth"]
    damaged.write_bytes(damaged.read_bytes()[:-8])
    assert single.problems("dense_000001", deep=False) == [f"depth: {damaged.stat().st_size} bytes, the legend "
                                                            f"records {damaged.stat().st_size + 8}"]
    assert main(["render", str(config), "-o", str(tmp_path / "single"), "--in-process", "--resume"]) == 0
    assert single.problems("dense_000001") == []


def test_without_passes_legends_are_as_before_and_workbench_is_refused(tmp_path, capsys):
    plain = clevr_config("plain", n_images=1)
    assert main(["render", str(write_config(tmp_path, plain)), "-o", str(tmp_path / "plain"), "--in-process"]) == 0
    legend = json.loads(next((tmp_path / "plain/legends").glob("*.json")).read_text())
    assert "camera" not in legend and "passes" not in legend and "passes" not in legend["setup"]["render"]
    assert not (tmp_path / "plain/passes").exists()
    bad = sphere_config(engine="workbench")
    assert main(["render", str(write_config(tmp_path, bad, "bad.yaml")), "-o", str(tmp_path / "bad")]) == 2
    assert "render.passes needs render.engine cycles" in capsys.readouterr().err
