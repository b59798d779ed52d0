"""What each player can do now, what they still miss for the rest, and the odds of getting it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from rules import module_characters as characters
from rules import module_quests as quests
from rules import module_special as special
from rules import module_time as timed
from rules import module_traps as traps
from rules.engine import DIE_ICONS_TO_DISCOVER, Game, PlayerState, describe_icons
from rules.modules import CLAIM_COST, CURSE_CARDS, TREASURES
from rules.narrative import place_name
from rules.odds import as_need, roll_odds
from rules.vocabulary import GOLDEN_MASK, KEY, Cell, neighbour, opposite, plural, side_towards


@dataclass(frozen=True)
class OpenAction:
    """One action a player could take: the event that would do it, and what is still missing."""

    action: str
    label: str
    event: dict[str, Any]
    missing: dict[str, int] = field(default_factory=dict)
    blocked: str | None = None
    """A reason the dice cannot fix (an empty depot, no tiles left, a partner needed)."""
    chance_next_roll: float | None = None
    """Chance that the next roll of the dice not kept completes what is missing."""
    expected_rolls: float | None = None
    """Expected rolls to complete it, keeping matching dice (None: more dice than they have)."""
    need: dict[str, int] = field(default_factory=dict)
    """The icons it costs (what a double key or torch can stand in for)."""
    choices: list[dict[str, Any]] | None = None
    """Where an action needs a choice (a character's run, turn or move): each a `name` and
    the `event` that does it."""

    @property
    def possible(self) -> bool:
        """Tell whether the action can be taken right now."""
        return self.blocked is None and not self.missing

    def to_json(self) -> dict[str, Any]:
        """Return the open action as the dashboard reads it."""
        return {
            "action": self.action,
            "label": self.label,
            "event": self.event,
            "possible": self.possible,
            "missing": self.missing,
            "missing_text": describe_icons(self.missing) if self.missing else None,
            "blocked": self.blocked,
            "chance_next_roll": self.chance_next_roll,
            "expected_rolls": self.expected_rolls,
            "need": self.need,
            **({"choices": self.choices} if self.choices is not None else {}),
        }


def _priced(
    game: Game,
    payers: Iterable[PlayerState],
    need: Mapping[str, int],
    action: str,
    label: str,
    event: dict[str, Any],
    blocked: str | None = None,
) -> OpenAction:
    """Build an open action whose cost is `need`, paid by `payers` together."""
    payers = list(payers)
    cost = {icon: n for icon, n in need.items() if n > 0}
    if not game.setup.track_dice:
        return OpenAction(action, label, event, blocked=blocked, need=cost)
    if characters.any_payment_ability(game, payers):
        showing = Counter()
        for payer in payers:
            showing.update(characters.payment_view(game, payer, need))
    elif len(payers) == 1:
        showing = payers[0].showing
    else:
        showing = Counter()
        for payer in payers:
            showing.update(payer.showing)
    missing = {icon: n - showing[icon] for icon, n in need.items() if showing[icon] < n}
    if not missing:
        return OpenAction(
            action,
            label,
            event,
            blocked=blocked,
            chance_next_roll=1.0,
            expected_rolls=0.0,
            need=cost,
        )
    kept = sum(min(showing[icon], n) for icon, n in need.items())
    rerollable = sum(p.free_dice for p in payers) - kept
    chance, rolls = roll_odds(max(rerollable, 0), as_need(missing))
    return OpenAction(
        action,
        label,
        event,
        missing=missing,
        blocked=blocked,
        chance_next_roll=chance,
        expected_rolls=rolls,
        need=cost,
    )


def open_actions(game: Game, player_id: str) -> list[OpenAction]:
    """List every action open to `player_id` now, with what is missing for the rest."""
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
    pile_left = game.draw_pile_size() > 0
    trapped = "cursed (Trap): no entering or discovering" if "trap" in player.curses else None
    trapped = trapped or traps.stuck(game, player)
    slide = traps.trap_at(game, here) == "slide"
    carry = special.chalice_here(game, player)
    for side, cell in game.temple.passages(here):
        if special.side_in_rear(game, chamber, side) not in (None, player.rear):
            continue  # behind the inner wall of a double chamber (module 4)
        target = game.temple.at(cell)
        if slide and side == chamber.stairs:
            continue  # nobody leaves the slide trap by its stairway (module 7)
        if target is None:
            found.append(
                _priced(
                    game,
                    [player],
                    DIE_ICONS_TO_DISCOVER,
                    "discover",
                    f"discover a chamber to the {side}",
                    {"type": "discover", "player": player_id, "cell": list(cell)},
                    trapped or (None if pile_left else "no tiles left in the draw pile"),
                )
            )
        elif quests.quest_of(game, target.tile) in ("ghost", "obelisk"):
            continue  # nobody enters the ghost or obelisk chamber (module 5)
        elif opposite(side) in target.open_sides:
            found.append(
                _priced(
                    game,
                    [player],
                    Counter(target.tile.enter),
                    "enter",
                    f"enter {target.tile.name} ({side})",
                    {"type": "enter", "player": player_id, "cell": list(cell)},
                    trapped,
                )
            )
            if carry:
                found.append(_carry(game, player, target.tile.enter, target.tile.name, cell, side))
    for a, b in game.secret_passages:
        if here in (a, b):
            other = b if here == a else a
            through = side_towards(here, other)
            if through and special.side_in_rear(game, chamber, through) not in (None, player.rear):
                continue
            target = game.temple.at(other)
            assert target is not None
            found.append(
                _priced(
                    game,
                    [player],
                    Counter(target.tile.enter),
                    "enter",
                    f"enter {target.tile.name} (secret passage)",
                    {"type": "enter", "player": player_id, "cell": list(other)},
                    trapped,
                )
            )
    found.extend(_activations(game, player))
    if game.special is not None:
        found.extend(_linked(game, player))
    if chamber.tile.kind == "exit":
        found.append(
            _priced(
                game,
                [player],
                {KEY: game.keys_to_escape},
                "escape",
                f"escape ({plural(game.keys_to_escape, 'key')} by yourself)",
                {"type": "escape", "player": player_id},
                _quest_markers(game),
            )
        )
    if game.quests is not None:
        found.extend(_quest_actions(game, player))
    if player.ability is not None and "characters" in game.setup.modules:
        found.extend(_character_actions(game, player))
    if game.traps is not None:
        found.extend(_trap_actions(game, player))
    if game.time is not None:
        found.extend(_time_actions(game, player))
        found = _time_blocks(game, found)
    found.extend(_unlocks(game, player))
    found.extend(_module_actions(game, player))
    return found


def _carry(
    game: Game, player: PlayerState, enter: tuple[str, ...], name: str, cell: Cell, side: str
) -> OpenAction:
    """Enter the next chamber carrying the chalice: a torch more (module 4, page 15)."""
    return _priced(
        game,
        [player],
        Counter(enter) + special.CHALICE_TOLL,
        "carry",
        f"carry the chalice into {name} ({side})",
        {"type": "enter", "player": player.player_id, "cell": list(cell), "chalice": True},
    )


def _linked(game: Game, player: PlayerState) -> list[OpenAction]:
    """Activate the linked chambers together (module 4, page 14): offered to a player standing
    in one while they are unused, blocked until another linked chamber holds an adventurer."""
    cells = special.linked_cells(game)
    state = game.special
    if state is None or state.linked_used or player.cell not in cells:
        return []
    occupied = [c for c in cells if game.players_in(c)]
    payers = [p for c in occupied for p in game.players_in(c)]
    blocked = None
    if len(occupied) < 2:
        blocked = "needs an adventurer in another linked chamber at the same time"
    elif game.depot < len(occupied):
        blocked = f"the depot holds only {plural(game.depot, 'gem')}"
    return [
        _priced(
            game,
            payers,
            special.linked_need(game, occupied),
            "activate_linked",
            f"activate the linked chambers ({plural(len(occupied), 'gem')}, together)",
            {
                "type": "activate_linked",
                "cells": [list(c) for c in occupied],
                "players": [p.player_id for p in payers],
            },
            blocked,
        )
    ]


_TURNS = (("a quarter turn clockwise", 1), ("a half turn", 2), ("a quarter turn anticlockwise", 3))


def _character_actions(game: Game, player: PlayerState) -> list[OpenAction]:
    """What the player's character card lets him do here (module 6, pages 20-21)."""
    ability_id = player.ability
    assert ability_id is not None and player.cell is not None
    card = characters.ABILITIES[ability_id]
    pid = player.player_id
    base = {"type": "ability", "player": pid}
    down = None if player.charged or not card.activatable else "card face down until the slam"
    found: list[OpenAction] = []

    def priced(label: str, event: dict[str, Any], choices: Any = None) -> None:
        action = _priced(game, [player], Counter(card.cost), "ability", label, event, down)
        if choices is not None:
            action = OpenAction(**{**action.__dict__, "choices": choices})
        found.append(action)

    others = sorted(
        {p.cell for p in game.players.values() if p.inside and p.cell not in (None, player.cell)}
    )
    if ability_id == "discoverer-run":
        choices = [
            {
                "name": game.temple.at(cell).tile.name,  # type: ignore[union-attr]
                "note": plural(len(path), "chamber") + " away",
                "event": {**base, "cells": [list(c) for c in path]},
            }
            for cell, path in characters.reachable(game, player)
        ]
        if choices:
            priced("run up to 3 chambers (3 adventurers)", base, choices)
    elif ability_id == "doc-heal":
        for other in game.players.values():
            if other is not player and other.inside and other.locked:
                priced(
                    f"free all of {other.player_id.capitalize()}'s black masks (2 golden masks)",
                    {**base, "target": other.player_id},
                )
    elif ability_id == "mechanic-rotate":
        choices = []
        for placed in game.temple:
            if placed.tile.kind == "start":
                continue
            for words, turns in _TURNS:
                stairs = characters.SIDES[(characters.SIDES.index(placed.stairs) + turns) % 4]
                choices.append(
                    {
                        "name": placed.tile.name,
                        "note": words,
                        "event": {**base, "cell": list(placed.cell), "stairs": stairs},
                    }
                )
        if choices:
            priced("turn a chamber (2 torches)", base, choices)
    elif ability_id in ("mentalist-follow", "mentalist-teleport"):
        for cell in others:
            names = " and ".join(
                p.player_id.capitalize() for p in game.players_in(cell) if p is not player
            )
            if ability_id == "mentalist-follow":
                all_black = player.rolled and player.dice and player.locked == player.dice
                found.append(
                    OpenAction(
                        "ability",
                        f"move to {names} (all dice black masks)",
                        {**base, "cell": list(cell)},
                        blocked=None if all_black else "only when all your dice show black masks",
                    )
                )
            else:
                priced(f"move to {names} (2 keys)", {**base, "cell": list(cell)})
    elif ability_id == "muscleman-door":
        for side, cell in game.temple.passages(player.cell):
            target = game.temple.at(cell)
            if target is None or not game.connected(player.cell, cell):
                continue
            if quests.quest_of(game, target.tile) in ("ghost", "obelisk"):
                continue
            if special.side_in_rear(game, game.temple.at(player.cell), side) not in (  # type: ignore[arg-type]
                None,
                player.rear,
            ):
                continue
            found.append(
                _priced(
                    game,
                    [player],
                    characters.TWO_ADVENTURERS,
                    "enter",
                    f"enter {target.tile.name} with 2 adventurers ({side})",
                    {"type": "enter", "player": pid, "cell": list(cell), "ability": True},
                )
            )
    elif ability_id == "muscleman-wall":
        for side, cell in characters.wall_neighbours(game, player):
            target = game.temple.at(cell)
            assert target is not None
            priced(
                f"break through the wall into {target.tile.name} ({side})",
                {"type": "enter", "player": pid, "cell": list(cell), "ability": True},
            )
    return found


_BANNED_BY = {
    "activate": "gems",
    "activate_linked": "gems",
    "unlock": "golden_masks",
    "enter": "movement",
    "carry": "movement",
}


def _time_blocks(game: Game, found: list[OpenAction]) -> list[OpenAction]:
    """Grey out what a running prohibition chamber forbids (module 8, page 24)."""
    banned = timed.prohibited(game)
    if not banned:
        return found
    start = game.temple.start_cell()
    out = []
    for action in found:
        what = _BANNED_BY.get(action.action)
        if what == "movement" and "movement" not in banned and "start" in banned:
            what = "start" if action.event.get("cell") == list(start) else None
        if what in banned and action.blocked is None:
            action = OpenAction(
                **{**action.__dict__, "blocked": "prohibition: " + timed.PROHIBITIONS[what]}
            )
        out.append(action)
    return out


def _time_actions(game: Game, player: PlayerState) -> list[OpenAction]:
    """A lava or torch chamber's task while its sand runs (module 8, page 25)."""
    state = game.time
    assert state is not None and player.cell is not None
    time_id = timed.time_at(game, player.cell)
    if time_id is None or timed.timer_on(game, player.cell) is None:
        return []
    together = game.players_in(player.cell)
    ids = [p.player_id for p in together]
    cell = list(player.cell)
    kind = timed.kind_of_time(time_id)
    if kind == "lava" and player.cell not in state.done:
        return [
            _priced(
                game,
                together,
                timed.LAVA_NEED,
                "lava",
                "master the lava (7 torches together)",
                {"type": "lava", "cell": cell, "players": ids},
            )
        ]
    if kind == "torch" and state.torch_tasks < len(timed.TORCH_TASKS):
        need, _ = timed.TORCH_TASKS[state.torch_tasks]
        return [
            _priced(
                game,
                together,
                need,
                "torch_task",
                f"torch chamber task {state.torch_tasks + 1} ({describe_icons(need)} together)",
                {"type": "torch_task", "cell": cell, "players": ids},
            )
        ]
    return []


def _trap_actions(game: Game, player: PlayerState) -> list[OpenAction]:
    """Off a cliff, the invocation's summons, the moving platform (module 7, page 23)."""
    state = game.traps
    assert state is not None
    pid = player.player_id
    kind = traps.trap_at(game, player.cell)
    found: list[OpenAction] = []
    if pid in state.on_cliff and kind in traps.CLIMB:
        need = traps.CLIMB[kind]
        found.append(
            _priced(
                game,
                [player],
                need,
                "climb",
                f"climb down the cliff ({describe_icons(need)} by yourself)",
                {"type": "climb", "player": pid},
            )
        )
    if kind == "invocation":
        found.append(
            _priced(
                game,
                [player],
                traps.SUMMON,
                "summon",
                "summon every adventurer here (3 keys)",
                {"type": "summon", "player": pid},
            )
        )
    if kind == "platform" and state.platform_waits:
        spots = traps.platform_spots(game)
        found.append(
            OpenAction(
                "platform",
                "move the platform clockwise to where its stairway meets a door",
                {"type": "platform", "player": pid},
                blocked=None if spots else "no spot yet: wait for a chamber with a door",
                choices=[
                    {
                        "name": place_name(cell, game.temple.start_cell()).capitalize(),
                        "note": "its stairway meets a door there",
                        "event": {"type": "platform", "player": pid, "cell": list(cell)},
                    }
                    for cell in spots
                ],
            )
        )
    return found


def _quest_markers(game: Game) -> str | None:
    """Why nobody escapes yet: quest markers on the gem depot (module 5, page 17)."""
    if game.quests is None or not game.quests.markers_left:
        return None
    return f"{plural(game.quests.markers_left, 'quest marker')} still on the gem depot"


def _quest_actions(game: Game, player: PlayerState) -> list[OpenAction]:
    """The quests' actions open to a player where he stands (module 5, pages 17-19)."""
    state = game.quests
    assert state is not None and player.cell is not None
    pid = player.player_id
    here = player.cell
    found: list[OpenAction] = []
    for side, cell in quests.ghost_pushes(game, player):
        found.append(
            _priced(
                game,
                [player],
                quests.PUSH_GHOST,
                "push_ghost",
                f"push the ghost to the {side}",
                {"type": "push_ghost", "player": pid, "cell": list(cell)},
            )
        )
    chamber = game.temple.at(here)
    assert chamber is not None
    quest = quests.quest_of(game, chamber.tile)
    if quest is None or quest in state.done:
        return found
    together = game.players_in(here)
    ids = [p.player_id for p in together]
    if quest == "altar":
        first = state.altar[0] if state.altar else None
        for count in (1, 2) if not state.altar else (1,):
            found.append(
                OpenAction(
                    "sacrifice",
                    f"sacrifice {plural(count, 'die')} on the altar",
                    {"type": "sacrifice", "player": pid, "dice": count},
                    blocked="the second die comes from another player"
                    if first == pid
                    else ("not enough dice" if player.dice < count else None),
                )
            )
    elif quest == "task":
        for tile in quests.TASK_TILES.values():
            if tile.tile_id in state.tasks_done:
                continue
            found.append(
                _priced(
                    game,
                    together,
                    Counter(tile.icons),
                    "task",
                    f"{tile.name}: {describe_icons(Counter(tile.icons))} together",
                    {"type": "task", "players": ids, "tile": tile.tile_id},
                )
            )
    elif quest == "tree":
        need = quests.tree_need(game)
        found.append(
            _priced(
                game,
                together,
                need,
                "heal_tree",
                f"heal the tree of life ({describe_icons(need)} together)",
                {"type": "heal_tree", "players": ids},
            )
        )
    return found


def secret_passage_spots(game: Game) -> list[tuple[Cell, Cell]]:
    """Every pair of adjacent chambers with no open passage between them: where a Secret
    passage may be laid (module 2, page 11); each pair once, in temple order."""
    return list(_secret_passage_spots(game))


def _secret_passage_spots(game: Game) -> Iterator[tuple[Cell, Cell]]:
    for placed in game.temple:
        a = placed.cell
        for side in ("N", "E"):
            b = neighbour(a, side)
            if game.temple.at(b) is not None and not game.connected(a, b):
                yield a, b


def _module_actions(game: Game, player: PlayerState) -> list[OpenAction]:
    """Curses to draw and lift, a die to lose, treasures to claim and use (modules 1 and 2);
    a `curse` or `claim` event still needs the card or tile drawn (`card`, `treasure`)."""
    pid = player.player_id
    found: list[OpenAction] = []
    if player.curses_to_draw:
        found.append(OpenAction("curse", "draw a curse card", {"type": "curse", "player": pid}))
    for card_id in player.curses:
        card = CURSE_CARDS[card_id]
        found.append(
            _priced(
                game,
                [player],
                card.lift_need,
                "lift",
                f"lift the curse {card.name} (by yourself)",
                {"type": "lift", "player": pid, "card": card_id},
            )
        )
        if card_id == "lost_dice" and player.dice:
            found.append(
                OpenAction(
                    "lose_die", "a die fell off the table", {"type": "lose_die", "player": pid}
                )
            )
    if player.cell in game.treasure_cells:
        found.append(
            _priced(
                game,
                [player],
                CLAIM_COST,
                "claim",
                "claim the treasure (2 keys)",
                {"type": "claim", "player": pid},
            )
        )
    for treasure_id in dict.fromkeys(player.treasures):
        tile = TREASURES[treasure_id]
        if tile.icons:
            continue  # spent with a paying action (its `treasures`)
        if treasure_id == "secret_passage":
            found.append(
                OpenAction(
                    "use",
                    "use the Secret passage",
                    {"type": "use", "player": pid, "treasure": treasure_id},
                    blocked=None
                    if next(_secret_passage_spots(game), None)
                    else "no two adjacent chambers without an open passage",
                )
            )
            continue
        if treasure_id == "teleport":
            cells = {p.cell for p in game.players.values() if p.inside and p.cell != player.cell}
            for cell in sorted(c for c in cells if c is not None):
                found.append(
                    OpenAction(
                        "use",
                        f"teleport to {game.temple.at(cell).tile.name}",  # type: ignore[union-attr]
                        {"type": "use", "player": pid, "treasure": treasure_id, "cell": list(cell)},
                    )
                )
            continue
        blocked = "the depot is empty" if treasure_id == "extra_gem" and not game.depot else None
        found.append(
            OpenAction(
                "use",
                f"use the {tile.name}",
                {"type": "use", "player": pid, "treasure": treasure_id},
                blocked=blocked,
            )
        )
    return found


def _activations(game: Game, player: PlayerState) -> list[OpenAction]:
    assert player.cell is not None
    chamber = game.temple.at(player.cell)
    assert chamber is not None
    spec = chamber.tile.gems
    kind = special.special_of(game, chamber.tile)
    if spec is None or chamber.gems or kind == "linked":
        return []
    partners = [p for p in game.players_in(player.cell) if p is not player]
    front = kind == "double" and not player.rear
    if kind == "double":
        partners = [p for p in partners if p.rear == player.rear]
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
                blocked = "behind the inner wall: come in by the rear entrance"
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
            for priest in _priests(game) if payers is groups[-1] else []:
                need = Counter({spec.icon: spec.cost(gems)})
                need[spec.icon] -= characters.OFFERING
                found.append(
                    _priced(
                        game,
                        payers,
                        +need,
                        "activate",
                        f"activate {plural(gems, 'gem')} with {priest.player_id.capitalize()}'s "
                        "offering "
                        f"(3 {spec.icon}s from 3 black masks)",
                        {**event, "offering": priest.player_id},
                        None if game.depot >= gems else blocked,
                    )
                )
            found.append(
                _priced(
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


def _priests(game: Game) -> list[PlayerState]:
    """Players whose Priest's offering is face up with 3 black masks showing (module 6)."""
    if "characters" not in game.setup.modules:
        return []
    return [
        p
        for p in game.players.values()
        if p.inside and p.ability == "priest-offering" and p.charged and p.locked >= 3
    ]


def _unlocks(game: Game, player: PlayerState) -> list[OpenAction]:
    if player.locked == 0:
        return []
    assert player.cell is not None
    found = []
    helpers = [player] + [p for p in game.players_in(player.cell) if p is not player]
    for helper in helpers:
        if helper is not player and helper.showing[GOLDEN_MASK] == 0:
            continue
        count = min(characters.unlock_limit(game, helper), player.locked)
        by = "" if helper is player else f" with {helper.player_id}'s golden mask"
        found.append(
            _priced(
                game,
                [helper],
                {GOLDEN_MASK: 1},
                "unlock",
                f"free {plural(count, 'black mask')}{by}",
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
    return {pid: open_actions(game, pid) for pid in game.players}
