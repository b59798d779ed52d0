"""Answers the server can always send: JSON that encodes whatever it holds and names no folder
of this computer, and the messages for a refused save and for a request that does not validate."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar

from fastapi import Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from server.store import SaveFailed

DISK_FULL_STATUS = 507
"""HTTP 507 Insufficient Storage: the disk is full; nothing of the request was kept."""
SAVE_FAILED_STATUS = 503
"""Another refused write (a failing disk, a read-only folder): try again later."""


class PlainPaths:
    """Rewrites every string so that it names no folder of this computer: the data folder's
    files by their place inside it, anything else under the home folder by its name alone."""

    def __init__(self, data_dir: Path, others: Iterable[Path] = ()) -> None:
        roots = {str(data_dir), str(data_dir.resolve())}
        self._data = sorted(roots, key=len, reverse=True)
        folders = {str(folder) for other in others for folder in (other, other.resolve())}
        folders = {folder for folder in folders if len(Path(folder).parts) >= 2}  # never "/"
        self._others = sorted(folders - roots, key=len, reverse=True)

    def text(self, message: str) -> str:
        """Say `message` with the data folder as "the data folder" and other folders left out."""
        for root in self._data:
            message = message.replace(root + "/", "").replace(root, "the data folder")
        for folder in self._others:
            message = re.sub(re.escape(folder) + r"/(?:[^\s'\"]*/)?", "", message)
            message = message.replace(folder, "a folder of this computer")
        return message

    def value(self, content: Any) -> Any:
        """Return `content` (JSON-like) with every string, key or value, made plain."""
        if isinstance(content, str):
            return self.text(content)
        if isinstance(content, dict):
            return {self.value(key): self.value(item) for key, item in content.items()}
        if isinstance(content, list | tuple):
            return [self.value(item) for item in content]
        return content


class SafeJSONResponse(JSONResponse):
    """A JSON answer that never fails to encode and names no folder of this computer: text
    UTF-8 cannot hold (a lone surrogate quoted back in a message) is sent as a `\\uXXXX`
    escape instead of raising a 500; paths go through `plain` (set by `create_app`)."""

    plain: ClassVar[PlainPaths | None] = None

    def render(self, content: Any) -> bytes:
        """Encode `content` as compact UTF-8 JSON, escaping what UTF-8 cannot carry."""
        if self.plain is not None:
            content = self.plain.value(content)
        try:
            return super().render(content)
        except UnicodeEncodeError:
            text = json.dumps(content, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
            return text.encode("ascii")


def answer_class(plain: PlainPaths) -> type[SafeJSONResponse]:
    """Return a `SafeJSONResponse` class that makes paths plain for one application."""
    return type("PlainJSONResponse", (SafeJSONResponse,), {"plain": plain})


async def http_error_answer(request: Request, error: HTTPException) -> JSONResponse:
    """An `HTTPException` as FastAPI sends it, through the application's answer class."""
    answer = request.app.state.answer_class
    return answer({"detail": error.detail}, status_code=error.status_code, headers=error.headers)


async def save_failed_answer(request: Request, error: SaveFailed) -> JSONResponse:
    """Say that the disk refused the save (507 when it is full); the game is as it was."""
    status = DISK_FULL_STATUS if error.disk_full else SAVE_FAILED_STATUS
    return request.app.state.answer_class({"detail": str(error)}, status_code=status)


async def safe_validation_answer(request: Request, error: RequestValidationError) -> JSONResponse:
    """FastAPI's 422 for a body that does not validate, always encodable."""
    detail = jsonable_encoder(error.errors())
    return request.app.state.answer_class({"detail": detail}, status_code=422)
