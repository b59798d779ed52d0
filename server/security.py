"""Safe-by-default request checks: trusted hosts, same-origin writes and small bodies."""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
MAX_BODY_BYTES = 64 * 1024


def allowed_hosts(bind_host: str) -> list[str]:
    """Return the Host header values this server answers to."""
    hosts = {"127.0.0.1", "localhost", "[::1]", "::1", "testserver"}
    if bind_host not in ("0.0.0.0", "::", ""):
        hosts.add(bind_host)
    else:
        hosts.add("*")  # the user asked for every interface: any host name may reach it
    return sorted(hosts)


class WriteGuard(BaseHTTPMiddleware):
    """Refuse state-changing requests from other origins, without JSON, or too large."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str]) -> None:
        super().__init__(app)
        self.hosts = set(hosts)

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        """Check an unsafe request before it reaches a route."""
        if request.method in UNSAFE_METHODS:
            problem = self._problem(request)
            if problem:
                status, message = problem
                return JSONResponse({"detail": message}, status_code=status)
        return await call_next(request)

    def _problem(self, request: Request) -> tuple[int, str] | None:
        origin = request.headers.get("origin")
        if origin is not None:
            host = urlsplit(origin).hostname or ""
            if "*" not in self.hosts and host not in self.hosts and f"[{host}]" not in self.hosts:
                return 403, f"requests from {origin} are not allowed: use the dashboard page"
        elif request.headers.get("sec-fetch-site") == "cross-site":
            return 403, "cross-site requests are not allowed: use the dashboard page"
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
            return 413, f"the request body is larger than {MAX_BODY_BYTES // 1024} KiB"
        content_type = request.headers.get("content-type", "")
        if length not in (None, "0") and not content_type.startswith("application/json"):
            return 415, "send the request body as JSON (Content-Type: application/json)"
        return None
