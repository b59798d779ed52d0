"""The printable ChArUco calibration board: its geometry, its table frame and its sheet."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Literal

import cv2
import numpy as np
from PIL import Image

Paper = Literal["a4", "letter"]
SheetFormat = Literal["png", "pdf"]

DPI = 300
MM_PER_INCH = 25.4
SQUARES = (8, 5)
"""Chessboard squares across and down the sheet (landscape)."""
MARKER_RATIO = 0.75
"""ArUco marker edge / square edge."""
DICTIONARY = cv2.aruco.DICT_4X4_50
PAPER_MM: dict[str, tuple[float, float]] = {"a4": (297.0, 210.0), "letter": (279.4, 215.9)}
"""Landscape paper sizes (width, height) in mm."""
_FIRST_ID: dict[str, int] = {"a4": 0, "letter": 20}
"""Each paper's board uses its own marker ids, so a photo tells which sheet was printed."""
_SIDE_MARGIN_MM = 8.0
_TEXT_MARGIN_MM = 18.0
_PX_STEP = 24
"""Square edges are a multiple of 24 px at 300 dpi, so markers and their bits are whole pixels."""


def _px(mm: float) -> float:
    """Return the pixels at 300 dpi that `mm` millimetres span."""
    return mm * DPI / MM_PER_INCH


@dataclass(frozen=True)
class BoardSpec:
    """One printable board: paper, squares, square edge, first marker id."""

    paper: Paper
    square_px: int
    """Square edge in sheet pixels at 300 dpi."""
    first_id: int

    @property
    def square_mm(self) -> float:
        """Return the printed square edge in mm."""
        return self.square_px * MM_PER_INCH / DPI

    @property
    def size_mm(self) -> tuple[float, float]:
        """Return the chessboard's (width, height) in mm."""
        return SQUARES[0] * self.square_mm, SQUARES[1] * self.square_mm

    def charuco(self, square_mm: float | None = None) -> cv2.aruco.CharucoBoard:
        """Return the OpenCV board, in mm (`square_mm` overrides the printed square edge)."""
        square = float(square_mm or self.square_mm)
        ids = np.arange(self.first_id, self.first_id + SQUARES[0] * SQUARES[1] // 2)
        dictionary = cv2.aruco.getPredefinedDictionary(DICTIONARY)
        return cv2.aruco.CharucoBoard(SQUARES, square, square * MARKER_RATIO, dictionary, ids)


def _spec(paper: Paper) -> BoardSpec:
    """Work out the largest board that fits the paper with room for the instructions."""
    width, height = PAPER_MM[paper]
    fit = min(
        _px(width - 2 * _SIDE_MARGIN_MM) / SQUARES[0],
        _px(height - 2 * _TEXT_MARGIN_MM) / SQUARES[1],
    )
    return BoardSpec(paper, int(fit // _PX_STEP) * _PX_STEP, _FIRST_ID[paper])


BOARDS: dict[str, BoardSpec] = {paper: _spec(paper) for paper in ("a4", "letter")}
"""The board printed on each paper size."""


def board_to_table(
    spec: BoardSpec, board_mm: np.ndarray, square_mm: float | None = None
) -> np.ndarray:
    """Map board-plane points (N, 2+) in mm (OpenCV's: origin top-left, y down) to table mm.

    The table origin is the board's centre, x to the sheet's right, y towards its top edge.
    """
    points = np.asarray(board_mm, dtype=np.float64).reshape(len(board_mm), -1)[:, :2]
    square = float(square_mm or spec.square_mm)
    half = np.array(SQUARES, dtype=np.float64) * square / 2
    return np.column_stack([points[:, 0] - half[0], half[1] - points[:, 1]])


def _fit_text(text: str, max_width: int, height_px: int) -> tuple[float, int]:
    """Return the Hershey font scale and thickness that draw `text` at most this wide and tall."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    (width, height), _ = cv2.getTextSize(text, font, 1.0, 2)
    scale = min(max_width / width, height_px / height)
    return scale, max(2, round(scale * 2))


def _put_line(sheet: np.ndarray, text: str, centre_y: int, height_px: int) -> None:
    """Draw one centred line of black text on the sheet."""
    margin = round(_px(_SIDE_MARGIN_MM))
    scale, thickness = _fit_text(text, sheet.shape[1] - 2 * margin, height_px)
    (width, height), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thickness)
    origin = ((sheet.shape[1] - width) // 2, centre_y + height // 2)
    cv2.putText(sheet, text, origin, cv2.FONT_HERSHEY_SIMPLEX, scale, 0, thickness, cv2.LINE_AA)


def render_sheet(paper: Paper) -> np.ndarray:
    """Return the printable sheet (grey, 300 dpi, landscape): the board and how to use it."""
    spec = BOARDS[paper]
    width_mm, height_mm = PAPER_MM[paper]
    sheet = np.full((round(_px(height_mm)), round(_px(width_mm))), 255, np.uint8)
    board_w, board_h = SQUARES[0] * spec.square_px, SQUARES[1] * spec.square_px
    image = spec.charuco().generateImage((board_w, board_h), marginSize=0, borderBits=1)
    top = (sheet.shape[0] - board_h) // 2
    left = (sheet.shape[1] - board_w) // 2
    sheet[top : top + board_h, left : left + board_w] = image
    line = round(_px(4.0))
    square = f"{spec.square_mm:.2f} mm"
    _put_line(
        sheet,
        f"TOP = NORTH    templecam calibration board ({paper.upper()}), squares {square}",
        top // 2 - line // 2,
        line,
    )
    _put_line(sheet, "print at 100 %, no scaling (actual size)", top // 2 + line, line)
    for x in (left + spec.square_px // 2, left + board_w - spec.square_px // 2):
        tip, tail = (x, round(_px(4.0))), (x, top - round(_px(4.0)))
        cv2.arrowedLine(sheet, tail, tip, 0, round(_px(1.0)), cv2.LINE_AA, tipLength=0.35)
    bottom = top + board_h + (sheet.shape[0] - top - board_h) // 2
    _put_line(
        sheet,
        f"a square must measure {square}; if not: templecam calibrate --square-mm MEASURED",
        bottom - line // 2 - line // 4,
        round(line * 0.8),
    )
    _put_line(
        sheet,
        "lay it flat where the start chamber goes, its top edge north (far side of the picture)",
        bottom + line // 2 + line // 4,
        round(line * 0.8),
    )
    return sheet


def sheet_bytes(paper: Paper, fmt: SheetFormat) -> bytes:
    """Return the printable sheet encoded as a 300 dpi PNG or a one-page PDF."""
    image = Image.fromarray(render_sheet(paper))
    buffer = io.BytesIO()
    if fmt == "pdf":
        image.save(buffer, "PDF", resolution=float(DPI))
    else:
        image.save(buffer, "PNG", dpi=(DPI, DPI))
    return buffer.getvalue()
