"""Queenie 15 (Queenie box): new quest chambers: the Riddle chamber (4 statues revealed in the
wall's order), the Ascension chamber (its steps climbed to the top) and the Guardian chamber
(guardian tokens carried to the 3-gem chambers), each with its own quest marker on the gem
depot (pure Python, no I/O)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from random import Random
from typing import TYPE_CHECKING, Any

from rules.catalog import TileDef
from rules.errors import RecordError, Rejection
from rules.module_protocol import GameView, Module
from rules.open_action import OpenAction, describe_icons, priced
from rules.queenie.new_quests_events import (
    STATUE_ORDER,
    Ascend,
    DropGuardian,
    JoinStep,
    PickGuardian,
    RevealStatue,
)
from rules.vocabulary import ADVENTURER, GOLDEN_MASK, KEY, TORCH, Cell, plural

if TYPE_CHECKING:
    from rules.engine import PlayerState
    from rules.game_setup import Setup
    from rules.temple import PlacedTile

NEW_QUESTS = "new_quests"
RIDDLE = "riddle"
ASCENSION = "ascension"
GUARDIAN = "guardian"
NAMES: Mapping[str, str] = {
    RIDDLE: "Riddle chamber",
    ASCENSION: "Ascension chamber",
    GUARDIAN: "Guardian chamber",
}
"""The three quest chambers of Queenie 15, by the id the setup's `new_quests` and the tile use."""
STATUE_ICONS: tuple[tuple[str, ...], ...] = (
    (ADVENTURER, TORCH),
    (ADVENTURER, KEY),
    (KEY, TORCH),
    (GOLDEN_MASK, ADVENTURER),
)
"""The icons in front of each of the 4 statue spaces (1 to 4): the example names the first
two; the others are editable defaults."""
STEPS: tuple[tuple[str, ...], ...] = (
    (TORCH, TORCH, TORCH),
    (ADVENTURER, ADVENTURER, ADVENTURER, ADVENTURER),
    (KEY, KEY, KEY),
    (TORCH, TORCH, TORCH),
)
"""The icons of the Ascension chamber's steps, bottom to top (the rulebook's example)."""
PICK_UP: Counter[str] = Counter({ADVENTURER: 2})
"""What picking up a guardian token takes (Queenie 15)."""


def new_quest_chambers() -> dict[str, TileDef]:
    """The three new quest chambers; doors and entry icons are editable defaults."""
    doors = {
        RIDDLE: frozenset({"N", "E", "W"}),
        ASCENSION: frozenset({"E", "W"}),
        GUARDIAN: frozenset({"N", "W"}),
    }
    enter = {
        RIDDLE: (ADVENTURER, KEY),
        ASCENSION: (ADVENTURER, TORCH),
        GUARDIAN: (ADVENTURER, ADVENTURER),
    }
    return {
        quest: TileDef(quest, NAMES[quest], "chamber", doors[quest], enter[quest], feature=quest)
        for quest in NAMES
    }


@dataclass
class NewQuestState:
    """The quests in play, those done, and each one's progress."""

    quests: tuple[str, ...]
    done: list[str] = field(default_factory=list)
    face_up: list[int] = field(default_factory=list)
    """The statue spaces (1-4) showing their statue, in the order revealed."""
    seen: dict[int, str] = field(default_factory=dict)
    """Each statue space's colour once revealed (the token stays on its space, face down)."""
    steps: dict[str, int] = field(default_factory=dict)
    """The step each player stands on in the Ascension chamber (0: the floor)."""
    guardians_left: int = 0
    """Guardian tokens still in the Guardian chamber."""
    carrying: list[str] = field(default_factory=list)
    """Players carrying a guardian token (a die on it)."""

    @property
    def markers_left(self) -> int:
        """Quest markers still on the gem depot: while any is, nobody escapes."""
        return len(self.quests) - len(self.done)

    def complete(self, quest: str) -> None:
        """The quest's marker leaves the gem depot."""
        if quest not in self.done:
            self.done.append(quest)

    def to_json(self) -> dict[str, Any]:
        """The module's part of the state, as `replay --json` shows it."""
        return {
            "new_quests": list(self.quests),
            "new_quests_done": list(self.done),
            "new_quest_markers_left": self.markers_left,
            "statues_face_up": [self.seen[space] for space in self.face_up],
            "statues_seen": {str(space): colour for space, colour in sorted(self.seen.items())},
            "ascension_steps": dict(self.steps),
            "guardians_left": self.guardians_left,
            "guardians_carried": list(self.carrying),
        }


