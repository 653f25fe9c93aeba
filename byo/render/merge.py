"""`byo merge DIR... -o OUT`: shard outputs into one dataset, as a single render would have written
it. Refused, before anything is written, when the directories were rendered from different
configs, when an image is in two of them, damaged, or in none."""

from __future__ import annotations

import json
from pathlib import Path

from byo.core.dataset import (
    PASS_KINDS,
    PASSES,
    RESOLVED_CONFIG,
    SOURCE_CONFIG,
    Layout,
    atomic_write_bytes,
)
from byo.core.errors import ConfigError, InputError
from byo.core.inputs import read_json
from byo.core.locks import entries, writer_lock
from byo.render import log as renderlog
from byo.render.runner import finalize, first_difference
from byo.render.status import dataset_config
from byo.scene.plan import selected_jobs

SHOWN = 5  # names listed in an error before "... and N more"
MERGING = ".byo-merge.json"  # in the output while a merge writes it: what it merges (removed at the end)


def _listed(names: list[str]) -> str:
    more = f" ... and {len(names) - SHOWN} more" if len(names) > SHOWN else ""
    return ", ".join(names[:SHOWN]) + more


def _selection(dirs: list[Path]) -> tuple[int | None, int | None]:
    """The --limit and --sample the shards were rendered with (they must agree); None: the whole plan."""
    found = set()
    for d in dirs:
        for e in renderlog.read(d):
            if e.get("event") in ("start", "merge"):
                try:
                    limit, _, sample = renderlog.selection(d, e)
                except ValueError as err:
                    raise InputError(d / renderlog.RENDER_LOG, str(err)) from None
                found.add((limit, sample))
    for i, field in enumerate(("limit", "sample")):
        values = {s[i] for s in found}
        if len(values) > 1:
            raise ConfigError("<merge>", [(f"`{field}`", f"the directories were rendered with different values of `{field}` "
                                          f"({', '.join(str(x) for x in sorted(values, key=str))})")])
    return found.pop() if found else (None, None)


def interrupted_merge(out: Path) -> list[str] | None:
    """The directories an interrupted merge into `out` was merging, or None when there is none."""
    try:
        sources = json.loads((out / MERGING).read_bytes())["sources"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return sources if isinstance(sources, list) and all(isinstance(s, str) for s in sources) else None


def check_output(out: Path, dirs: list[Path]) -> bool:
    """Whether `out` can take the merge: new, empty, or holding an interrupted merge of the same
    directories (which this one finishes: True). Else a ConfigError saying what is in the way."""
    if out.is_symlink() or out.exists() and not out.is_dir():
        raise ConfigError(str(out), [("`out`", "is a file or a link: the merged dataset needs an empty or new "
                                      "directory")])
    held = entries(out)
    if not held:
        return False
    sources = interrupted_merge(out)
    if sources is None:
        raise ConfigError(str(out), [("`out`", f"the merged dataset needs an empty or new directory; it holds "
                                      f"{_listed(sorted(p.name for p in held))}")])
    if sources != [str(d.resolve()) for d in dirs]:
        raise ConfigError(str(out), [("`out`", f"holds an interrupted merge of other directories ({_listed(sources)}); "
                                      "rerun that merge to finish it, or choose another output")])
    return True


def merge(dirs: list[str | Path], out: str | Path, say=None) -> dict[str, Path]:
    """Copy every image of `dirs` into `out` and write the per-dataset files; returns them. A merge
    that was stopped (killed, a full disk) is finished by the same command: the output records
    what it merges (MERGING) until it is complete."""
    dirs = [Path(d) for d in dirs]
    out = Path(out)
    check_output(out, dirs)
    cfg = dataset_config(dirs[0])
    family = cfg.family
    resolved = read_json(dirs[0] / RESOLVED_CONFIG)
    problems = []
    for d in dirs[1:]:
        dataset_config(d)
        other = read_json(d / RESOLVED_CONFIG)
        if other != resolved:
            problems.append((str(d), f"rendered from a different config than {dirs[0]} "
                             f"({first_difference(resolved, other)})"))
    if problems:
        raise ConfigError("<merge>", problems)

    owner: dict[str, Path] = {}
    duplicated, damaged = [], []
    for d in dirs:
        layout = Layout(d)
        for legend in sorted(layout.root.glob("legends/*.json")):
            name = legend.stem
            found = layout.problems(name, deep=True)
            if found:
                damaged.append(f"{d}: {name} ({'; '.join(found)})")
            elif name in owner:
                duplicated.append(f"{name} (in {owner[name]} and {d})")
            else:
                owner[name] = d
    limit, sample = _selection(dirs)
    planned = [j.name for j in selected_jobs(cfg, limit=limit, sample=sample)]
    missing = [n for n in planned if n not in owner]
    unplanned = sorted(set(owner) - set(planned))
    for what, names in (("damaged images (render them again with `resume`)", damaged),
                        ("images in more than one directory", duplicated),
                        (f"missing images (of {len(planned)} planned)", missing),
                        ("images outside the plan", unplanned)):
        if names:
            problems.append(("<images>", f"{len(names)} {what}: {_listed(names)}"))
    if problems:
        raise ConfigError("<merge>", problems)
    with writer_lock(out, what="dataset"):
        if check_output(out, dirs) and say is not None:
            say(f"{out}: finishing the merge that was interrupted")
        atomic_write_bytes(out / MERGING, json.dumps({"sources": [str(d.resolve()) for d in dirs]}).encode())
        written = _copy(dirs, out, owner, planned, (limit, sample), family)
        (out / MERGING).unlink()
        return written


def _copy(dirs: list[Path], out: Path, owner: dict[str, Path], planned: list[str],
          selection: tuple[int | None, int | None], family) -> dict[str, Path]:
    target = Layout(out)
    target.make_dirs()
    target.remove_temporary_files()  # of an interrupted merge
    for name in planned:
        source = Layout(owner[name])
        records = read_json(source.legend(name)).get("files") or {}
        kinds = [k for k in records if k in PASS_KINDS]  # render.passes, vouched for like the image
        if kinds:
            (out / PASSES).mkdir(exist_ok=True)
        for key, path in {**source.files(name, kinds), "legend": source.legend(name)}.items():
            destination = {**target.files(name, kinds), "legend": target.legend(name)}[key]
            atomic_write_bytes(destination, path.read_bytes())  # the legend last, as the writer does
    for file in (SOURCE_CONFIG, RESOLVED_CONFIG):
        atomic_write_bytes(out / file, (dirs[0] / file).read_bytes())
    renderlog.append(out, {"event": "merge", "limit": selection[0], "sample": selection[1], "sources": [str(d) for d in dirs],
                        "images": len(planned)})
    return finalize(target, family)
