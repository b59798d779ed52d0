"""Whose hands were at work when: dice come to rest elsewhere, a hidden die come back."""

from __future__ import annotations

from vision.stages.hands_at_work import ARM_GAP_S, WORK_AFTER_S, WORK_BEFORE_S, HandsAtWork
from vision.stages.observation import Observation, SeenDie


def _seen(hands: HandsAtWork, t: float, red: list[tuple[float, float]], busy: bool = False) -> None:
    dice = tuple(SeenDie("key", xy, 0.9) for xy in red)
    hands.see(
        Observation(
            seq=int(t * 10), t=t, dice={"red": dice}, busy=frozenset({"red"} if busy else ())
        )
    )


STILL = [(0.0, 0.0), (20.0, 0.0), (40.0, 0.0)]


def test_dice_come_to_rest_elsewhere_are_hands_at_work_then() -> None:
    hands = HandsAtWork()
    _seen(hands, 1.0, STILL)
    _seen(hands, 2.0, STILL, busy=True)  # the hand over the zone: nothing known yet
    assert not hands.busy_around("red", 2.0)
    _seen(hands, 2.5, [(0.0, 30.0), (20.0, 30.0), (40.0, 0.0)])
    assert hands.busy_around("red", 2.5)
    assert hands.busy_around("red", 2.5 + WORK_BEFORE_S - 0.1)
    assert hands.busy_around("red", 2.5 - WORK_AFTER_S + 0.1)
    assert not hands.busy_around("red", 2.5 + WORK_BEFORE_S + 0.1)
    assert not hands.busy_around("red", 2.5 - WORK_AFTER_S - 0.1)
    assert not hands.busy_around("blue", 2.5)


def test_a_die_hidden_a_moment_and_back_in_its_place_is_no_work() -> None:
    hands = HandsAtWork()
    _seen(hands, 1.0, STILL)
    _seen(hands, 1.1, STILL[:2])
    _seen(hands, 1.2, STILL)
    _seen(hands, 1.3, [(x + 2.0, y) for x, y in STILL])  # jitter within a few mm
    assert not hands.busy_around("red", 1.2)


def test_the_free_candidates_keep_their_order_and_all_stay_when_all_were_busy() -> None:
    hands = HandsAtWork()
    hands.worked("red", 5.0)
    assert hands.idle_around(["red", "blue", "green"], 5.2) == ["blue", "green"]
    hands.worked("blue", 5.5)
    hands.worked("green", 4.5)
    assert hands.idle_around(["red", "blue", "green"], 5.2) == ["red", "blue", "green"]
    hands.see(Observation(seq=1, t=5.2 + WORK_AFTER_S - 0.05))
    assert not hands.window_over(5.2)
    hands.see(Observation(seq=2, t=5.2 + WORK_AFTER_S))
    assert hands.window_over(5.2)


def test_an_arm_is_out_until_its_seat_strip_stays_still_a_moment() -> None:
    hands = HandsAtWork()
    frames = [(1.0, {"red"}), (1.1, {"red", "blue"}), (1.2, {"blue"}), (1.3, {"blue"})]
    for seq, (t, out) in enumerate(frames):
        hands.see(Observation(seq=seq, t=t, arms_out=frozenset(out)))
    assert hands.arm_out("red") and hands.arm_out("blue")  # red's strip still only 0.2 s
    hands.see(Observation(seq=9, t=1.1 + ARM_GAP_S + 0.05))
    assert not hands.arm_out("red") and hands.arm_out("blue")
    hands.see(Observation(seq=10, t=1.3 + ARM_GAP_S + 0.05))
    assert not hands.arm_out("blue") and not hands.arm_out("green")
