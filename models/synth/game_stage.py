"""A game video frame by frame: what lies still on the table and what moves over it."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from models.synth.game_script import Action, GameScript
from models.synth.game_table import (
    FIGURE_SPOTS,
    GameTable,
    chamber_gems,
    lay_dice,
)
from models.synth.layout import _CLOTH, _SKINS, _random_rotation, _tilt
from models.synth.scene import Chamber, Die, Figure, FlatPiece, Hand, Scene
from rules.catalog import basic_catalog
from rules.vocabulary import BLACK_MASK, Cell

_CATALOG = basic_catalog()
_PHASES = ("start", "grab", "release", "land")
_SEAT_MM = 420.0
"""How far behind the middle of their zone a player sits."""
_OUT_MM = 260.0
"""How far outside the view a wrist is before it comes in and after it goes."""
_TILE_MM_THICK = 2.0
"""Thickness of a cardboard tile."""
_FINGERS_MM = 160.0
"""How far ahead of the wrist a hand may show."""
_DROP_MM = 45.0
"""Height from which rolled dice leave the hand."""


@dataclass
class HandShot:
    """One hand in one frame: drawn once at `sprite` for its action, then moved to `wrist`."""

    key: int
    """The action's index: one drawing per action."""
    player: str
    action: str
    sprite: Hand
    wrist: tuple[float, float]

    def now(self) -> Hand:
        """Return the hand where it is in this frame."""
        return replace(self.sprite, wrist=self.wrist)


@dataclass
class Moving:
    """What moves over the still table in one frame (drawn above it)."""

    hands: list[HandShot] = field(default_factory=list)
    dice: list[Die] = field(default_factory=list)
    tiles: list[tuple[Chamber, float]] = field(default_factory=list)
    """Tiles carried from the pile, with their height above the table in mm."""
    figures: list[Figure] = field(default_factory=list)


@dataclass
class _Plan:
    """The moving parts of one action, settled when its hand starts to reach in."""

    pickup: tuple[float, float]
    drop: tuple[float, float]
    sprite: Hand
    entry: tuple[float, float]
    exit: tuple[float, float]
    dice: list[Die] = field(default_factory=list)
    """Dice as they land (rolls) or as they are put back (freed black masks)."""
    throws: list[tuple[np.ndarray, float]] = field(default_factory=list)
    """Where each rolled die leaves the hand (xy) and its spin (mm of blur per frame)."""
    spot: int | None = None
    """The figure spot taken on the target chamber."""
    chamber: Chamber | None = None
    tile_from: tuple[tuple[float, float], float] = ((0.0, 0.0), 0.0)
    figure: Figure | None = None


def _ease(u: float) -> float:
    """Smooth start and stop on [0, 1]."""
    u = min(1.0, max(0.0, u))
    return u * u * (3 - 2 * u)


def _lerp(a: tuple[float, float], b: tuple[float, float], u: float) -> tuple[float, float]:
    return (a[0] + (b[0] - a[0]) * u, a[1] + (b[1] - a[1]) * u)


