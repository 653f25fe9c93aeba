"""Ray: render workers across a cluster. Each worker is a Ray actor (a process that imports bpy
once) holding `threads` CPUs and, when the config asks for a GPU, one GPU; actors are spread
over the nodes. Results come back to the driver, whose runner writes them, as with the local
pool; a worker that dies or exceeds `timeout` on one image is killed and replaced and the image
retried up to `retries` more times.

Ray is an optional extra (`pip install 'byo-render[ray]'`). `LocalCluster` starts a cluster of
several nodes on this machine's loopback (the tests and the benchmark use it)."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Iterable, Iterator
from pathlib import Path

from byo.core.errors import ARGUMENTS, ConfigError, FatalRenderError
from byo.render.executors import (
    STARTUP_SECONDS,
    Outcome,
    claim_cpus,
    describe,
    load_handler,
    render_handler,
    retry_or_fail,
    signal_when_parent_dies,
    timed_out,
)
from byo.render.messages import RenderTask

try:
    import ray
    from ray.exceptions import RayActorError, RayTaskError
except ImportError:  # the optional extra is not installed; RayExecutor says so
    ray = None

HEAD_IP = "127.0.0.2"  # loopback (see LocalCluster)


def require_ray() -> None:
    if ray is None:
        raise ConfigError(ARGUMENTS, [("executor", "ray: Ray is not installed; install the extra: "
                                        "pip install 'byo-render[ray]' (or .[ray] from a checkout)")])


class _RenderActor:
    """One render worker: imports the handler (bpy) once, then renders task after task."""

    def __init__(self, handler: str, threads: int):
        claim_cpus(threads)  # before bpy loads: TBB sizes its arena from the CPUs it may use
        self.render = load_handler(handler)
        self.threads = threads
        self.where = f"ray node {ray.get_runtime_context().get_node_id()[:12]} pid {os.getpid()}"

    def ready(self) -> str:
        return self.where

    def run(self, task):
        return self.render(task, self.threads), self.where


def _wants_gpu(tasks: list) -> bool:
    devices = {t.spec.setup.render.device for t in tasks if isinstance(t, RenderTask)}
    return "gpu" in devices or ("auto" in devices and ray.cluster_resources().get("GPU", 0) >= 1)


@dataclasses.dataclass
class _Slot:
    actor: object
    ref: object  # the call in flight: ready() first, then run(task)
    task: object = None
    failures: int = 0
    deadline: float | None = None
    ready: bool = False


class RayExecutor:
    def __init__(self, address: str | None = None, *, threads: int = 1, workers: int | None = None,
                 timeout: float | None = None, retries: int = 2, handler: str | None = None):
        require_ray()
        self.address = address  # None: RAY_ADDRESS, else a Ray started here for the render
        self.threads = threads  # CPUs (Cycles threads) per worker
        self.workers = workers  # None: as many as the cluster's CPUs (or GPUs) hold
        self.timeout = timeout
        self.retries = retries
        self.handler = handler or render_handler()

    def run(self, tasks: Iterable[RenderTask]) -> Iterator[Outcome]:
        queue = deque((task, 0) for task in tasks)
        if not queue:
            return
        started_here = not ray.is_initialized()
        if started_here:
            ray.init(address=self.address, include_dashboard=False, log_to_driver=False,
                     configure_logging=False)
        try:
            yield from self._run(queue)
        finally:
            if started_here:
                ray.shutdown()

    def _run(self, queue: deque) -> Iterator[Outcome]:
        gpus = 1 if _wants_gpu([t for t, _ in queue]) else 0
        resources = ray.cluster_resources()
        capacity = int(resources.get("CPU", 1) // self.threads)
        if gpus:
            capacity = min(capacity, int(resources.get("GPU", 0)))
            if capacity < 1:  # the workers would wait for a GPU for ever
                raise FatalRenderError("render.device is gpu, but the Ray cluster has no GPU (or fewer CPUs "
                                       f"than `threads` {self.threads}); set render.device to auto or cpu")
        actor_class = ray.remote(_RenderActor).options(
            num_cpus=self.threads, num_gpus=gpus, max_restarts=0, scheduling_strategy="SPREAD")
        slots: list[_Slot] = []

        def start() -> None:
            task, failures = queue.popleft()
            actor = actor_class.remote(self.handler, self.threads)
            slots.append(_Slot(actor, actor.ready.remote(), task, failures,
                               time.monotonic() + STARTUP_SECONDS))

        def send(slot: _Slot, task, failures: int) -> None:
            slot.task, slot.failures = task, failures
            slot.ref = slot.actor.run.remote(task)
            slot.deadline = time.monotonic() + self.timeout if self.timeout else None

        try:
            for _ in range(max(1, min(self.workers or capacity, len(queue)))):
                start()
            while slots:
                deadlines = [s.deadline for s in slots if s.deadline is not None]
                left = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
                done, _ = ray.wait([s.ref for s in slots], num_returns=1, timeout=left)
                now = time.monotonic()
                for slot in list(slots):
                    problem = None
                    if slot.ref in done:
                        try:
                            value = ray.get(slot.ref, timeout=0)
                        except RayTaskError as err:
                            cause = err.cause if getattr(err, "cause", None) is not None else err
                            if isinstance(cause, FatalRenderError):
                                raise FatalRenderError(str(cause)) from None
                            yield slot.task, None, describe(cause)
                            self._next(slot, slots, queue, send)
                            continue
                        except RayActorError as err:
                            problem = f"render worker died ({describe(err).splitlines()[0]})"
                        else:
                            if not slot.ready:
                                slot.ready = True
                                send(slot, slot.task, slot.failures)
                                continue
                            result, where = value
                            if hasattr(result, "worker"):
                                result = dataclasses.replace(result, worker=where)
                            yield slot.task, result, None
                            self._next(slot, slots, queue, send)
                            continue
                    elif slot.deadline is not None and now >= slot.deadline:
                        problem = timed_out(self.timeout, slot.ready)
                    else:
                        continue
                    slots.remove(slot)
                    ray.kill(slot.actor, no_restart=True)
                    if failed := retry_or_fail(queue, slot.task, slot.failures, problem, self.retries):
                        yield failed
                    if queue:
                        start()
        finally:
            for slot in slots:
                ray.kill(slot.actor, no_restart=True)

    @staticmethod
    def _next(slot: _Slot, slots: list, queue: deque, send) -> None:
        if queue:
            send(slot, *queue.popleft())
        else:
            slots.remove(slot)
            ray.kill(slot.actor, no_restart=True)


def _stop_with_parent() -> None:
    signal_when_parent_dies(signal.SIGTERM)  # `ray start --block` then stops its node's processes


# The ports each node of a LocalCluster listens on, besides its workers' range.
NODE_PORT_FLAGS = ("--node-manager-port", "--object-manager-port", "--dashboard-agent-listen-port",
                   "--dashboard-agent-grpc-port", "--runtime-env-agent-port", "--metrics-export-port")
WORKER_PORTS = 51  # each node's --min-worker-port..--max-worker-port, inclusive
# Where LocalCluster's ports come from: above Ray's default worker ports (10002-19999), below
# Linux's default ephemeral range (32768-60999), which the kernel hands to outgoing connections.
PORT_SPAN = (20000, 32767)


@dataclasses.dataclass(frozen=True)
class NodePorts:
    flags: dict[str, int]  # NODE_PORT_FLAGS -> port (the head's also has --port, its GCS)
    workers: range  # the worker ports, inclusive of both ends given to Ray

    def arguments(self) -> list[str]:
        return [*(f"{k}={v}" for k, v in self.flags.items()), f"--min-worker-port={self.workers.start}",
                f"--max-worker-port={self.workers.stop - 1}"]


def _port_is_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _ephemeral_range() -> tuple[int, int]:
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999


def plan_ports(nodes: int, rng: random.Random, is_free=_port_is_free, span: tuple[int, int] = PORT_SPAN,
               attempts: int = 200) -> list[NodePorts]:
    """Ports for a cluster of `nodes` nodes, the head first: one contiguous block, drawn at random
    within `span` and outside the kernel's ephemeral range, every port of it free now. Node i
    takes the i-th stride of the block: its own ports, then its worker range; so no node's port
    lies in any node's worker range and no two ranges overlap, by construction."""
    singles = len(NODE_PORT_FLAGS) + 1  # + the head's --port (other nodes leave theirs unused)
    stride = singles + WORKER_PORTS
    size = nodes * stride
    ephemeral = _ephemeral_range()
    low, high = span
    for _ in range(attempts):
        base = rng.randint(low, high - size + 1)
        block = range(base, base + size)
        if block.start <= ephemeral[1] and ephemeral[0] < block.stop:
            continue
        if not all(is_free(port) for port in block):
            continue
        plan = []
        for i in range(nodes):
            start = base + i * stride
            flags = dict(zip(("--port", *NODE_PORT_FLAGS), range(start, start + singles), strict=True))
            if i > 0:
                flags.pop("--port")
            plan.append(NodePorts(flags, range(start + singles, start + stride)))
        return plan
    raise RuntimeError(f"found no {size} free ports in a row between {low} and {high} for a local Ray cluster")


