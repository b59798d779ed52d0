"""The log's words (issue 19): places counted in words, never a number that reads as part of a
chamber's name; plurals right; the door slam names who lost a die."""

from rules_helpers import A, K, Table, start_and

from rules.narrative import place_name, slam_losers, tell_event
from rules.vocabulary import plural, plural_of


def told(t: Table, **event: object) -> str:
    """Apply an accepted event and say it as the dashboard's log does."""
    t.ok(**event)
    return tell_event(event, t.game)


def test_places_are_counted_in_words_and_a_diagonal_step_is_one_word():
    start = (0, 0)
    assert place_name([0, 0], start) == "the start"
    assert place_name([0, 1], start) == "north of the start"
    assert place_name([-1, 0], start) == "west of the start"
    assert place_name([1, 1], start) == "north-east of the start"
    assert place_name([-1, -1], start) == "south-west of the start"
    assert place_name([0, 2], start) == "two tiles north of the start"
    assert place_name([2, 1], start) == "one tile north and two east of the start"
    assert place_name([1, -3], start) == "three tiles south and one east of the start"
    assert place_name([12, 0], start) == "12 tiles east of the start"
    assert place_name("x", start) == "somewhere"


def test_a_discovery_two_tiles_away_never_reads_as_a_chamber_called_keys_2():
    t = Table(players=["red"], track_dice=False, temple=start_and(("chamber-1", (0, 1), "S")))
    t.ok(type="enter", player="red", cell=[0, 1])
    said = told(t, type="discover", player="red", tile="gem1-key-1", cell=[0, 2])
    assert said == "Red discovers a One-gem chamber (keys) two tiles north of the start"
    assert not any(ch.isdigit() for ch in said)


def test_torches_are_spelt_right_in_the_log_the_catalog_and_the_counts():
    assert plural_of("torch") == "torches" and plural_of("key") == "keys"
    assert plural_of("die") == "dice" and plural(1, "golden_mask") == "1 golden mask"
    t = Table(players=["red"], track_dice=False)
    said = told(t, type="discover", player="red", tile="gem1-torch-1", cell=[0, 1])
    assert said == "Red discovers a One-gem chamber (torches) north of the start"
    illusions = Table(players=["red"], modules=["illusions"], track_dice=False)
    names = [tile.name for tile in illusions.game.catalog.values()]
    assert "Illusion chamber (torches) 4" in names
    assert not any("torchs" in name for name in names)


def test_a_chamber_whose_name_ends_in_a_number_is_set_apart_from_where_it_lies():
    chambers = ["lava-1", "torch"]
    t = Table(players=["red"], modules=["time"], time_chambers=chambers, track_dice=False)
    t.ok(type="discover", player="red", tile="time-lava-1", cell=[0, 1])
    said = tell_event({"type": "enter", "player": "red", "cell": [0, 1]}, t.game)
    assert said == "Red enters the Lava chamber 1, north of the start"


def test_the_door_slam_names_who_lost_a_die():
    temple = start_and(("chamber-1", (0, 1), "S"))
    t = Table(players=["red", "blue", "green"], temple=temple)
    t.roll("red", A, A, K, K, K).ok(type="enter", player="red", cell=[0, 1])
    t.roll("blue", A, A, K, K, K).ok(type="enter", player="blue", cell=[0, 1])
    t.ok(type="countdown_start", n=1)
    slam = {"type": "countdown_end", "n": 1}
    t.ok(**slam)
    assert tell_event(slam, t.game) == (
        "Countdown 1 ends: the door slams; Red and Blue lose a die each"
    )
    assert slam_losers(t.game) == {1: ["red", "blue"]}
    # Said from the record as it stands: green is still safe, red alone at the second slam.
    t.roll("blue", A, A, K, K).ok(type="enter", player="blue", cell=[0, 0])
    t.ok(type="countdown_start", n=2)
    second = {"type": "countdown_end", "n": 2}
    t.ok(**second)
    assert tell_event(second, t.game) == "Countdown 2 ends: the door slams; Red loses a die"
    assert tell_event(slam, t.game).endswith("Red and Blue lose a die each")
    # A slam the game never accepted names nobody.
    unheard = Table(players=["red", "blue"])
    assert tell_event(slam, unheard.game) == "Countdown 1 ends: the door slams"


def test_a_slam_with_everyone_home_says_so():
    t = Table(players=["red", "blue"])
    t.ok(type="countdown_start", n=1)
    slam = {"type": "countdown_end", "n": 1}
    t.ok(**slam)
    assert tell_event(slam, t.game) == (
        "Countdown 1 ends: the door slams; everyone made it back in time"
    )


def test_the_slam_words_follow_an_undo_of_the_move_that_left_the_start():
    temple = start_and(("chamber-1", (0, 1), "S"))
    t = Table(players=["red", "blue"], temple=temple)
    t.roll("red", A, A, K, K, K).ok(type="enter", player="red", cell=[0, 1])
    t.ok(type="undo")  # red never left
    t.ok(type="countdown_start", n=1)
    slam = {"type": "countdown_end", "n": 1}
    t.ok(**slam)
    assert tell_event(slam, t.game).endswith("everyone made it back in time")
