"""Slurm through submitit: one job array, one array task per shard of a render.

Unlike the pool and Ray, which move single images, an array task renders a whole shard into a
directory of its own on the cluster's shared file system (the function it runs is named by
the caller: `byo.render.slurm_farm.render_shard`); `byo merge` then combines the shards' directories. A
task that is preempted, or reaches its time limit, is requeued by submitit (Slurm's
`scontrol requeue`) and resumes its shard where it stopped: the function is wrapped in a
`Checkpointable`, whose checkpoint is the same call again, and a shard render always resumes.

submitit is an optional extra (`pip install 'byo-render[slurm]'`). `local=True` runs the
array's tasks through submitit's local executor, as processes on this machine (the tests, and a
dry run of a setup before submitting it).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from byo.core.errors import ARGUMENTS, ConfigError

try:
    import submitit
    from submitit.helpers import Checkpointable
except ImportError:  # the optional extra is not installed; SlurmArray says so
    submitit = None
    Checkpointable = object

POLL_SECONDS = 5.0  # how often the driver looks at its jobs (submitit caches sacct between looks)


def require_submitit() -> None:
    if submitit is None:
        raise ConfigError(ARGUMENTS, [("executor", "slurm: submitit is not installed; install the extra: "
                                        "pip install 'byo-render[slurm]' (or .[slurm] from a checkout)")])


@dataclass(frozen=True)
class SlurmSettings:
    """What each array task asks Slurm for (None: the cluster's default)."""

    partition: str | None = None
    time_minutes: int | None = None  # wall time per task
    mem_gb: float | None = None
    cpus_per_task: int | None = None
    account: str | None = None
    qos: str | None = None
    array_parallelism: int | None = None  # tasks running at once
    max_requeues: int = 3  # requeues after reaching the time limit (preemptions are not counted)
    local: bool = False  # submitit's local executor instead of sbatch

    def parameters(self) -> dict[str, Any]:
        """submitit's AutoExecutor parameters (the `slurm_` ones are ignored by the local executor)."""
        given = {"timeout_min": self.time_minutes, "mem_gb": self.mem_gb, "cpus_per_task": self.cpus_per_task,
                 "slurm_partition": self.partition, "slurm_account": self.account, "slurm_qos": self.qos,
                 "slurm_array_parallelism": self.array_parallelism}
        return {"name": "byo-render", **{k: v for k, v in given.items() if v is not None}}


class _Resumable(Checkpointable):
    """The task's function; on preemption or timeout submitit calls `checkpoint`, which (by
    Checkpointable's default) requeues the same call: the function resumes its own work."""

    def __init__(self, function: Callable):
        self.function = function

    def __call__(self, *args):
        return self.function(*args)


@dataclass
class TaskOutcome:
    index: int  # the array index (the shard)
    job_id: str
    result: Any = None
    error: str | None = None  # the task failed as a whole (its last error line)


class SlurmArray:
    def __init__(self, settings: SlurmSettings, folder: Path):
        require_submitit()
        self.settings = settings
        self.folder = folder  # submitit's pickles and the tasks' logs (%j: the job id)

    def executor(self):
        cluster = "local" if self.settings.local else "slurm"
        executor = submitit.AutoExecutor(folder=self.folder / "%j", cluster=cluster,
                                         **{f"{cluster}_max_num_timeout": self.settings.max_requeues})
        executor.update_parameters(**self.settings.parameters())
        return executor

    def submit(self, function: Callable, arguments: Sequence[tuple]) -> list:
        """Submit one array task per argument tuple; returns submitit's jobs, in that order. A
        machine where Slurm cannot be reached (no srun or sbatch, sbatch refusing the request)
        is one error saying so, before any task runs."""
        columns = list(zip(*arguments, strict=True))
        try:
            return self.executor().map_array(_Resumable(function), *columns)
        except (RuntimeError, OSError, subprocess.CalledProcessError) as err:
            detail = " ".join(str(err).split())[:300] or type(err).__name__
            raise ConfigError(ARGUMENTS, [("executor", f"slurm: could not submit the job array: {detail} "
                                            "(run byo render on a Slurm login node, or set `slurm_local` "
                                            "to run the array here)")]) from None

    @staticmethod
    def outcomes(jobs: list) -> Iterator[TaskOutcome]:
        """Each task's outcome as it finishes."""
        index = {id(job): i for i, job in enumerate(jobs)}
        for job in submitit.helpers.as_completed(jobs, poll_frequency=POLL_SECONDS):
            i = index[id(job)]
            try:
                yield TaskOutcome(i, job.job_id, result=job.result())
            except Exception as err:  # the task failed, or Slurm cancelled it: its error, its log
                message = str(err).strip().splitlines()
                yield TaskOutcome(i, job.job_id, error=f"{message[-1] if message else type(err).__name__} "
                                                      f"(log: {job.paths.stderr})")