def parse_new_quests(line: Mapping[str, Any]) -> tuple[str, ...]:
    """The setup's `new_quests`: 1 to 3 of the three, each once (Queenie 15); left out, all
    three (the hardest adventure)."""
    chosen = line.get("new_quests", list(NAMES))
    if (
        not isinstance(chosen, list)
        or not 1 <= len(chosen) <= 3
        or any(q not in NAMES for q in chosen)
    ):
        raise RecordError(
            "with the new quests module, 'new_quests' must list 1 to 3 quest chambers from "
            f"{', '.join(NAMES)}"
        )
    if len(set(chosen)) != len(chosen):
        raise RecordError("each quest chamber may be named only once in 'new_quests'")
    return tuple(chosen)


def _state(game: GameView) -> NewQuestState:
    state: NewQuestState = getattr(game, NewQuestsModule.state_attr)
    return state


def _cell_of(game: GameView, quest: str) -> Cell | None:
    if quest not in _state(game).quests:
        return None
    placed = game.temple.with_feature(quest)
    return None if placed is None else placed.cell


def _open_quest(game: GameView, quest: str) -> Cell:
    """The cell of a quest chamber in play, found and not yet done (else the reason)."""
    state = _state(game)
    name = NAMES[quest]
    if quest not in state.quests:
        raise Rejection(f"the {name} is not among this game's quest chambers")
    if quest in state.done:
        raise Rejection(f"the {name}'s task is already complete")
    cell = _cell_of(game, quest)
    if cell is None:
        raise Rejection(f"the {name} is not in the temple yet")
    return cell


def _in(player: PlayerState, cell: Cell, quest: str) -> None:
    if player.cell != cell:
        raise Rejection(f"{player.player_id} is not inside the {NAMES[quest]}")


def _payers(game: GameView, ids: Any, cell: Cell, quest: str) -> list[PlayerState]:
    """The players `ids` lists, each inside the quest's chamber (`ids` as the record wrote it)."""
    if not isinstance(ids, list) or not ids:
        raise Rejection("'players' must list the players who roll together")
    payers = [game.still_inside(game.lookup(pid)) for pid in ids]
    if len({p.player_id for p in payers}) != len(payers):
        raise Rejection("each player may be listed only once in 'players'")
    for payer in payers:
        _in(payer, cell, quest)
    return payers


# ----- the Riddle chamber ------------------------------------------------------------------


def reveal_statue(game: GameView, event: RevealStatue) -> None:
    """Players in the Riddle chamber roll the icons in front of a face-down statue and turn it
    up; the next colour of the wall stays up, any other turns every statue back down; all 4 up
    in order completes the task (Queenie 15)."""
    cell = _open_quest(game, RIDDLE)
    state = _state(game)
    space = event.space
    colour = event.colour
    payers = _payers(game, event.players, cell, RIDDLE)
    if space in state.face_up:
        raise Rejection(f"the statue on space {space} is already face up ({state.seen[space]})")
    known = state.seen.get(space)
    if known is not None and known != colour:
        raise Rejection(f"the statue on space {space} is the {known} one: it was turned up before")
    elsewhere = next((s for s, c in state.seen.items() if c == colour and s != space), None)
    if elsewhere is not None:
        raise Rejection(f"the {colour} statue stands on space {elsewhere}")
    need = Counter(STATUE_ICONS[space - 1])
    plan, spends = game.charge(event, payers, need, f"to reveal the statue on space {space}")
    game.settle(plan, spends)
    state.seen[space] = colour
    if colour == STATUE_ORDER[len(state.face_up)]:
        state.face_up.append(space)
        if len(state.face_up) == len(STATUE_ORDER):
            state.complete(RIDDLE)
    else:
        state.face_up.clear()  # out of order: every statue turned back down


