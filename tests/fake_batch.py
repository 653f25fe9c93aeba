"""A fake OpenAI Batch API on loopback, beside the fake VLM's live routes (tests/fake_vlm.py), for
the real openai client.

- `POST /v1/files` (multipart: `purpose`, `file`) keeps a file; `GET /v1/files` lists them
  (`?purpose=`); `GET /v1/files/ID/content` returns its bytes.
- `POST /v1/batches` (`input_file_id`, `endpoint`, `completion_window`, `metadata`) makes a batch
  `validating`; `GET /v1/batches` lists them, newest first; `GET /v1/batches/ID` returns one, each
  retrieval moving it one step: validating, in_progress, finalizing, then its end, `ending(index)`
  of the batch's index: `completed`; `failed` (validation: no output file, `errors` said);
  `expired` or `cancelled` (the first `partial` lines answered, as partial output, the others in
  the error file: `batch_expired` for an expired batch). While `hold` is clear, batches stay
  in_progress.
- The lines of a batch run as it finalizes, each as the fake VLM answers a live chat request
  (`fake.answer`, `plan` faults: a "500" becomes a line of the error file), logged in `fake.log`.
- `submitted` counts every custom_id in the input file of every batch created; `stall` (an Event
  for "upload" or "create") makes `POST /v1/files` or `POST /v1/batches` make the file or batch
  and then wait for the Event before replying, so that a client killed meanwhile never learns
  its id.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import threading
import time
from collections import Counter
from email import policy
from email.parser import BytesParser
from urllib.parse import parse_qs, urlsplit

from fake_vlm import IMAGE_TOKENS, FakeVLM, Seen, _Handler, image_format, parse_request, reply_body

STEPS = ("validating", "in_progress", "finalizing")


class FakeBatchAPI(FakeVLM):
    def __init__(self, answer=None, *, ending=None, partial: int = 0, hold: threading.Event | None = None,
                 stall: dict[str, threading.Event] | None = None, **kwargs):
        super().__init__(answer, handler=_BatchHandler, **kwargs)
        self.ending = ending or (lambda index: "completed")
        self.partial = partial
        self.hold = hold
        self.stall = stall or {}
        self.files: dict[str, dict] = {}
        self.batches: list[dict] = []  # in creation order
        self.submitted: Counter = Counter()  # custom_id -> times submitted in a batch
        self.ids = itertools.count(1)
        self.stepping = threading.Lock()  # one batch moves one step at a time
        self.calls: list[str] = []  # the method and URL of every files or batches call

    def new_file(self, name: str, purpose: str, data: bytes) -> dict:
        with self.lock:
            f = {"id": f"file-{next(self.ids)}", "object": "file", "bytes": len(data), "created_at": int(time.time()),
                 "filename": name, "purpose": purpose, "status": "processed"}
            self.files[f["id"]] = {**f, "data": data}
        return f

    def create_batch(self, body: dict, auth: str | None) -> dict:
        with self.lock:
            data = self.files[body["input_file_id"]]["data"]
            lines = [json.loads(line) for line in data.splitlines() if line.strip()]
            self.submitted.update(line["custom_id"] for line in lines)
            batch = {"id": f"batch_{next(self.ids)}", "object": "batch", "endpoint": body["endpoint"],
                     "errors": None, "input_file_id": body["input_file_id"],
                     "completion_window": body["completion_window"], "status": "validating",
                     "output_file_id": None, "error_file_id": None, "created_at": int(time.time()),
                     "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
                     "metadata": body.get("metadata"), "_lines": lines, "_index": len(self.batches), "_auth": auth}
            self.batches.append(batch)
        return batch

    def advance(self, batch: dict) -> None:
        """One step of the batch's life (a retrieval)."""
        end = self.ending(batch["_index"])
        status = batch["status"]
        if status == "validating":
            if end == "failed":
                batch.update(status="failed", errors={"object": "list", "data": [
                    {"code": "token_limit_exceeded", "message": "Enqueued token limit reached for the model",
                     "param": None, "line": None}]}, failed_at=int(time.time()))
            else:
                batch.update(status="in_progress", in_progress_at=int(time.time()))
        elif status == "in_progress" and (self.hold is None or self.hold.is_set()):
            self.finish(batch, end)
            batch["status"] = "finalizing"
        elif status == "finalizing":
            batch["status"] = end
            batch[f"{end}_at"] = int(time.time())

    def finish(self, batch: dict, end: str) -> None:
        """Runs the batch's lines (the first `partial` ones for an expired or cancelled batch) and
        writes its output and error files."""
        out, errors = [], []
        for n, line in enumerate(batch["_lines"]):
            if end in ("expired", "cancelled") and n >= self.partial:
                if end == "expired":
                    errors.append({"id": f"batch_req_{batch['id']}_{n}", "custom_id": line["custom_id"],
                                   "response": None, "error": {"code": "batch_expired",
                                                               "message": "This request could not be executed "
                                                                          "before the completion window expired."}})
                continue
            code, body = self.run_line(line, batch["_auth"])
            entry = {"id": f"batch_req_{batch['id']}_{n}", "custom_id": line["custom_id"],
                     "response": {"status_code": code, "request_id": f"req_{n}", "body": body}, "error": None}
            (out if code == 200 else errors).append(entry)
        for entries, field, purpose in ((out, "output_file_id", "batch_output"), (errors, "error_file_id", "batch_output")):
            if entries:
                data = "".join(json.dumps(e) + "\n" for e in entries).encode()
                batch[field] = self.new_file(f"{batch['id']}_{field}.jsonl", purpose, data)["id"]
        batch["request_counts"].update(completed=len(out), failed=len(errors))

    def run_line(self, line: dict, auth: str | None) -> tuple[int, dict]:
        route = line["url"] if line["url"].startswith("/v1/") else "/v1" + line["url"]  # Azure's url lacks /v1
        body = line["body"]
        model, prompt, image, every = parse_request(route, body)
        seen = Seen(route, model, prompt, hashlib.sha256(image).hexdigest() if image else None,
                    image_format(image) if image else None, auth, body, time.monotonic(),
                    images=[hashlib.sha256(i).hexdigest() for i in every])
        fault = self.choose_fault(seen)
        if fault == "500":
            seen.outcome = "500"
            return 500, {"error": {"message": "The server had an error", "type": "server_error"}}
        text = self.answer(seen)
        tokens = {"input": len(prompt.split()) + IMAGE_TOKENS * max(1, len(seen.images)),
                  "output": max(1, len(text.split()))}
        with self.lock:
            seen.tokens, seen.outcome = tokens, "ok"
        return 200, reply_body(route, model, text, tokens)


