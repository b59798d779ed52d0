"""Big Box module 3 (illusion chambers, rulebook pages 12-13): after a door slam they vanish
under the draw pile."""

from __future__ import annotations

from rules.module_protocol import GameView, Module
from rules.modules import ILLUSIONS_MODULE
from rules.vocabulary import Cell


class IllusionsModule(Module):
    """Module 3: the illusion chambers."""

    id = ILLUSIONS_MODULE

    def on_slam(self, game: GameView, start: Cell) -> list[Cell]:
        """Page 13: after the door slams, every illusion chamber leaves the temple for the
        bottom of the pile, its activated gems to the box (they still count: the depot keeps
        its count), anyone on it back to the starting chamber. The die such a player loses is
        the one the door slam took: he did not make it to safety in time."""
        gone = [placed.cell for placed in game.temple if placed.tile.illusion]
        game.under_pile.extend(p.tile.tile_id for p in game.temple if p.tile.illusion)
        for cell in gone:
            game.temple.remove(cell)
            for player in game.players.values():
                if player.inside and player.cell == cell:
                    player.cell, player.rear = start, False
        game.secret_passages = [
            (a, b) for a, b in game.secret_passages if a not in gone and b not in gone
        ]
        game.treasure_cells = [cell for cell in game.treasure_cells if cell not in gone]
        return gone
