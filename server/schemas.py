"""The API's request bodies: pydantic models that reject bad input with a clear 422."""

from __future__ import annotations

import random
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    ValidationInfo,
    field_validator,
    model_validator,
)

from rules.game_setup import KNOWN_MODULES, setup_catalog, starting_temple
from rules.module_characters import default_characters
from rules.module_time import TIME_NAMES
from rules.module_traps import TRAP_NAMES
from rules.queenie.new_traps import BEAST_PATH_MOST
from rules.vocabulary import PLAYER_ID_PATTERN
from server.form_checks import (
    MOST_QUESTS,
    beast_path_refusal,
    maya_bars_refusal,
    maya_spaces_refusal,
    quests_refusal,
)
from server.queenie_setup import FIELD_MODULES, draw_quests, misplaced_fields, queenie_fields
from server.timer_options import TimerIn

IdempotencyKey = Annotated[
    str,
    Field(
        min_length=1,
        max_length=64,
        pattern=r"^[A-Za-z0-9_.:-]+$",
        description=(
            "any string of up to 64 letters, digits, '-', '_', '.' or ':', new for each click: a "
            "retry of the same request with the same key is answered again and recorded once"
        ),
    ),
]


class NewGame(BaseModel):
    """The set-up page's form: who plays, how hard, and how the soundtrack is played."""

    model_config = ConfigDict(extra="forbid")

    players: list[str] = Field(min_length=1, max_length=6, description="player ids (colours)")
    difficulty: Literal["normal", "expert", "professional"] = "normal"
    modules: list[str] = Field(
        default_factory=list, max_length=len(KNOWN_MODULES), description="the modules played"
    )
    track_dice: bool = Field(False, description="true when a camera reports every roll")
    audio: Literal["auto", "host", "browser", "off"] = "auto"
    temple: list[dict[str, Any]] | None = Field(None, max_length=60)
    quests: list[str] | None = Field(
        None,
        max_length=MOST_QUESTS,
        description="module 5's quest chambers in play, those of the Queenie modules ticked "
        "among them (default: `quest_count` drawn at random)",
    )
    quest_count: int = Field(
        2, ge=1, le=MOST_QUESTS, description="quest chambers to draw (page 17)"
    )
    traps: list[str] | None = Field(
        None, max_length=4, description="module 7's trap chambers (default: `trap_count` drawn)"
    )
    trap_count: int = Field(3, ge=2, le=4, description="trap chambers to draw (page 22)")
    time_chambers: list[str] | None = Field(
        None, max_length=4, description="module 8's time chambers (default: `time_count` drawn)"
    )
    time_count: int = Field(3, ge=2, le=4, description="time chambers to draw (page 24)")
    torch_penalty: Literal["dice", "gems"] = Field(
        "dice",
        description="module 8: page 25's table the torch chamber plays (a failed task loses "
        "dice, or adds magic gems to the depot)",
    )
    characters: dict[str, str] | None = Field(
        None, description="module 6: each player's character card (default: a permanent card each)"
    )
    timer: TimerIn | None = Field(
        None, description="the timer options (left out: the official timeline, or --timeline)"
    )
    starting_chambers: list[str] | None = Field(
        None,
        min_length=2,
        max_length=2,
        description="the two chambers drawn at set-up (page 5), laid left and right of the start",
    )
    new_quests: list[str] | None = Field(
        None,
        min_length=1,
        max_length=3,
        description="Queenie 15: its quest chambers in play (default: all three)",
    )
    maya_side: Literal["eternal", "doomed"] | None = Field(
        None, description="the Maya calendar board's side (default: eternal)"
    )
    maya_bars: list[StrictInt] | None = Field(
        None, max_length=2, description="the doomed calendar's two bars, e.g. [3, 6]"
    )
    maya_spaces: list[str] | None = Field(
        None, max_length=9, description="the calendar's 9 spaces after the start"
    )
    cursed_gems: dict[str, str] | None = Field(
        None, description="each player's cursed gem tile (default: dealt at random)"
    )
    beast_path: list[str] | None = Field(
        None,
        max_length=BEAST_PATH_MOST,
        description="the beast chamber's path (default: the printed one)",
    )

    @field_validator("players")
    @classmethod
    def _valid_ids(cls, players: list[str]) -> list[str]:
        for player in players:
            if not PLAYER_ID_PATTERN.match(player) or len(player) > 32:
                raise ValueError(
                    f"player id {player!r} is not valid: use up to 32 letters, digits, '-' or '_'"
                )
        if len(set(players)) != len(players):
            raise ValueError("each player may appear only once")
        return players

    @field_validator("quests")
    @classmethod
    def _quests_in_play(cls, quests: list[str] | None, info: ValidationInfo) -> list[str] | None:
        modules = info.data.get("modules", [])
        if quests is not None and "quests" in modules:
            _refuse(quests_refusal(quests, modules))
        return quests

    @field_validator("beast_path")
    @classmethod
    def _a_beast_path(cls, path: list[str] | None) -> list[str] | None:
        if path is not None:
            _refuse(beast_path_refusal(path))
        return path

    @field_validator("maya_spaces")
    @classmethod
    def _calendar_spaces(cls, spaces: list[str] | None, info: ValidationInfo) -> list[str] | None:
        if spaces is not None:
            _refuse(maya_spaces_refusal(spaces, info.data.get("maya_side")))
        return spaces

    @field_validator("maya_bars")
    @classmethod
    def _calendar_bars(cls, bars: list[int] | None) -> list[int] | None:
        if bars is not None:
            _refuse(maya_bars_refusal(bars))
        return bars

    @model_validator(mode="after")
    def _fields_fit_modules(self) -> NewGame:
        given = {name: getattr(self, name) for name in FIELD_MODULES}
        problem = misplaced_fields(given, self.modules)
        if problem is not None:
            raise ValueError(problem)
        return self

    def setup_line(self) -> dict[str, Any]:
        """Return the game record's setup line for this form."""
        rng = random.Random()
        line: dict[str, Any] = {
            "type": "setup",
            "players": self.players,
            "difficulty": self.difficulty,
            "modules": self.modules,
            "track_dice": self.track_dice,
        }
        if "quests" in self.modules:
            line["quests"] = self.quests or draw_quests(self.modules, self.quest_count, rng)
        if "traps" in self.modules:
            line["traps"] = self.traps or random.sample(list(TRAP_NAMES), self.trap_count)
        if "time" in self.modules:
            line["time_chambers"] = self.time_chambers or random.sample(
                list(TIME_NAMES), self.time_count
            )
            if self.torch_penalty != "dice":
                line["torch_penalty"] = self.torch_penalty
        if "characters" in self.modules:
            line["characters"] = self.characters or default_characters(self.players)
        given = {name: getattr(self, name) for name in FIELD_MODULES}
        line.update(queenie_fields(given, self.modules, self.players, rng))
        if self.temple is not None:
            line["temple"] = self.temple
        elif self.starting_chambers is not None:
            drawn = (self.starting_chambers[0], self.starting_chambers[1])
            line["temple"] = starting_temple(setup_catalog(self.modules), drawn)
        return line


