"""Every packaged tile of every module this version plays, and the module(s) each belongs to."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from rules import game_setup
from rules.catalog import TileDef


@dataclass(frozen=True)
class PackagedTile:
    """A tile in the box: its packaged definition and the modules that bring it."""

    definition: TileDef
    modules: tuple[str, ...]
    """The modules whose games add this tile (in play order); () for the basic game's tiles."""


def _requirements(module: str) -> list[str]:
    """Return the modules `module` is played with (those it requires, theirs too), in order."""
    from rules.modules_registry import MODULES  # here: the registry imports the whole engine

    needed: list[str] = []
    waiting = list(getattr(MODULES.get(module), "requires", ()))
    while waiting:
        other = waiting.pop(0)
        if other not in needed and other != module:
            needed.append(other)
            waiting.extend(getattr(MODULES.get(other), "requires", ()))
    return needed


def _brought_by(module: str) -> dict[str, TileDef]:
    """Return the tiles a game gains by adding `module` to the modules it requires."""
    before = _requirements(module)
    without = game_setup.setup_catalog(before)
    with_it = game_setup.setup_catalog([*before, module])
    return {tile_id: tile for tile_id, tile in with_it.items() if tile_id not in without}


def packaged_tiles(modules: Iterable[str] | None = None) -> dict[str, PackagedTile]:
    """Return the basic game's tiles, then every tile each module brings (all quest, trap and
    time chambers; both the chambers modules 1-3 replace and their replacements), by id.
    `modules`: the module ids to look at (default: every module this version plays)."""
    chosen = list(game_setup.KNOWN_MODULES if modules is None else modules)
    tiles = {i: PackagedTile(t, ()) for i, t in game_setup.setup_catalog([]).items()}
    for module in chosen:
        for tile_id, tile in _brought_by(module).items():
            if tile_id in tiles:
                known = tiles[tile_id]
                tiles[tile_id] = PackagedTile(known.definition, (*known.modules, module))
            else:
                tiles[tile_id] = PackagedTile(tile, (module,))
    return tiles


@cache
def _every() -> dict[str, PackagedTile]:
    return packaged_tiles()


def every_tile() -> dict[str, TileDef]:
    """Return every packaged tile of every module this version plays, basic tiles first."""
    return {tile_id: tile.definition for tile_id, tile in _every().items()}


def tile_modules(tile_id: str) -> tuple[str, ...]:
    """Return the modules a packaged tile belongs to (() for the basic game's, or unknown)."""
    tile = _every().get(tile_id)
    return tile.modules if tile is not None else ()
