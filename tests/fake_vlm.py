"""A fake VLM server on loopback for tests and benchmarks: OpenAI `/v1/chat/completions` and
`/v1/responses`, Groq's `/openai/v1/chat/completions`, Ollama's `/api/chat`, Azure OpenAI's
`/openai/deployments/NAME/chat/completions?api-version=V` (key in the `api-key` header) and the
Gemini API's OpenAI-compatible `/v1beta/openai/chat/completions` (whose usage counts a thinking
model's thought tokens in `total_tokens` only: THOUGHT_TOKENS per answer).

Each request is logged (route, model, prompt, image hash, body, outcome, tokens billed).
Replies come from `answer(seen)`: a text, or a reasoning model's reply as a dict {"content": text,
and any of "reasoning_content", "reasoning" (fields of the message beside its content, as vLLM,
SGLang, DeepSeek and OpenRouter send them), "reasoning_tokens" (in the usage details)}. A request
carrying a parameter named in `refuse` is answered 400 with that message, as OpenAI's reasoning
models answer `max_tokens` and `temperature`. Faults come from `plan(seen, times_seen_before)`, or at
`fault_rate`: drawn from a hash of (seed, request, attempt), so the same requests fail whatever
the order in which concurrent requests arrive.

Every request has a thread of its own, and the latency is a sleep in that thread, so any number
of requests wait at once. `python tests/fake_vlm.py --latency 0.3` serves on its own (a process
of its own does not share the client's interpreter lock): it prints its URL, answers "3", tells
its counts at GET /stats, and stops when its standard input closes.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

GEMINI_ROUTE = "/v1beta/openai/chat/completions"
CHAT_ROUTES = ("/v1/chat/completions", "/openai/v1/chat/completions", GEMINI_ROUTE)
AZURE_ROUTE = re.compile(r"/openai/deployments/[^/]+/chat/completions")
IMAGE_TOKENS = 85
THOUGHT_TOKENS = 7
FAULTS = ("429", "500", "timeout", "malformed")


@dataclass
class Seen:
    route: str
    model: str
    prompt: str
    image_sha256: str | None
    image_format: str | None
    auth: str | None
    body: dict = field(default_factory=dict, repr=False)
    at: float = 0.0  # time.monotonic() on arrival
    outcome: str = ""
    tokens: dict = field(default_factory=dict)
    images: list[str] = field(default_factory=list)  # sha256 of every image sent, examples first
    query: str = ""  # the URL's query (Azure's api-version)
    headers: dict = field(default_factory=dict, repr=False)

    @property
    def item(self) -> tuple[str, str | None]:
        return (self.prompt, self.image_sha256)


def image_format(data: bytes) -> str | None:
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    return None


def parse_request(route: str, body: dict) -> tuple[str, str, bytes | None, list[bytes]]:
    """(model, prompt, image bytes, every image in order) from any of the three request shapes;
    the prompt and image are the last user turn's (earlier turns are few-shot examples)."""
    model = body["model"]
    if route == "/api/chat":
        users = [m for m in body["messages"] if m["role"] == "user"]
        every = [base64.b64decode(i) for m in users for i in m.get("images") or []]
        images = users[-1].get("images") or []
        return model, users[-1]["content"], base64.b64decode(images[0]) if images else None, every
    turns = body["input"] if route == "/v1/responses" else body["messages"]
    every, prompt, image = [], "", None
    for turn in turns:
        if turn["role"] != "user":
            continue
        prompt, image = "", None
        for part in turn["content"]:
            if part["type"] in ("text", "input_text"):
                prompt += part["text"]
            elif part["type"] in ("image_url", "input_image"):
                url = part["image_url"]["url"] if part["type"] == "image_url" else part["image_url"]
                header, _, data = url.partition(",")
                assert header.startswith("data:image/") and header.endswith(";base64"), header
                image = base64.b64decode(data)
                every.append(image)
    return model, prompt, image, every


