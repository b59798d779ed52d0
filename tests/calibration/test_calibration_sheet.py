"""The printable board: files of the right size, and a sheet the detector reads at its size."""

from __future__ import annotations

import re

import cv2
import numpy as np
import pytest
from PIL import Image

from calibration.board import BOARDS, DPI, MM_PER_INCH, PAPER_MM
from calibration.calibrate import detect_board
from templecam.cli import main


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_png_sheet_is_the_paper_at_300_dpi(tmp_path, paper, capsys):
    out = tmp_path / "board.png"
    assert main(["calibrate", "board", "--out", str(out), "--paper", paper]) == 0
    with Image.open(out) as image:
        width_mm, height_mm = PAPER_MM[paper]
        assert image.size == (
            round(width_mm / MM_PER_INCH * DPI),
            round(height_mm / MM_PER_INCH * DPI),
        )
        assert image.info["dpi"] == pytest.approx((DPI, DPI), abs=0.01)
    said = capsys.readouterr().out
    assert "100 %" in said and f"{BOARDS[paper].square_mm:.2f} mm" in said


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_pdf_sheet_is_one_page_of_the_paper(tmp_path, paper):
    out = tmp_path / "board.pdf"
    assert main(["calibrate", "board", "--out", str(out), "--paper", paper]) == 0
    data = out.read_bytes()
    assert data.startswith(b"%PDF")
    box = re.search(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]", data)
    assert box is not None
    width_mm, height_mm = PAPER_MM[paper]
    points = (float(box.group(1)), float(box.group(2)))
    assert points == pytest.approx(
        (width_mm / MM_PER_INCH * 72, height_mm / MM_PER_INCH * 72), abs=0.5
    )


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_printed_sheet_is_found_with_its_stated_square_size(tmp_path, paper):
    out = tmp_path / "board.png"
    assert main(["calibrate", "board", "--out", str(out), "--paper", paper]) == 0
    sheet = cv2.imread(str(out), cv2.IMREAD_GRAYSCALE)
    scale = 0.25
    small = cv2.resize(sheet, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    view = detect_board(small)
    assert view.board.paper == paper
    assert len(view.ids) == 28  # every inner corner of the 8 x 5 board
    # Corner spacing on the sheet, in mm at 300 dpi, is the square size the sheet states.
    px = view.image_px / scale
    steps = np.linalg.norm(np.diff(px[:7], axis=0), axis=1) * MM_PER_INCH / DPI
    assert steps == pytest.approx(BOARDS[paper].square_mm, abs=0.05)
    # The table frame: origin at the board's centre, y towards the sheet's top edge.
    assert view.table_mm.mean(axis=0) == pytest.approx((0.0, 0.0), abs=1e-3)
    top = view.ids.argmin()
    assert view.table_mm[top, 1] > 0 and px[top, 1] < px[:, 1].mean()


def test_format_and_suffix_must_agree(tmp_path, capsys):
    out = tmp_path / "board.png"
    assert main(["calibrate", "board", "--out", str(out), "--format", "pdf"]) == 2
    assert "--format is pdf" in capsys.readouterr().err
    assert not out.exists()