class ClusterStartError(RuntimeError):
    def __init__(self, message: str, *, port_conflict: bool):
        super().__init__(message)
        self.port_conflict = port_conflict


class LocalCluster:
    """A Ray cluster of `nodes` nodes on this machine, on loopback only: `with LocalCluster(2) as
    address: ...`. Every process it starts is stopped at the end (by its process group), and
    nothing else: other Ray instances on the machine are left alone."""

    def __init__(self, nodes: int = 2, *, cpus_per_node: int = 1, object_store_mb: int = 100,
                 start_seconds: float = 120.0):
        require_ray()
        self.nodes, self.cpus, self.store = nodes, cpus_per_node, object_store_mb * 2**20
        self.start_seconds = start_seconds
        self.processes: list[subprocess.Popen] = []
        self.temp = ""
        self.address = ""
        self.keep_logs = os.environ.get("BYO_RAY_KEEP_LOGS")  # a folder to copy the nodes' logs to

    def _start(self, ports: NodePorts, *extra: str) -> None:
        command = [str(Path(sys.executable).with_name("ray")), "start", "--block", f"--num-cpus={self.cpus}",
                   "--num-gpus=0", f"--object-store-memory={self.store}", "--disable-usage-stats",
                   f"--temp-dir={self.temp}", *ports.arguments(), *extra]
        env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
        env.pop("RAY_ADDRESS", None)
        log = open(Path(self.temp) / f"node{len(self.processes)}.log", "wb")  # noqa: SIM115 (closed with the process)
        # A process group of its own, to stop it whole; told to stop when this process dies.
        self.processes.append(subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env,
                                               process_group=0, preexec_fn=_stop_with_parent))

    def _wait_for_nodes(self) -> None:
        deadline = time.monotonic() + self.start_seconds
        probe = ("import ray, sys; ray.init(address=sys.argv[1], configure_logging=False, log_to_driver=False); "
                 "print(sum(1 for n in ray.nodes() if n['Alive']))")
        while time.monotonic() < deadline:
            if any(p.poll() is not None for p in self.processes):
                break
            out = subprocess.run([sys.executable, "-c", probe, self.address], capture_output=True, text=True,
                                 timeout=60)
            if out.returncode == 0 and out.stdout.strip().splitlines()[-1:] == [str(self.nodes)]:
                return
            time.sleep(1)
        logs = "\n".join((Path(self.temp) / f"node{i}.log").read_text(errors="replace")[-2000:]
                         for i in range(len(self.processes)))
        raise ClusterStartError(f"the local Ray cluster did not come up with {self.nodes} nodes:\n{logs}",
                                port_conflict="port" in logs and ("in use" in logs or "used by" in logs))

    def __enter__(self) -> str:
        # Another program may take a planned port between the plan and Ray's start: one retry.
        rng = random.Random(os.getpid() ^ time.time_ns())
        for attempt in (1, 2):
            try:
                return self._start_cluster(plan_ports(self.nodes, rng))
            except ClusterStartError as err:
                self.__exit__()
                if attempt == 2 or not err.port_conflict:
                    raise
        raise AssertionError("unreachable")

    def _start_cluster(self, plan: list[NodePorts]) -> str:
        # Unix socket paths are limited to about 107 bytes: keep the directory short.
        self.temp = tempfile.mkdtemp(prefix="byoray-", dir="/tmp")
        self.processes = []
        self.address = f"{HEAD_IP}:{plan[0].flags['--port']}"
        try:
            # Ray rewrites 127.0.0.1 to the machine's network address; other loopback addresses it
            # keeps. So the head is 127.0.0.2, and the other nodes (and drivers) reach it through
            # loopback and take 127.0.0.1 as their own address.
            self._start(plan[0], "--head", f"--node-ip-address={HEAD_IP}", "--include-dashboard=false")
            for ports in plan[1:]:
                self._start(ports, f"--address={self.address}")
            self._wait_for_nodes()
        except ClusterStartError:
            raise
        except BaseException:
            self.__exit__()
            raise
        return self.address

    def __exit__(self, *exc) -> None:
        if self.keep_logs:
            for log in Path(self.temp).glob("node*.log"):
                shutil.copy(log, Path(self.keep_logs) / log.name)
        for process in reversed(self.processes):
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)  # `ray start --block` stops its node's processes
        for process in reversed(self.processes):
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)  # whatever of its group is left
            process.wait()
        shutil.rmtree(self.temp, ignore_errors=True)
