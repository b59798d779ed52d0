"""Queenie: The Maze (Big Box pages 29-30): the mirage and gear chambers, the Weakest link and
Misinformation curses, the Short cut, Time out and Genie lamp treasures."""

import json

from rules_helpers import A, K, T, Table, start_and

from rules.actions import open_actions
from rules.engine import Game
from rules.game_setup import setup_catalog, starting_candidates
from rules.modules import curse_cards_in_play, offered_modules, treasures_in_play
from rules.narrative import tell_event
from rules.queenie.maze import MazeModule
from rules.record import replay_lines


def table(*placed, modules=("maze",), players=("red", "blue"), track_dice=False):
    return Table(
        players=list(players),
        modules=list(modules),
        track_dice=track_dice,
        temple=start_and(*placed),
    )


def at(t, pid):
    return t.state["players"][pid]["cell"]


def tile_at(t, cell):
    placed = t.game.temple.at(tuple(cell))
    return None if placed is None else placed.tile.tile_id


def actions(t, pid, kind):
    return [a for a in open_actions(t.game, pid) if a.action == kind]


# ----- set-up (page 29) -------------------------------------------------------------------


def test_the_two_chambers_join_the_pile_never_the_starting_temple():  # Big Box p. 29
    catalog = setup_catalog(["maze"])
    assert catalog["mirage"].feature == "mirage" and catalog["gear"].feature == "gear"
    assert not {"mirage", "gear"} & set(starting_candidates(catalog))
    t = table()
    assert {"mirage", "gear"} <= {tile.tile_id for tile in t.game.unplaced_tiles()}
    assert "gear" not in setup_catalog([])


def test_the_maze_is_played_with_the_basic_game_alone_and_offered_at_set_up():  # Big Box p. 29
    assert MazeModule.requires == ()
    (offer,) = [m for m in offered_modules() if m["id"] == "maze"]
    assert offer["name"] == "The Maze" and offer["rulebook"] == "Big Box pages 29-30"


def test_its_curses_and_treasures_join_module_1s_and_2s_piles_only():  # Big Box p. 29
    assert {"weakest_link", "misinformation"} <= set(curse_cards_in_play(["curses", "maze"]))
    assert "weakest_link" not in curse_cards_in_play(["curses"])
    cards = curse_cards_in_play(["curses", "maze"])
    assert cards["weakest_link"].copies == 2 and cards["misinformation"].copies == 2
    tiles = treasures_in_play(["treasures", "maze"])
    assert {"short_cut", "time_out", "genie_lamp"} <= set(tiles)
    assert tiles["time_out"].module == "maze"


# ----- the mirage chamber (page 29) -------------------------------------------------------


def discover_mirage(t, pid="red", cell=(1, 0)):
    t.ok(type="discover", player=pid, tile="mirage", cell=list(cell))


def test_the_mirage_swaps_with_the_start_which_goes_next_to_its_discoverer():  # Big Box p. 29
    t = table(("gem1-key-1", (0, 1), "S"))
    t.player("red").cell = (0, 1)
    discover_mirage(t, "red", (1, 1))
    assert t.state["maze"]["mirage_by"] == "red"
    t.ok(type="mirage", player="red", cell=[-1, 1])
    assert tile_at(t, (0, 0)) == "mirage" and tile_at(t, (-1, 1)) == "start"
    assert tile_at(t, (1, 1)) is None
    assert t.game.temple.start_cell() == (-1, 1)
    # keeping the orientation: the mirage lies as the start lay; the start faces red's chamber
    assert t.game.temple.at((0, 0)).stairs == "S"
    assert t.game.temple.at((-1, 1)).stairs == "E"
    assert t.state["maze"]["mirage_by"] is None


def test_whoever_stood_in_the_start_now_stands_in_the_mirage_and_is_not_safe():  # Big Box p. 29
    t = table(("gem1-key-1", (0, 1), "S"))
    t.player("red").cell = (0, 1)
    discover_mirage(t, "red", (1, 1))
    t.ok(type="mirage", player="red", cell=[1, 1], stairs="W")
    assert at(t, "blue") == [0, 0]  # blue never moved: the mirage lies under him now
    t.ok(type="countdown_start", n=1)
    t.ok(type="countdown_end", n=1)
    assert t.state["players"]["blue"]["dice"] == 4  # not safe in the mirage
    assert t.state["players"]["red"]["dice"] == 4
    t.player("red").cell = (1, 1)
    t.ok(type="countdown_start", n=2)
    t.ok(type="countdown_end", n=2)
    assert t.state["players"]["red"]["dice"] == 4  # safe in the start, where it moved


