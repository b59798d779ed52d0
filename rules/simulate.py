"""Random games played by the rules: for property tests and the rules benchmark."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from rules.actions import open_actions, secret_passage_spots, team_actions
from rules.engine import Game
from rules.modules import curse_cards_in_play, treasures_in_play
from rules.timeline import Timeline
from rules.vocabulary import BLACK_MASK, FACES, side_towards

PLAYER_COLOURS = ("red", "blue", "green", "yellow", "purple", "orange")


def random_setup(rng: random.Random, players: int | None = None) -> dict[str, Any]:
    """Return a random valid setup line for the basic game."""
    count = players if players is not None else rng.randint(1, 6)
    return {
        "type": "setup",
        "players": list(PLAYER_COLOURS[:count]),
        "difficulty": rng.choice(["normal", "normal", "expert", "professional"]),
        "modules": [],
        "track_dice": rng.random() < 0.85,
    }


def roll(rng: random.Random, game: Game, player_id: str) -> dict[str, Any]:
    """Return a legal `dice` event: locked dice stay black masks, the others are rolled."""
    player = game.players[player_id]
    faces = [BLACK_MASK] * player.locked
    weights = [2, 1, 1, 1, 1]
    faces += rng.choices(FACES, weights=weights, k=player.free_dice)
    rng.shuffle(faces)
    return {"type": "dice", "player": player_id, "faces": faces}


def nonsense_event(rng: random.Random, game: Game) -> Any:
    """Return an event that is malformed or very likely against the rules."""
    pid = rng.choice([*game.players, "nobody"])
    return rng.choice(
        [
            {"type": "dice", "player": pid, "faces": ["key"] * rng.randint(0, 8)},
            {"type": "enter", "player": pid, "cell": [rng.randint(-3, 3), rng.randint(-3, 3)]},
            {"type": "enter", "player": pid, "cell": "north"},
            {"type": "discover", "player": pid, "tile": "exit", "cell": [9, 9]},
            {"type": "discover", "player": pid, "tile": "no-such-tile", "cell": [0, 1]},
            {"type": "activate", "cell": [0, 0], "gems": rng.randint(0, 4), "players": [pid]},
            {"type": "unlock", "player": pid, "count": rng.randint(0, 3)},
            {"type": "escape", "player": pid},
            {"type": "give_die", "from": pid, "to": pid},
            {"type": "countdown_end", "n": 3},
            {"type": "warp", "player": pid},
            {"player": pid},
            ["not", "an", "object"],
        ]
    )


def random_events(
    rng: random.Random,
    game: Game,
    steps: int,
    noise: float = 0.1,
    seconds_per_event: float = 0.25,
    countdowns: bool = True,
) -> Iterator[Any]:
    """Yield up to `steps` events of a plausible game, applying each to `game` as it goes.

    Most events are legal (dice rolls and actions the engine lists as possible); a share
    `noise` of them are nonsense that the engine must reject without changing anything.
    """
    clock = 0.0
    schedule = Timeline().events() if countdowns else []
    for _ in range(steps):
        if game.outcome != "running":
            return
        clock += seconds_per_event
        if schedule and clock >= schedule[0]["t"]:
            event: Any = {**schedule.pop(0), "t": round(clock, 2)}
        elif rng.random() < noise:
            event = nonsense_event(rng, game)
        else:
            event = _plausible_event(rng, game)
            event["t"] = round(clock, 2)
        game.apply(event)
        yield event


_ACTION_WEIGHTS = {"enter": 2.0, "discover": 3.0, "activate": 6.0, "escape": 20.0, "unlock": 3.0}


def _plausible_event(rng: random.Random, game: Game) -> dict[str, Any]:
    inside = [pid for pid, p in game.players.items() if p.inside]
    choices = [a for pid in game.players for a in open_actions(game, pid) if a.possible]
    choices += [a for a in team_actions(game) if a.possible and rng.random() < 0.02]
    if choices and rng.random() < 0.5:
        weights = [_ACTION_WEIGHTS.get(a.action, 1.0) for a in choices]
        chosen = rng.choices(choices, weights=weights)[0]
        # An action that needs a choice (modules 6 and 7) takes one of its ways at random;
        # no other action draws, so a basic game's random stream is unchanged.
        event = dict(rng.choice(chosen.choices)["event"] if chosen.choices else chosen.event)
        _draw_for_modules(rng, game, event)
        if event["type"] == "discover":
            event["tile"] = rng.choice(game.drawable_tiles()).tile_id
            if rng.random() < 0.5:
                here = game.players[event["player"]].cell
                assert here is not None
                event["stairs"] = side_towards(tuple(event["cell"]), here)
        return event
    return roll(rng, game, rng.choice(inside))


def _draw_for_modules(rng: random.Random, game: Game, event: dict[str, Any]) -> None:
    """Complete a module's open action as the table would: the curse card drawn, the treasure
    tile turned up, the chambers a secret passage joins (no draw at all for other events, so a
    basic game's random stream is unchanged)."""
    if event["type"] == "curse":
        event["card"] = rng.choice(list(curse_cards_in_play(game.setup.modules)))
    elif event["type"] == "claim":
        event["treasure"] = rng.choice(list(treasures_in_play(game.setup.modules)))
    elif event["type"] == "use" and event.get("treasure") == "secret_passage":
        spots = secret_passage_spots(game)
        if spots:
            a, b = rng.choice(spots)
            event["cells"] = [list(a), list(b)]
