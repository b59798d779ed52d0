"""What each player can do now, what they still miss for the rest, and the odds of getting it."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from rules.engine import DIE_ICONS_TO_DISCOVER, Game, PlayerState
from rules.module_protocol import GameView
from rules.open_action import (
    OpenAction,
    icons_needed,
    one_listing,
    priced,
    pricer,
    unjoined_neighbours,
)
from rules.vocabulary import GOLDEN_MASK, KEY, OFFSETS, SIDES, Cell, opposite, plural, side_towards


def open_actions(game: Game, player_id: str) -> list[OpenAction]:
    """List every action open to `player_id` now, with what is missing for the rest."""
    with one_listing():
        return _open_actions(game, player_id)


def _open_actions(game: Game, player_id: str) -> list[OpenAction]:
    player = game.players[player_id]
    if game.outcome != "running":
        return []
    if player.escaped:
        return _gifts(game, player)
    here = player.cell
    assert here is not None
    chamber = game.temple.at(here)
    assert chamber is not None
    found: list[OpenAction] = []
    price = pricer(game, [player])  # moving and escaping are paid by the player alone
    pile_left = game.draw_pile_size() > 0
    trapped = _held_back(game, player, False)
    held = _held_back(game, player, True)  # what stops a discovery
    shut_side = game.module_hooks("shut_side")
    closed_tile = game.module_hooks("closed_tile")
    enter_variants = game.module_hooks("enter_variants")
    at = game.temple.at
    x, y = here
    # Loops rather than `any(...)` over the hooks below: a generator costs more than the hooks.
    for side, facing, (dx, dy) in _STEPS:
        if side not in chamber.open_sides:
            continue
        for hook in shut_side:
            if hook(game, player, chamber, side, False):
                break  # an inner wall (module 4), the slide's stairway (module 7)
        else:
            cell = (x + dx, y + dy)
            target = at(cell)
            if target is None:
                found.append(
                    price(
                        DIE_ICONS_TO_DISCOVER,
                        "discover",
                        f"discover a chamber to the {side}",
                        {"type": "discover", "player": player_id, "cell": [cell[0], cell[1]]},
                        held or (None if pile_left else "no tiles left in the draw pile"),
                    )
                )
                continue
            tile = target.tile
            for hook in closed_tile:
                if hook(game, tile):
                    break  # nobody enters the ghost or obelisk chamber (module 5)
            else:
                if facing in target.open_sides:
                    found.append(
                        price(
                            icons_needed(tile.enter),
                            "enter",
                            f"enter {tile.name} ({side})",
                            {"type": "enter", "player": player_id, "cell": [cell[0], cell[1]]},
                            trapped,
                        )
                    )
                    for hook in enter_variants:
                        found.extend(hook(game, player, target, side))
    for a, b in game.secret_passages:
        if here in (a, b):
            other = b if here == a else a
            through = side_towards(here, other)
            if through and any(hook(game, player, chamber, through, True) for hook in shut_side):
                continue
            target = game.temple.at(other)
            assert target is not None
            found.append(
                price(
                    icons_needed(target.tile.enter),
                    "enter",
                    f"enter {target.tile.name} (secret passage)",
                    {"type": "enter", "player": player_id, "cell": list(other)},
                    trapped,
                )
            )
    found.extend(_activations(game, player))
    for hook in game.module_hooks("open_actions_before_escape"):
        found.extend(hook(game, player))
    if chamber.tile.kind == "exit":
        found.append(
            price(
                {KEY: game.keys_to_escape},
                "escape",
                f"escape ({plural(game.keys_to_escape, 'key')} by yourself)",
                {"type": "escape", "player": player_id},
                next(
                    (why for hook in game.module_hooks("escape_blocked") if (why := hook(game))),
                    None,
                ),
            )
        )
    for hook in game.module_hooks("open_actions"):
        found.extend(hook(game, player))
    found = _filtered(game, found, game.module_hooks("filter_open_actions"))
    found.extend(_unlocks(game, player))
    for hook in game.module_hooks("open_actions_last"):
        found.extend(hook(game, player))
    return _filtered(game, found, game.module_hooks("filter_last_actions"))


def _filtered(game: Game, found: list[OpenAction], filters: tuple[Any, ...]) -> list[OpenAction]:
    """`found` through the modules' filters, skipping those that change no kind listed."""
    kinds: set[str] | None = None  # the kinds listed, worked out once for all the filters
    for hook in filters:
        wanted = hook.__self__.filtered_actions
        if wanted is not None:
            if kinds is None:
                kinds = {a.action for a in found}
            if kinds.isdisjoint(wanted):
                continue
        found = hook(game, found)
        kinds = None  # it may have changed the kinds
    return found