def _refuse(problem: str | None) -> None:
    """Raise a field's refusal, so that the 422 names the field (its `loc`)."""
    if problem is not None:
        raise ValueError(problem)


class EventIn(BaseModel):
    """One game-record event entered on the dashboard (the engine judges its content)."""

    model_config = ConfigDict(extra="forbid")

    event: dict[str, Any] = Field(description="a game-record event, e.g. {'type': 'enter', ...}")
    key: IdempotencyKey | None = None

    @field_validator("event")
    @classmethod
    def _has_type(cls, event: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(event.get("type"), str):
            raise ValueError("the event needs a 'type' string, e.g. 'enter'")
        if event["type"] == "setup":
            raise ValueError("start a new game on the set-up page instead of sending a setup")
        return event


class CorrectionIn(BaseModel):
    """A correction from the dashboard: the event line to fix and what it should have been."""

    model_config = ConfigDict(extra="forbid")

    line: StrictInt = Field(
        description="the record line of the event to correct (events start at 2)"
    )
    event: dict[str, Any] | None = Field(
        description="the event as it should have been, or null to strike the line out"
    )
    key: IdempotencyKey | None = None


class UndoIn(BaseModel):
    """An Undo button press; the body is optional (an empty POST undoes the last action)."""

    model_config = ConfigDict(extra="forbid")

    key: IdempotencyKey | None = None


class ClockIn(BaseModel):
    """A clock button: start, pause, resume or restart."""

    model_config = ConfigDict(extra="forbid")

    action: Literal["start", "pause", "resume", "restart"]