def test_a_discoverer_in_the_start_lays_the_start_next_to_the_mirage_he_now_stands_in():
    # Big Box p. 29: "place the starting tile next to the chamber he is standing in"
    t = table()
    discover_mirage(t, "red", (1, 0))
    assert t.game.temple.at((1, 0)).tile.tile_id == "mirage"
    t.ok(type="mirage", player="red", cell=[0, 1])
    assert tile_at(t, (0, 0)) == "mirage" and tile_at(t, (0, 1)) == "start"
    assert at(t, "red") == [0, 0]


def test_anyone_in_the_mirage_goes_with_it_to_the_starts_old_place():  # Big Box p. 29
    t = table()
    discover_mirage(t, "red", (1, 0))
    t.player("blue").cell = (1, 0)  # e.g. the Discoverer's run, which no swap waits for
    t.ok(type="mirage", player="red", cell=[1, 0])
    assert at(t, "blue") == [0, 0] and tile_at(t, (0, 0)) == "mirage"
    assert at(t, "red") == [0, 0] and tile_at(t, (1, 0)) == "start"


def test_the_mirage_swap_is_refused_to_others_and_off_the_discoverers_side():  # Big Box p. 29
    t = table(("gem1-key-1", (0, 1), "S"))
    t.player("red").cell = (0, 1)
    discover_mirage(t, "red", (1, 1))
    assert t.no(type="mirage", player="blue", cell=[-1, 1]) == (
        "red discovered the mirage chamber: he places the starting chamber"
    )
    assert "next to the chamber red stands in" in t.no(type="mirage", player="red", cell=[3, 3])
    # the start's own place holds the mirage after the swap
    assert "empty spot" in t.no(type="mirage", player="red", cell=[0, 0])
    assert "'stairs'" in t.no(type="mirage", player="red", cell=[-1, 1], stairs="up")


def test_nobody_moves_until_the_start_is_placed():  # Big Box p. 29
    t = table(("gem1-key-1", (0, 1), "S"))
    discover_mirage(t, "red", (1, 0))
    reason = t.no(type="enter", player="blue", cell=[0, 1])
    assert reason == (
        "blue may not enter a chamber: red must first place the starting chamber "
        "(the mirage took its place)"
    )
    (swap,) = actions(t, "red", "mirage")
    names = [c["name"] for c in swap.choices]
    assert names == ["East of the start", "South of the start", "West of the start"]
    assert all(a.blocked for a in actions(t, "blue", "enter"))
    t.game.temple.place(t.game.catalog["exit"], (0, 2), "S")
    t.player("blue").cell = (0, 2)
    assert t.no(type="escape", player="blue") == (
        "red must first place the starting chamber (the mirage took its place)"
    )
    (escape,) = actions(t, "blue", "escape")
    assert escape.blocked == "red must first place the starting chamber (mirage)"


def test_no_mirage_event_without_a_mirage_waiting():  # Big Box p. 29
    t = table()
    assert t.no(type="mirage", player="red", cell=[1, 0]) == (
        "no mirage chamber waits to swap with the starting chamber"
    )
    plain = Table(players=["red"], temple=start_and())
    assert "unknown event type 'mirage'" in plain.no(type="mirage", player="red", cell=[1, 0])


# ----- the gear chamber (page 29) ---------------------------------------------------------


def gear_table(track_dice=True):
    # start (0,0), gear east of it, a one-gem chamber north of the gear
    t = table(
        ("gem1-key-1", (1, 1), "S"),
        ("gem1-torch-1", (-1, 0), "E"),
        track_dice=track_dice,
    )
    t.game.temple.place(t.game.catalog["gear"], (1, 0), "W")
    t.player("red").cell = (1, 0)
    return t