# ----- the Ascension chamber ---------------------------------------------------------------


def step_of(game: GameView, player: PlayerState) -> int:
    """The step the player stands on (0 off the steps, or outside the Ascension chamber)."""
    if player.cell is None or player.cell != _cell_of(game, ASCENSION):
        return 0
    return _state(game).steps.get(player.player_id, 0)


def ascend(game: GameView, event: Ascend) -> None:
    """A player in the Ascension chamber rolls the next step's icons by himself and climbs to
    it; on the top step the task is complete (Queenie 15: no step skipped)."""
    cell = _open_quest(game, ASCENSION)
    player = game.still_inside(game.players[event.player])
    _in(player, cell, ASCENSION)
    step = step_of(game, player)
    need = Counter(STEPS[step])
    plan, spends = game.charge(event, [player], need, f"to climb to step {step + 1}")
    game.settle(plan, spends)
    state = _state(game)
    state.steps[player.player_id] = step + 1
    if step + 1 == len(STEPS):
        state.complete(ASCENSION)


def join_step(game: GameView, event: JoinStep) -> None:
    """A player in the Ascension chamber joins another on the step he reached, without rolling
    (Queenie 15)."""
    cell = _open_quest(game, ASCENSION)
    player = game.still_inside(game.players[event.player])
    _in(player, cell, ASCENSION)
    step = event.step
    others = [p for p in game.players_in(cell) if p is not player and step_of(game, p) == step]
    if step < 1 or not others:
        raise Rejection(f"nobody else in the Ascension chamber stands on step {step}")
    if step <= step_of(game, player):
        raise Rejection(f"{player.player_id} already stands on step {step_of(game, player)}")
    _state(game).steps[player.player_id] = step


def _joinable(game: GameView, player: PlayerState) -> int:
    """The highest step another player in the chamber stands on, above the player's."""
    here = player.cell
    if here is None:
        return 0
    best = max((step_of(game, p) for p in game.players_in(here) if p is not player), default=0)
    return best if best > step_of(game, player) else 0


# ----- the Guardian chamber ----------------------------------------------------------------


def pick_guardian(game: GameView, event: PickGuardian) -> None:
    """A player in the Guardian chamber rolls 2 adventurers and picks up a guardian token; one
    of his dice lies on it, never rolled, until he drops it (Queenie 15)."""
    cell = _open_quest(game, GUARDIAN)
    state = _state(game)
    player = game.still_inside(game.players[event.player])
    _in(player, cell, GUARDIAN)
    if not state.guardians_left:
        raise Rejection("no guardian token is left in the Guardian chamber")
    if player.player_id in state.carrying:
        raise Rejection(f"{player.player_id} already carries a guardian token: one each")
    if player.dice < 1:
        raise Rejection(f"{player.player_id} has no die to lay on the guardian token")
    plan, spends = game.charge(event, [player], Counter(PICK_UP), "to pick up a guardian token")
    game.settle(plan, spends)
    game.remove_die(player)
    state.guardians_left -= 1
    state.carrying.append(player.player_id)


def drop_guardian(game: GameView, event: DropGuardian) -> None:
    """A player carrying a guardian token into a chamber with 3 gems drops it and gets his die
    back; every token dropped completes the task (Queenie 15)."""
    _open_quest(game, GUARDIAN)
    state = _state(game)
    player = game.still_inside(game.players[event.player])
    if player.player_id not in state.carrying:
        raise Rejection(f"{player.player_id} carries no guardian token")
    if not _three_gems(game, player):
        raise Rejection(f"{player.player_id} is not in a chamber with 3 gems")
    state.carrying.remove(player.player_id)
    player.dice += 1  # the die on the token, to be rolled again
    if not state.guardians_left and not state.carrying:
        state.complete(GUARDIAN)