class Stage:
    """Plays a script on a table: still pieces change at phase frames, the rest moves."""

    def __init__(self, table: GameTable, script: GameScript, seed: int, fps: float) -> None:
        self.table = table
        self.script = script
        self.seed = seed
        self.fps = fps
        self.rng = np.random.default_rng([seed, 1])
        src = table.scene
        self.chambers = list(src.chambers)
        self.gems = list(src.gems)
        self.pile = [replace(p) for p in src.draw_pile[: src.pile_count]]
        self.pile_count = src.pile_count
        for level, piece in enumerate(self.pile):
            piece.z = _TILE_MM_THICK * (self.pile_count - len(self.pile) + level + 1)
        self.figures: dict[str, Figure | None] = {f.colour: f for f in src.figures}
        self.cells: dict[str, Cell | None] = {f.colour: f.cell for f in src.figures}
        self.spots: dict[Cell, dict[int, str]] = {}
        for k, figure in enumerate(src.figures):
            self.spots.setdefault(figure.cell, {})[k] = figure.colour
        self.dice: dict[str, list[Die]] = {}
        for event in script.opening:
            player = event["player"]
            zone = table.zone(player)
            wood = table.woods[player]
            self.dice[player] = lay_dice(self.rng, table.settings, zone, event["faces"], [], wood)
        self.looks = {p: self._look(p) for p in table.players}
        self.in_hand: dict[str, set[int]] = {p: set() for p in table.players}
        self.plans: dict[int, _Plan] = {}
        self.changes = sorted(
            (round(getattr(a.timing, phase) * fps), k, n)
            for k, a in enumerate(script.actions)
            for n, phase in enumerate(_PHASES)
            if phase != "land" or a.kind == "dice"
        )
        self.next_change = 0
        self.version = 0
        """Grows whenever something lying still on the table changes."""
        self.background_version = 0
        """Grows whenever the background changes: a tile leaves the pile or joins the temple."""

    # ----- the still table -----------------------------------------------------------------

    def advance(self, frame: int) -> None:
        """Apply every change up to and including `frame`, in order."""
        while self.next_change < len(self.changes) and self.changes[self.next_change][0] <= frame:
            _, k, phase = self.changes[self.next_change]
            self.next_change += 1
            action = self.script.actions[k]
            getattr(self, f"_{_PHASES[phase]}")(k, action)

    def still_scene(self) -> Scene:
        """Return what lies still on the table now, as a scene with no hands."""
        scene = self.background_scene()
        scene.dice = [d for p in self.table.players for d in self.dice[p]]
        scene.gems = list(self.gems)
        scene.figures = [f for f in self.figures.values() if f is not None]
        return scene

    def background_scene(self) -> Scene:
        """Return the table without its small pieces: clutter, depot, pile and temple."""
        src = self.table.scene
        return Scene(
            settings=src.settings,
            camera=src.camera,
            light=src.light,
            zones=src.zones,
            chambers=list(self.chambers),
            draw_pile=list(self.pile),
            pile_count=self.pile_count,
            depot=src.depot,
            clutter=src.clutter,
        )

    def _start(self, k: int, action: Action) -> None:
        self.plans[k] = self._plan(k, action)

    def _grab(self, k: int, action: Action) -> None:
        plan = self.plans[k]
        player = action.player
        kind = action.kind
        if kind == "dice":
            self.in_hand[player] = {
                i for i, d in enumerate(self.dice[player]) if d.state != "locked"
            }
            self.dice[player] = [d for d in self.dice[player] if d.state == "locked"]
        elif kind == "unlock":
            locked = [d for d in self.dice[player] if d.state == "locked"]
            freed = locked[: action.event["count"]]
            self.dice[player] = [d for d in self.dice[player] if all(d is not f for f in freed)]
            self.in_hand[player] = set(range(len(freed)))
        elif kind == "discover":
            self._draw_from_pile()
        elif kind in ("enter", "escape"):
            figure = self.figures[player]
            assert figure is not None
            plan.figure = figure
            self.figures[player] = None
            cell = self.cells[player]
            assert cell is not None
            self.spots[cell] = {s: c for s, c in self.spots.get(cell, {}).items() if c != player}
        elif kind == "activate":
            depot = [g for g in self.gems if g.where == "depot"]
            taken = depot[len(depot) - action.event["gems"] :]
            self.gems = [g for g in self.gems if all(g is not t for t in taken)]
        self.version += 1

    def _draw_from_pile(self) -> None:
        """Take the top tile off the pile: the next back shows and the stack gets lower."""
        self.pile_count -= 1
        top = self.pile.pop()
        if self.pile_count >= len(self.pile) + 1:  # a hidden tile comes into the drawn stack
            off = self.rng.normal(0, 1.5, 2)
            base = self.pile[0] if self.pile else top
            centre = (base.centre[0] + float(off[0]), base.centre[1] + float(off[1]))
            angle = base.angle + float(self.rng.normal(0, 2.5))
            self.pile.insert(0, FlatPiece(centre, top.size, angle, 0.0))
        for level, piece in enumerate(self.pile):
            piece.z = _TILE_MM_THICK * (self.pile_count - len(self.pile) + level + 1)
        self.background_version += 1

    def _release(self, k: int, action: Action) -> None:
        plan = self.plans[k]
        player = action.player
        kind = action.kind
        t = self.table.settings.tile_mm
        if kind == "dice":
            self.in_hand[player] = set()
            return  # they tumble until they land
        if kind == "unlock":
            self.in_hand[player] = set()
            self.dice[player] += plan.dice
        elif kind == "discover":
            assert plan.chamber is not None
            self.chambers.append(plan.chamber)
            self.background_version += 1
        elif kind == "enter":
            cell = tuple(action.event["cell"])
            chamber = next(c for c in self.chambers if c.cell == cell)
            assert plan.spot is not None and plan.figure is not None
            x, y = chamber.to_table(np.array(FIGURE_SPOTS[plan.spot]), t)[0]
            x, y = x + self.rng.normal(0, 1.5), y + self.rng.normal(0, 1.5)
            self.figures[player] = Figure(player, cell, (float(x), float(y), 2.0))
            self.cells[player] = cell
        elif kind == "escape":
            self.figures[player] = Figure(player, (0, 0), (*plan.drop, 0.0))
            self.cells[player] = None
        elif kind == "activate":
            cell = tuple(action.event["cell"])
            index = next(i for i, c in enumerate(self.chambers) if c.cell == cell)
            chamber = replace(self.chambers[index], gems=action.event["gems"])
            self.chambers[index] = chamber
            self.gems += chamber_gems(self.rng, chamber, action.event["gems"], t)
        self.version += 1

    def _land(self, k: int, action: Action) -> None:
        self.dice[action.player] += self.plans[k].dice
        self.version += 1

    # ----- planning an action --------------------------------------------------------------

    def _look(self, player: str) -> Hand:
        """Return how a player's hand and sleeve look (the same in every action)."""
        rng = self.rng
        skin = np.array(_SKINS[int(rng.integers(len(_SKINS)))]) * rng.uniform(0.92, 1.06, 3)
        return Hand(
            wrist=(0.0, 0.0),
            heading=0.0,
            height=0.0,
            pose="flat",
            skin=tuple(float(v) for v in np.clip(skin, 0, 1)),
            sleeve=_CLOTH[int(rng.integers(len(_CLOTH)))],
            sleeve_from=float(rng.uniform(60, 200)),
            scale=float(rng.uniform(0.9, 1.1)),
            reach=0.0,
            left=bool(rng.random() < 0.3),
        )

    def seat(self, player: str) -> tuple[float, float]:
        """Return where a player sits: behind the middle of their zone, off the table's view."""
        zone = self.table.zone(player)
        dx, dy = {"S": (0, -1), "N": (0, 1), "W": (-1, 0), "E": (1, 0)}[zone.side]
        return (zone.centre[0] + dx * _SEAT_MM, zone.centre[1] + dy * _SEAT_MM)

    def _outside(
        self, point: tuple[float, float], seat: tuple[float, float]
    ) -> tuple[float, float]:
        """Return the point on the way from `point` to `seat` well outside the view."""
        x0, y0, x1, y1 = self.table.view
        d = np.array(seat) - np.array(point)
        d /= max(1e-6, float(np.linalg.norm(d)))
        exits = [
            (edge - point[axis]) / d[axis]
            for axis, edge in ((0, x0), (0, x1), (1, y0), (1, y1))
            if abs(d[axis]) > 1e-6 and (edge - point[axis]) / d[axis] > 0
        ]
        far = min(exits, default=0.0) + _OUT_MM
        return (float(point[0] + d[0] * far), float(point[1] + d[1] * far))

    def _plan(self, k: int, action: Action) -> _Plan:
        """Settle where the hand goes and what it moves, when it starts to reach in."""
        rng = np.random.default_rng([self.seed, 2, k])
        player = action.player
        zone = self.table.zone(player)
        t = self.table.settings.tile_mm
        kind = action.kind
        spot = None
        chamber = None
        figure_at = self.figures[player]
        if kind in ("dice", "unlock"):
            pickup = (zone.centre[0] + rng.normal(0, 12), zone.centre[1] + rng.normal(0, 8))
            drop = (pickup[0] + rng.normal(0, 8), pickup[1] + rng.normal(0, 5))
        elif kind == "discover":
            top = self.pile[-1]
            pickup = top.centre
            cell = tuple(action.event["cell"])
            tile = _CATALOG[action.event["tile"]]
            chamber = self.table.chamber(rng, tile, cell, action.event["stairs"])
            drop = chamber.centre
        elif kind in ("enter", "escape"):
            assert figure_at is not None
            pickup = (figure_at.position[0], figure_at.position[1])
            if kind == "enter":
                cell = tuple(action.event["cell"])
                taken = self.spots.setdefault(cell, {})
                spot = next(s for s in range(len(FIGURE_SPOTS)) if s not in taken)
                taken[spot] = player
                target = next(c for c in self.chambers if c.cell == cell)
                drop = tuple(target.to_table(np.array(FIGURE_SPOTS[spot]), t)[0])
            else:
                drop = self.table.escapes[player]
        else:  # activate
            depot = self.table.scene.depot
            assert depot is not None
            pickup = depot.centre
            cell = tuple(action.event["cell"])
            drop = next(c for c in self.chambers if c.cell == cell).centre
        seat = self.seat(player)
        far = max((pickup, drop), key=lambda p: math.hypot(p[0] - seat[0], p[1] - seat[1]))
        heading = math.degrees(math.atan2(far[1] - seat[1], far[0] - seat[0]))
        pose = {"dice": "cupped", "unlock": "flat", "discover": "flat"}.get(kind, "pointing")
        sprite = replace(
            self.looks[player],
            wrist=(float(far[0]), float(far[1])),
            heading=heading + float(rng.normal(0, 6)),
            height=float(rng.uniform(45, 90)),
            pose=pose,
            reach=math.hypot(far[0] - seat[0], far[1] - seat[1]) + 150,
        )
        plan = _Plan(
            pickup=(float(pickup[0]), float(pickup[1])),
            drop=(float(drop[0]), float(drop[1])),
            sprite=sprite,
            entry=self._outside(pickup, seat),
            exit=self._outside(drop, seat),
            spot=spot,
            chamber=chamber,
        )
        if kind == "discover":
            plan.tile_from = (self.pile[-1].centre, self.pile[-1].angle)
        if kind == "dice":
            self._plan_roll(rng, action, plan)
        elif kind == "unlock":
            self._plan_unlock(rng, action, plan)
        return plan

    def _plan_roll(self, rng: np.random.Generator, action: Action, plan: _Plan) -> None:
        """Settle where the rolled dice land and how they leave the hand."""
        player = action.player
        kept = [d for d in self.dice[player] if d.state == "locked"]
        faces = list(action.event["faces"])
        for _ in kept:
            faces.remove(BLACK_MASK)
        zone = self.table.zone(player)
        wood = self.table.woods[player]
        plan.dice = lay_dice(rng, self.table.settings, zone, faces, kept, wood)
        for _ in plan.dice:
            off = rng.normal(0, 10, 2)
            plan.throws.append((np.array(plan.drop) + off, float(rng.uniform(6, 20))))

    def _plan_unlock(self, rng: np.random.Generator, action: Action, plan: _Plan) -> None:
        """Settle where the freed black masks are put back, among the player's other dice."""
        player = action.player
        locked = [d for d in self.dice[player] if d.state == "locked"]
        freed = locked[: action.event["count"]]
        rest = [d for d in self.dice[player] if all(d is not f for f in freed)]
        zone = self.table.zone(player)
        wood = self.table.woods[player]
        plan.dice = lay_dice(rng, self.table.settings, zone, [BLACK_MASK] * len(freed), rest, wood)
        for die in plan.dice:
            die.state = "rest"  # freed: it will be rolled again
        if plan.dice:
            centre = np.mean([d.centre[:2] for d in freed], axis=0)
            plan.pickup = (float(centre[0]), float(centre[1]))

    # ----- what moves ----------------------------------------------------------------------

    def moving(self, frame: int) -> Moving:
        """Return the hands, tumbling dice and carried pieces of `frame` (after `advance`)."""
        out = Moving()
        for k, plan in sorted(self.plans.items()):
            action = self.script.actions[k]
            timing = action.timing
            start, grab, release, gone, land = (
                round(v * self.fps)
                for v in (timing.start, timing.grab, timing.release, timing.gone, timing.land)
            )
            if frame >= max(gone, land):
                continue
            if frame < gone:
                out.hands.append(
                    HandShot(
                        k,
                        action.player,
                        action.kind,
                        plan.sprite,
                        self._wrist(plan, frame, start, grab, release, gone),
                    )
                )
            if action.kind == "dice" and release <= frame < land:
                out.dice += self._tumbling(k, plan, frame, release, land)
            if grab <= frame < release:
                u = _ease((frame - grab) / max(1, release - grab))
                if action.kind == "discover" and plan.chamber is not None:
                    (fx, fy), angle = plan.tile_from
                    centre = _lerp((fx, fy), plan.chamber.centre, u)
                    turned = angle + (plan.chamber.angle - angle) * u
                    moving = replace(plan.chamber, centre=centre, angle=turned)
                    out.tiles.append((moving, 14.0 + 16.0 * math.sin(math.pi * u)))
                elif action.kind in ("enter", "escape") and plan.figure is not None:
                    x, y = _lerp(plan.pickup, plan.drop, u)
                    lift = 4.0 + 22.0 * math.sin(math.pi * u)
                    out.figures.append(Figure(action.player, plan.figure.cell, (x, y, lift)))
        for k in [k for k in self.plans if self._finished(k, frame)]:
            del self.plans[k]
        return out

    def _finished(self, k: int, frame: int) -> bool:
        timing = self.script.actions[k].timing
        return frame >= round(timing.done * self.fps)

    def _wrist(
        self, plan: _Plan, frame: int, start: int, grab: int, release: int, gone: int
    ) -> tuple[float, float]:
        """Return where the wrist is: coming in, holding or carrying, going away."""
        if frame < grab:
            return _lerp(plan.entry, plan.pickup, _ease((frame - start) / max(1, grab - start)))
        if frame < release:
            return _lerp(plan.pickup, plan.drop, _ease((frame - grab) / max(1, release - grab)))
        return _lerp(plan.drop, plan.exit, _ease((frame - release) / max(1, gone - release)))

    def _tumbling(self, k: int, plan: _Plan, frame: int, release: int, land: int) -> list[Die]:
        """Return the rolled dice in the air or bouncing, on their way to where they land."""
        rng = np.random.default_rng([self.seed, 3, k, frame])
        s = self.table.settings.die_mm
        u = (frame - release + 0.5) / max(1, land - release)
        out = []
        for die, (start, spin) in zip(plan.dice, plan.throws, strict=True):
            x, y = _lerp(
                (float(start[0]), float(start[1])), (die.centre[0], die.centre[1]), _ease(u)
            )
            z = s / 2 + (_DROP_MM - s / 2) * (1 - u) ** 1.5 * abs(math.cos(1.6 * math.pi * u))
            if u > 0.75:  # settling: nearly flat, the final face nearly up
                rotation = _tilt(rng, float(rng.uniform(4, 22))) @ die.rotation
                reach = float(rng.uniform(0.5, 4))
            else:
                rotation = _random_rotation(rng)
                reach = spin * float(rng.uniform(0.6, 1.3))
            heading = rng.uniform(0, 2 * math.pi)
            motion = (reach * math.cos(heading), reach * math.sin(heading))
            centre = np.array([x, y, max(z, s / 2 + 1.5)])
            out.append(
                replace(die, state="tumbling", centre=centre, rotation=rotation, motion=motion)
            )
        return out

    # ----- truth ---------------------------------------------------------------------------

    def _in_view(self, wrist: tuple[float, float]) -> bool:
        """Tell whether a hand with its wrist here shows in the frame (fingers reach ahead)."""
        x0, y0, x1, y1 = self.table.view
        reach = _FINGERS_MM
        return x0 - reach < wrist[0] < x1 + reach and y0 - reach < wrist[1] < y1 + reach

    def truth(self, frame: int, moving: Moving) -> dict[str, Any]:
        """Return what is true in `frame`: dice, hands, figures, gems, tiles, the pile."""
        zones = self.table.scene.zones
        flying: dict[str, list[Die]] = {p: [] for p in self.table.players}
        for die in moving.dice:
            flying[zones[die.zone].colour].append(die)
        dice = {}
        for player in self.table.players:
            busy = "tumbling" if flying[player] else "in_hand" if self.in_hand[player] else "rest"
            dice[player] = {
                "state": busy,
                "dice": [_die_truth(d) for d in self.dice[player] + flying[player]],
            }
        gems: dict[str, int] = {}
        for gem in self.gems:
            if gem.cell is not None:
                key = f"{gem.cell[0]},{gem.cell[1]}"
                gems[key] = gems.get(key, 0) + 1
        return {
            "frame": frame,
            "t": round(frame / self.fps, 4),
            "dice": dice,
            "hands": [
                {
                    "player": h.player,
                    "action": h.action,
                    "wrist_mm": [round(v, 1) for v in h.wrist],
                    "in_view": self._in_view(h.wrist),
                }
                for h in moving.hands
            ],
            "figures": {p: None if c is None else list(c) for p, c in self.cells.items()},
            "carried": [f.colour for f in moving.figures],
            "gems": gems,
            "depot": sum(1 for g in self.gems if g.where == "depot"),
            "pile": self.pile_count,
            "tiles": [
                {"cell": list(c.cell), "tile": c.tile.tile_id, "stairs": c.stairs, "gems": c.gems}
                for c in self.chambers
            ],
        }


def _die_truth(die: Die) -> dict[str, Any]:
    """Return one die as the frame truth lists it (no face while it tumbles)."""
    face, tilt = die.top()
    return {
        "face": None if die.state == "tumbling" else face,
        "state": die.state,
        "centre_mm": [round(float(v), 2) for v in die.centre],
        "tilt_deg": round(tilt, 1),
    }
