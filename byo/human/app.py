"""The ASGI application of `byo human` (Starlette).

Routes: `GET /` the page (static: it holds no question), `GET /static/app.js|app.css`,
`GET /api/state?annotator=NAME` (progress and the current question), `POST /api/answer`,
`POST /api/pause`, and `GET /images/PATH` (only the images of the questions asked, each resolved
inside the dataset when the app is made; the pixels re-encoded, so that no text chunk of a file
goes out).

Every response is JSON `{"error": "..."}` with a 4xx status when the request is wrong, and a
plain 500 message (the traceback goes to the server's log only) when the server is. Bound to a
loopback address, requests must name a loopback host (no DNS rebinding); bound elsewhere, each
request carries the access token (`?token=` once, then a cookie; or the `X-BYO-Token` header).
"""

from __future__ import annotations

import functools
import io
import logging
import secrets
from collections.abc import Callable
from http.cookies import SimpleCookie
from importlib.resources import files
from pathlib import Path

import jinja2
from PIL import Image
from pydantic import BaseModel, ConfigDict, ValidationError
from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from byo.core.errors import ConfigError
from byo.core.schema import validation_problems
from byo.human.answers import BadAnswer, Submitted, check_seconds, response_text
from byo.human.selection import check_name
from byo.human.store import StoreError, Study

log = logging.getLogger("byo.human")
MAX_BODY = 64 * 1024
TOKEN_COOKIE = "byo_human_token"
TOKEN_HEADER = "x-byo-token"
LOOPBACK_NAMES = {"127.0.0.1", "localhost", "::1"}
STATIC = {"app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8"}
HEADERS = {
    "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
                               "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",  # the token of the address never leaves in a Referer
    "x-frame-options": "DENY",
}


class Pause(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    annotator: str
    paused: bool


def error(status: int, message: str, **extra) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status, headers={"cache-control": "no-store"})


def request_host(request: Request) -> str:
    """The host name of the Host header, without its port."""
    host = request.headers.get("host", "")
    if host.startswith("["):
        return host[1:].split("]")[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class Guard:
    """Host check (loopback), access token (elsewhere) and security headers on every response."""

    def __init__(self, app, *, token: str | None, loopback: bool, host: str | None = None):
        self.app = app
        self.token = token
        self.loopback = loopback
        # the names a loopback server answers to: the usual ones and the address it is bound to
        self.hosts = LOOPBACK_NAMES | ({host.strip("[]")} if host else set())

    def problem(self, request: Request) -> tuple[Response | None, bool]:
        """(the refusal, or None; whether to set the token cookie)."""
        if self.loopback and request_host(request) not in self.hosts:
            return error(400, f"unexpected Host header {request.headers.get('host', '')[:80]!r}: this server "
                              f"answers requests to {' or '.join(sorted(self.hosts))} only"), False
        if self.token is None:
            return None, False
        given = request.headers.get(TOKEN_HEADER) or request.cookies.get(TOKEN_COOKIE)
        from_query = request.query_params.get("token")
        for candidate in (given, from_query):
            if candidate and secrets.compare_digest(candidate.encode(), self.token.encode()):
                return None, candidate is from_query
        if given or from_query:
            return error(403, "wrong access token: open the address `byo human` printed when it started"), False
        return error(401, "this server needs its access token: open the address `byo human` printed when it "
                          "started (it ends in ?token=...)"), False

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        refusal, set_cookie = self.problem(Request(scope))

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for key, value in HEADERS.items():
                    headers[key] = value
                if set_cookie:
                    cookie = SimpleCookie()
                    cookie[TOKEN_COOKIE] = self.token
                    cookie[TOKEN_COOKIE].update({"httponly": True, "samesite": "Strict", "path": "/"})
                    headers.append("set-cookie", cookie.output(header="").strip())
            await send(message)

        if refusal is not None:
            return await refusal(scope, receive, send_with_headers)
        return await self.app(scope, receive, send_with_headers)


@functools.lru_cache(maxsize=64)
def png_bytes(path: Path) -> bytes:
    """The image's pixels (and colour profile) as a PNG: nothing else of the file is sent."""
    with Image.open(path) as im:
        im.load()
        out = io.BytesIO()
        icc = {"icc_profile": im.info["icc_profile"]} if "icc_profile" in im.info else {}
        im.save(out, format="PNG", compress_level=3, **icc)
    return out.getvalue()


def resolved_images(study: Study) -> dict[str, Path]:
    """The questions' images, each resolved (links followed) and checked to be inside the dataset."""
    root = study.dataset.resolve()
    out = {}
    for item in study.selection.items.values():
        if item.image in out:
            continue
        path = (study.dataset / item.image).resolve()
        if not path.is_relative_to(root) or not path.is_file():
            raise ConfigError(str(study.questions_path), [(
                "image", f"{item.image!r} leads outside the dataset (to {path}); question {item.id}")])
        out[item.image] = path
    return out


def page_html(study: Study) -> str:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(files("byo.human") / "templates")), autoescape=True,
                             undefined=jinja2.StrictUndefined)
    return env.get_template("index.html.j2").render(study=f"{study.name} / {study.run}")


