"""The record of the files byo wrote in a folder (`.byo-outputs.json`, byo.core.outputs) is an
input of the next export or report into that folder: fuzzed with Hypothesis (any JSON, paths
leading out, records of files that are not there), the command exits 0 or 2 with one line naming
the record, and never removes or writes a file outside the folder or one byo did not write."""

from __future__ import annotations

import json
import shutil

import pytest
from human_server import golden_dataset
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from byo.cli import main
from byo.core.outputs import MANIFEST

FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                       HealthCheck.too_slow])
names = st.sampled_from(["README.md", "data.tsv", "../outside/keep.txt", "/etc/hostname", "mine.txt", "x/../../y",
                         "", ".", "sub/", "../", "byo_demo.tsv"]) | st.text(max_size=12)
scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
manifests = st.one_of(
    st.fixed_dictionaries({"files": st.dictionaries(names, st.text(max_size=64) | scalars, max_size=4)},
                          optional={"pending": st.lists(names | scalars, max_size=3), "command": scalars}),
    st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                                      max_size=3), max_leaves=6))


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    return golden_dataset(tmp_path_factory.mktemp("manifest"), keys=("count_pieces",))


@FUZZ
@given(manifest=manifests, raw=st.booleans(), user_file=st.booleans())
def test_a_fuzzed_record_never_leads_a_command_to_touch_what_is_not_its_own(dataset, tmp_path_factory, manifest, raw,
                                                                            user_file, capsys):
    root = tmp_path_factory.mktemp("case")
    out, outside = root / "out", root / "outside"
    out.mkdir()
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    if user_file:
        (out / "mine.txt").write_text("mine")
    (out / MANIFEST).write_bytes(b"\xff\x00{" if raw else json.dumps(manifest).encode())
    capsys.readouterr()
    code = main(["export", str(dataset), "--format", "vlmevalkit", "-o", str(out), "--force"])
    err = capsys.readouterr().err
    assert code in (0, 2) and "Traceback" not in err, err
    assert (outside / "keep.txt").read_text() == "keep"
    assert not user_file or (out / "mine.txt").read_text() == "mine"
    if code == 2:
        assert str(out) in err.splitlines()[0]
    shutil.rmtree(root)