def public(batch: dict) -> dict:
    return {k: v for k, v in batch.items() if not k.startswith("_")}


class _BatchHandler(_Handler):
    def route(self) -> tuple[str, dict]:
        url = urlsplit(self.path)
        path = url.path.removeprefix("/openai")  # Azure: /openai/files, /openai/batches
        if path.startswith("/files") or path.startswith("/batches"):
            path = "/v1" + path
        if path.startswith("/v1/files") or path.startswith("/v1/batches"):
            with self.server.fake.lock:
                self.server.fake.calls.append(f"{self.command} {self.path}")
        return path, parse_qs(url.query)

    def do_GET(self) -> None:
        fake: FakeBatchAPI = self.server.fake
        path, query = self.route()
        parts = path.strip("/").split("/")
        if parts[:2] == ["v1", "files"] and len(parts) == 2:
            purpose = query.get("purpose", [None])[0]
            with fake.lock:
                files = [{k: v for k, v in f.items() if k != "data"} for f in fake.files.values()
                         if purpose is None or f["purpose"] == purpose]
            self.send(200, json.dumps({"object": "list", "data": files, "has_more": False}).encode())
        elif parts[:2] == ["v1", "files"] and len(parts) == 4 and parts[3] == "content":
            with fake.lock:
                f = fake.files.get(parts[2])
            if f is None:
                self.error(404, f"no file {parts[2]}")
            else:
                self.send(200, f["data"], {"Content-Type": "application/octet-stream"})
        elif parts[:2] == ["v1", "batches"] and len(parts) == 2:
            with fake.lock:
                batches = [public(b) for b in reversed(fake.batches)]
            self.send(200, json.dumps({"object": "list", "data": batches, "has_more": False}).encode())
        elif parts[:2] == ["v1", "batches"] and len(parts) == 3:
            with fake.lock:
                batch = next((b for b in fake.batches if b["id"] == parts[2]), None)
            if batch is None:
                self.error(404, f"no batch {parts[2]}")
                return
            with fake.stepping:
                fake.advance(batch)
            self.send(200, json.dumps(public(batch)).encode())
        else:
            super().do_GET()

    def reply(self, fake: FakeBatchAPI) -> None:
        path, _ = self.route()
        if path == "/v1/files":
            ctype = self.headers.get("Content-Type", "")
            data = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            message = BytesParser(policy=policy.default).parsebytes(
                b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + data)
            fields = {part.get_param("name", header="content-disposition"): part for part in message.iter_parts()}
            upload = fields["file"]
            f = fake.new_file(upload.get_filename(), fields["purpose"].get_content().strip(),
                              upload.get_payload(decode=True))
            if "upload" in fake.stall:
                fake.stall["upload"].wait(120)
            self.send(200, json.dumps(f).encode())
        elif path == "/v1/batches":
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            batch = fake.create_batch(body, self.headers.get("Authorization") or self.headers.get("api-key"))
            if "create" in fake.stall:
                fake.stall["create"].wait(120)
            self.send(200, json.dumps(public(batch)).encode())
        else:
            super().reply(fake)