def create_app(study: Study, *, token: str | None = None, loopback: bool = True, host: str | None = None) -> Callable:
    images = resolved_images(study)
    page = page_html(study)
    static = {name: (files("byo.human") / "static" / name).read_bytes() for name in STATIC}

    def annotator(name):
        problem = check_name(name) if name is not None else "required"
        if problem:
            raise HTTPException(400, f"annotator: {problem}")
        try:
            return study.annotator(name)
        except ConfigError as err:  # a damaged run on disk, or a run of something else
            raise HTTPException(409, str(err)) from None

    async def body(request: Request, model: type[BaseModel]):
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            raise HTTPException(415, "expected a JSON body (Content-Type: application/json)")
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
            raise HTTPException(413, f"expected a body of at most {MAX_BODY} bytes")
        data = b""
        try:
            async for chunk in request.stream():  # read no more than the limit, whatever the headers say
                data += chunk
                if len(data) > MAX_BODY:
                    raise HTTPException(413, f"expected a body of at most {MAX_BODY} bytes")
        except ClientDisconnect:  # the client went away before sending its whole answer: nothing recorded
            raise HTTPException(400, "the client disconnected before its request was whole") from None
        try:
            return model.model_validate_json(data)
        except ValidationError as err:
            problems = validation_problems(err)
            raise HTTPException(400, "; ".join(f"{k}: {m}" for k, m in problems[:5])) from None

    async def get_page(request: Request) -> Response:
        return HTMLResponse(page, headers={"cache-control": "no-store"})

    async def get_static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in static:
            raise HTTPException(404, f"no static file {name[:80]!r}")
        return Response(static[name], media_type=STATIC[name], headers={"cache-control": "no-cache"})

    async def get_state(request: Request) -> Response:
        who = annotator(request.query_params.get("annotator"))
        return JSONResponse(study.state(who), headers={"cache-control": "no-store"})

    async def post_answer(request: Request) -> Response:
        sent = await body(request, Submitted)
        who = annotator(sent.annotator)
        item = study.selection.items.get(sent.id)
        if item is None:
            raise HTTPException(404, f"id: no question {sent.id[:120]!r} in this run")
        try:
            if sent.cannot_tell:
                if sent.answer is not None:
                    raise BadAnswer("answer: expected none with cannot_tell")
                text = ""
            else:
                text = response_text(item.input, sent.answer)
            seconds = check_seconds(sent.seconds)
        except BadAnswer as bad:
            raise HTTPException(400, str(bad)) from None
        if who.paused:
            return error(409, "the session is paused: resume it first", state=study.state(who))
        recorded = study.record(who, item.id, text, cannot_tell=sent.cannot_tell, seconds=seconds,
                                nonce=sent.nonce, kind=item.input["kind"])
        return JSONResponse({"recorded": recorded, "state": study.state(who)}, headers={"cache-control": "no-store"})

    async def post_pause(request: Request) -> Response:
        sent = await body(request, Pause)
        who = annotator(sent.annotator)
        study.set_paused(who, sent.paused)
        return JSONResponse(study.state(who), headers={"cache-control": "no-store"})

    async def get_image(request: Request) -> Response:
        path = request.path_params["path"]
        if path not in images:
            raise HTTPException(404, f"no image {path[:120]!r} among this run's questions")
        return Response(png_bytes(images[path]), media_type="image/png",
                        headers={"cache-control": "private, max-age=3600"})

    async def get_favicon(request: Request) -> Response:
        return Response(status_code=204)

    async def http_error(request: Request, exc: HTTPException) -> Response:
        message = exc.detail if isinstance(exc.detail, str) else "bad request"
        if exc.status_code == 404 and message == "Not Found":
            message = f"no such page: {request.url.path[:120]!r}"
        return error(exc.status_code, message)

    async def store_error(request: Request, exc: StoreError) -> Response:
        return error(exc.status, str(exc), **({"state": exc.state} if exc.state is not None else {}))

    async def server_error(request: Request, exc: Exception) -> Response:
        log.exception("byo human: %s %s failed", request.method, request.url.path)
        return error(500, "the server failed on this request; its log says why. The answers recorded so far are "
                          "safe on disk")

    app = Starlette(routes=[
        Route("/", get_page, methods=["GET"]),
        Route("/favicon.ico", get_favicon, methods=["GET"]),
        Route("/static/{name}", get_static, methods=["GET"]),
        Route("/api/state", get_state, methods=["GET"]),
        Route("/api/answer", post_answer, methods=["POST"]),
        Route("/api/pause", post_pause, methods=["POST"]),
        Route("/images/{path:path}", get_image, methods=["GET"]),
    ], exception_handlers={HTTPException: http_error, StoreError: store_error, Exception: server_error})
    return Guard(app, token=token, loopback=loopback, host=host)

