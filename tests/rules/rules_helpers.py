"""Helpers for rules tests: a game from a setup and a few events, checked step by step."""

from __future__ import annotations

from typing import Any

from rules.engine import Game

A, K, T, G, B = "adventurer", "key", "torch", "golden_mask", "black_mask"


class Table:
    """A game under test: `ok(...)` applies events that must pass, `no(...)` ones that must fail."""

    def __init__(self, **setup: Any) -> None:
        line = {"type": "setup", "players": ["red", "blue"], **setup}
        self.game = Game.from_setup_line(line)

    def ok(self, **event: Any) -> Table:
        verdict = self.game.apply(event)
        assert verdict.ok, f"{event} was rejected: {verdict.reason}"
        return self

    def no(self, **event: Any) -> str:
        before = self.game.state_json()
        showing = {pid: dict(p.showing) for pid, p in self.game.players.items()}
        verdict = self.game.apply(event)
        assert not verdict.ok, f"{event} was accepted"
        assert verdict.reason
        assert self.game.state_json() == before, "a rejected event changed the state"
        assert {pid: dict(p.showing) for pid, p in self.game.players.items()} == showing
        return verdict.reason

    def roll(self, player: str, *faces: str) -> Table:
        return self.ok(type="dice", player=player, faces=list(faces))

    def player(self, pid: str):
        return self.game.players[pid]

    @property
    def state(self) -> dict[str, Any]:
        return self.game.state_json()


def start_and(*placed: tuple[str, tuple[int, int], str]) -> list[dict[str, Any]]:
    """A temple: the start tile at [0, 0] and the given (tile, cell, stairs) placements."""
    return [{"tile": "start", "cell": [0, 0], "stairs": "S"}] + [
        {"tile": tile, "cell": list(cell), "stairs": stairs} for tile, cell, stairs in placed
    ]