def reply_body(route: str, model: str, text: str | dict, tokens: dict) -> dict:
    reply = text if isinstance(text, dict) else {"content": text}
    text = reply["content"]
    extra = {k: reply[k] for k in ("reasoning_content", "reasoning") if k in reply}  # beside the content
    if route == "/api/chat":
        return {"model": model, "created_at": "2025-01-01T00:00:00Z", "done": True, "done_reason": "stop",
                "message": {"role": "assistant", "content": text},
                "prompt_eval_count": tokens["input"], "eval_count": tokens["output"]}
    if route == "/v1/responses":
        return {"id": "resp_fake", "object": "response", "created_at": 0, "model": model, "status": "completed",
                "output": [{"type": "message", "id": "msg_fake", "role": "assistant", "status": "completed",
                            "content": [{"type": "output_text", "text": text, "annotations": []}]}],
                "usage": {"input_tokens": tokens["input"], "output_tokens": tokens["output"],
                          "total_tokens": tokens["input"] + tokens["output"],
                          "input_tokens_details": {"cached_tokens": 0},
                          "output_tokens_details": {"reasoning_tokens": 0}},
                "parallel_tool_calls": False, "tool_choice": "auto", "tools": []}
    thoughts = tokens.get("thoughts", 0)  # Gemini: billed as output, counted only in the total
    usage = {"prompt_tokens": tokens["input"], "completion_tokens": tokens["output"] - thoughts,
             "total_tokens": tokens["input"] + tokens["output"]}
    if "reasoning_tokens" in reply:
        usage["completion_tokens_details"] = {"reasoning_tokens": reply["reasoning_tokens"]}
    return {"id": "chatcmpl_fake", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                         "message": {"role": "assistant", "content": text, "refusal": None, **extra}}],
            "usage": usage}