def _three_gems(game: GameView, player: PlayerState) -> bool:
    placed = game.temple.at(player.cell) if player.cell is not None else None
    return placed is not None and placed.tile.gems is not None and placed.tile.gems.count == 3


class NewQuestsModule(Module):
    """Queenie 15: new quest chambers."""

    id = NEW_QUESTS
    title = "Queenie: New quest chambers"
    summary = (
        "1 to 3 new quest chambers join the pile, a quest marker each on the gem depot: reveal "
        "the Riddle chamber's statues in the wall's order, climb the Ascension chamber's "
        "steps, carry the Guardian chamber's tokens to the 3-gem chambers."
    )
    rulebook = "Queenie box, Queenie 15"
    event_types = ("reveal_statue", "ascend", "join_step", "pick_guardian", "drop_guardian")
    event_classes = (RevealStatue, Ascend, JoinStep, PickGuardian, DropGuardian)
    state_attr = "new_quests"

    @classmethod
    def chambers(cls) -> dict[str, TileDef]:
        """The Riddle, Ascension and Guardian chambers."""
        return new_quest_chambers()

    @classmethod
    def setup_fields(cls, line: Mapping[str, Any]) -> dict[str, Any]:
        """`new_quests`: the quest chambers drawn."""
        return {"new_quests": parse_new_quests(line)}

    @classmethod
    def unused_chambers(cls, fields: Mapping[str, Any]) -> set[str]:
        """The quest chambers not drawn go back in the box."""
        return {quest for quest in NAMES if quest not in fields["new_quests"]}

    @classmethod
    def random_setup_fields(cls, rng: Random, players: list[str]) -> dict[str, Any]:
        """1 to 3 of the three, as the table's difficulty chooses."""
        return {"new_quests": rng.sample(list(NAMES), rng.randint(1, 3))}

    @classmethod
    def create_state(cls, setup: Setup) -> NewQuestState:
        """The quest chambers drawn, a marker each on the depot (none laid at set-up)."""
        for placement in setup.temple:
            if setup.catalog[placement.tile_id].feature in NAMES:
                raise RecordError("a quest chamber is never laid at set-up: it is discovered")
        return NewQuestState(tuple(setup.fields[NEW_QUESTS]))

    def state_json(self, game: GameView) -> dict[str, Any]:
        """The new quests' part of the state."""
        return _state(game).to_json()

    def on_reveal_statue(self, game: GameView, event: RevealStatue) -> None:
        """A statue of the Riddle chamber turned up."""
        game.require(NEW_QUESTS, event)
        reveal_statue(game, event)

    def on_ascend(self, game: GameView, event: Ascend) -> None:
        """A step of the Ascension chamber climbed."""
        game.require(NEW_QUESTS, event)
        ascend(game, event)

    def on_join_step(self, game: GameView, event: JoinStep) -> None:
        """A player joins another on his step."""
        game.require(NEW_QUESTS, event)
        join_step(game, event)

    def on_pick_guardian(self, game: GameView, event: PickGuardian) -> None:
        """A guardian token picked up."""
        game.require(NEW_QUESTS, event)
        pick_guardian(game, event)

    def on_drop_guardian(self, game: GameView, event: DropGuardian) -> None:
        """A guardian token dropped in a 3-gem chamber."""
        game.require(NEW_QUESTS, event)
        drop_guardian(game, event)

    def on_discover(self, game: GameView, player: PlayerState, tile: TileDef, cell: Cell) -> None:
        """The Guardian chamber found: a guardian token per player inside it."""
        if tile.feature == GUARDIAN and GUARDIAN in _state(game).quests:
            _state(game).guardians_left = len(game.players)

    def after_enter(
        self,
        game: GameView,
        player: PlayerState,
        origin: Cell,
        event: Mapping[str, Any],
        through: bool,
    ) -> None:
        """Whoever enters a chamber stands on no step (he left the steps, or comes in below)."""
        _state(game).steps.pop(player.player_id, None)

    def check_escape(self, game: GameView) -> None:
        """Nobody escapes while one of the module's quest markers is on the depot."""
        state = _state(game)
        if state.markers_left:
            left = [NAMES[q] for q in state.quests if q not in state.done]
            raise Rejection(
                f"{plural(state.markers_left, 'quest marker')} still on the gem depot: complete "
                f"the {' and the '.join(left)} first"
            )

    def escape_blocked(self, game: GameView) -> str | None:
        """The module's quest markers still on the depot."""
        left = _state(game).markers_left
        return f"{plural(left, 'quest marker')} still on the gem depot" if left else None

    def open_actions(self, game: GameView, player: PlayerState) -> list[OpenAction]:
        """The new quests' actions where the player stands."""
        return _actions(game, player)

    def tell(self, game: GameView, event: Mapping[str, Any]) -> str | None:
        """The new quests' events in words."""
        return _tell(event)

    def reminders(self, game: GameView) -> list[str]:
        """What the new quest chambers ask, and what players forget."""
        return _reminders(game)

    def tile_marks(self, game: GameView, placed: PlacedTile) -> list[dict[str, Any]]:
        """The statues, the steps reached and the guardian tokens on their chambers."""
        return _tile_marks(game, placed)

    def player_marks(self, game: GameView, player: PlayerState) -> list[dict[str, Any]]:
        """A guardian token carried, with a die on it."""
        if player.player_id not in _state(game).carrying:
            return []
        return [
            {
                "token": "guardian",
                "label": "guardian token, a die on it: drop it in a chamber with 3 gems",
            }
        ]


