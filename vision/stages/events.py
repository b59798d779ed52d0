"""Settled table changes -> game-record events, judged against the game as the engine has it."""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations_with_replacement
from typing import Any

from rules.engine import Game
from rules.narrative import tell_event
from rules.vocabulary import (
    ADVENTURER,
    BLACK_MASK,
    GOLDEN_MASK,
    KEY,
    OFFSETS,
    SIDES,
    TORCH,
    neighbour,
    side_towards,
)
from vision.stages.hands_at_work import HandsAtWork
from vision.stages.observation import Cell, Observation
from vision.stages.rolls import is_roll, one_die_event, roll_entered_since, rolled_face
from vision.stages.stability import Settled

_ORDER = {"dice": 0, "tile": 1, "figure": 2, "gems": 3, "depot": 4}
UNSURE_MARK = "unsure (?)"
"""What a waiting message for an unsurely read die says (it is cleared once the die is read)."""
GUESSED_MARK = "the likeliest (Fix the last roll if it was misread)"
"""What the note on a roll that took the likeliest face of a die never read surely ends with."""
HELD_TILE = "a new chamber waits to be credited: its discoverer's move or roll is not seen yet"
"""What the dashboard says while a laid tile waits for its discoverer to be seen beside it."""
CREDITING_TILE = "a new chamber: who discovered it is told in a moment"
"""What the dashboard says while a discovery waits for the moment around it to pass."""
REACH_SECONDS = 4.0
"""Arms over a cell this long before a tile settled there count toward who placed it."""
REACH_FRAMES = 5
"""Frames an arm must be seen over a new tile's cell before it alone tells who laid the tile."""
ARM_PATH_S = 0.4
"""Seconds before a new tile came to rest in which its discoverer's arm lies along his path to
the cell, setting it down (`vision.stages.arm_paths`)."""
TILE_SEEN_S = 1.0
"""A tile seen in its cell at most this long before it came to rest was set down then (read
as unknown while the hand left it)."""
ARM_PATH_LEAD = 1.1
"""An arm's path tells who laid a tile when it moved this many times more than any other
candidate's; else the hands at work tell."""
ARM_PATH_FRAMES = 400
"""Frames of arm paths kept (over 10 s at 30 fps: a discovery is credited within seconds)."""
TOGETHER_S = 1.5
"""New chambers coming to rest this close together were laid at once, by different players."""
ARMS_WAIT_S = 1.5
"""How long after the last of them came to rest arms still reaching for another open cell are
waited for (another chamber may be on its way there)."""
REACHING_SHARE = 0.5
"""An arm that is out reaches for an open cell when this share of its player's path to the
cell moved in the latest frame (an arm only out for the player's own dice delays nothing)."""
GEM_IN_PASSING_S = 1.5
"""Gems a chamber shows for less than this (from coming to rest to gone) were seen in passing:
an activation waiting there is withdrawn. Gems laid in a chamber stay; when they vanish after
lying longer, figures stand over them, and the activation still holds."""
NO_HELPER = "black masks freed, but no golden mask is known beside them"
"""What the note on an unlock seen before the engine knows the golden mask behind it says."""
MISREAD_AS_BLACK = (ADVENTURER, KEY, TORCH, GOLDEN_MASK)
"""The faces the face reader takes for a black mask, most often first (its int8 copy on its
card's 6,000 fresh crops: 15, 15, 11 and 1 times): what a die misread so is put right as."""
REREAD_MARK = "not moved, now read"
"""What the note on a different reading of dice that were not rolled says."""


