"""`byo status DIR` against a render's plan: done, missing and damaged images (sizes, or every
SHA-256 with --check), the state from the render log, a --limit's plan, and a directory that
is no render. The render farm's scenarios (status while rendering, after kills and timeouts)
are in tests/render/executors/test_executors.py."""

from __future__ import annotations

import pytest
from conftest import clevr_config, write_config

from byo.cli import main
from byo.core.errors import ConfigError
from byo.render.status import dataset_status

pytestmark = pytest.mark.render


def test_status_counts_done_missing_and_damaged_images(tmp_path, capsys):
    config = write_config(tmp_path, clevr_config("st", n_images=4))
    out = tmp_path / "out"
    assert main(["render", str(config), "-o", str(out), "--limit", "3", "--in-process"]) == 0
    status = dataset_status(out)
    assert (status.state, status.limit, len(status.planned), len(status.done)) == ("finished", 3, 3, 3)

    (out / "legends" / "st_000000.json").unlink()  # no legend: not rendered
    image = out / "images" / "st_000001.png"
    data = bytearray(image.read_bytes())
    data[-20] ^= 0xFF  # same size, other bytes: only the SHA-256 tells
    image.write_bytes(bytes(data))
    quick = dataset_status(out)
    assert quick.missing == ["st_000000"] and quick.damaged == {} and len(quick.done) == 2
    checked = dataset_status(out, check=True)
    assert checked.damaged == {"st_000001": ["image: content differs from the legend's hash"]}
    (out / "masks" / "st_000002.png").write_bytes(b"")  # truncated: the size tells
    assert "st_000002" in dataset_status(out).damaged

    capsys.readouterr()
    assert main(["status", str(out), "--json"]) == 0
    assert '"missing": 1' in capsys.readouterr().out


def test_a_directory_that_is_no_render_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigError, match="not a rendered dataset"):
        dataset_status(tmp_path)