def test_two_torches_in_the_gear_chamber_slide_a_whole_row():  # Big Box p. 29
    t = gear_table()
    t.game.temple.at((-1, 0)).gems = 1
    t.roll("red", T, T, K, K, A)
    t.ok(type="gear", players=["red"], row=0, towards="E")
    assert tile_at(t, (0, 0)) == "gem1-torch-1" and tile_at(t, (1, 0)) == "start"
    assert tile_at(t, (2, 0)) == "gear" and tile_at(t, (-1, 0)) is None
    assert tile_at(t, (1, 1)) == "gem1-key-1"  # another row stays
    assert t.game.temple.at((0, 0)).gems == 1  # its gem goes with it
    assert at(t, "red") == [2, 0] and at(t, "blue") == [1, 0]  # players with their tiles
    assert dict(t.player("red").showing) == {K: 2, A: 1}
    assert t.game.temple.start_cell() == (1, 0)


def test_the_gears_need_two_torches_rolled_in_the_gear_chamber():  # Big Box p. 29
    t = gear_table()
    t.roll("red", T, K, K, K, A)
    assert t.no(type="gear", players=["red"], row=0, towards="E") == (
        "red shows 1 torch, 2 needed to turn the gears"
    )
    t.roll("blue", T, T, K, K, A)
    assert t.no(type="gear", players=["blue"], row=0, towards="E") == (
        "blue is not inside the Gear chamber"
    )


def test_players_in_the_gear_chamber_roll_the_torches_together():  # Big Box p. 29
    t = gear_table()
    t.player("blue").cell = (1, 0)
    t.roll("red", T, K, K, K, A)
    t.roll("blue", T, K, K, K, A)
    t.ok(type="gear", players=["red", "blue"], row=1, towards="W")
    assert tile_at(t, (0, 1)) == "gem1-key-1"
    assert t.player("red").showing[T] == 0 and t.player("blue").showing[T] == 0


def test_every_chamber_of_the_line_moves_the_same_way_or_none_does():  # Big Box p. 29
    t = gear_table(track_dice=False)
    # the column x=1 (gear, one-gem chamber) cannot go west: the start is in the way
    assert t.no(type="gear", players=["red"], column=1, towards="W") == (
        "the column cannot slide west: Starting chamber is in the way"
    )
    assert "either a 'row'" in t.no(type="gear", players=["red"], row=0, column=1, towards="N")
    # a line named twice is refused for that, before either number is read
    assert "either a 'row'" in t.no(type="gear", players=["red"], row="0", column=1, towards="N")
    assert t.no(type="gear", players=["red"], row="0", towards="up") == (
        "'row' must be a whole number, not '0'"
    )
    assert "'towards'" in t.no(type="gear", players=["red"], row=0, towards="up")
    assert t.no(type="gear", players=["red"], row=7, towards="E") == (
        "there is no chamber in that row"
    )
    t.ok(type="gear", players=["red"], column=1, towards="S")
    assert tile_at(t, (1, 0)) == "gem1-key-1" and tile_at(t, (1, -1)) == "gear"
    assert at(t, "red") == [1, -1]


def test_what_lies_on_a_chamber_slides_with_it():  # Big Box p. 29
    t = gear_table(track_dice=False)
    t.game.treasure_cells.append((1, 1))
    t.game.secret_passages.extend([((1, 0), (1, 1)), ((0, 0), (1, 0))])
    t.ok(type="gear", players=["red"], column=1, towards="N")
    assert t.game.treasure_cells == [(1, 2)]
    # the passage up the column moves with it; the one to the start is pulled apart
    assert t.game.secret_passages == [((1, 1), (1, 2))]


def test_the_other_modules_tokens_slide_with_their_chambers():  # Big Box p. 29
    t = Table(
        players=["red", "blue"],
        modules=["special", "maze"],
        track_dice=False,
        temple=start_and(("gem1-key-1", (1, 1), "S")),
    )
    t.game.temple.place(t.game.catalog["gear"], (1, 0), "W")
    t.player("red").cell = (1, 0)
    t.game.special.chalice = (1, 1)
    t.game.special.large_torch = (0, 0)
    t.ok(type="gear", players=["red"], column=1, towards="N")
    assert t.state["chalice"] == [1, 2]
    assert t.game.special.large_torch == (0, 0)  # the start's column stays


