"""`serve(settings)`: check everything, hold the run's lock, bind the socket (port 0: one the OS
assigns), print the address, and serve the page with uvicorn until Ctrl-C or SIGTERM."""

from __future__ import annotations

import ipaddress
import secrets
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import uvicorn

from byo.core.errors import ARGUMENTS, ConfigError
from byo.core.locks import writer_lock
from byo.core.stops import Stopped
from byo.human.app import create_app
from byo.human.borderline import dataset_picks
from byo.human.selection import borderline_only, check_name, select
from byo.human.store import Study, lock_dir
from byo.questions.load import QUESTIONS, load_questions


@dataclass
class HumanSettings:
    dataset: Path
    run: str = "human"
    host: str = "127.0.0.1"
    port: int = 8000
    questions: Path | None = None  # default DATASET/questions.jsonl
    variant: str | None = None  # PREPROMPT/INSTRUCTION or "all"; default the file's first
    per_level: int | None = None
    borderline: int | None = None  # at most N questions per readability rule and side of its threshold


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def prepare(settings: HumanSettings) -> Study:
    """The study, every input checked (ConfigError naming the file and the key) before anything
    is written."""
    dataset = Path(settings.dataset)
    if not dataset.is_dir():
        raise ConfigError(str(dataset), [("DATASET", "not a directory: expected a rendered dataset with its "
                                          "questions (byo questions)")])
    problem = check_name(settings.run)
    if problem:
        raise ConfigError(ARGUMENTS, [("run", problem)])
    if not 0 <= settings.port <= 65535:
        raise ConfigError(ARGUMENTS, [("port", f"expected 0 to 65535, got {settings.port}")])
    path = Path(settings.questions) if settings.questions else dataset / QUESTIONS
    questions = load_questions(path, dataset)
    selection = select(questions, variant=settings.variant, per_level=settings.per_level,
                       dataset_name=dataset.resolve().name, run=settings.run, where=str(path))
    notes: list[str] = []
    if settings.borderline:
        picks, notes = dataset_picks(dataset, selection.questions, settings.borderline)
        selection = borderline_only(selection, {p.id for p in picks}, settings.borderline)
        notes.append(sheet_line(picks))
    study = Study(dataset, settings.run, path, selection)
    study.notes += notes
    return study


def sheet_line(picks) -> str:
    """What the borderline sheet holds, per rule and side."""
    counts: dict[str, dict[str, int]] = {}
    for p in picks:
        side = counts.setdefault(p.rule, {})
        side[p.side] = side.get(p.side, 0) + 1
    shown = "; ".join(f"{rule}: " + ", ".join(f"{n} {side}" for side, n in sorted(sides.items()))
                      for rule, sides in sorted(counts.items()))
    return (f"borderline sheet: {len({p.id for p in picks})} questions nearest the readability rules' thresholds "
            f"({shown or 'none: no rule found a question unreadable'})")


def bind(host: str, port: int) -> socket.socket:
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                             flags=socket.AI_PASSIVE)[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)  # connections wait in the backlog until uvicorn accepts them
    except OSError as err:
        raise ConfigError(ARGUMENTS, [("port", f"cannot listen on {host}:{port} (`host`, `port`): "
                                        f"{err.strerror or err}")]) from None
    return sock


def url(host: str, port: int) -> str:
    shown = socket.gethostname() if host in ("0.0.0.0", "::", "") else host
    return f"http://[{shown}]:{port}/" if ":" in shown else f"http://{shown}:{port}/"


def progress(study: Study) -> str:
    done = [f"{a.name} {len(a.rows)} of {len(a.order)}" for a in study.annotators.values()]
    return ", ".join(done) if done else "no answers yet"


def serve(settings: HumanSettings, *, say: Callable[[str], None] | None = None) -> int:
    say = say or (lambda line: print(line, flush=True))
    study = prepare(settings)
    loopback = is_loopback(settings.host)
    token = None if loopback else secrets.token_urlsafe(18)
    app = create_app(study, token=token, loopback=loopback, host=settings.host)  # checks every image first
    with writer_lock(lock_dir(study.runs_dir, study.run), what="human run"):
        try:
            return _serve(study, settings, app, token, say)
        finally:
            study.close()


def _serve(study: Study, settings: HumanSettings, app, token: str | None, say: Callable[[str], None]) -> int:
    _, problems = study.existing()
    for note in study.notes:
        say(note)
    for problem in problems:
        say(f"not resumed (its annotator is refused until it is moved away): {problem}")
    sock = bind(settings.host, settings.port)
    port = sock.getsockname()[1]
    address = url(settings.host, port)
    s = study.selection
    sample = f", at most {s.per_level} per key and level" if s.per_level else ""
    sample += f", at most {s.borderline} per rule and side of its threshold" if s.borderline else ""
    say(f"byo human: {len(s.questions)} questions of {study.dataset} (variant {s.variant}{sample}); "
        f"each annotator's answers go to {study.runs_dir / (study.run + '-NAME')}")
    if study.annotators:
        say(f"resuming: {progress(study)}")
    if token:
        say(f"open {address}?token={token} (bound to {settings.host}: anyone with this address can answer; "
            "keep it to your annotators)")
    else:
        say(f"open {address} and sign in, or {address}?annotator=NAME")
    say("Ctrl-C stops the server; every answer is already on disk, and the same command resumes")
    config = uvicorn.Config(app, log_level="warning", access_log=False, server_header=False, date_header=False,
                            lifespan="off", timeout_graceful_shutdown=5)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except (Stopped, KeyboardInterrupt):  # uvicorn stopped gracefully, then raised the signal again
        pass
    finally:
        sock.close()
    say(f"stopped: {progress(study)}. Score a run with: byo score {study.runs_dir / (study.run + '-NAME')}")
    return 0