class FakeVLM:
    def __init__(self, answer=None, *, latency: float = 0.0, gate: int | None = None, fault_rate: float = 0.0, faults=FAULTS,
                 seed: int = 0, hang: float = 1.0, retry_after: str = "0", plan=None, text_only: bool = False,
                 refuse: dict[str, str] | None = None, handler: type[BaseHTTPRequestHandler] | None = None):
        self.answer = answer or (lambda seen: "3")
        self.refuse = refuse or {}  # request parameter -> the 400 error's message
        self.text_only = text_only  # a language model: it answers prompts without an image, and refuses one
        self.latency = latency
        # answers wait until this many requests are in flight at once (or a minute passes): a test of
        # concurrency that does not depend on how fast a busy machine sends
        self.gate = gate
        self.gate_open = threading.Event()
        self.fault_rate = fault_rate
        self.faults = tuple(faults)
        self.seed = seed
        self.hang = hang  # how long a "timeout" fault stalls before dropping the connection
        self.retry_after = retry_after
        self.plan = plan  # plan(seen, times_seen_before) -> fault name or None
        self.log: list[Seen] = []
        self.lock = threading.Lock()
        self.in_flight = self.max_in_flight = 0
        self.server = _Server(("127.0.0.1", 0), handler or _Handler)  # a subclass of _Handler adds routes
        self.server.fake = self
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> FakeVLM:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def answered(self) -> list[Seen]:
        with self.lock:
            return [s for s in self.log if s.outcome == "ok"]

    def billed_tokens(self) -> dict:
        total = {"input": 0, "output": 0}
        for s in self.answered():
            total["input"] += s.tokens["input"]
            total["output"] += s.tokens["output"]
        return total

    def choose_fault(self, seen: Seen) -> str | None:
        with self.lock:
            before = sum(1 for s in self.log if s.item == seen.item and s.model == seen.model)
            self.log.append(seen)
            if self.plan is not None:
                return self.plan(seen, before)
        draw = hashlib.sha256(f"{self.seed}|{seen.model}|{seen.prompt}|{seen.image_sha256}|{before}".encode())
        u, pick = int(draw.hexdigest()[:8], 16) / 2**32, int(draw.hexdigest()[8:16], 16)
        return self.faults[pick % len(self.faults)] if u < self.fault_rate else None


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024  # the default backlog of 5 drops connections when 32 arrive at once

    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a client that stopped waiting is no error
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two writes: don't wait for an ACK

    def log_message(self, *args) -> None:
        pass

    def send(self, code: int, body: bytes, headers: dict | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def error(self, code: int, message: str, headers: dict | None = None) -> None:
        self.send(code, json.dumps({"error": {"message": message, "type": "fake_error"}}).encode(), headers)

    def do_GET(self) -> None:
        fake: FakeVLM = self.server.fake
        if self.path != "/stats":
            self.error(404, f"no route {self.path}")
            return
        with fake.lock:
            stats = {"requests": len(fake.log), "answered": sum(s.outcome == "ok" for s in fake.log),
                     "max_in_flight": fake.max_in_flight}
        self.send(200, json.dumps(stats).encode())

    def do_POST(self) -> None:
        fake: FakeVLM = self.server.fake
        with fake.lock:
            fake.in_flight += 1
            fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
            if fake.gate is not None and fake.in_flight >= fake.gate:
                fake.gate_open.set()
        if fake.gate is not None:
            fake.gate_open.wait(timeout=60)
        try:
            self.reply(fake)
        finally:
            with fake.lock:
                fake.in_flight -= 1

    def reply(self, fake: FakeVLM) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        url = urlsplit(self.path)
        route = url.path  # a query (an API key, say) does not change the route
        if route not in (*CHAT_ROUTES, "/v1/responses", "/api/chat") and not AZURE_ROUTE.fullmatch(route):
            self.error(404, f"no route {self.path}")  # echoes the query, as real servers do
            return
        model, prompt, image, every = parse_request(route, body)
        seen = Seen(route, model, prompt, hashlib.sha256(image).hexdigest() if image else None,
                    image_format(image) if image else None,
                    self.headers.get("Authorization") or self.headers.get("api-key"), body,
                    time.monotonic(), images=[hashlib.sha256(i).hexdigest() for i in every], query=url.query,
                    headers={k.lower(): v for k, v in self.headers.items()})
        fault = fake.choose_fault(seen)
        seen.outcome = fault or "pending"
        refused = next((p for p in fake.refuse if p in body), None)
        if refused is not None:
            seen.outcome = f"refused {refused}"
            self.send(400, json.dumps({"error": {"message": fake.refuse[refused], "type": "invalid_request_error",
                                                 "param": refused, "code": "unsupported_parameter"}}).encode())
        elif fake.text_only and image is not None:
            seen.outcome = "image_to_text_model"
            self.error(400, "this model does not take images")
        elif fake.text_only:
            text = fake.answer(seen)
            tokens = {"input": len(prompt.split()), "output": max(1, len(text.split()))}
            self.send(200, json.dumps(reply_body(route, model, text, tokens)).encode())
            with fake.lock:
                seen.tokens, seen.outcome = tokens, "ok"
        elif image is None or seen.image_format is None:
            seen.outcome = "no_image"
            self.error(400, "the request has no PNG or JPEG image")
        elif fault == "429":
            self.error(429, "Rate limit reached", {"Retry-After": fake.retry_after})
        elif fault == "500":
            self.error(500, "The server had an error")
        elif fault == "timeout":
            time.sleep(fake.hang)
            self.close_connection = True  # drop it without a reply
        elif fault == "malformed":
            self.send(200, b'{"id": "chatcmpl_fake", "choices": [{"index": 0, "mess')
        elif fault == "reject_image":
            self.error(400, "Invalid image: the model does not support image inputs")
        elif fault == "echo_auth":
            self.error(401, f"Incorrect API key provided: {seen.auth}")
        elif fault == "echo_url":
            self.error(400, f"bad request to {self.headers.get('Host')}{self.path} with {seen.auth}")
        elif fault == "echo_auth_lower":
            self.error(401, f"incorrect api key provided: {(seen.auth or '').lower()}")
        else:
            if fake.latency:
                time.sleep(fake.latency)
            text = fake.answer(seen)
            said = text["content"] + " " + text.get("reasoning_content", text.get("reasoning", "")) \
                if isinstance(text, dict) else text
            tokens = {"input": len(prompt.split()) + IMAGE_TOKENS * max(1, len(seen.images)),
                      "output": max(1, len(said.split()))}
            if route == GEMINI_ROUTE:
                tokens = {**tokens, "output": tokens["output"] + THOUGHT_TOKENS, "thoughts": THOUGHT_TOKENS}
            self.send(200, json.dumps(reply_body(route, model, text, tokens)).encode())
            with fake.lock:
                seen.tokens, seen.outcome = tokens, "ok"


def main() -> None:
    parser = argparse.ArgumentParser(description="serve the fake VLM until standard input closes")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each answer")
    args = parser.parse_args()
    with FakeVLM(latency=args.latency) as fake:
        print(fake.url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