_STEPS = tuple((side, opposite(side), OFFSETS[side]) for side in SIDES)
"""Each side in `Temple.passages`' order, the side facing it, and the step it makes."""


def secret_passage_spots(game: Game) -> list[tuple[Cell, Cell]]:
    """Every pair of adjacent chambers with no open passage between them: where a Secret
    passage may be laid (module 2, page 11); each pair once, in temple order."""
    return list(_secret_passage_spots(game))


def _secret_passage_spots(game: GameView) -> Iterator[tuple[Cell, Cell]]:
    return unjoined_neighbours(game)


def _held_back(game: Game, player: PlayerState, discovering: bool) -> str | None:
    """Why the modules keep the player from moving (or discovering), or None."""
    for hook in game.module_hooks("held_back"):
        why = hook(game, player, discovering)
        if why:
            return why
    return None


def _activations(game: Game, player: PlayerState) -> list[OpenAction]:
    assert player.cell is not None
    chamber = game.temple.at(player.cell)
    assert chamber is not None
    spec = chamber.tile.gems
    if spec is None or chamber.gems:
        return []
    partners = [p for p in game.players_in(player.cell) if p is not player]
    front = None
    for hook in game.module_hooks("activation_partners"):
        answer = hook(game, player, chamber, partners)
        if answer is None:
            return []  # its gems are activated another way (module 4's linked chambers)
        partners, why = answer
        front = front or why
    found = []
    for gems in range(1, spec.count + 1):
        # 1 gem: alone, and together with everyone here (page 8: "you may cooperate to
        # activate 1 gem"); 2 or 3 gems: always together.
        groups = [[player], [player, *partners]] if gems == 1 else [[player, *partners]]
        if not partners and gems == 1:
            groups = [[player]]
        for payers in groups:
            blocked = None
            if front:
                blocked = front
            elif game.depot < gems:
                blocked = f"the depot holds only {plural(game.depot, 'gem')}"
            elif len(payers) < 2 and gems >= 2:
                blocked = "needs a second player in this chamber"
            event = {
                "type": "activate",
                "cell": list(player.cell),
                "gems": gems,
                "players": [p.player_id for p in payers],
            }
            together = " together" if len(payers) > 1 and gems == 1 else ""
            if payers is groups[-1]:
                for hook in game.module_hooks("offering_actions"):
                    found.extend(hook(game, payers, spec, gems, event, blocked))
            found.append(
                priced(
                    game,
                    payers,
                    {spec.icon: spec.cost(gems)},
                    "activate",
                    f"activate {plural(gems, 'gem')}{together} "
                    f"({plural(spec.cost(gems), spec.icon)})",
                    event,
                    blocked,
                )
            )
    return found


_ONE_GOLDEN_MASK = icons_needed((GOLDEN_MASK,))


@lru_cache(maxsize=8)
def _black_masks(count: int) -> str:
    """`2 black masks`, written once per count."""
    return plural(count, "black mask")


def _unlocks(game: Game, player: PlayerState) -> list[OpenAction]:
    if player.locked == 0:
        return []
    assert player.cell is not None
    found = []
    helpers = [player] + [p for p in game.players_in(player.cell) if p is not player]
    limits = game.module_hooks("unlock_limit")
    for helper in helpers:
        if helper is not player and helper.showing[GOLDEN_MASK] == 0:
            continue
        limit = max([hook(game, helper) for hook in limits]) if limits else 2
        count = min(limit, player.locked)
        by = "" if helper is player else f" with {helper.player_id}'s golden mask"
        found.append(
            priced(
                game,
                [helper],
                _ONE_GOLDEN_MASK,
                "unlock",
                f"free {_black_masks(count)}{by}",
                {
                    "type": "unlock",
                    "player": player.player_id,
                    "by": helper.player_id,
                    "count": count,
                },
            )
        )
    return found


def _gifts(game: Game, giver: PlayerState) -> list[OpenAction]:
    if giver.gave_die or giver.dice < 1:
        return []
    return [
        OpenAction(
            "give_die",
            f"give a die to {receiver.player_id}",
            {"type": "give_die", "from": giver.player_id, "to": receiver.player_id},
        )
        for receiver in game.players.values()
        if receiver.inside
    ]


def team_actions(game: Game) -> list[OpenAction]:
    """List the actions the whole team decides on (the turn of fate)."""
    if game.outcome != "running" or game.setup.difficulty == "professional":
        return []
    blocked = None if game.turns_of_fate_left else "no turn of fate left"
    return [
        OpenAction(
            "turn_of_fate", "provoke a turn of fate", {"type": "turn_of_fate"}, blocked=blocked
        )
    ]


def all_open_actions(game: Game) -> dict[str, list[OpenAction]]:
    """Return every player's open actions, by player id."""
    with one_listing():
        return {pid: _open_actions(game, pid) for pid in game.players}
