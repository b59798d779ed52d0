"""Every module the engine knows, by id, and the plan of hooks a game's modules make."""

from __future__ import annotations

from functools import cache
from importlib import import_module
from typing import Any

from rules.module_characters import CharactersModule
from rules.module_curses import CursesModule
from rules.module_illusions import IllusionsModule
from rules.module_protocol import HOOKS, Module, overrides
from rules.module_quests import QuestsModule
from rules.module_special import SpecialModule
from rules.module_time import TimeModule
from rules.module_traps import TrapsModule
from rules.module_treasures import TreasuresModule
from rules.queenie import played_queenie_ids

MODULES: dict[str, type[Module]] = {
    cls.id: cls
    for cls in (
        CursesModule,
        TreasuresModule,
        IllusionsModule,
        SpecialModule,
        QuestsModule,
        CharactersModule,
        TrapsModule,
        TimeModule,
        *(import_module(f"rules.queenie.{m}").MODULE for m in played_queenie_ids()),
    )
}
"""Module id -> its class, in the order the modules' hooks run unless a hook says otherwise
(modules 1-8, then the Queenie modules in the rulebooks' order)."""
INSTANCES: dict[str, Module] = {module_id: cls() for module_id, cls in MODULES.items()}
"""One stateless instance of each module."""
PAYMENT_FIELDS: dict[str, str] = {
    name: cls.id for cls in MODULES.values() for name in cls.payment_fields
}
"""A paying event's field -> the module that reads it."""


class ModulePlan:
    """The modules a game plays and, for each hook, the bound hooks to run, in order.
    Immutable and shared between copies of a game."""

    def __init__(self, modules: tuple[str, ...]) -> None:
        self.ids = tuple(m for m in MODULES if m in modules)
        self.modules = tuple(INSTANCES[m] for m in self.ids)
        self.hooks: dict[str, tuple[Any, ...]] = {}
        for hook in HOOKS:
            using = [
                (m.hook_order.get(hook, 50), index, m)
                for index, m in enumerate(self.modules)
                if overrides(m, hook)
            ]
            self.hooks[hook] = tuple(getattr(m, hook) for _, _, m in sorted(using, key=_rank))
        self.judging = tuple(m for m in self.modules if overrides(m, "before_judge"))
        """Modules that see each well-formed event first (and forget it when it is rejected)."""
        self.handlers = {t: m for m in self.modules for t in m.event_types}
        self.event_classes = {c.type_name: c for m in self.modules for c in m.event_classes}
        """Event type -> the class its events are parsed into, for the modules' event types."""
        self.clock_events = frozenset(t for m in self.modules for t in m.clock_events)

    def __deepcopy__(self, memo: dict[int, Any]) -> ModulePlan:
        return self


def _rank(entry: tuple[int, int, Module]) -> tuple[int, int]:
    return entry[0], entry[1]


@cache
def plan_for(modules: tuple[str, ...]) -> ModulePlan:
    """The hook plan of a game playing `modules` (one plan a set of modules)."""
    return ModulePlan(modules)


def module_event_types() -> dict[str, tuple[str, ...]]:
    """Event types each module adds, by module id."""
    return {module_id: cls.event_types for module_id, cls in MODULES.items()}
