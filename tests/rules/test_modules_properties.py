"""Random plausible games with any set of the modules (1-8 and Queenie; issues 12 and 21):
nothing crashes, a rejected event changes nothing, dice and places stay sound, and a replay of
the record gives the same state."""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.engine import Game
from rules.game_setup import KNOWN_MODULES
from rules.module_characters import default_characters
from rules.modules_registry import MODULES
from rules.simulate import PLAYER_COLOURS, random_events


def module_setup(rng: random.Random, modules: list[str], players: int) -> dict:
    """A setup line with these modules and every field they need, drawn at random."""
    pids = list(PLAYER_COLOURS[:players])
    for module in list(modules):  # a module the rulebook plays only with others brings them
        modules += [m for m in MODULES[module].requires if m not in modules]
    setup = {
        "type": "setup",
        "players": pids,
        "modules": modules,
        "track_dice": rng.random() < 0.8,
    }
    if "quests" in modules:
        setup["quests"] = rng.sample(["altar", "ghost", "task", "tree", "obelisk"], 3)
    if "traps" in modules:
        setup["traps"] = rng.sample(
            ["cliff-torch", "cliff-key", "invocation", "slide", "platform"], 4
        )
    if "time" in modules:
        setup["time_chambers"] = rng.sample(
            ["prohibition-1", "prohibition-2", "sacrifice", "lava-1", "torch"], 4
        )
    if "characters" in modules:
        cards = default_characters(pids)
        if rng.random() < 0.5:  # the activatable card of each character instead
            cards = {pid: card.rsplit("-", 1)[0] for pid, card in cards.items()}
            activatable = {
                "discoverer": "discoverer-run",
                "doc": "doc-heal",
                "priest": "priest-offering",
                "mechanic": "mechanic-rotate",
                "mentalist": "mentalist-teleport",
                "muscleman": "muscleman-wall",
            }
            cards = {pid: activatable[c] for pid, c in cards.items()}
        setup["characters"] = cards
    for module in modules:
        setup.update(MODULES[module].random_setup_fields(rng, pids))
    return setup


def snapshot(game):
    return (
        game.state_json(),
        {pid: (dict(p.showing), p.rolled, p.charged) for pid, p in game.players.items()},
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    modules=st.lists(st.sampled_from(KNOWN_MODULES), unique=True, min_size=1),
    players=st.integers(1, 6),
    noise=st.floats(0, 0.3),
)
def test_random_games_with_any_set_of_modules_stay_sound(seed, modules, players, noise):
    rng = random.Random(seed)
    setup = module_setup(rng, modules, players)
    game = Game.from_setup_line(setup)
    judge = Game.from_setup_line(setup)
    for event in random_events(rng, game, 300, noise=noise, seconds_per_event=2.0):
        before = snapshot(judge)
        verdict = judge.apply(event)
        if not verdict.ok:
            assert verdict.reason
            assert snapshot(judge) == before, f"rejected {event} changed the state"
        cells = {placed.cell for placed in judge.temple}
        for player in judge.players.values():
            assert player.dice >= 0
            assert 0 <= player.locked <= player.dice
            assert sum(player.showing.values()) + player.locked <= player.dice
            assert (player.cell is None) == player.escaped
            assert player.cell is None or player.cell in cells
        assert judge.depot >= 0
    assert judge.state_json() == game.state_json()
