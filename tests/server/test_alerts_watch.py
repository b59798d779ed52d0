"""The spoken alerts' chooser: the words it picks from real games (the real engine), the clock's
warnings, the table's frequency choice, and the settings it remembers."""

from __future__ import annotations

from typing import Any

import pytest

from rules.engine import Game
from rules.timeline import Countdown, Timeline
from server.alert_words import Players, Word, project_catalog, say, use_catalog
from server.alerts import (
    FREQUENCIES,
    Alert,
    AlertSettings,
    AlertWatcher,
    load_settings,
    save_settings,
    wanted,
)

TIMELINE = Timeline(
    intro_seconds=2.0,
    game_seconds=120.0,
    countdowns=(Countdown(1, 20.0, 50.0), Countdown(2, 60.0, 65.0), Countdown(3, 90.0, 120.0)),
)
GEMS_EAST = [
    {"tile": "start", "cell": [0, 0], "stairs": "S"},
    {"tile": "gem1-key-1", "cell": [1, 0], "stairs": "W"},
    {"tile": "gem1-key-2", "cell": [-1, 0], "stairs": "E"},
]


class Watched:
    """A real game and the watcher looking at it after every event, as the server does."""

    def __init__(self, **setup: Any) -> None:
        line = {"type": "setup", "players": ["red", "blue", "green"], "track_dice": False}
        self.game = Game.from_setup_line({**line, **setup})
        self.watcher = AlertWatcher(TIMELINE)
        self.t = 1.0
        assert self.look() == []  # the first look says nothing

    def look(self, t: float | None = None, running: bool = True) -> list[str]:
        if t is not None:
            self.t = t
        alerts = self.watcher.look("game-1", self.game, self.t, running)
        return [alert.words("en").text for alert in alerts]

    def do(self, **event: Any) -> list[str]:
        verdict = self.game.apply({"t": self.t, **event})
        assert verdict.ok, verdict.reason
        return self.look()


def test_a_countdown_names_who_must_run_back_to_the_start():
    table = Watched(temple=GEMS_EAST)
    assert table.do(type="enter", player="red", cell=[1, 0]) == []
    assert table.do(type="enter", player="blue", cell=[1, 0]) == []
    assert table.do(type="countdown_start", n=1) == ["Red and Blue, back to the start!"]


def test_a_countdown_with_everyone_in_the_start_says_nothing():
    table = Watched(temple=GEMS_EAST)
    assert table.do(type="countdown_start", n=1) == []


def test_the_depot_counts_down_in_words():
    table = Watched(temple=GEMS_EAST, players=["red", "blue"])
    table.do(type="enter", player="red", cell=[1, 0])
    depot = table.game.depot
    said = table.do(type="activate", cell=[1, 0], gems=1, players=["red"])
    assert said == [f"{depot - 1} gems left in the depot."]
    table.game.depot = 3  # three gems short of the end, as a long game would leave it
    table.look()
    table.do(type="enter", player="blue", cell=[-1, 0])
    assert table.do(type="activate", cell=[-1, 0], gems=1, players=["blue"]) == [
        "2 gems left in the depot."
    ]


def test_an_undo_that_gives_a_gem_back_says_nothing():
    table = Watched(temple=GEMS_EAST, players=["red", "blue"])
    table.do(type="enter", player="red", cell=[1, 0])
    table.do(type="activate", cell=[1, 0], gems=1, players=["red"])
    assert table.do(type="undo") == []


def test_a_curse_says_who_and_what_to_do():
    table = Watched(modules=["curses", "treasures"])
    assert table.do(type="discover", player="green", tile="ct-gem1-key-1", cell=[1, 0]) == []
    said = table.do(type="curse", player="green", card="cursed_hand")
    assert said == ["Green is cursed: hand on your head!"]


@pytest.mark.parametrize(
    ("card", "what"),
    [("silence", "not a word"), ("trap", "no entering chambers"), ("lost_dice", "mind your dice")],
)
def test_each_curse_card_has_its_own_order(card, what):
    table = Watched(modules=["curses"])
    table.do(type="discover", player="red", tile="ct-gem1-key-1", cell=[1, 0])
    assert table.do(type="curse", player="red", card=card) == [f"Red is cursed: {what}!"]


def test_the_stand_up_curse_words():
    alert = Alert(
        "alert.cursed", "game", (("who", Players(("green",))), ("what", Word("curse.stand_up")))
    )
    assert alert.words("en").text == "Green is cursed: stand up!"


def test_the_sand_timer_of_the_lava_chamber_ends():
    table = Watched(modules=["time"], time_chambers=["lava-1", "lava-2"])
    table.do(type="discover", player="red", tile="time-lava-1", cell=[1, 0])
    table.t = 62.0
    assert table.do(type="time_up", cell=[1, 0]) == ["The sand timer of the lava chamber ends."]


