"""Safe-by-default request checks: trusted hosts, same-origin writes, small JSON bodies, framing.

`WriteGuard` is plain ASGI middleware, so that it limits what is read from a request body (a
chunked body announces no length) rather than what a header announces, and hands the route the
body it already read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rules.finite import UnfitJSONError, loads_finite

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
MAX_BODY_BYTES = 64 * 1024
TOO_LARGE = f"the request body is larger than {MAX_BODY_BYTES // 1024} KiB"
UPLOAD_TYPES = ("image/", "application/octet-stream")
"""What an upload route (see `WriteGuard`) takes: a photo as the raw request body."""
FRAMING_HEADERS = (
    ("X-Frame-Options", "DENY"),
    ("Content-Security-Policy", "frame-ancestors 'none'"),
    ("X-Content-Type-Options", "nosniff"),
)
"""Sent with every answer: no other site may show the dashboard in a frame (clickjacking)."""
DEFAULT_PORTS = {"http": 80, "https": 443}


def allowed_hosts(bind_host: str) -> list[str]:
    """Return the Host header values this server answers to."""
    hosts = {"127.0.0.1", "localhost", "[::1]", "::1"}
    if bind_host not in ("0.0.0.0", "::", ""):
        hosts.add(bind_host)
    else:
        hosts.add("*")  # the user asked for every interface: any host name may reach it
    return sorted(hosts)


def _host_and_port(netloc: str, scheme: str) -> tuple[str, int] | None:
    """Split `host[:port]` (the port defaulting to the scheme's); None when it cannot be read."""
    try:
        parts = urlsplit(f"{scheme}://{netloc}")
        port = parts.port or DEFAULT_PORTS.get(scheme)
    except ValueError:
        return None
    if not parts.hostname or port is None:
        return None
    return parts.hostname.lower(), port


class WriteGuard:
    """Refuse state-changing requests from other origins, without JSON, too large, or holding
    numbers JSON does not have; add the framing headers to every answer.

    `uploads` names the routes that take a photo instead (the raw body, an image type) and the
    most bytes each reads; the origin checks hold for them too.
    """

    def __init__(
        self, app: ASGIApp, hosts: Iterable[str], uploads: Mapping[str, int] | None = None
    ) -> None:
        self.app = app
        self.hosts = set(hosts)
        self.uploads = dict(uploads or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check an unsafe request before it reaches a route; protect every answer from framing."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        send = _with_framing_headers(send)
        if scope["method"] not in UNSAFE_METHODS:
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        limit = self.uploads.get(scope.get("path", ""))
        problem = self._header_problem(headers, scope, limit or MAX_BODY_BYTES)
        if problem is None:
            body, problem = await _read_body(receive, limit or MAX_BODY_BYTES)
        if problem is None:
            problem = _body_problem(body, headers) if limit is None else _upload_problem(headers)
        if problem is not None:
            status, message = problem
            response = JSONResponse({"detail": message}, status_code=status)
            if status == 413:
                response.headers["Connection"] = "close"  # the rest of the body is not read
            await response(scope, receive, send)
            return
        await self.app(scope, _replay(body, receive), send)

    def _header_problem(
        self, headers: Headers, scope: Scope, limit: int = MAX_BODY_BYTES
    ) -> tuple[int, str] | None:
        origin = headers.get("origin")
        if origin is not None:
            if not self._same_origin(origin, headers, scope):
                return 403, f"requests from {origin} are not allowed: use the dashboard page"
        elif headers.get("sec-fetch-site") == "cross-site":
            return 403, "cross-site requests are not allowed: use the dashboard page"
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            return 413, _too_large(limit)
        return None

    def _same_origin(self, origin: str, headers: Headers, scope: Scope) -> bool:
        """Tell whether `origin` is this very server: scheme, host name and port all equal."""
        parts = urlsplit(origin)
        scheme = scope.get("scheme", "http")
        if parts.scheme != scheme:
            return False
        mine = _host_and_port(headers.get("host", ""), scheme)
        theirs = _host_and_port(parts.netloc, scheme)
        if mine is None or theirs is None or mine != theirs:
            return False
        host = theirs[0]
        return "*" in self.hosts or host in self.hosts or f"[{host}]" in self.hosts


def _too_large(limit: int) -> str:
    """Say that a body is over `limit` bytes."""
    if limit == MAX_BODY_BYTES:
        return TOO_LARGE
    return f"the request body is larger than {limit // (1024 * 1024)} MiB"


def _upload_problem(headers: Headers) -> tuple[int, str] | None:
    """An upload's body must be declared as a photo."""
    if not headers.get("content-type", "").startswith(UPLOAD_TYPES):
        return 415, "send the photo itself as the request body (Content-Type: image/jpeg, ...)"
    return None


async def _read_body(
    receive: Receive, limit: int = MAX_BODY_BYTES
) -> tuple[bytes, tuple[int, str] | None]:
    """Read the request body, but never more than `limit` bytes (whatever was announced)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b"", (400, "the client went away before its request body arrived")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return b"", (413, _too_large(limit))
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), None


def _body_problem(body: bytes, headers: Headers) -> tuple[int, str] | None:
    """A body must be JSON (declared and, for numbers, as JSON defines them)."""
    if not body:
        return None
    if not headers.get("content-type", "").startswith("application/json"):
        return 415, "send the request body as JSON (Content-Type: application/json)"
    try:
        loads_finite(body)
    except UnfitJSONError as error:
        return 422, f"the request body is not valid JSON: {error}"
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None  # the route's own validation answers with the place of the error
    return None


def _replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands the route the body already read, then waits for a disconnect."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def _with_framing_headers(send: Send) -> Send:
    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = MutableHeaders(scope=message)
            for name, value in FRAMING_HEADERS:
                headers.setdefault(name, value)
        await send(message)

    return wrapped
