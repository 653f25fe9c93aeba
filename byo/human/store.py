"""The annotators' runs on disk, one per annotator: DATASET/runs/RUN-ANNOTATOR/ holds

- `predictions.jsonl`: one row per answer, the keys `byo eval` writes (provider `human`, model =
  the annotator, `latency_s` = the seconds the question was on screen), plus `human` (the input,
  when it was answered, the request's nonce). Each row is appended and fsynced before the next
  question is served (byo.core.journal): a write that fails (a full disk) is undone and the
  answer refused; a line cut short by a kill is read as unanswered, and the next server cut it
  off when it starts (and says so), so that question is asked again.
- `questions.jsonl`: the questions of the run, in the annotator's order (with their truth, for
  `byo score`: run.json's `questions` names this file). Never served.
- `run.json`: the settings (`request`), the counts, `finished`, and whether the annotator paused.

One server per run: it holds the writer lock (byo.core.locks) of DATASET/runs/.RUN.human while it
serves, and the lock of each annotator's run folder from that annotator's first request on, so
that no other study (whose RUN-ANNOTATOR spells the same folder) and no `byo eval` writes it
meanwhile; a folder that holds another study's or another command's run is refused, naming it.
Nothing is read or written through a link leading out of the dataset. An answer is keyed by
annotator and question id: the first one written wins, and a second one (another tab) is
refused, unless it is the same request sent again (same nonce).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path

from byo import __version__
from byo.core import journal
from byo.core.dataset import atomic_write_text
from byo.core.errors import ConfigError
from byo.core.locks import Busy, writer_lock
from byo.core.paths import inside
from byo.eval.layout import PREDICTIONS, RUN_FILE, RUNS, read_predictions
from byo.human.answers import CANNOT_TELL
from byo.human.selection import Selection
from byo.questions.load import QUESTIONS

PROVIDER = "human"
log = logging.getLogger("byo.human")


class StoreError(Exception):
    """A request the store refuses: `status` is the HTTP status that goes with it."""

    def __init__(self, status: int, message: str, state: dict | None = None):
        super().__init__(message)
        self.status = status
        self.state = state


def lock_dir(runs_dir: Path, run: str) -> Path:
    """The directory whose writer lock (byo.core.locks) a server holds for its run while it serves."""
    return runs_dir / f".{run}.human"


def study_requests(runs_dir: Path, run: str) -> list[tuple[Path, dict]]:
    """The human runs of the study `run` under `runs_dir`: each run file with its request (a file
    that cannot be read, or another study's or a model's run, left out)."""
    found = []
    for run_file in sorted(runs_dir.glob(f"{run}-*/{RUN_FILE}")):
        try:
            request = json.loads(run_file.read_text()).get("request") or {}
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(request, dict) and request.get("type") == "human" and request.get("study") == run:
            found.append((run_file, request))
    return found


def now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def append_line(path: Path, line: str) -> None:
    """Append one answer and fsync it: on disk when this returns (byo.core.journal)."""
    journal.append(path, line)


@dataclass
class Annotator:
    name: str
    run_dir: Path
    order: list[str]
    rows: dict[str, dict] = field(default_factory=dict)
    paused: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    def current(self) -> str | None:
        return next((i for i in self.order if i not in self.rows), None)


class Study:
    """A run of `byo human`: the selected questions and every annotator's answers."""

    def __init__(self, dataset: Path, run: str, questions_path: Path, selection: Selection):
        self.dataset = Path(dataset)
        self.name = self.dataset.resolve().name
        self.run = run
        self.questions_path = Path(questions_path)
        self.selection = selection
        self.runs_dir = self.dataset / RUNS
        self.annotators: dict[str, Annotator] = {}
        self.lock = threading.Lock()
        self.held = contextlib.ExitStack()  # the annotators' run folders this server writes
        self.notes: list[str] = []  # what was repaired on the way (a cut last line), to be said

    def close(self) -> None:
        """Let go of the annotators' run folders."""
        self.held.close()

    def request(self, annotator: str) -> dict:
        """What a run is made of: a run keeps the settings it was first made with."""
        return {"provider": PROVIDER, "type": "human", "model": annotator, "study": self.run,
                "variant": self.selection.variant, "per_level": self.selection.per_level,
                "questions_sha256": self.selection.fingerprint(),
                **({"borderline": self.selection.borderline} if self.selection.borderline else {})}

    def run_dir(self, annotator: str) -> Path:
        return self.runs_dir / f"{self.run}-{annotator}"

    def existing(self) -> tuple[list[str], list[str]]:
        """Annotators with a run of this study on disk, and the problems of those that cannot be
        resumed (a damaged file, a folder another server holds): each said, none stops the others.
        ConfigError when a run of the study was made with other settings."""
        found, problems = [], []
        for run_file, request in study_requests(self.runs_dir, self.run):
            annotator = str(request.get("model"))
            if self.run_dir(annotator) != run_file.parent:
                continue
            self._check_request(run_file, request, annotator)  # other settings: the whole study is refused
            try:
                self.annotator(annotator)
            except ConfigError as err:
                problems.append(str(err))
                continue
            found.append(annotator)
        return found, problems

    def _check_request(self, run_file: Path, before: dict, annotator: str) -> None:
        now_request = self.request(annotator)
        if (before.get("type") != "human" or before.get("study") != self.run
                or before.get("model") != annotator):
            owner = (f"study {before.get('study')!r}, annotator {before.get('model')!r}"
                     if before.get("type") == "human" else f"a run of provider {before.get('provider')!r}")
            raise ConfigError(str(run_file.parent), [("<run>", f"holds the answers of {owner}: study {self.run!r} "
                                                      f"cannot share it with annotator {annotator!r}; choose "
                                                      "another `run` or annotator name")])
        if before != now_request:
            changed = ", ".join(k for k, v in now_request.items() if before.get(k) != v)
            raise ConfigError(str(run_file), [("request", f"this run was made with other settings ({changed} "
                                               "changed); choose another `run`")])

    def annotator(self, name: str) -> Annotator:
        """The annotator's state, read from their run on first use; from then on this server holds
        the run folder's lock. ConfigError when the folder cannot be this annotator's run."""
        with self.lock:
            if name in self.annotators:
                return self.annotators[name]
            run_dir = self.run_dir(name)
            for file in (PREDICTIONS, RUN_FILE, QUESTIONS):
                if inside(self.dataset, f"{RUNS}/{run_dir.name}/{file}") is None:
                    raise ConfigError(str(run_dir / file), [("<run>", "leads outside the dataset through a symbolic "
                                                             "link; byo reads and writes nothing through such a link")])
            with contextlib.ExitStack() as held:
                try:
                    held.enter_context(writer_lock(run_dir, what="run"))
                except Busy as busy:
                    raise ConfigError(str(run_dir), [("<run>", str(busy).split(": ", 1)[-1])]) from None
                who = self._read(name, run_dir)
                self.held.enter_context(held.pop_all())  # held until the server stops
            self.annotators[name] = who
            return who

    def _read(self, name: str, run_dir: Path) -> Annotator:
        who = Annotator(name, run_dir, self.selection.order(self.name, name))
        run_file = run_dir / RUN_FILE
        if run_file.is_file():
            try:
                info = json.loads(run_file.read_text())
                if not isinstance(info, dict):
                    raise ValueError("expected an object")
            except ValueError as err:
                raise ConfigError(str(run_file), [("<file>", f"not valid JSON: {err}")]) from None
            self._check_request(run_file, info.get("request") or {}, name)
            cut = journal.recover(run_dir / PREDICTIONS)
            if cut is not None:
                self.notes.append(f"{cut}; that question is asked again")
            rows, problems = read_predictions(run_dir / PREDICTIONS)
            if problems:
                where, what = problems[0]
                raise ConfigError(str(run_dir / PREDICTIONS), [(where, what)])
            who.rows = {i: r for i, r in rows.items() if i in self.selection.items}
            who.paused = bool((info.get("human") or {}).get("paused"))
        elif (run_dir / PREDICTIONS).exists() or (run_dir / PREDICTIONS).is_symlink():
            raise ConfigError(str(run_dir), [("<run>", "holds predictions but no run.json: not a run of byo "
                                              "human; choose another annotator name or `run`")])
        return who

    # --- writing ------------------------------------------------------------------------------
    def _ensure_run(self, who: Annotator) -> None:
        """The run's questions and run.json, written before its first answer."""
        who.run_dir.mkdir(parents=True, exist_ok=True)
        if not (who.run_dir / QUESTIONS).is_file():
            atomic_write_text(who.run_dir / QUESTIONS, self.selection.lines(who.order))
        if not (who.run_dir / RUN_FILE).is_file():
            self._write_run_file(who)

    def _write_run_file(self, who: Annotator) -> None:
        answered = len(who.rows)
        total = len(who.order)
        info = {"request": self.request(who.name), "byo_version": __version__, "reference": False,
                "questions": str((who.run_dir / QUESTIONS).resolve()), "source": str(self.questions_path.resolve()),
                "n_questions": total, "limit": None,
                "answered": answered,
                "cannot_tell": sum(1 for r in who.rows.values() if r["refusal"]),
                "seconds": round(sum(r["latency_s"] or 0 for r in who.rows.values()), 3),
                "finished": answered == total, "stopped": None,
                "human": {"annotator": who.name, "paused": who.paused, "dataset": self.name}}
        atomic_write_text(who.run_dir / RUN_FILE, json.dumps(info, indent=1, ensure_ascii=False) + "\n")

    def record(self, who: Annotator, question_id: str, response: str, *, cannot_tell: bool, seconds: float,
               nonce: str, kind: str) -> bool:
        """Write the answer (on disk when this returns). False when this very request was already
        recorded (the same nonce); StoreError(409) when another answer to the question was."""
        item = self.selection.items[question_id]
        with who.lock:
            before = who.rows.get(question_id)
            if before is not None:
                if (before.get("human") or {}).get("nonce") == nonce:
                    return False
                raise StoreError(409, "this question was already answered (in another tab?); the first answer "
                                 "is kept", self.state(who))
            row = {"id": item.id, "provider": PROVIDER, "model": who.name, "reference": False,
                   "prompt": item.prompt, "response": CANNOT_TELL if cannot_tell else response, "status": "ok",
                   "error": None, "finish_reason": "cannot_tell" if cannot_tell else "answered",
                   "refusal": cannot_tell, "tokens": None, "cost_usd": None, "latency_s": seconds, "attempts": 1,
                   "parameters": {}, "image": {"path": item.image},
                   "human": {"input": "cannot_tell" if cannot_tell else kind, "answered_at": now(), "nonce": nonce}}
            try:
                self._ensure_run(who)
                append_line(who.run_dir / PREDICTIONS, json.dumps(row, ensure_ascii=False) + "\n")
            except OSError as err:  # a full disk: nothing of this answer is left; the page asks it again
                where = f"{err.filename}: " if err.filename else ""
                log.error("byo human: an answer of %s was not recorded: %s%s", who.name, where, err.strerror or err)
                raise StoreError(507, f"the answer could not be written ({err.strerror or err}); it is not "
                                 "recorded: send it again once the server has room", self.state(who)) from None
            who.rows[question_id] = row  # only once it is on disk
            with contextlib.suppress(OSError):  # the answer is kept; the counts follow with the next one
                self._write_run_file(who)
            return True

    def set_paused(self, who: Annotator, paused: bool) -> None:
        with who.lock:
            if who.paused == paused:
                return
            self._ensure_run(who)
            who.paused = paused
            self._write_run_file(who)

    # --- what the page is told ----------------------------------------------------------------
    def state(self, who: Annotator) -> dict:
        current = who.current()
        answered = len(who.rows)
        return {"study": f"{self.name}/{self.run}", "annotator": who.name, "total": len(who.order),
                "answered": answered,
                "cannot_tell": sum(1 for r in who.rows.values() if r["refusal"]),
                "seconds": round(sum(r["latency_s"] or 0 for r in who.rows.values()), 1),
                "paused": who.paused, "position": answered + 1 if current else None,
                "question": self.selection.items[current].public() if current and not who.paused else None}