# ----- what the dashboard shows ------------------------------------------------------------


def _actions(game: GameView, player: PlayerState) -> list[OpenAction]:
    """The new quests' actions open to the player where he stands (Queenie 15)."""
    state = _state(game)
    here = player.cell
    found: list[OpenAction] = []
    if here is None:
        return found
    pid = player.player_id
    open_quests = [q for q in state.quests if q not in state.done]
    if GUARDIAN in open_quests and pid in state.carrying:
        found.append(
            OpenAction(
                "drop_guardian",
                "drop the guardian token and take its die back",
                {"type": "drop_guardian", "player": pid},
                blocked=None if _three_gems(game, player) else "only in a chamber with 3 gems",
            )
        )
    quest = next((q for q in open_quests if _cell_of(game, q) == here), None)
    if quest == RIDDLE:
        found.extend(_statue_actions(game, here))
    elif quest == ASCENSION:
        found.extend(_step_actions(game, player))
    elif quest == GUARDIAN and state.guardians_left and pid not in state.carrying:
        found.append(
            priced(
                game,
                [player],
                PICK_UP,
                "pick_guardian",
                f"pick up a guardian token ({describe_icons(PICK_UP)} by yourself)",
                {"type": "pick_guardian", "player": pid},
            )
        )
    return found


def _statue_actions(game: GameView, here: Cell) -> list[OpenAction]:
    """Each face-down statue: its icons together; the event still needs the colour turned up."""
    state = _state(game)
    together = game.players_in(here)
    ids = [p.player_id for p in together]
    found = []
    for space in range(1, 5):
        if space in state.face_up:
            continue
        need = Counter(STATUE_ICONS[space - 1])
        event: dict[str, Any] = {"type": "reveal_statue", "players": ids, "space": space}
        action = priced(
            game,
            together,
            need,
            "reveal_statue",
            f"reveal the statue on space {space} ({describe_icons(need)} together)",
            event,
        )
        colours = _possible_colours(state, space)
        events = [{**event, "colour": colour} for colour in colours]
        choices = [{"name": colour, "event": e} for colour, e in zip(colours, events, strict=True)]
        found.append(
            replace(action, event=events[0] if len(events) == 1 else event, choices=choices)
        )
    return found