def test_the_gear_choices_offer_every_line_that_may_slide():  # Big Box p. 29
    t = gear_table()
    t.roll("red", T, T, K, K, A)
    (gear,) = actions(t, "red", "gear")
    assert gear.possible
    events = [c["event"] for c in gear.choices]
    assert {"type": "gear", "players": ["red"], "row": 0, "towards": "E"} in events
    assert {"type": "gear", "players": ["red"], "column": 1, "towards": "W"} not in events
    assert not actions(t, "blue", "gear")


# ----- the curses (page 30) ---------------------------------------------------------------


def cursed(card, **kw):
    t = table(("gem3-key-1", (1, 0), "W"), modules=("curses", "maze"), **kw)
    t.player("red").curses.append(card)
    return t


def test_the_maze_curses_cannot_be_removed():  # Big Box p. 30
    for card, name in (("weakest_link", "Weakest link"), ("misinformation", "Misinformation")):
        t = cursed(card)
        assert t.no(type="lift", player="red", card=card) == (f"the curse {name} cannot be removed")
        assert not actions(t, "red", "lift")


def test_the_weakest_link_outside_the_start_at_a_door_slam_loses_the_game():  # Big Box p. 30
    t = cursed("weakest_link")
    t.player("red").cell = (1, 0)
    t.ok(type="countdown_start", n=1)
    t.ok(type="countdown_end", n=1)
    assert t.state["outcome"] == "lost"
    assert t.state["maze"]["lost_to"] == "red"
    assert t.no(type="dice", player="blue", faces=[K] * 5) == "the game is over: it was lost"


def test_the_weakest_link_back_in_the_start_plays_on():  # Big Box p. 30
    t = cursed("weakest_link")
    t.player("blue").cell = (1, 0)  # the others may be anywhere
    for n in (1, 2):
        t.ok(type="countdown_start", n=n)
        t.ok(type="countdown_end", n=n)
    assert t.state["outcome"] == "running"


def test_misinformation_reminds_the_table_to_yell():  # Big Box p. 30
    t = cursed("misinformation")
    (said,) = MazeModule().reminders(t.game)
    assert "yell 'I found the exit!' twice" in said


# ----- the treasures (page 30) ------------------------------------------------------------


def holding(treasure, track_dice=False):
    t = table(("gem3-key-1", (1, 0), "W"), modules=("treasures", "maze"), track_dice=track_dice)
    t.player("red").treasures.append(treasure)
    return t


def test_the_short_cut_is_spent_with_a_discovery():  # Big Box p. 30
    t = holding("short_cut")
    (_plain, with_it) = [a for a in actions(t, "red", "discover") if a.event["cell"] == [0, 1]]
    assert with_it.event["short_cut"] is True and "Short cut" in with_it.label
    assert not [a for a in actions(t, "red", "use")]
    assert "is used with a discovery" in t.no(type="use", player="red", treasure="short_cut")
    assert t.no(type="discover", player="blue", tile="gear", cell=[0, 1], short_cut=True) == (
        "blue holds no Short cut"
    )
    t.ok(type="discover", player="red", tile="gear", cell=[0, 1], short_cut=True)
    assert t.player("red").treasures == []


def test_a_short_cut_without_the_maze_is_refused():  # Big Box p. 30
    t = Table(players=["red"], modules=["treasures"], track_dice=False, temple=start_and())
    reason = t.no(type="discover", player="red", tile="exit", cell=[1, 0], short_cut=True)
    assert reason.startswith("the maze module is not in play")


def test_the_short_cut_serves_only_a_discovery():  # Big Box p. 30
    t = holding("short_cut")
    assert t.no(type="enter", player="red", cell=[1, 0], short_cut=True) == (
        "the Short cut is used when discovering a chamber"
    )


