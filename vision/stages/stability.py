"""Only what has come to rest counts: debounce each thing on the table across frames."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vision.stages.observation import Observation, SeenDie

UNSET = object()


@dataclass(frozen=True)
class StabilitySettings:
    """How long a value must stay the same before it counts."""

    min_frames: int = 2
    """Frames in a row showing the same value (the first frame of the run included)."""
    min_seconds: float = 0.05
    """Time from the first to the last frame of the run. Short: the motion gate re-detects
    only what stands still, so two frames agreeing already span a still moment."""
    piece_seconds: float = 0.3
    """Tiles, gems and figures: hands pass over them, so they must stay put longer."""
    moved_mm: float = 6.0
    """Dice whose positions changed by more than this were rolled (even to the same faces)."""
    carried_mm: float = 12.0
    """Dice farther than this from every place a die lay were carried there (`Settled.carried`);
    a die nudged, or found a few mm off by the localiser beside a new neighbour, is not."""
    sure_conf: float = 0.5
    """A die read less surely than this in a frame casts no vote in it (it shows as "?")."""
    still_mm: float = 3.0
    """A die read unsurely that lies within this of where a die lay when the player's dice last
    settled still shows the face it showed then (dice do not turn over without moving)."""
    guess_seconds: float = 1.0
    """A die read unsurely in every frame since the dice came to rest takes the face the reader
    found likeliest over those frames once they have lain still this long (0: never; it shows
    as "?" until a clear frame)."""
    guess_frames: int = 4
    """Frames of such a die that must have a likeliest face before it is taken."""
    guess_share: float = 0.5
    """More than this share of the die's summed likeliest-face weight its face must hold (two
    faces half and half: no face is taken)."""
    clear_conf: float = 0.7
    """Dice every one of which is read at least this surely settle at their first still frame:
    a hand often comes back for the dice a moment after they stop, and a roll as clear as
    that needs no second frame to agree (the motion gate already waited for stillness)."""
    read_beside: bool = True
    """Dice in a zone busy only from motion beside them (`Observation.beside`: an arm passing
    by) are read as if it were quiet when every die is read at least `beside_conf` surely and
    lies, showing the same face, where it lay in the frame before, with no die of the last
    settle out of sight. False: a busy zone is never read (measured on rendered games: rolls
    that lay still for under a second while a neighbour's arm passed were lost)."""
    beside_conf: float = 0.5
    """How surely every die of a busy zone must be read for `read_beside`."""


@dataclass(frozen=True)
class Settled:
    """A value that came to rest: what, since when (the run's first frame), how sure."""

    key: tuple[Hashable, ...]
    value: Any
    since: float
    conf: float
    rolled: bool = False
    """Dice only: the dice lie elsewhere than when the value settled before (they were rolled,
    even if they show the same faces)."""
    moved: tuple[str, ...] = ()
    """Dice only: the faces of the dice that lie elsewhere than before."""
    votes: tuple[Mapping[str, float], ...] = ()
    """Dice only: each die's weighted face votes (what else it was read as; a die never read
    surely: its likeliest faces), so that a reading the engine refuses can be looked at again
    (`vision.stages.events`)."""
    left: tuple[str, ...] | None = None
    """Dice only: the faces the dice showed, when they last settled, at the places no die lies
    at now (what was picked up); None when unknown (fewer dice seen than then, or none before)."""
    guessed: tuple[str, ...] = ()
    """Dice only: the faces taken from the reader's likeliest faces of dice it never read
    surely while they lay still (`StabilitySettings.guess_seconds`)."""
    carried: tuple[str, ...] = ()
    """Dice only: the faces of the moved dice that lie farther than `carried_mm` from every
    place a die lay before (rolled or put down there, not nudged)."""


@dataclass
class _Guess:
    """One die's likeliest faces over the frames it lay still unread: weights, frames, since."""

    faces: Counter[str]
    frames: int
    since: float


@dataclass
class _Run:
    value: Any
    first_t: float
    last_t: float
    frames: int
    conf: float


@dataclass
class Stabiliser:
    """Feeds on observations, returns the values that have just settled to something new."""

    settings: StabilitySettings = field(default_factory=StabilitySettings)
    settled: dict[tuple[Hashable, ...], Settled] = field(default_factory=dict)
    _runs: dict[tuple[Hashable, ...], _Run] = field(default_factory=dict)
    _positions: dict[str, np.ndarray] = field(default_factory=dict)
    _votes: dict[str, tuple[np.ndarray, list[Counter[str]]]] = field(default_factory=dict)
    """Per player: where each die lay in the last frame and the weighted face votes it has."""
    _guesses: dict[str, tuple[np.ndarray, list[_Guess]]] = field(default_factory=dict)
    """Per player: where each die lay in the last still frame and its likeliest faces in the
    frames it was read unsurely (kept while a hand passes: a die that stays put is the same)."""
    _last_read: dict[str, tuple[np.ndarray, list[str]]] = field(default_factory=dict)
    """Per player: where each die lay and what it showed when the dice last settled."""
    _last_frame: dict[str, tuple[np.ndarray, list[str | None]]] = field(default_factory=dict)
    """Per player: where each die lay in the frame before and the face it was read as."""
    _taken: dict[str, np.ndarray] = field(default_factory=dict)
    """Per player: where the dice lie whose faces were taken from their likeliest faces (what
    they showed at a settle is no evidence of what they show)."""

    def update(self, obs: Observation) -> list[Settled]:
        """Take one frame's observation; return every value that settled to a new value."""
        changes: list[Settled] = []
        for player, dice in obs.dice.items():
            where = dice_positions(dice)
            busy = player in obs.busy and not self._in_plain_view(player, dice, obs)
            self._last_frame[player] = (where, [d.face for d in dice])
            voted = self._vote(player, dice, obs.t, busy)
            if voted is None:
                self._runs.pop(("dice", player), None)
                continue
            faces, conf, guessed, weights = voted
            clear = bool(dice) and conf >= self.settings.clear_conf
            changes += self._feed(
                ("dice", player),
                tuple(sorted(faces)),
                obs.t,
                conf,
                0.0 if clear else self.settings.min_seconds,
                where,
                list(faces),
                tuple(dict(w) for w in weights),
                frames=1 if clear else self.settings.min_frames,
                guessed=guessed,
            )
        slow = self.settings.piece_seconds
        for cell, tile in obs.tiles.items():
            changes += self._feed(("tile", cell), (tile.tile, tile.stairs), obs.t, tile.conf, slow)
        cells = set(obs.gems) | {k[1] for k in self.settled if k[0] == "gems"}
        for cell in cells:
            if cell in obs.tiles or obs.gems.get(cell):
                changes += self._feed(("gems", cell), obs.gems.get(cell, 0), obs.t, 1.0, slow)
        if obs.depot_gems is not None:
            changes += self._feed(("depot",), obs.depot_gems, obs.t, 1.0, slow)
        for colour, cell in obs.figures.items():
            changes += self._feed(("figure", colour), cell, obs.t, 1.0, slow)
        return changes

    def _in_plain_view(self, player: str, dice: Sequence[SeenDie], obs: Observation) -> bool:
        """Tell whether a busy zone's dice can be read all the same (`read_beside`): only
        motion beside them, each read clearly and lying as in the frame before, none missing."""
        s = self.settings
        before = self._last_frame.get(player)
        if not s.read_beside or player not in obs.beside or not dice or before is None:
            return False
        if any(d.face is None or d.conf < s.beside_conf for d in dice):
            return False
        last = self._last_read.get(player)
        if last is not None and len(dice) < len(last[0]):
            return False  # a die of the last settle is out of sight: a hand may hold it
        positions, faces = before
        if len(positions) != len(dice):
            return False
        for die in dice:
            j = nearest_within(positions, np.asarray(die.xy_mm), s.still_mm)
            if j is None or faces[j] != die.face:
                return False
        return True

    def _vote(
        self, player: str, dice: Sequence[SeenDie], t: float, busy: bool
    ) -> tuple[tuple[str, ...], float, tuple[str, ...], list[Counter[str]]] | None:
        """Vote each still die's face over the frames it has lain still; None while undecided.

        A die keeps its votes while it lies where it lay (within `moved_mm`); a frame that
        reads it unsure adds nothing, one that reads it otherwise is outvoted. A die read
        unsurely in every frame it has lain still takes its likeliest face over them once that
        has lasted `guess_seconds` (`_guessed`). Returns each die's face (in the order of
        `dice`), the least confidence (a read's, or the smallest winning share), the faces
        taken from likeliest faces and each die's weights (its votes, else its likeliest
        faces); None while a hand is over the zone or a die has no face yet
        (the dashboard shows it as "?").
        """
        if busy:
            self._votes.pop(player, None)
            return None
        where = dice_positions(dice)
        nothing = np.zeros((0, 2))
        before = self._votes.get(player, (nothing, []))
        tolerance = self.settings.moved_mm
        guessed_before = self._guesses.get(player, (nothing, []))
        votes: list[Counter[str]] = []
        guesses: list[_Guess] = []
        for i, die in enumerate(dice):
            kept: Counter[str] = Counter()
            j = nearest_within(before[0], where[i], tolerance)
            if j is not None:
                kept = Counter(before[1][j])
            guess = _Guess(Counter(), 0, t)
            j = nearest_within(guessed_before[0], where[i], tolerance)
            if j is not None:
                old = guessed_before[1][j]
                guess = _Guess(Counter(old.faces), old.frames, old.since)
            if die.face is not None and die.conf >= self.settings.sure_conf:
                kept[die.face] += die.conf
            else:
                likeliest = die.face or die.guess
                if likeliest is not None:
                    guess.faces[likeliest] += die.guess_share if die.face is None else die.conf
                    guess.frames += 1
                if not kept:
                    kept = self._still_shows(player, where[i])
            votes.append(kept)
            guesses.append(guess)
        self._votes[player] = (where, votes)
        self._guesses[player] = (where, guesses)
        taken = [
            self._guessed(g, t) if not v else None for v, g in zip(votes, guesses, strict=True)
        ]
        self._taken[player] = where[[g is not None for g in taken]].reshape(-1, 2)
        if any(not v and g is None for v, g in zip(votes, taken, strict=True)):
            return None
        faces = [g or v.most_common(1)[0][0] for v, g in zip(votes, taken, strict=True)]
        weights = [v or g.faces for v, g in zip(votes, guesses, strict=True)]
        share = min(
            (w[f] / sum(w.values()) for w, f in zip(weights, faces, strict=True)), default=1.0
        )
        conf = min(d.conf for d in dice) if dice else 1.0
        guessed = tuple(sorted(g for g in taken if g is not None))
        return tuple(faces), min(conf, share), guessed, weights

    def _guessed(self, guess: _Guess, t: float) -> str | None:
        """The face a die never read surely is taken to show: its likeliest face over the
        frames it lay still, once they lasted `guess_seconds` and it holds `guess_share` of
        the weight; else None."""
        s = self.settings
        if (
            not s.guess_seconds
            or guess.frames < s.guess_frames
            or t - guess.since < s.guess_seconds
        ):
            return None
        face, weight = guess.faces.most_common(1)[0]
        return face if weight > s.guess_share * sum(guess.faces.values()) else None

    def _still_shows(self, player: str, xy: np.ndarray) -> Counter[str]:
        """The face a die unread now showed when the dice last settled, if it lies where one
        lay then (one weak vote: any sure read outvotes it), else no vote."""
        last = self._last_read.get(player)
        taken = self._taken.get(player, np.zeros((0, 2)))
        if last is None or nearest_within(taken, xy, self.settings.still_mm) is not None:
            return Counter()  # a taken die's face then was only its likeliest
        j = nearest_within(last[0], xy, self.settings.still_mm)
        if j is None:
            return Counter()
        return Counter({last[1][j]: self.settings.sure_conf / 2})

    def _left(self, player: str, where: np.ndarray) -> tuple[str, ...] | None:
        """The faces the player's dice showed when they last settled at the places no die lies
        at now; None when unknown (no settle before, or fewer dice in sight than then)."""
        last = self._last_read.get(player)
        if last is None or len(where) < len(last[0]):
            return None
        positions, faces = last
        # the places of then that no die lies near now: the moved dice, seen the other way round
        away = moved_dice(where, positions, self.settings.moved_mm)
        return tuple(sorted(faces[j] for j in away))

    def _hidden(
        self, player: str, where: np.ndarray, moved: list[int], faces_here: list[str]
    ) -> tuple[np.ndarray, list[str]]:
        """Where dice lay (and what they showed) at the last settle that lie out of sight now
        while others moved (a hand picks a black mask up and hides a die meanwhile): no die
        lies near, and no moved die of that face came from there. A hidden die that comes
        back to its place is then no roll."""
        last = self._last_read.get(player)
        if last is None or len(where) >= len(last[0]):
            return np.zeros((0, 2)), []
        positions, faces = last
        away = Counter(faces_here[i] for i in moved if i < len(faces_here))
        kept: list[int] = []
        for j in range(len(positions)):
            if nearest_within(where, positions[j], self.settings.moved_mm) is not None:
                continue
            if away[faces[j]] > 0:  # the place a moved die came from
                away[faces[j]] -= 1
                continue
            kept.append(j)
        kept = kept[: len(positions) - len(where)]
        return positions[kept].reshape(-1, 2), [faces[j] for j in kept]

    def _feed(
        self,
        key: tuple[Hashable, ...],
        value: Any,
        t: float,
        conf: float,
        seconds: float,
        where: np.ndarray | None = None,
        faces_here: list[str] | None = None,
        votes: tuple[Mapping[str, float], ...] = (),
        frames: int | None = None,
        guessed: tuple[str, ...] = (),
    ) -> list[Settled]:
        """Feed one frame's value; return it once it has lasted `frames` frames (default:
        `min_frames`) and `seconds` and differs from what settled before (dice: or was rolled)."""
        run = self._runs.get(key)
        if run is None or run.value != value:
            run = self._runs[key] = _Run(value, t, t, 1, conf)
        else:
            run.last_t, run.frames, run.conf = t, run.frames + 1, min(run.conf, conf)
        frames = self.settings.min_frames if frames is None else frames
        if run.frames < frames or run.last_t - run.first_t < seconds:
            return []
        before = self.settled.get(key)
        moved: list[int] = []
        carried: list[int] = []
        hidden: tuple[np.ndarray, list[str]] = (np.zeros((0, 2)), [])
        if where is not None:
            previous = self._positions.get(str(key[1]))
            moved = moved_dice(previous, where, self.settings.moved_mm)
            carried = moved_dice(previous, where, self.settings.carried_mm)
            if moved:
                hidden = self._hidden(str(key[1]), where, moved, faces_here or [])
                self._positions[str(key[1])] = np.concatenate([where, hidden[0]])
            elif before is None or before.value != value:
                self._positions[str(key[1])] = remembered_dice(
                    previous, where, self.settings.moved_mm
                )
        rolled = bool(moved)
        # the same faces, once taken from likeliest faces and now read, settle again
        if (
            before is not None
            and before.value == value
            and not rolled
            and before.guessed == guessed
        ):
            return []
        left = self._left(str(key[1]), where) if where is not None and rolled else None
        if where is not None and faces_here is not None:
            self._last_read[str(key[1])] = (
                np.concatenate([where, hidden[0]]),
                list(faces_here) + hidden[1],
            )
        moved_faces = tuple(sorted(faces_here[i] for i in moved)) if faces_here else ()
        carried_faces = tuple(sorted(faces_here[i] for i in carried)) if faces_here else ()
        settled = Settled(
            key,
            value,
            run.first_t,
            run.conf,
            rolled,
            moved_faces,
            votes,
            left,
            guessed,
            carried_faces,
        )
        self.settled[key] = settled
        return [settled]


def nearest_within(positions: np.ndarray, xy: np.ndarray, tolerance_mm: float) -> int | None:
    """Return the index of the position (n x 2, table mm) nearest `xy`, if it lies within
    `tolerance_mm`; else (or with no positions) None."""
    if not len(positions):
        return None
    distances = np.linalg.norm(positions - xy, axis=1)
    j = int(np.argmin(distances))
    return j if distances[j] <= tolerance_mm else None


def dice_positions(dice: Sequence[SeenDie]) -> np.ndarray:
    """Where the dice lie, table mm, one row each (an n x 2 array, also for no dice)."""
    return np.array([d.xy_mm for d in dice], dtype=np.float64).reshape(-1, 2)


def remembered_dice(before: np.ndarray | None, now: np.ndarray, tolerance_mm: float) -> np.ndarray:
    """Where the dice lie now, and, while fewer lie than before, where the missing ones lay (until
    the next roll): a die hidden by a hand or missed by the detector that comes back to its place
    is no roll."""
    if before is None or len(now) >= len(before):
        return now
    if not len(now):
        return before
    distances = np.linalg.norm(before[:, None, :] - now[None, :, :], axis=2)
    return np.concatenate([now, before[distances.min(axis=1) > tolerance_mm]])


def moved_dice(before: np.ndarray | None, now: np.ndarray, tolerance_mm: float) -> list[int]:
    """Return the indices of the dice that lie elsewhere (no die of `before` near them)."""
    if before is None or not len(now):
        return []
    if not len(before):
        return list(range(len(now)))
    distances = np.linalg.norm(now[:, None, :] - before[None, :, :], axis=2)
    return [int(i) for i in np.flatnonzero(distances.min(axis=1) > tolerance_mm)]