def _possible_colours(state: NewQuestState, space: int) -> list[str]:
    """The colours the statue on a face-down space may show: the one seen there before, else
    those not seen on another space."""
    if space in state.seen:
        return [state.seen[space]]
    return [c for c in STATUE_ORDER if c not in state.seen.values()]


def _step_actions(game: GameView, player: PlayerState) -> list[OpenAction]:
    """The next step's climb, and joining another on his higher step."""
    pid = player.player_id
    step = step_of(game, player)
    need = Counter(STEPS[step])
    found = [
        priced(
            game,
            [player],
            need,
            "ascend",
            f"climb to step {step + 1} ({describe_icons(need)} by yourself)",
            {"type": "ascend", "player": pid},
        )
    ]
    higher = _joinable(game, player)
    if higher:
        found.append(
            OpenAction(
                "join_step",
                f"join the others on step {higher}",
                {"type": "join_step", "player": pid, "step": higher},
            )
        )
    return found


def _tell(event: Mapping[str, Any]) -> str | None:
    """Say one of the new quests' events, or None."""
    kind = event.get("type")
    if kind == "reveal_statue":
        players = event.get("players")
        ids = [str(p).capitalize() for p in players] if isinstance(players, list) else ["?"]
        who = ids[0] if len(ids) == 1 else ", ".join(ids[:-1]) + " and " + ids[-1]
        verb = "reveals" if len(ids) == 1 else "reveal"
        return (
            f"{who} {verb} the statue on space {event.get('space', '?')}: "
            f"{event.get('colour', '?')}"
        )
    who = str(event.get("player", "?")).capitalize()
    if kind == "ascend":
        return f"{who} climbs a step of the Ascension chamber"
    if kind == "join_step":
        return f"{who} joins the others on step {event.get('step', '?')} of the Ascension chamber"
    if kind == "pick_guardian":
        return f"{who} picks up a guardian token and lays a die on it"
    if kind == "drop_guardian":
        return f"{who} drops a guardian token in a chamber with 3 gems and takes the die back"
    return None


def _reminders(game: GameView) -> list[str]:
    """What the new quest chambers ask of the table now."""
    state = _state(game)
    said = []
    if RIDDLE not in state.done and _cell_of(game, RIDDLE) is not None:
        said.append(
            "Riddle chamber: reveal the statues in the wall's order (blue, red, yellow, green); "
            "one out of order turns them all back down"
        )
    if ASCENSION not in state.done and _cell_of(game, ASCENSION) is not None:
        said.append(
            "Ascension chamber: one player rolls each step's icons by himself (the others help "
            "only with golden masks); the others may join him on his step"
        )
    if state.carrying:
        said.append(
            "Guardian tokens: the die on a token is not rolled until the token is dropped in a "
            "chamber with 3 gems"
        )
    return said


def _tile_marks(game: GameView, placed: PlacedTile) -> list[dict[str, Any]]:
    state = _state(game)
    feature = placed.tile.feature
    if feature not in state.quests or feature in state.done:
        return []
    if feature == RIDDLE:
        up = [state.seen[space] for space in state.face_up]
        return [
            {
                "token": "statue",
                "label": "statue tokens face up: " + (", ".join(up) if up else "none"),
                "count": len(up),
            }
        ]
    if feature == GUARDIAN and state.guardians_left:
        return [
            {
                "token": "guardian",
                "label": "guardian token: roll 2 adventurers here to pick one up",
                "count": state.guardians_left,
            }
        ]
    if feature == ASCENSION:
        top = max((step_of(game, p) for p in game.players_in(placed.cell)), default=0)
        if top:
            return [{"token": "step", "label": f"highest step reached: {top} of {len(STEPS)}"}]
    return []


MODULE = NewQuestsModule
