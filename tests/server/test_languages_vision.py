"""The camera panel's waiting messages in the page's language (issue 22): the vision pipeline's
English words (made by the real `EventMaker` against the real engine) told by the catalog's
templates, English whole where a part cannot be said."""

from __future__ import annotations

from base.words import say
from server.vision_words import note_in, waiting_in
from tests.vision.test_event_stages import ROLL, Table, enter_after_a_held_roll
from vision.sources.open import DEMO_NOTE
from vision.stages.events import CREDITING_TILE, HELD_TILE
from vision.stages.observation import SeenDie, SeenTile


def test_a_die_out_of_sight_is_said_in_greek() -> None:
    table = Table()
    table.roll("red", ROLL[:4])
    english = table.maker.waiting["red"]
    told = waiting_in("el", english, table.game)
    assert told == say("el", "more.wait.count", who=say("el", "colour.red"), n=4, total=5)
    assert "dice" not in told
    assert waiting_in("en", english, table.game) == "Red: 4 of 5 dice seen"


def test_an_unsure_die_and_a_held_chamber_are_said_in_portuguese() -> None:
    table = Table()
    dice = [SeenDie(f, (i * 20.0, 9.0), 0.9) for i, f in enumerate(ROLL)]
    dice[4] = SeenDie(None, dice[4].xy_mm, 0.4)
    table.dice["red"] = tuple(dice)
    table.show(4)
    told = waiting_in("pt", table.maker.waiting["red"], table.game)
    assert told.startswith(f"{say('pt', 'colour.red')}: 1 de 5 dados")
    assert "waiting" not in told
    assert waiting_in("pt", HELD_TILE, table.game) == say("pt", "more.wait.tile")
    assert waiting_in("es", CREDITING_TILE, table.game) == say("es", "more.wait.crediting")
    assert say("en", "more.wait.crediting") == CREDITING_TILE


def test_a_die_taken_as_its_likeliest_face_is_said_in_spanish() -> None:
    table = Table()
    enter_after_a_held_roll(table)
    english = table.maker.waiting["red"]
    told = waiting_in("es", english, table.game)
    assert told == say(
        "es",
        "more.wait.guessed",
        who=say("es", "colour.red"),
        n=1,
        total=5,
        faces=say("es", "face.key"),
    )
    assert "key" not in told
    assert waiting_in("en", english, table.game) == english.replace("red:", "Red:", 1)


def test_english_notes_name_the_faces_and_players_never_their_ids() -> None:
    table = Table()
    english = (
        "red: the dice read golden_mask, black_mask, which the engine refuses (why): looking again"
    )
    assert waiting_in("en", english, table.game) == (
        "Red: the dice read golden mask, black mask, which the engine refuses (why): looking again"
    )
    assert waiting_in("en", "red: the lamp flickers", table.game) == "red: the lamp flickers"


def test_a_move_the_engine_refuses_is_told_whole_in_greek() -> None:
    table = Table()
    table.roll("red", ("adventurer", "adventurer", "adventurer", "adventurer", "key"))
    table.tiles[(0, 1)] = SeenTile("chamber-4", "S", 0.8)  # entering it takes two keys
    table.show(6)
    table.figures["red"] = (0, 1)
    table.show(20)
    english = table.maker.waiting["held enter red"]
    told = waiting_in("el", english, table.game, list(table.maker.pending.values()))
    assert told.startswith("η κάμερα βλέπει: ") and say("el", "colour.red") in told
    assert "camera" not in told and "refuses" not in told and "Chamber" not in told


def test_a_message_the_catalog_cannot_say_reads_english_whole() -> None:
    table = Table()
    odd = "camera sees: something nobody holds, which the engine refuses now (why): it waits"
    assert waiting_in("el", odd, table.game, []) == odd
    assert waiting_in("el", "red: the lamp flickers", table.game) == "red: the lamp flickers"
    assert note_in("el", DEMO_NOTE) != DEMO_NOTE and note_in("en", DEMO_NOTE) == DEMO_NOTE


def test_the_camera_under_the_new_traps_is_said_in_spanish_and_portuguese() -> None:
    from tests.vision.test_trap_rolls import hand_over, roll_one, trapped

    table = trapped("beast")
    roll_one(table, 2, "torch")
    dice = list(table.dice["red"])
    dice[:2] = [SeenDie(d.face, (d.xy_mm[0], -40.0), 0.9) for d in dice[:2]]
    hand_over(table, dice)  # two dice pushed aside: which one was rolled?
    told = waiting_in("es", table.maker.waiting["red"], table.game)
    assert told == say("es", "more.wait.one_die", who=say("es", "colour.red"), n=2)
    table = trapped("quicksand")
    lying = table.dice["red"]
    hand_over(table, [*lying[:2], SeenDie("torch", lying[2].xy_mm, 0.9), *lying[3:]])
    told = waiting_in("pt", table.maker.waiting["red"], table.game)
    assert told.startswith(f"{say('pt', 'colour.red')}: os dados, sem se mover")
    assert say("pt", "face.torch") in told and "roll" not in told


def test_an_unlock_waiting_for_its_golden_mask_is_said_in_every_language() -> None:
    from tests.vision.test_event_stages import unlock_waiting_for_blue

    table = unlock_waiting_for_blue()
    english = table.maker.waiting["red"]
    assert waiting_in("en", english, table.game) == english.replace("red:", "Red:", 1)
    for lang in ("pt", "es", "el"):
        told = waiting_in(lang, english, table.game)
        assert told == say(lang, "more.wait.no_helper", who=say(lang, "colour.red"))
        assert "golden" not in told
