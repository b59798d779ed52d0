"""The story of a game drawn as one picture with Pillow, for the group chat: PNG or PDF bytes,
in the story's language (`story["lang"]`)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from base.words import DEFAULT_LANGUAGE, say
from server.story import colour_name

WIDTH = 1200
MARGIN = 48
BG = (12, 15, 20)
PANEL = (22, 27, 35)
TEXT = (244, 246, 248)
MUTED = (170, 182, 196)
GRID = (51, 64, 82)
GOLD = (255, 210, 63)
DANGER = (255, 77, 79)
OK = (61, 220, 132)
GEM = (51, 197, 255)
PLAYER_RGB = {
    "red": (255, 90, 95),
    "blue": (78, 161, 255),
    "green": (62, 207, 110),
    "yellow": (255, 210, 63),
    "purple": (183, 132, 255),
    "orange": (255, 140, 43),
}
OTHER_RGB = (201, 209, 219)
TILE_RGB = {"start": (23, 90, 87), "exit": (106, 76, 12), "chamber": (59, 63, 72)}
WALL = (226, 207, 159)
MOMENT_RGB = {"slam": DANGER, "collapse": DANGER, "die": DANGER, "escape": OK, "last-gem": GEM}


def _font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    try:
        return ImageFont.truetype(name, size)
    except OSError:
        return ImageFont.load_default(size=size)


def _colour(pid: str) -> tuple[int, int, int]:
    return PLAYER_RGB.get(pid, OTHER_RGB)


def _clock(seconds: float) -> str:
    whole = max(0, round(seconds))
    return f"{whole // 60}:{whole % 60:02d}"


class _Page:
    """A growing column of panels on one tall canvas."""

    def __init__(self, height: int, lang: str = DEFAULT_LANGUAGE) -> None:
        self.lang = lang
        self.image = Image.new("RGB", (WIDTH, height), BG)
        self.draw = ImageDraw.Draw(self.image)
        self.y = MARGIN

    def text(self, xy: tuple[float, float], said: str, size: int = 26, **kw: Any) -> None:
        fill = kw.pop("fill", TEXT)
        self.draw.text(xy, said, font=_font(size, kw.pop("bold", False)), fill=fill, **kw)

    def heading(self, said: str) -> None:
        self.y += 18
        self.text((MARGIN, self.y), said, 34, bold=True)
        self.y += 50


def _axes(page: _Page, height: int, duration: float, top: float) -> tuple[int, int, int, int]:
    """Draw a plot's frame (time along, 0..top up); return its box."""
    left, right = MARGIN + 70, WIDTH - MARGIN
    y0, y1 = page.y, page.y + height
    page.draw.rectangle((MARGIN, y0 - 10, right, y1 + 50), fill=PANEL)
    for k in range(0, int(top) + 1, max(1, int(top) // 5 or 1)):
        y = y1 - (y1 - y0) * k / max(top, 1)
        page.draw.line((left, y, right - 10, y), fill=GRID, width=1)
        page.text((MARGIN + 10, y - 14), str(k), 22, fill=MUTED)
    minutes = int(duration // 60)
    for m in range(0, minutes + 1):
        x = left + (right - 10 - left) * (m * 60) / max(duration, 1)
        page.text(
            (x - 8, y1 + 10),
            say(page.lang, "story.minutes", n=0) if m == 0 else str(m),
            22,
            fill=MUTED,
        )
    page.y = y1 + 70
    return left, y0, right - 10, y1


def _steps(
    page: _Page,
    box: tuple[int, int, int, int],
    points: Sequence[Sequence[float]],
    duration: float,
    top: float,
    colour: tuple[int, int, int],
    offset: float = 0.0,
) -> None:
    left, y0, right, y1 = box

    def at(t: float, v: float) -> tuple[float, float]:
        x = left + (right - left) * t / max(duration, 1)
        return x, y1 - (y1 - y0) * v / max(top, 1) + offset

    line: list[tuple[float, float]] = []
    for i, (t, v) in enumerate(points):
        if i:
            line.append(at(t, points[i - 1][1]))
        line.append(at(t, v))
    if len(line) > 1:
        page.draw.line(line, fill=colour, width=6, joint="curve")


def _countdown_bands(
    page: _Page, box: tuple[int, int, int, int], story: dict[str, Any], duration: float
) -> None:
    left, y0, right, y1 = box
    for cd in story["countdowns"]:
        start = cd.get("start") if cd.get("start") is not None else cd.get("end")
        end = cd.get("end") if cd.get("end") is not None else duration
        if start is None:
            continue
        x0 = left + (right - left) * start / max(duration, 1)
        x1 = left + (right - left) * end / max(duration, 1)
        page.draw.rectangle((x0, y0, max(x1, x0 + 3), y1), fill=(74, 17, 19))


def story_picture(story: dict[str, Any]) -> Image.Image:
    """Draw the story (as `server.story.game_story` tells it) as one tall picture."""
    players: list[str] = story["players"]
    duration = max(float(story["duration"]), 60.0 * len(story["per_minute"]["rolls"]))
    moments = story["moments"][:14]
    temple = story["temple"]
    xs = [t["cell"][0] for t in temple]
    ys = [t["cell"][1] for t in temple]
    cols, rows = max(xs) - min(xs) + 1, max(ys) - min(ys) + 1
    cell = min(200, (WIDTH - 2 * MARGIN) // cols)
    height = 2400 + rows * cell + 60 * len(players) + 44 * len(moments)
    lang = str(story.get("lang") or DEFAULT_LANGUAGE)
    page = _Page(height, lang)
    page.text((MARGIN, page.y), say(lang, "story.title"), 44, bold=True)
    page.y += 62
    won = story["outcome"] == "won"
    page.text((MARGIN, page.y), story["outcome_text"], 34, bold=True, fill=OK if won else DANGER)
    page.y += 48
    said = say(lang, "story.img.facts", clock=_clock(story["duration"]), game=story["game_id"])
    page.text((MARGIN, page.y), said, 26, fill=MUTED)
    page.y += 30

    page.heading(say(lang, "story.img.depot"))
    top = max(v for _, v in story["depot"])
    box = _axes(page, 260, duration, top)
    _countdown_bands(page, box, story, duration)
    _steps(page, box, story["depot"], duration, top, GEM)

    page.heading(say(lang, "story.h.dice"))
    top = max(v for pts in story["dice"].values() for _, v in pts)
    box = _axes(page, 260, duration, top)
    _countdown_bands(page, box, story, duration)
    for i, pid in enumerate(players):
        _steps(page, box, story["dice"][pid], duration, top, _colour(pid), offset=-3 * i)
    x = MARGIN
    for pid in players:
        page.draw.rectangle((x, page.y - 8, x + 28, page.y + 20), fill=_colour(pid))
        page.text((x + 38, page.y - 10), colour_name(lang, pid), 26)
        x += 200
    page.y += 30

    page.heading(say(lang, "story.h.rate"))
    _bars(page, story, duration)

    page.heading(say(lang, "story.h.countdowns"))
    nobody = say(lang, "story.nobody")
    for cd in story["countdowns"]:
        last = bool(cd.get("collapse"))
        back = ", ".join(colour_name(lang, p) for p in cd.get("back", [])) or nobody
        caught = ", ".join(colour_name(lang, p) for p in cd.get("caught", [])) or nobody
        end = cd.get("end")
        when = _clock(end) if end is not None else say(lang, "story.not_reached")
        key = "story.img.cd_last" if last else "story.img.cd"
        said = say(lang, key, n=cd["n"], when=when, back=back, caught=caught)
        for part in _wrap(said, 24, WIDTH - 2 * MARGIN):
            page.text((MARGIN, page.y), part, 24, fill=TEXT)
            page.y += 34
        page.y += 6
    if not story["countdowns"]:
        page.text((MARGIN, page.y), say(lang, "story.img.no_countdown"), 24, fill=MUTED)
        page.y += 40

    page.heading(say(lang, "story.h.where"))
    _heat(page, story, cell, min(xs), max(ys))

    page.heading(say(lang, "story.h.moments"))
    for moment in moments:
        colour = MOMENT_RGB.get(moment["kind"], TEXT)
        page.text((MARGIN, page.y), _clock(moment["t"]), 26, fill=MUTED)
        for part in _wrap(moment["text"], 26, WIDTH - 2 * MARGIN - 110):
            page.text((MARGIN + 110, page.y), part, 26, fill=colour)
            page.y += 36
        page.y += 8
    return page.image.crop((0, 0, WIDTH, page.y + MARGIN))


def _wrap(said: str, size: int, width: int) -> list[str]:
    """Cut a sentence into lines that fit `width` pixels at this font size."""
    font = _font(size)
    lines: list[str] = []
    for word in said.split():
        if lines and font.getlength(f"{lines[-1]} {word}") <= width:
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    return lines or [""]


def _fitted(said: str, size: int, width: int) -> int:
    """The largest font size up to `size` at which `said` fits `width` pixels (12 at least)."""
    while size > 12 and _font(size, True).getlength(said) > width:
        size -= 1
    return size


SIDES = "NESW"


def _open_sides(tile: dict[str, Any], stairs: str) -> set[str]:
    """The tile's doors turned so that its stairway faces `stairs`, as it lies."""
    turns = (SIDES.index(stairs) - SIDES.index("S")) % 4
    return {SIDES[(SIDES.index(side) + turns) % 4] for side in tile["doors"]}


def _walls(page: _Page, box: tuple[int, int, int, int], open_sides: set[str]) -> None:
    x0, y0, x1, y1 = box
    gap_x, gap_y = (x1 - x0) * 0.32, (y1 - y0) * 0.32
    edges = {
        "N": ((x0, y0), (x1, y0)),
        "S": ((x0, y1), (x1, y1)),
        "W": ((x0, y0), (x0, y1)),
        "E": ((x1, y0), (x1, y1)),
    }
    for side, ((ax, ay), (bx, by)) in edges.items():
        if side not in open_sides:
            page.draw.line((ax, ay, bx, by), fill=WALL, width=7)
        elif ay == by:
            page.draw.line((ax, ay, ax + gap_x, by), fill=WALL, width=7)
            page.draw.line((bx - gap_x, ay, bx, by), fill=WALL, width=7)
        else:
            page.draw.line((ax, ay, bx, ay + gap_y), fill=WALL, width=7)
            page.draw.line((ax, by - gap_y, bx, by), fill=WALL, width=7)


def _bars(page: _Page, story: dict[str, Any], duration: float) -> None:
    rolls = story["per_minute"]["rolls"]
    actions = story["per_minute"]["actions"]
    top = max([1, *rolls, *actions])
    box = _axes(page, 220, duration, top)
    left, y0, right, y1 = box
    per = (right - left) * 60 / max(duration, 1)
    for m, (r, a) in enumerate(zip(rolls, actions, strict=True)):
        x = left + per * m + per * 0.1
        w = per * 0.38
        page.draw.rectangle((x, y1 - (y1 - y0) * r / top, x + w, y1), fill=GOLD)
        page.draw.rectangle((x + w, y1 - (y1 - y0) * a / top, x + 2 * w, y1), fill=OK)
    page.draw.rectangle((MARGIN, page.y - 8, MARGIN + 28, page.y + 20), fill=GOLD)
    page.text((MARGIN + 38, page.y - 10), "rolls", 26)
    page.draw.rectangle((MARGIN + 200, page.y - 8, MARGIN + 228, page.y + 20), fill=OK)
    page.text((MARGIN + 238, page.y - 10), "actions", 26)
    page.y += 40


def _heat(page: _Page, story: dict[str, Any], cell: int, min_x: int, max_y: int) -> None:
    players = story["players"]
    most = max([1.0, *(sum(t["seconds"].values()) for t in story["temple"])])
    whole = max(1.0, float(story["duration"]))
    bottom = page.y
    for tile in story["temple"]:
        x0 = MARGIN + (tile["cell"][0] - min_x) * cell
        y0 = page.y + (max_y - tile["cell"][1]) * cell
        total = sum(tile["seconds"].values())
        base = TILE_RGB.get(tile["tile"]["kind"], TILE_RGB["chamber"])
        heat = total / most
        fill = (*(int(b + (255 - b) * heat * 0.55) for b in base[:2]), base[2])
        square = (x0 + 4, y0 + 4, x0 + cell - 4, y0 + cell - 4)
        page.draw.rectangle(square, fill=fill)
        _walls(page, square, _open_sides(tile["tile"], tile["stairs"]))
        size = _fitted(tile["label"], 22 if cell >= 160 else 16, cell - 28)
        page.text((x0 + 14, y0 + 14), tile["label"], size, bold=True)
        row = y0 + 20 + size
        for pid in players:
            share = tile["seconds"].get(pid, 0.0)
            if share <= 0:
                continue
            if row > y0 + cell - 26:
                break
            width = (cell - 100) * share / whole
            page.text((x0 + 14, row), f"{pid[:1].upper()} {100 * share / whole:.0f}%", 17)
            page.draw.rectangle(
                (x0 + 80, row + 3, x0 + 80 + max(3, width), row + 17), fill=_colour(pid)
            )
            row += 22
        bottom = max(bottom, y0 + cell)
    page.y = bottom + 20


def story_png(story: dict[str, Any]) -> bytes:
    """The story as PNG bytes."""
    buffer = io.BytesIO()
    story_picture(story).save(buffer, format="PNG")
    return buffer.getvalue()


def story_pdf(story: dict[str, Any]) -> bytes:
    """The story as a one-page PDF (the picture at 150 dpi)."""
    buffer = io.BytesIO()
    story_picture(story).save(buffer, format="PDF", resolution=150.0)
    return buffer.getvalue()