@dataclass
class EventMaker:
    """Turns settled values into events; each distinct change is proposed once.

    `game` returns the engine's current game (read only): events are worked out against what
    the engine already knows. A piece on the table is a fact: when the engine rejects its event
    (say a misread roll left a player one adventurer short), the event waits and is proposed
    again as soon as the engine would accept it, so the temple never stays behind the table.
    """

    game: Callable[[], Game | None]
    proposed: set[tuple[Any, ...]] = field(default_factory=set)
    last_faces: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """The dice as they lay at each player's last roll the camera reported."""
    unreported: dict[str, int] = field(default_factory=dict)
    """Players whose dice were rolled (seen lying elsewhere, or never reported) since the
    camera last reported a roll of theirs, with how many events the engine had accepted then:
    only then is a reading a new roll (Queenie 16's quicksand counts the rolls)."""
    waiting: dict[str, str] = field(default_factory=dict)
    """Why a settled change gives no event yet, by player or cell (shown on the dashboard)."""
    pending: dict[tuple[Any, ...], dict[str, Any]] = field(default_factory=dict)
    """Piece events proposed but not yet part of the engine's game, by what they are about."""
    _reading: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=dict)
    """The dice behind each roll proposed this frame, and those of its faces taken from dice
    never read surely, until the engine's copy takes it."""
    held_rolls: dict[str, tuple[tuple[str, ...], tuple[str, ...], list[dict[str, Any]]]] = field(
        default_factory=dict
    )
    """Rolls read only by taking the likeliest face of a die never read surely, by player: the
    faces, those taken, the events. Not told on their own (the taken face is right about half
    the time); told just before a move of the player that the engine takes only after them."""
    guessed: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Players whose last roll reported took faces of dice never read surely (their likeliest
    faces, `StabilitySettings.guess_seconds`), with those faces."""
    _checked_at: int = -1
    reaches: deque[tuple[float, Cell, str]] = field(default_factory=lambda: deque(maxlen=2000))
    """Recent arms over temple cells: (when, cell, whose seat it came from)."""
    arm_paths: deque[tuple[float, Mapping[Cell, Mapping[str, float]]]] = field(
        default_factory=lambda: deque(maxlen=ARM_PATH_FRAMES)
    )
    """Recent frames' moved shares of each player's path to each open cell (`Observation.
    arm_paths`), with when."""
    hands: HandsAtWork = field(default_factory=HandsAtWork)
    """When each player's own pieces came to rest moved (who was busy around a discovery)."""
    crediting: dict[tuple[Any, ...], tuple[dict[str, Any], float]] = field(default_factory=dict)
    """Discoveries more than one player could have made, with when the tile came to rest: they
    are credited once the moment around it has passed (`_credited`)."""
    _tile_seen: dict[Cell, float] = field(default_factory=dict)
    """When a tile was first seen in each cell, read or not (it is set down then; it may come
    to rest as a read tile a moment later)."""
    _tile_since: dict[Cell, float] = field(default_factory=dict)
    """When each new tile first came to rest (a held discovery is credited around it)."""
    _gems_since: dict[Cell, float] = field(default_factory=dict)
    """When gems last came to rest in each chamber, while they are seen there."""
    _masks_moved: dict[str, int] = field(default_factory=dict)
    """Players whose black masks alone were put elsewhere while a die was out of sight, with
    how many: an unlock, told once every die is seen again."""
    _partial: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """The dice of a roll not reported yet, read while some were out of sight: when they are
    all seen and only black masks moved meanwhile, the roll came first and then an unlock."""
    unlocks_waiting: dict[str, tuple[int, Settled]] = field(default_factory=dict)
    """Unlocks seen (black masks alone put back) that no golden mask the engine knows of
    explains yet, with how many dice and the change that showed them: told as soon as the
    engine has a golden mask beside the player (its roll reported late), or dropped when
    the player's next roll is reported."""

    def see(self, observation: Observation) -> None:
        """Remember whose arms reach over which cells (to tell who placed a tile), and say which
        players' rolls wait for a die read unsurely ("?")."""
        self.hands.see(observation)
        self.arm_paths.append((observation.t, observation.arm_paths))
        for cell in observation.tiles:
            self._tile_seen.setdefault(cell, observation.t)
        for cell, player in observation.reach.items():
            self.reaches.append((observation.t, cell, player))
        for player, dice in observation.dice.items():
            unsure = sum(d.face is None for d in dice)
            if unsure and player not in observation.busy and player in self.guessed:
                self.waiting[player] = (
                    f"{player}: {unsure} of {len(dice)} dice {UNSURE_MARK}: taken as "
                    f"{', '.join(self.guessed[player])}, {GUESSED_MARK}"
                )
            elif unsure and player not in observation.busy:
                self.waiting[player] = (
                    f"{player}: {unsure} of {len(dice)} dice {UNSURE_MARK}: waiting for a clear "
                    "view, or enter the roll"
                )
            elif UNSURE_MARK in self.waiting.get(player, ""):
                self.waiting.pop(player)

    def events_for(self, changes: Sequence[Settled]) -> list[dict[str, Any]]:
        """Return the events that the settled changes stand for, in the order to apply them."""
        game = self.game()
        if game is None or game.outcome != "running":
            return []
        events = self._retry(game)  # proposals of earlier frames, now applied or rejected
        events += self._credited(game)
        for change in sorted(changes, key=lambda c: (_ORDER[str(c.key[0])], c.since)):
            kind = change.key[0]
            if kind == "dice":
                events += self._dice(game, change)
            elif kind == "tile":
                events += self._tile(game, change)
            elif kind == "figure":
                events += self._figure(game, change)
            elif kind == "gems":
                events += self._gems(game, change)
        return self._judged(game, events)

    def _judged(self, game: Game, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Keep only the events the engine would take, in order (tried on a copy of its game):
        a spurious event costs the table more than a late one. A refused piece event stays
        pending (proposed again once the game moves on); a refused roll is read again."""
        if not events:  # most frames: no copy of the game (a copy costs milliseconds)
            return events
        trial = game.copy()
        kept: list[dict[str, Any]] = []
        for event in events:
            verdict = trial.apply(event)
            if is_roll(event):  # a roll refused stays unreported: a later settle proposes it
                reading = self._reading.pop(str(event["player"]), None)
                if verdict.ok and reading is not None:
                    self._reported(str(event["player"]), *reading)
            roll = [] if verdict.ok or is_roll(event) else self._held_roll_for(trial, event)
            if roll:  # the move shows the held roll happened: told first
                for before in roll:
                    trial.apply(before)
                self._release(str(event["player"]))
                verdict = trial.apply(event)
                kept += roll
            step = _step_between(trial, event) if not verdict.ok else None
            if step is not None:  # the move the camera missed before it: told first
                trial.apply(step)
                verdict = trial.apply(event)
                kept.append({**step, "conf": event.get("conf", 1.0)})
            if verdict.ok:
                kept.append(event)
                self.waiting.pop(_held_note(event), None)
            elif not is_roll(event) and event["type"] != "unlock":
                self.waiting[_held_note(event)] = (
                    f"camera sees: {tell_event(event, game)}, which the engine refuses now "
                    f"({verdict.reason}): it waits"
                )
        return kept

    def _once(self, key: tuple[Any, ...], event: dict[str, Any]) -> list[dict[str, Any]]:
        if key in self.proposed:
            return []
        self.proposed.add(key)
        return self._propose(event)

    def _propose(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        """Propose a piece event; it stays pending until the engine's game shows it."""
        subject = _subject(event)
        if event["type"] == "enter":  # the figure's newest place is the one that counts
            self.pending = {k: v for k, v in self.pending.items() if k[:2] != subject[:2]}
        self.pending[subject] = event
        return [event]

    def _retry(self, game: Game) -> list[dict[str, Any]]:
        """Propose again the piece events the engine now takes (checked when the game moved)."""
        if len(game.accepted) == self._checked_at:
            return []
        self._checked_at = len(game.accepted)
        again = self._unlocks_now(game)
        for subject, event in list(self.pending.items()):
            if _resolved(game, event):
                del self.pending[subject]
                self.waiting.pop(f"tile {subject[2]}", None)
                self.waiting.pop(_held_note(event), None)
                continue
            retry = dict(event)
            if event["type"] == "discover":
                since = self._tile_since.get(subject[2], self.hands.now)
                legal = _accepted(game, retry, "player", self._discoverers(game, subject[2], since))
                if not legal:
                    continue
                retry["player"] = self._laid_by(legal, subject[2], since)
                self.waiting.pop(f"tile {subject[2]}", None)
            elif event["type"] == "activate" and not event["players"]:
                cell = tuple(event["cell"])
                retry["players"] = [p.player_id for p in game.players_in(cell) if p.inside]
                if not retry["players"] or not game.check(retry).ok:
                    continue
            elif not game.check(retry).ok and _step_between(game, retry) is None:
                # (a move that skips a chamber goes with the one missed before it: `_judged`)
                roll = self._held_roll_for(game, retry)
                if not roll:
                    continue
                self._release(str(retry["player"]))
                again += roll
            del self.pending[subject]
            again.append(retry)
        return again

    def _held_roll_for(self, game: Game, event: dict[str, Any]) -> list[dict[str, Any]]:
        """The events of the held roll of the event's player when the engine takes the event
        only after them (the move needs that roll); else none."""
        held = self.held_rolls.get(str(event.get("player")))
        if held is None:
            return []
        roll = held[2]
        return roll if _after(game, [*roll, event]) is not None else []

    def _release(self, player_id: str) -> None:
        """Tell the player's held roll: it counts as reported, its taken faces noted."""
        faces, guessed, _ = self.held_rolls.pop(player_id)
        self._reported(player_id, faces, guessed)

    # ----- dice ----------------------------------------------------------------------------

    def _unlocks_now(self, game: Game) -> list[dict[str, Any]]:
        """Tell the unlocks that waited for a golden mask the engine now has beside them."""
        told: list[dict[str, Any]] = []
        for player_id, (count, change) in list(self.unlocks_waiting.items()):
            player = game.players.get(player_id)
            if player is None or player.escaped or not player.locked:
                del self.unlocks_waiting[player_id]
                continue
            unlock = self._unlock_only(game, player_id, min(count, player.locked), change)
            if unlock:
                del self.unlocks_waiting[player_id]
                self.waiting.pop(player_id, None)
                told += unlock
        return told

    def _unlock_or_wait(
        self, game: Game, player_id: str, count: int, change: Settled
    ) -> list[dict[str, Any]]:
        """The unlock of `count` black masks; when no golden mask the engine knows of explains
        it yet, none now: it waits (`unlocks_waiting`) until the engine has one."""
        unlock = self._unlock_only(game, player_id, count, change)
        if not unlock:
            self.unlocks_waiting[player_id] = (count, change)
            self.waiting[player_id] = (
                f"{player_id}: {NO_HELPER}: waiting for the roll that shows it, or enter the unlock"
            )
        return unlock

    def _dice(self, game: Game, change: Settled) -> list[dict[str, Any]]:
        player_id = str(change.key[1])
        faces = tuple(change.value)
        player = game.players.get(player_id)
        if player is None or player.escaped:
            return []
        # black masks put elsewhere: an unlock, unless the dice that left their places showed
        # other faces (free dice rolled that all came up black masks)
        masks_moved = bool(player.locked) and _only_masks_moved(change)
        out_of_sight = len(faces) < player.dice
        if masks_moved and out_of_sight:  # an unlock while a hand hid a die: seen once it is back
            self._masks_moved[player_id] = len(change.moved)
        elif change.rolled or player_id not in self.last_faces:
            self.unreported.setdefault(player_id, len(game.accepted))
        if len(faces) != player.dice:
            if player_id in self.unreported and len(faces) < player.dice:
                self._partial[player_id] = faces
            self.waiting[player_id] = f"{player_id}: {len(faces)} of {player.dice} dice seen"
            return []
        self.waiting.pop(player_id, None)
        partial = self._partial.pop(player_id, None)
        one_die = one_die_event(game, player)
        if one_die is not None:
            return self._one_die(game, player_id, faces, change, one_die)
        held = self.held_rolls.get(player_id)
        if held is not None and _only_masks_moved(change) and BLACK_MASK in held[0]:
            # black masks of the held roll freed: the player has acted on that roll
            roll = held[2]
            self._release(player_id)
            return [*roll, *self._unlock_after(game, player_id, roll, len(change.moved), change)]
        freed = len(change.moved) if masks_moved else self._masks_moved.get(player_id, 0)
        self._masks_moved.pop(player_id, None)
        if freed and player.locked and (masks_moved or not change.rolled):
            # Only black masks were picked up and put back (a roll moves the other dice too),
            # even if a still die reads differently now: a golden mask freed them.
            self._reported(player_id, faces)
            return self._unlock_or_wait(game, player_id, freed, change)
        if not self._rolled(game, player_id, faces):
            return []
        events = self._roll_events(game, player_id, faces, change)
        after = _masks_put_back(faces, partial, change.moved) if partial is not None else 0
        if after:  # rolled while a die was out of sight, then black masks alone put back
            events += self._unlock_after(game, player_id, events, after, change)
        elif player_id not in self.unlocks_waiting and (
            put_back := _locked_masks_put_back(player.locked, faces, change)
        ):  # masks seen put back before the roll (an unlock waiting) were freed before it
            events += self._unlock_after(game, player_id, events, put_back, change, carried=True)
        refused = self._refusal(game, events)
        if refused:
            legal = _legal_reading(faces, change.votes, player.locked)
            if legal is not None and legal != faces:
                events = self._roll_events(game, player_id, legal, change)
                refused = self._refusal(game, events)
        if refused and not change.guessed:
            fixed = self._misread_put_right(game, player_id, faces, change)
            if fixed:
                events, refused = fixed, None
        if refused:  # no legal reading yet: the dice are looked at again, never guessed
            self.waiting[player_id] = (
                f"{player_id}: the dice read {', '.join(faces)}, which the engine refuses "
                f"({refused}): looking again"
            )
            return []
        if change.guessed:  # held until a move needs it (`_held_roll_for`)
            self.held_rolls[player_id] = (faces, change.guessed, events)
            return []
        self.held_rolls.pop(player_id, None)
        self._reading[player_id] = (faces, change.guessed)
        self.proposed.add(("dice", player_id, faces, change.since))
        if not any(e["type"] == "unlock" for e in events):
            self.unlocks_waiting.pop(player_id, None)
        return events

    def _misread_put_right(
        self, game: Game, player_id: str, faces: tuple[str, ...], change: Settled
    ) -> list[dict[str, Any]]:
        """The events of a roll the engine refuses only because the camera's own last roll of
        the player was misread: dice that read black masks then were picked up and rolled now,
        while other black masks were left lying (the player knows which dice are locked), or
        every die that read a black mask then was rolled now and a golden mask in sight frees
        some of them; and locked dice cannot be rolled. That roll is corrected first (those
        dice, or as few of them as the golden mask leaves, given the faces most often misread
        as black masks, `MISREAD_AS_BLACK`, the first that the engine takes with every later
        line still standing), then the unlock and the new roll are reported; nothing when no
        correction does."""
        player = game.players[player_id]
        need = player.locked - faces.count(BLACK_MASK)
        if not change.rolled or change.left is None or need <= 0:
            return []
        found = _last_roll(game, player_id)
        if found is None or found[1]["faces"].count(BLACK_MASK) < need:
            return []
        line, earlier = found
        left_lying = (Counter(faces) - Counter(change.moved))[BLACK_MASK]
        if left_lying and change.left.count(BLACK_MASK) >= need:
            counts = range(need, need + 1)
        elif change.left.count(BLACK_MASK) >= earlier["faces"].count(BLACK_MASK):
            # Every black mask rolled, none left lying: a golden mask may have freed them
            # unseen (game 10169: blue's, by yellow's) as well as a misreading have made them,
            # so the roll is put right only where a golden mask in sight frees the rest (game
            # 10157: three read, two freed by yellow's own), never by a misreading alone.
            counts = range(1, need)
        else:
            return []  # nothing says which dice the player held locked
        standing = len(game.accepted)
        for count in counts:
            rest = list(earlier["faces"])
            for _ in range(count):
                rest.remove(BLACK_MASK)
            for instead in combinations_with_replacement(MISREAD_AS_BLACK, count):
                fixed = {**earlier, "faces": sorted(rest + list(instead))}
                correction = {"type": "correct", "line": line, "event": fixed}
                trial = game.copy()
                if not trial.apply(correction).ok or len(trial.accepted) != standing:
                    continue
                events = self._roll_events(trial, player_id, faces, change)
                if not self._refusal(trial, events):
                    return [correction, *events]
        return []

    def _unlock_after(
        self,
        game: Game,
        player_id: str,
        roll: list[dict[str, Any]],
        count: int,
        change: Settled,
        carried: bool = False,
    ) -> list[dict[str, Any]]:
        """The unlock of `count` black masks put back after the roll (the engine's game after
        it tells who has a golden mask beside the player); none known yet: it waits.

        `carried`: the locked masks were carried off and put back while the hand that rolled
        stayed over the zone (one settle for both). Then the unlock is told only when the roll
        shows a golden mask of the player's own that frees them and the engine takes it, and
        never waits: the masks may as well have been freed before the roll (by a golden mask
        in sight then, or a neighbour's) and rolled to black masks again, locked still."""
        trial = _after(game, roll)
        locked = trial.players[player_id].locked if trial is not None else 0
        if trial is None or not locked:
            return []
        if not carried:
            return self._unlock_or_wait(trial, player_id, min(count, locked), change)
        unlock = self._unlock_only(trial, player_id, min(count, locked), change)
        if not unlock or "by" in unlock[0]:  # freed by a neighbour: before or after, unknown
            return []
        return unlock if trial.check(unlock[0]).ok else []

    def _rolled(self, game: Game, player_id: str, faces: tuple[str, ...]) -> bool:
        """Tell whether the settled dice are a roll not reported yet: dice that still lie where
        they lay at the last roll reported are read again, not rolled (a hand passed over, a
        die was hidden a moment), whatever they read now; a roll entered by hand meanwhile
        is that roll."""
        since = self.unreported.get(player_id)
        if since is not None and roll_entered_since(game, player_id, since):
            self._reported(player_id, faces)
            return False
        last = self.last_faces.get(player_id)
        if since is None and last is not None and len(last) == len(faces) and faces != last:
            self.waiting[player_id] = (
                f"{player_id}: the dice, {REREAD_MARK} {', '.join(faces)}: no new roll (Fix the "
                "last roll if it was misread)"
            )
        return since is not None

    def _reported(
        self, player_id: str, faces: tuple[str, ...], guessed: tuple[str, ...] = ()
    ) -> None:
        """The player's roll is reported (or entered): his dice as they lie now are its;
        `guessed`: its faces taken from dice never read surely."""
        self.last_faces[player_id] = faces
        self.unreported.pop(player_id, None)
        self.held_rolls.pop(player_id, None)
        if guessed:
            self.guessed[player_id] = guessed
        else:
            self.guessed.pop(player_id, None)

    def _one_die(
        self, game: Game, player_id: str, faces: tuple[str, ...], change: Settled, kind: str
    ) -> list[dict[str, Any]]:
        """The player rolls one die at a time (the module's `kind` of event): the die that lies
        elsewhere, or shows the one new face, is the roll."""
        if not self._rolled(game, player_id, faces):
            return []
        face = rolled_face(faces, self.last_faces.get(player_id), change.moved)
        if face is None:
            self.waiting[player_id] = (
                f"{player_id}: {len(change.moved)} dice moved where one die is rolled at a "
                "time: looking again, or enter the roll"
            )
            return []
        if change.guessed:  # one die at a time: the rolled die itself may be the unread one
            return []
        event = _stamped({"type": kind, "player": player_id, "face": face}, change)
        refused = self._refusal(game, [event])
        if refused:
            self.waiting[player_id] = (
                f"{player_id}: the die reads {face}, which the engine refuses ({refused}): "
                "looking again"
            )
            return []
        self._reading[player_id] = (faces, change.guessed)
        return [event]

    def _refusal(self, game: Game, events: list[dict[str, Any]]) -> str | None:
        """Return why the engine would refuse the events in order (None: it takes them all)."""
        trial = game.copy()
        for event in events:
            verdict = trial.apply(event)
            if not verdict.ok:
                return verdict.reason or "refused"
        return None

    def _roll_events(
        self, game: Game, player_id: str, faces: tuple[str, ...], change: Settled
    ) -> list[dict[str, Any]]:
        """Return the events a roll to `faces` stands for: an unlock first when black masks
        were freed by a golden mask, then the roll."""
        player = game.players[player_id]
        events = []
        freed = player.locked - faces.count(BLACK_MASK)
        if freed > 0:
            helper = self._golden_helper(game, player_id)
            if helper is not None:
                unlock = {"type": "unlock", "player": player_id, "count": min(freed, 2)}
                if helper != player_id:
                    unlock["by"] = helper
                events.append(_stamped(unlock, change))
        events.append(_stamped({"type": "dice", "player": player_id, "faces": list(faces)}, change))
        return events

    def _unlock_only(
        self, game: Game, player_id: str, count: int, change: Settled
    ) -> list[dict[str, Any]]:
        """Only black masks were picked up and put back: a golden mask freed them."""
        helper = self._golden_helper(game, player_id)
        if helper is None:
            return []
        unlock: dict[str, Any] = {"type": "unlock", "player": player_id, "count": min(count, 2)}
        if helper != player_id:
            unlock["by"] = helper
        # A golden mask frees up to two black masks (the Doc's three) and nobody frees fewer
        # than he may: fewer seen put back means a mask moved too little to be seen moving.
        for most in range(game.players[player_id].locked, unlock["count"], -1):
            if game.check({**unlock, "count": most}).ok:
                unlock["count"] = most
                break
        return [_stamped(unlock, change)]

    @staticmethod
    def _golden_helper(game: Game, player_id: str) -> str | None:
        """Who used a golden mask to free the player's black masks: the player, or a neighbour,
        one with a golden mask to spare first (a neighbour with black masks of his own locked
        keeps his only golden mask for them)."""
        player = game.players[player_id]
        if player.showing[GOLDEN_MASK]:
            return player_id
        others = [
            other
            for other in (game.players_in(player.cell) if player.cell is not None else [])
            if other.player_id != player_id and other.showing[GOLDEN_MASK]
        ]
        spare = [o for o in others if o.showing[GOLDEN_MASK] > (1 if o.locked else 0)]
        chosen = spare or others
        return chosen[0].player_id if chosen else None

    # ----- temple --------------------------------------------------------------------------

    def _tile(self, game: Game, change: Settled) -> list[dict[str, Any]]:
        cell = change.key[1]
        tile_id, stairs = change.value
        if game.temple.at(cell) is not None or tile_id in ("unknown", "back"):
            return []
        if game.temple.is_placed(tile_id):  # a tile lies only once: misread, it is read again
            return []
        event: dict[str, Any] = {"type": "discover", "tile": tile_id, "cell": list(cell)}
        if stairs in SIDES:
            event["stairs"] = stairs
        key = ("discover", cell, tile_id)
        self._tile_since.setdefault(cell, change.since)
        candidates = self._discoverers(game, cell, change.since)
        unrolled = game.setup.track_dice and not any(game.players[p].rolled for p in candidates)
        if not candidates or unrolled:  # a move, or the roll paying for it, not seen yet
            return self._hold(key, _stamped(event, change))
        legal = _accepted(game, event, "player", candidates)
        if not legal and "stairs" in event:  # the stairway misread: the legal reading
            event.pop("stairs")
            legal = _accepted(game, event, "player", candidates)
        if not legal:  # nobody beside it could have: wait for the move or roll behind it
            return self._hold(key, _stamped(event, change))
        if len(legal) > 1:  # whose hands were free meanwhile is told in a moment
            if key not in self.proposed:
                self.proposed.add(key)
                self.crediting[key] = (_stamped(event, change), change.since)
                self.waiting[f"tile {cell}"] = CREDITING_TILE
            return []
        self.proposed.add(key)
        return self._propose({**_stamped(event, change), "player": legal[0]})

    def _discoverers(self, game: Game, cell: Cell, since: float) -> list[str]:
        """The players beside a new tile, likeliest discoverer first."""
        beside = self._likely_discoverers(game, self._neighbours(game, cell))
        return self._reached_first(beside, cell, since)

    def _credited(self, game: Game) -> list[dict[str, Any]]:
        """Credit each discovery that more than one player could have made, once the moment
        around it has passed, to the first of them whose hands were free meanwhile; chambers
        laid at once go to different players."""
        credited: list[dict[str, Any]] = []
        for group in self._laid_together():
            if not self._group_ready(game, group):
                continue
            chosen: list[str] = []
            for key, (event, since) in group.items():
                del self.crediting[key]
                cell = tuple(event["cell"])
                self.waiting.pop(f"tile {cell}", None)
                if game.temple.at(cell) is not None:  # entered by hand meanwhile
                    continue
                legal = _accepted(game, event, "player", self._discoverers(game, cell, since))
                if not legal:  # the game moved on: held until someone beside it could have
                    self._keep_back(event)
                    continue
                player = self._laid_by(legal, cell, since, chosen)
                chosen.append(player)
                credited += self._propose({**event, "player": player})
        return credited

    def _laid_by(
        self, legal: Sequence[str], cell: Cell, since: float, taken: Sequence[str] = ()
    ) -> str:
        """Who laid a chamber that any of `legal` could have: the first whose hands were free
        around it, or when several were, the one along whose path an arm moved clearly
        (`_arm_laid`); one in `taken` laid another chamber at that moment, so another goes
        first where one can."""
        idle = self.hands.idle_around(legal, since)
        free = [p for p in idle if p not in taken]
        if len(free) > 1:
            arm = self._arm_laid(free, cell, since)
            if arm is not None:
                return arm
        return free[0] if free else idle[0]

    def _arm_laid(self, candidates: Sequence[str], cell: Cell, since: float) -> str | None:
        """The candidate whose arm's path to the cell moved most in the moment before the tile
        came to rest (`ARM_PATH_S`), by `ARM_PATH_LEAD` over every other one; None when no
        path stands out, or no frame of that moment was seen."""
        seen = self._tile_seen.get(cell, since)
        if since - TILE_SEEN_S <= seen < since:  # set down before it was read
            since = seen
        frames = [
            paths.get(cell, {}) for t, paths in self.arm_paths if since - ARM_PATH_S <= t <= since
        ]
        if not frames or not candidates:
            return None
        share = {p: sum(f.get(p, 0.0) for f in frames) / len(frames) for p in candidates}
        ranked = sorted(candidates, key=lambda p: -share[p])
        if share[ranked[0]] <= 0 or (
            len(ranked) > 1 and share[ranked[0]] < ARM_PATH_LEAD * share[ranked[1]]
        ):
            return None
        return ranked[0]

    def _laid_together(self) -> list[dict[tuple[Any, ...], tuple[dict[str, Any], float]]]:
        """The discoveries waiting to be credited, grouped by chambers that came to rest within
        `TOGETHER_S` of the one before, each group in the order they came to rest."""
        groups: list[dict[tuple[Any, ...], tuple[dict[str, Any], float]]] = []
        last = float("-inf")
        for key, (event, since) in sorted(self.crediting.items(), key=lambda kv: kv[1][1]):
            if not groups or since - last > TOGETHER_S:
                groups.append({})
            groups[-1][key] = (event, since)
            last = since
        return groups

    def _group_ready(
        self, game: Game, group: Mapping[tuple[Any, ...], tuple[dict[str, Any], float]]
    ) -> bool:
        """Tell whether chambers laid together can be credited: the moment around each has
        passed, and no arm that could have laid one still reaches for another open cell
        (another chamber may be on its way), or they have waited `ARMS_WAIT_S` for them."""
        times = [since for _, since in group.values()]
        if not all(self.hands.window_over(since) for since in times):
            return False
        if self.hands.now >= max(times) + ARMS_WAIT_S:
            return True
        cells = {tuple(event["cell"]) for event, _ in group.values()}
        return not any(
            self.hands.arm_out(player) and self._reaching(player, cells)
            for event, since in group.values()
            for player in self._discoverers(game, tuple(event["cell"]), since)
        )

    def _reaching(self, player: str, laid: set[Cell]) -> bool:
        """Tell whether the player's arm lies along his path to an open cell other than
        `laid` in the latest frame (another chamber may be on its way there)."""
        if not self.arm_paths:
            return False
        _, paths = self.arm_paths[-1]  # `see` adds one per frame: this frame's
        return any(
            share.get(player, 0.0) >= REACHING_SHARE
            for cell, share in paths.items()
            if cell not in laid
        )

    def _hold(self, key: tuple[Any, ...], event: dict[str, Any]) -> list[dict[str, Any]]:
        """Keep a piece event back until the engine can take it (who discovered a tile nobody
        stands beside, a move onto a tile not in the temple yet): proposed once it can."""
        if key not in self.proposed:
            self.proposed.add(key)
            self._keep_back(event)
        return []

    def _keep_back(self, event: dict[str, Any]) -> None:
        """Keep a piece event pending, unproposed, until the engine can take it."""
        subject = _subject(event)
        self.pending[subject] = event
        if event["type"] == "discover":
            self.waiting[f"tile {subject[2]}"] = HELD_TILE

    @staticmethod
    def _likely_discoverers(game: Game, candidates: list[str]) -> list[str]:
        """Order the players beside a new tile by who could pay for it: showing 2 adventurers
        first (with dice tracked), then the one whose roll is the oldest (a player who reaches
        for a tile stops rolling meanwhile, while the others roll on: on the true records of 14
        rendered games the oldest roll was the discoverer's in 15 of the 20 discoveries more
        than one player could have made, the newest in 4); an arm seen clearly over the cell
        puts its player first again (`_reached_first`)."""
        last_roll: dict[str, int] = {}
        for index, event in enumerate(game.accepted):
            if event.get("type") == "dice" and event.get("player") in candidates:
                last_roll[str(event["player"])] = index

        def rank(pid: str) -> tuple[int, int]:
            player = game.players[pid]
            can_pay = not game.setup.track_dice or player.showing[ADVENTURER] >= 2
            return (0 if can_pay else 1, last_roll.get(pid, -1))

        return sorted(candidates, key=rank)

    def _reached_first(self, candidates: list[str], cell: Cell, since: float) -> list[str]:
        """Put first the candidate whose arm was seen over the cell just before `since` in at
        least `REACH_FRAMES` frames and twice as often as anyone else's; else keep the order.

        Arms are told from motion boxes, which merge when several arms move: on 14 rendered
        games, ordering by every arm seen credited 5 fewer discoveries right than ignoring
        them, so only an arm seen clearly and alone outweighs who rolled when."""
        votes: Counter[str] = Counter(
            player
            for t, where, player in self.reaches
            if where == cell and since - REACH_SECONDS <= t <= since and player in candidates
        )
        ranked = votes.most_common(2)
        if not ranked or ranked[0][1] < REACH_FRAMES:
            return candidates
        if len(ranked) > 1 and ranked[0][1] < 2 * ranked[1][1]:
            return candidates
        return [ranked[0][0], *(p for p in candidates if p != ranked[0][0])]

    @staticmethod
    def _neighbours(game: Game, cell: tuple[int, int]) -> list[str]:
        """Players inside, in a chamber next to `cell` (those with a door toward it first)."""
        found: list[tuple[int, str]] = []
        for side, (dx, dy) in OFFSETS.items():
            placed = game.temple.at((cell[0] - dx, cell[1] - dy))
            if placed is None:
                continue
            door = side in placed.open_sides
            for player in game.players_in(placed.cell):
                if player.inside:
                    found.append((0 if door else 1, player.player_id))
        return [pid for _, pid in sorted(found)]

    def _figure(self, game: Game, change: Settled) -> list[dict[str, Any]]:
        player_id = str(change.key[1])
        # wherever the figure now stands, an older move still waiting is out of date
        self.pending = {
            k: v for k, v in self.pending.items() if k[:2] not in {("enter", player_id)}
        }
        self.waiting.pop(f"held enter {player_id}", None)
        player = game.players.get(player_id)
        if player is None or player.escaped:
            return []
        cell = None if change.value is None else tuple(change.value)
        if cell == player.cell:  # seen again where he stood (an arm had hidden him): not moved
            return []
        self.hands.worked(player_id, change.since)  # a hand set him down elsewhere
        if cell is None:
            exit_here = player.cell is not None and game.temple.at(player.cell)
            if exit_here and exit_here.tile.kind == "exit":
                return self._once(
                    ("escape", player_id), _stamped({"type": "escape", "player": player_id}, change)
                )
            return []
        event = {"type": "enter", "player": player_id, "cell": list(cell)}
        if game.temple.at(cell) is None or (game.setup.track_dice and not player.rolled):
            # on a tile the engine has not placed yet, or the roll paying for it not seen yet
            return self._hold(("enter", player_id, cell, change.since), _stamped(event, change))
        return self._once(("enter", player_id, cell, change.since), _stamped(event, change))

    def _gems(self, game: Game, change: Settled) -> list[dict[str, Any]]:
        cell = change.key[1]
        count = int(change.value)
        if count <= 0:
            seen_since = self._gems_since.pop(cell, None)
            if seen_since is not None and change.since - seen_since < GEM_IN_PASSING_S:
                self._withdraw_activation(cell)
            return []
        self._gems_since[cell] = change.since
        placed = game.temple.at(cell)
        if placed is None or placed.gems or placed.tile.gems is None:
            return []
        gems = min(count, placed.tile.gems.count)
        players = [p.player_id for p in game.players_in(cell) if p.inside]
        event = {"type": "activate", "cell": list(cell), "gems": gems, "players": players}
        if not players:  # nobody in the chamber as the engine has it: a move not seen yet
            return self._hold(("activate", cell, gems), _stamped(event, change))
        return self._once(("activate", cell, gems), _stamped(event, change))

    def _withdraw_activation(self, cell: Cell) -> None:
        """The chamber lies without gems again moments after they came to rest: an activation
        still waiting for the engine there was a gem seen in passing (or a thing taken for one),
        so it is withdrawn, and a gem that comes to rest there later is proposed afresh."""
        for subject, event in list(self.pending.items()):
            if event["type"] == "activate" and tuple(event["cell"]) == cell:
                del self.pending[subject]
                self.waiting.pop(_held_note(event), None)
        self.proposed = {k for k in self.proposed if k[:2] != ("activate", cell)}


def _resolved(game: Game, event: dict[str, Any]) -> bool:
    """Tell whether the engine's game already shows what the piece event says."""
    kind = event["type"]
    if kind == "discover":
        return game.temple.at(tuple(event["cell"])) is not None
    player = game.players.get(str(event.get("player")))
    if kind == "enter":
        return player is None or player.escaped or player.cell == tuple(event["cell"])
    if kind == "escape":
        return player is None or player.escaped
    if kind == "activate":
        placed = game.temple.at(tuple(event["cell"]))
        return placed is None or placed.gems > 0
    return True


def _step_between(game: Game, event: dict[str, Any]) -> dict[str, Any] | None:
    """The move the camera missed before a move the engine refuses as not next to the player's
    chamber: the one chamber between the two from which the engine takes both moves, in turn;
    None when no chamber, or more than one, would do.

    A figure put down among others (on the crowded start chamber) is often not seen there;
    its next move then seems to skip a chamber, and was refused with every later one of it."""
    player = game.players.get(str(event.get("player")))
    if event.get("type") != "enter" or player is None or player.cell is None:
        return None
    here, there = player.cell, tuple(event["cell"])
    if abs(here[0] - there[0]) + abs(here[1] - there[1]) != 2:
        return None
    steps = []
    for side in SIDES:
        between = neighbour(here, side)
        if side_towards(between, there) is None or game.temple.at(between) is None:
            continue
        step = {"type": "enter", "player": player.player_id, "cell": list(between)}
        if _after(game, [step, event]) is not None:
            steps.append(step)
    return steps[0] if len(steps) == 1 else None


def _subject(event: dict[str, Any]) -> tuple[Any, ...]:
    """The `pending` key of a piece event: what it is about (type, player, cell)."""
    return (event["type"], event.get("player"), tuple(event.get("cell", ())))


def _held_note(event: dict[str, Any]) -> str:
    """The `waiting` key of a piece event held back because the engine refuses it now."""
    subject = event.get("player") or ",".join(str(v) for v in event.get("cell", ()))
    return f"held {event['type']} {subject}"


def _only_masks_moved(change: Settled) -> bool:
    """Tell whether only black masks lie elsewhere than before, and only black masks left their
    places (put back, not rolled)."""
    return (
        bool(change.moved)
        and set(change.moved) == {BLACK_MASK}
        and (change.left is None or set(change.left) <= {BLACK_MASK})
    )


def _masks_put_back(faces: tuple[str, ...], partial: tuple[str, ...], moved: Sequence[str]) -> int:
    """Return how many black masks alone were put elsewhere since a roll was read with dice out
    of sight (`partial`), the dice that came into sight aside (0: something else moved too)."""
    came = Counter(faces) - Counter(partial)
    if sum(came.values()) != len(faces) - len(partial):
        return 0  # not the same dice plus some: read differently meanwhile
    rest = Counter(moved) - came
    return rest[BLACK_MASK] if rest and set(rest) == {BLACK_MASK} else 0


def _after(game: Game, events: Sequence[dict[str, Any]]) -> Game | None:
    """A copy of the game with the events applied in order; None if the engine refuses one."""
    trial = game.copy()
    return trial if all(trial.apply(event).ok for event in events) else None


def _locked_masks_put_back(locked: int, faces: tuple[str, ...], change: Settled) -> int:
    """Return how many of the player's `locked` black masks lie elsewhere after a roll that
    still shows them all: they left their places (`Settled.left`) and fewer black masks lie
    where they lay than are locked, so some were carried off and put back after the roll
    (an unlock); 0 otherwise. A mask a few mm off its place (nudged, or found a little off
    beside new neighbours) still lies there."""
    if not change.rolled or change.left is None or faces.count(BLACK_MASK) < locked:
        return 0
    stayed = (Counter(faces) - Counter(change.carried))[BLACK_MASK]
    carried = Counter(change.carried)[BLACK_MASK]
    return max(0, min(locked - stayed, change.left.count(BLACK_MASK), carried))


def _legal_reading(
    faces: tuple[str, ...], votes: Sequence[Mapping[str, float]], locked: int
) -> tuple[str, ...] | None:
    """Return the reading of the dice the engine can take when the most voted one shows fewer
    black masks than the player has locked dice: the dice whose votes hold the most black mask
    read as black masks (None when too few were ever read so)."""
    if len(votes) != len(faces) or faces.count(BLACK_MASK) >= locked or not all(votes):
        return None
    faces = tuple(max(v, key=lambda face: v[face]) for v in votes)  # each die's, in votes' order
    need = locked - faces.count(BLACK_MASK)
    share = [
        (v.get(BLACK_MASK, 0.0) / max(sum(v.values()), 1e-9), i)
        for i, v in enumerate(votes)
        if faces[i] != BLACK_MASK and v.get(BLACK_MASK, 0.0) > 0
    ]
    if len(share) < need:
        return None
    chosen = {i for _, i in sorted(share, reverse=True)[:need]}
    return tuple(sorted(BLACK_MASK if i in chosen else f for i, f in enumerate(faces)))


def _last_roll(game: Game, player_id: str) -> tuple[int, dict[str, Any]] | None:
    """Return the record line and event of the player's last roll when the camera reported it
    (it carries the camera's confidence); None when it was entered by hand, when black masks
    of the player were freed since (freed dice may be rolled: more may have been freed than
    was seen), or when there is none."""
    for line, event in zip(reversed(game.accepted_lines), reversed(game.accepted), strict=True):
        if event.get("player") != player_id:
            continue
        if event.get("type") == "unlock":
            return None
        if event.get("type") == "dice":
            return (line, dict(event)) if "conf" in event else None
    return None


def _accepted(
    game: Game, event: dict[str, Any], field_name: str, candidates: Sequence[str]
) -> list[str]:
    """Return the candidates (in their order) for whom the engine would accept the event."""
    return [c for c in candidates if game.check({**event, field_name: c}).ok]


def _stamped(event: dict[str, Any], change: Settled) -> dict[str, Any]:
    """Add the confidence behind the event (the engine ignores it; the record keeps it)."""
    return {**event, "conf": round(float(change.conf), 3)}
