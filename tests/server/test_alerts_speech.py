"""The spoken alerts as sound: each rendered by the real espeak-ng and measured, laid over the
loudest moment of the real soundtrack without clipping, mixed alike by the host player block by
block, spoken in every table language, and a missing engine told in words."""

from __future__ import annotations

import numpy as np
import pytest

from rules.timeline import Countdown, Timeline
from server.alert_words import LANGUAGES, Players, Word, say, use_catalog
from server.alerts import Alert
from server.alerts_api import Announcer
from server.host_audio import HostPlayer
from server.session import AudioPlan, Session
from server.soundtrack import load_wav, render_soundtrack, write_wav
from server.speech import INSTALL_COMMAND, VOICE_PEAK, SpeechError, find_engine, resample, speak
from server.store import GameStore
from server.voice_mix import DUCK_LEVEL, LIMIT_CEILING, VoiceOver, mix_at

RATE = 22050
SILENCE_RMS = 0.001
"""Below this (-60 dBFS) a stretch is silence."""
ALERTS = {
    "back to the start": Alert(
        "alert.back_to_start", "countdown", (("who", Players(("red", "blue"))),)
    ),
    "door slams": Alert("alert.door_soon", "countdown"),
    "collapse": Alert("alert.collapse_soon", "countdown"),
    "two gems": Alert("alert.gems_left.other", "game", (("count", 2),)),
    "one gem": Alert("alert.gems_left.one", "game"),
    "no gem": Alert("alert.gems_left.zero", "game"),
    "stand up": Alert(
        "alert.cursed", "game", (("who", Players(("green",))), ("what", Word("curse.stand_up")))
    ),
    "lava timer": Alert("alert.sand_ends", "game", (("chamber", Word("time.lava")),)),
    "prohibition timer": Alert(
        "alert.sand_turns", "game", (("chamber", Word("time.prohibition")),)
    ),
}
FOREIGN = {
    "pt": "A porta fecha em dez segundos!",
    "es": "¡La puerta se cierra en diez segundos!",
    "el": "Η πόρτα κλείνει σε δέκα δευτερόλεπτα!",  # noqa: RUF001 - Greek words
}
"""A door-slam warning in each rulebook language (the catalog's words plug in the same way)."""

SHORT = (Countdown(1, 20.0, 30.0), Countdown(2, 35.0, 40.0), Countdown(3, 50.0, 60.0))


class Stream:
    """The output stream of a host without a sound card: it only holds the callback."""

    def __init__(self, rate: int, device: object, callback: object) -> None:
        self.callback = callback

    def start(self) -> None:
        """Nothing to start."""

    def stop(self) -> None:
        """Nothing to stop."""

    def close(self) -> None:
        """Nothing to close."""


def rms(samples: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(samples, dtype=np.float64))))


@pytest.fixture(scope="module")
def music() -> np.ndarray:
    """The whole default soundtrack, as the server renders it."""
    return render_soundtrack(Timeline(), RATE)


@pytest.fixture(scope="module")
def voices() -> dict[str, np.ndarray]:
    """Every alert, spoken in English by espeak-ng."""
    assert find_engine(), "espeak-ng is missing: sudo apt-get install espeak-ng"
    spoken = {name: alert.words("en") for name, alert in ALERTS.items()}
    return {name: speak(words.text, words.voice, RATE) for name, words in spoken.items()}


def loudest_second(music: np.ndarray) -> int:
    """The first sample of the soundtrack's loudest second (by RMS)."""
    energy = np.concatenate([[0.0], np.cumsum(np.square(music, dtype=np.float64))])
    power = energy[RATE:] - energy[:-RATE]
    return int(np.argmax(power))