def test_nobody_rolls_while_the_time_out_pauses_the_music():  # Big Box p. 30
    t = holding("time_out", track_dice=True)
    assert "time_out event" in t.no(type="use", player="red", treasure="time_out")
    assert t.no(type="time_out", player="blue", phase="start") == "blue holds no Time out"
    t.ok(type="time_out", player="red", phase="start")
    assert t.state["maze"]["paused_by"] == "red"
    assert t.no(type="dice", player="blue", faces=[K] * 5) == (
        "the music is paused (red's Time out): nobody rolls until play is pressed again"
    )
    (play,) = actions(t, "red", "time_out")
    assert play.event == {"type": "time_out", "phase": "end"}
    t.ok(type="time_out", phase="end")
    t.roll("blue", K, K, K, K, K)
    assert t.player("red").treasures == []
    assert t.no(type="time_out", phase="end") == "the music is not paused: no Time out to end"


def test_the_genie_lamp_takes_the_treasure_chosen():  # Big Box p. 30
    t = holding("genie_lamp")
    (lamp,) = actions(t, "red", "genie_lamp")
    assert {"type": "genie_lamp", "player": "red", "treasure": "teleport"} in [
        c["event"] for c in lamp.choices
    ]
    assert "unknown treasure 'crown'" in t.no(type="genie_lamp", player="red", treasure="crown")
    assert "needs a 'treasure'" in t.no(type="genie_lamp", player="red")
    assert t.no(type="genie_lamp", player="blue", treasure="teleport") == "blue holds no Genie lamp"
    t.ok(type="genie_lamp", player="red", treasure="teleport")
    assert t.player("red").treasures == ["teleport"]


# ----- the log and the record ---------------------------------------------------------------


def test_the_log_tells_the_maze_events_by_names_and_places():
    t = table()
    discover_mirage(t, "red", (1, 0))
    told = tell_event({"type": "mirage", "player": "red", "cell": [0, 1]}, t.game)
    assert (
        told == "Red swaps the mirage chamber with the start and lays the start next to his chamber"
    )
    told = tell_event({"type": "gear", "players": ["red"], "row": 0, "towards": "E"}, t.game)
    assert told == "Red turns the gears: a whole row slides one chamber east"


def test_the_log_names_the_maze_curses_and_treasures():  # Big Box p. 30
    t = table(modules=("curses", "treasures", "maze"))
    told = tell_event({"type": "curse", "player": "red", "card": "weakest_link"}, t.game)
    assert told == "Red draws the curse Weakest link"
    told = tell_event({"type": "claim", "player": "red", "treasure": "genie_lamp"}, t.game)
    assert told == "Red claims a treasure: the Genie lamp"
    t.player("red").treasures.append("genie_lamp")
    told = tell_event({"type": "genie_lamp", "player": "red", "treasure": "teleport"}, t.game)
    assert told == "Red rubs the Genie lamp and takes the Teleport"


def test_a_record_with_the_maze_replays_to_the_same_state():  # game-record contract
    setup = {
        "type": "setup",
        "players": ["red", "blue"],
        "modules": ["maze"],
        "temple": start_and(("gem1-key-1", (0, 1), "S")),
    }
    events = [
        {"type": "dice", "player": "red", "faces": [A, A, T, T, K]},
        {"type": "discover", "player": "red", "tile": "gear", "cell": [1, 0]},
        {"type": "dice", "player": "red", "faces": [A, T, T, T, K]},
        {"type": "enter", "player": "red", "cell": [1, 0]},
        {"type": "gear", "players": ["red"], "row": 0, "towards": "E"},
        {"type": "dice", "player": "blue", "faces": [A, A, K, K, K]},
        {"type": "discover", "player": "blue", "tile": "mirage", "cell": [0, 0]},
        {"type": "mirage", "player": "blue", "cell": [1, -1]},
        {"type": "countdown_start", "n": 1},
        {"type": "countdown_end", "n": 1},
    ]
    live = Game.from_setup_line(setup)
    verdicts = [live.apply(event) for event in events]
    assert all(v.ok for v in verdicts), [v.reason for v in verdicts]
    state = live.state_json()
    assert live.temple.start_cell() == (1, -1)
    assert state["players"]["blue"]["cell"] == [1, 0]  # in the mirage, where the start was
    assert state["players"]["blue"]["dice"] == 4 and state["players"]["red"]["dice"] == 4
    replay = replay_lines([json.dumps(setup)] + [json.dumps(e) for e in events])
    assert replay.verdicts == verdicts
    assert replay.game.state_json() == state