def test_a_prohibition_timer_turns_then_ends():
    table = Watched(modules=["time"], time_chambers=["prohibition-1", "sacrifice"])
    table.do(type="discover", player="red", tile="time-prohibition-1", cell=[0, 1])
    table.t = 32.0
    said = table.do(type="time_up", cell=[0, 1])
    assert said == ["The sand timer of the prohibition chamber turns."]
    table.t = 63.0
    said = table.do(type="time_up", cell=[0, 1])
    assert said == ["The sand timer of the prohibition chamber ends."]


def test_the_door_slam_and_the_collapse_are_announced_ten_seconds_ahead():
    table = Watched()
    assert table.look(39.5) == []
    assert table.look(40.1) == ["Door slams in ten seconds!"]  # countdown 1 ends at 50
    assert table.look(40.6) == []  # once
    # countdown 2 lasts 5 s: shorter than the warning, it has none
    assert [table.look(t) for t in (54.0, 55.0, 56.0, 57.0)] == [[], [], [], []]
    for t in range(57, 111):
        said = table.look(float(t))
        assert said == ([] if t != 110 else ["The temple collapses in ten seconds!"])


def test_a_clock_that_jumps_or_stands_still_announces_nothing_it_passed():
    table = Watched()
    assert table.look(30.0) == []
    assert table.look(45.0) == []  # a restart or a resume elsewhere: 40 s was jumped over
    table = Watched()
    table.look(39.0)
    assert table.look(41.0, running=False) == []  # paused


def test_a_new_game_or_a_resumed_one_says_nothing_of_its_past():
    table = Watched(temple=GEMS_EAST)
    table.game.apply({"type": "enter", "player": "red", "cell": [1, 0], "t": 1.0})
    table.game.apply({"type": "countdown_start", "n": 1, "t": 20.0})
    assert table.watcher.look("game-2", table.game, 20.0, True) == []
    assert table.watcher.look(None, None, 0.0, False) == []


@pytest.mark.parametrize("frequency", FREQUENCIES)
def test_the_frequency_chooses_what_is_said(frequency):
    table = Watched(temple=GEMS_EAST, players=["red", "blue"])
    alerts = []
    for event in (
        {"type": "enter", "player": "red", "cell": [1, 0]},
        {"type": "activate", "cell": [1, 0], "gems": 1, "players": ["red"]},
        {"type": "countdown_start", "n": 1},
    ):
        table.game.apply({"t": 20.0, **event})
        alerts += table.watcher.look("game-1", table.game, 20.0, True)
    for t in (21.0, 22.0, *range(23, 42)):  # the clock runs on to 10 s before the door slams
        alerts += table.watcher.look("game-1", table.game, float(t), True)
    heard = [a.key for a in alerts if wanted(a, frequency)]
    expected = {
        "all": ["alert.gems_left.other", "alert.back_to_start", "alert.door_soon"],
        "countdowns": ["alert.back_to_start", "alert.door_soon"],
        "off": [],
    }
    assert heard == expected[frequency]


def test_settings_are_remembered_and_checked(tmp_path):
    assert load_settings(tmp_path) == AlertSettings()
    save_settings(tmp_path, AlertSettings("countdowns", 0.35, "el"))
    assert load_settings(tmp_path) == AlertSettings("countdowns", 0.35, "el")
    (tmp_path / "alerts.json").write_text("{not json")
    assert load_settings(tmp_path) == AlertSettings()  # a bad file: the defaults, no crash
    with pytest.raises(ValueError, match="'all', 'countdowns' or 'off'"):
        AlertSettings("sometimes")
    with pytest.raises(ValueError, match="0 to 1"):
        AlertSettings(volume=1.5)
    with pytest.raises(ValueError, match="en, pt, es, el"):
        AlertSettings(language="fr")


def test_a_catalog_language_is_spoken_whole_or_in_english():
    portuguese = {"alert.door_soon": "A porta fecha em dez segundos!"}
    use_catalog(lambda language, key: portuguese.get(key) if language == "pt" else None)
    try:
        door = say("alert.door_soon", "pt")
        assert (door.text, door.voice) == ("A porta fecha em dez segundos!", "pt")
        # no Portuguese for the rest of this alert: all of it in English, with the English voice
        cursed = Alert(
            "alert.cursed", "game", (("who", Players(("red",))), ("what", Word("curse.mask")))
        )
        assert cursed.words("pt").language == "en"
    finally:
        use_catalog(None)


def test_the_project_catalog_names_the_players_in_the_table_s_language():
    portuguese = {
        "alert.back_to_start": "{who}, de volta ao início!",
        "alert.and": "{first} e {last}",
    }
    use_catalog(lambda language, key: portuguese.get(key) or project_catalog(language, key))
    try:
        alert = Alert("alert.back_to_start", "countdown", (("who", Players(("red", "blue"))),))
        words = alert.words("pt")
    finally:
        use_catalog(None)
    red, blue = project_catalog("pt", "colour.red"), project_catalog("pt", "colour.blue")
    assert red not in (None, "Red") and blue not in (None, "Blue")
    assert (words.language, words.text) == ("pt", f"{red} e {blue}, de volta ao início!")