@pytest.mark.parametrize("name", ALERTS)
def test_each_alert_is_spoken_aloud(voices, name):
    voice = voices[name]
    seconds = len(voice) / RATE
    assert 0.5 < seconds < 6.0, f"{name}: {seconds:.2f} s"
    assert rms(voice) > 50 * SILENCE_RMS, f"{name}: RMS {rms(voice):.4f}"
    assert np.max(np.abs(voice)) == pytest.approx(VOICE_PEAK, abs=1e-3)
    # words, not a click: most of each 50 ms frame of the middle half carries sound
    frames = voice[len(voice) // 4 : 3 * len(voice) // 4]
    frames = frames[: len(frames) // 1102 * 1102].reshape(-1, 1102)
    voiced = np.mean(np.sqrt(np.mean(frames.astype(np.float64) ** 2, axis=1)) > 10 * SILENCE_RMS)
    assert voiced > 0.5, f"{name}: only {voiced:.0%} of its middle is sound"


def test_longer_words_take_longer(voices):
    assert len(voices["back to the start"]) > len(voices["one gem"]) * 1.1


@pytest.mark.parametrize("name", ALERTS)
def test_an_alert_over_the_loudest_second_is_heard(music, voices, name):
    start = loudest_second(music)
    over = VoiceOver(voices[name], RATE, volume=1.0)
    words = slice(start + len(over.voice) - len(voices[name]), start + len(over.voice))
    ducked = music[words] * DUCK_LEVEL
    ratio = rms(voices[name]) / rms(ducked)
    assert ratio > 2.0, f"{name}: the words are only {20 * np.log10(ratio):.1f} dB over the music"


@pytest.mark.parametrize("name", ALERTS)
def test_an_alert_on_the_loudest_sample_never_clips(music, voices, name, tmp_path):
    # The worst case: the voice's loudest sample on the soundtrack's, in the same direction.
    over = VoiceOver(voices[name], RATE, volume=1.0)
    peak, voice_peak = int(np.argmax(np.abs(music))), int(np.argmax(np.abs(over.voice)))
    if np.sign(music[peak]) != np.sign(over.voice[voice_peak]):
        over.voice = -over.voice
    start = peak - voice_peak
    naive = music[start : start + len(over.voice)] + over.voice
    assert np.max(np.abs(naive)) > 1.0  # the plain sum would clip: ducking and the limiter matter
    mixed = mix_at(music, over, start)
    assert len(mixed) == len(music)
    assert np.max(np.abs(mixed)) <= LIMIT_CEILING
    assert np.array_equal(mixed[:start], music[:start])  # the rest of the soundtrack untouched
    assert np.array_equal(mixed[start + len(over) :], music[start + len(over) :])
    # as a 16-bit WAV (what the speakers get), no sample at full scale
    samples, _ = load_wav(write_wav(mixed[start : start + len(over)], RATE, tmp_path / "m.wav"))
    assert np.max(np.abs(samples)) < 32767 / 32768


def test_the_host_player_mixes_block_by_block_as_a_whole_mix(music, voices):
    streams: list[Stream] = []

    def factory(rate: int, device: object, callback: object) -> Stream:
        streams.append(Stream(rate, device, callback))
        return streams[-1]

    start = loudest_second(music)
    player = HostPlayer(music, RATE, stream_factory=factory)
    player.start(start / RATE)
    over = VoiceOver(voices["stand up"], RATE, volume=0.8)
    player.say(over)
    heard = []
    for _ in range(len(over) // 512 + 4):
        block = np.zeros((512, 1), np.float32)
        streams[0].callback(block, 512, None, None)
        heard.append(block[:, 0])
    played = np.concatenate(heard)
    expected = mix_at(music, over, start)[start : start + len(played)]
    assert np.allclose(played, expected, atol=1e-6)
    assert np.max(np.abs(played)) <= LIMIT_CEILING
    assert np.array_equal(played[len(over) :], music[start + len(over) : start + len(played)])


def test_a_paused_player_drops_its_voices(music, voices):
    streams: list[Stream] = []
    player = HostPlayer(
        music, RATE, stream_factory=lambda *a: streams.append(Stream(*a)) or streams[-1]
    )
    player.start(100.0)
    player.say(VoiceOver(voices["door slams"], RATE))
    player.pause()
    player.resume()
    block = np.zeros((512, 1), np.float32)
    streams[0].callback(block, 512, None, None)
    assert np.array_equal(block[:, 0], music[100 * RATE : 100 * RATE + 512])


@pytest.mark.parametrize("language", [lang for lang in LANGUAGES if lang != "en"])
def test_each_table_language_speaks_with_its_own_voice(language):
    use_catalog(lambda lang, key: FOREIGN[lang] if key == "alert.door_soon" else None)
    try:
        words = say("alert.door_soon", language)
    finally:
        use_catalog(None)
    assert (words.text, words.voice) == (FOREIGN[language], language)
    voice = speak(words.text, words.voice, RATE)
    assert len(voice) / RATE > 0.8 and rms(voice) > 50 * SILENCE_RMS


def test_resampling_keeps_the_pitch_and_the_length():
    times = np.arange(44100) / 44100
    tone = np.sin(2 * np.pi * 440.0 * times).astype(np.float32)
    down = resample(tone, 44100, 22050)
    assert len(down) == 22050
    spectrum = np.abs(np.fft.rfft(down))
    assert np.fft.rfftfreq(len(down), 1 / 22050)[np.argmax(spectrum)] == pytest.approx(440, abs=1)
    assert len(resample(tone, 44100, 48000)) == 48000


def test_bad_words_are_refused_in_words():
    with pytest.raises(ValueError, match="1 to 300 characters"):
        speak("   ", "en", RATE)


def test_a_missing_engine_is_the_command_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # a PATH without espeak-ng
    assert find_engine() is None
    with pytest.raises(SpeechError, match=INSTALL_COMMAND):
        speak("Door slams in ten seconds!", "en", RATE)


def test_the_announcer_speaks_over_the_host_s_speakers(tmp_path):
    timeline = Timeline(intro_seconds=0.5, game_seconds=60.0, countdowns=SHORT)
    music = render_soundtrack(timeline, RATE)
    streams: list[Stream] = []

    def player() -> HostPlayer:
        return HostPlayer(
            music, RATE, stream_factory=lambda *a: streams.append(Stream(*a)) or streams[-1]
        )

    session = Session(
        GameStore(tmp_path / "games"), timeline, AudioPlan(True, "a test host", player)
    )
    session.new_game({"type": "setup", "players": ["red", "blue"], "track_dice": False}, "host")
    session.clock_action("start")
    announcer = Announcer(session, tmp_path)
    announced = announcer.try_voice()
    assert announced["text"] == "Spoken alerts are on." and announced["url"]
    heard = np.zeros((4096, 1), np.float32)
    streams[0].callback(heard, 4096, None, None)
    start = round(session.clock.position * RATE) - 4096
    assert not np.allclose(heard[:, 0], music[start : start + 4096])  # ducked: the voice is on
    assert np.max(np.abs(heard)) <= LIMIT_CEILING
