"""The rules engine of Escape: The Curse of the Temple (basic game): pure Python, no I/O."""

from rules.actions import OpenAction, all_open_actions, open_actions, team_actions
from rules.engine import Game, PlayerState, Verdict
from rules.errors import RecordError, Rejection
from rules.record import Replay, replay_lines

__all__ = [
    "Game",
    "OpenAction",
    "PlayerState",
    "RecordError",
    "Rejection",
    "Replay",
    "Verdict",
    "all_open_actions",
    "open_actions",
    "replay_lines",
    "team_actions",
]
