"""The table's language for the pages: GET /api/words?lang=pt gives a page its catalog, and each
request's language (`?lang=` or the pages' header) is noted for the state it is answered with."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any
from urllib.parse import parse_qs

from fastapi import APIRouter
from starlette.types import ASGIApp, Receive, Scope, Send

from base.words import DEFAULT_LANGUAGE, LANGUAGES, catalog, language


def words_router() -> APIRouter:
    """Return the route that serves one language's words (English for an unknown language)."""
    router = APIRouter()

    @router.get("/api/words")
    def words(lang: str = "en") -> dict[str, Any]:
        """Every key of the catalog in `lang`, with the languages a page may offer."""
        chosen = language(lang)
        return {
            "lang": chosen,
            "languages": [{"code": code, "name": name} for code, name in LANGUAGES.items()],
            "words": catalog(chosen),
        }

    return router


TABLE_LANGUAGE: ContextVar[str] = ContextVar("table_language", default=DEFAULT_LANGUAGE)
"""The language of the page that made the request being answered (the dashboard's words)."""

LANGUAGE_HEADER = "x-templecam-lang"


class LanguageMiddleware:
    """Note each request's language, from `?lang=` (the event stream) or the pages' header, so
    that the state it is answered with speaks that page's language; the record never does."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer the request with its language noted."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        asked = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("lang", [None])[0]
        if asked is None:
            headers = dict(scope.get("headers") or [])
            header = headers.get(LANGUAGE_HEADER.encode())
            asked = header.decode("latin-1") if header else None
        token = TABLE_LANGUAGE.set(language(asked))
        try:
            await self.app(scope, receive, send)
        finally:
            TABLE_LANGUAGE.reset(token)
