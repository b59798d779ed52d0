"""The module protocol: the engine and the open actions know modules only through it, and the
modules' hooks combine in the order the rules check them."""

import ast
from pathlib import Path

import pytest
from rules_helpers import A, K, T, Table, start_and

from rules.actions import open_actions
from rules.basic_events import BASIC_EVENTS
from rules.engine import Game
from rules.event_values import EventValue, ReadContext
from rules.game_setup import KNOWN_MODULES, setup_catalog
from rules.modules_registry import INSTANCES, MODULES

RULES = Path(__file__).resolve().parents[2] / "rules"


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_the_engine_and_the_open_actions_import_no_module_file():
    for name in ("engine.py", "actions.py"):
        imported = _imported_modules(RULES / name)
        named = {
            m
            for m in imported
            if m.startswith("rules.module_") and not m.startswith("rules.module_protocol")
        }
        assert not named, f"rules/{name} names a module file: {sorted(named)}"


def test_every_module_the_setup_knows_is_registered_in_its_own_file():
    assert set(MODULES) == set(KNOWN_MODULES)
    files = {cls.__module__ for cls in MODULES.values()}
    assert len(files) == len(MODULES)  # one file a module
    assert "rules.engine" not in files


def test_the_muscleman_carrying_the_chalice_pays_two_adventurers_and_a_torch():  # pages 15, 21
    # The Muscleman's card turns the entry icons into 2 adventurers; the chalice then adds its
    # torch (module 6's entry cost is asked before module 4's).
    t = Table(
        players=["micha", "ani"],
        modules=["special", "characters"],
        characters={"micha": "muscleman-door", "ani": "doc-heal"},
        temple=start_and(("gem1-key-1", (2, 0), "W"), ("exit", (3, 0), "W")),
    )
    t.game.temple.place(t.game.catalog["treasure-chamber"], (1, 0), "W")
    t.game.special.chalice = (1, 0)
    t.player("micha").cell = (1, 0)
    carry = {"type": "enter", "player": "micha", "cell": [2, 0], "chalice": True, "ability": True}
    t.roll("micha", A, A, K, K, K)
    assert "1 torch" in t.no(**carry)
    t.roll("micha", A, A, T, K, K)
    t.ok(**carry)
    assert t.state["chalice"] == [2, 0]
    assert t.state["players"]["micha"]["cell"] == [2, 0]


def test_a_game_without_modules_offers_no_module_action():
    t = Table(temple=start_and(("gem1-key-1", (1, 0), "W")))
    t.roll("red", A, A, K, K, K)
    kinds = {a.action for a in open_actions(t.game, "red")}
    assert kinds <= {"discover", "enter", "activate", "escape", "unlock"}
    assert t.game.module_hooks("open_actions") == ()


def test_no_two_modules_add_the_same_event_type():
    """A game playing both must know whose handler judges the event."""
    seen: dict[str, str] = {}
    for module_id, cls in MODULES.items():
        for kind in cls.event_types:
            assert kind not in seen, f"{module_id} and {seen[kind]} both add {kind!r}"
            seen[kind] = module_id


def test_no_two_modules_add_a_tile_of_the_same_id():
    """A tile id names one tile whatever the modules played."""
    owner = {tile_id: "modules 1-8" for tile_id in setup_catalog(list(KNOWN_MODULES[:8]))}
    for module_id, cls in MODULES.items():
        for tile_id in cls.chambers():
            assert tile_id not in owner, f"{module_id} and {owner[tile_id]} both add {tile_id!r}"
            owner[tile_id] = module_id


def test_every_event_type_the_engine_knows_is_parsed_into_its_own_frozen_class():
    classes = dict(BASIC_EVENTS)
    for module in INSTANCES.values():
        assert [c.type_name for c in module.event_classes] == list(module.event_types), module.id
        for cls in module.event_classes:
            assert cls.type_name not in classes, f"{cls.type_name} has two classes"
            classes[cls.type_name] = cls
    assert set(classes) >= set(Game.EVENT_TYPES)
    for kind, cls in classes.items():
        assert issubclass(cls, EventValue) and cls.__doc__, kind
        parsed = cls.parse({"type": kind}, ReadContext(("red",)))
        assert parsed.type == kind and dict(parsed) == {"type": kind}
        with pytest.raises(AttributeError):
            parsed.anything = 1  # events are values
