"""The synthesised soundtrack, checked by listening to it with numpy; WAV files; the CLI; playback.

The sound tests find onsets in the rendered audio itself (positive log-spectral flux) and check
that each designed sound starts where the timeline says, within 50 ms.
"""

from __future__ import annotations

import json
import os
import wave

import numpy as np
import pytest

from rules.timeline import Countdown, Timeline, load_timeline
from server.host_audio import AudioAvailability, HostAudioError, HostPlayer, probe_host_audio
from server.soundtrack import (
    GONG_PARTIALS_HZ,
    TAIL_SECONDS,
    Marker,
    cached_soundtrack,
    load_wav,
    render_soundtrack,
    soundtrack_markers,
    write_wav,
)
from templecam.cli import main

RATE = 22050
TOLERANCE = 0.050
SHORT = Timeline(
    intro_seconds=3.0,
    game_seconds=40.0,
    countdowns=(Countdown(1, 5.0, 10.0), Countdown(2, 15.0, 20.0), Countdown(3, 30.0, 40.0)),
)


# --- listening with numpy ----------------------------------------------------------------------


def onset_strength(samples, rate, n_fft=512, hop=128):
    """Positive log-spectral flux: frame k, centred on sample k*hop, against frame k-1."""
    padded = np.concatenate([np.zeros(n_fft // 2), samples, np.zeros(n_fft // 2)])
    frames = np.lib.stride_tricks.sliding_window_view(padded, n_fft)[::hop]
    magnitude = np.abs(np.fft.rfft(frames * np.hanning(n_fft), axis=1))
    flux = np.maximum(0.0, np.diff(np.log1p(100 * magnitude), axis=0)).sum(axis=1)
    return np.arange(len(flux) + 1) * hop / rate, np.concatenate([[0.0], flux])


class Listener:
    """Onsets of one rendered track."""

    def __init__(self, samples, rate):
        self.times, self.flux = onset_strength(samples.astype(np.float64), rate)

    def window(self, start, end):
        inside = (self.times >= start) & (self.times <= end)
        return self.times[inside], self.flux[inside]

    def strongest(self, around, within=0.4):
        """Return the time and strength of the strongest onset near `around`."""
        times, flux = self.window(around - within, around + within)
        best = int(np.argmax(flux))
        return times[best], flux[best]

    def onsets(self, start, end, fraction=0.4, spacing=0.3):
        """Return the onset peaks in [start, end] stronger than `fraction` of the strongest."""
        times, flux = self.window(start, end)
        threshold = fraction * flux.max()
        peaks = []
        for i in np.flatnonzero(flux > threshold):
            if peaks and times[i] - times[peaks[-1]] < spacing:
                if flux[i] > flux[peaks[-1]]:
                    peaks[-1] = i
            else:
                peaks.append(i)
        return [float(times[i]) for i in peaks]


def band_fraction(samples, rate, start, end, bands):
    """Return the share of the energy in [start, end] s that lies in the given (lo, hi) bands."""
    segment = samples[round(start * rate) : round(end * rate)].astype(np.float64)
    power = np.abs(np.fft.rfft(segment * np.hanning(len(segment)))) ** 2
    frequencies = np.fft.rfftfreq(len(segment), 1 / rate)
    inside = np.zeros(len(frequencies), dtype=bool)
    for low, high in bands:
        inside |= (frequencies >= low) & (frequencies <= high)
    return power[inside].sum() / power.sum()


@pytest.fixture(scope="module")
def short_track():
    return render_soundtrack(SHORT, RATE, seed=7)


@pytest.fixture(scope="module")
def listener(short_track):
    return Listener(short_track, RATE)


def audio(t):
    """Audio-file seconds of game-clock time t in the SHORT timeline."""
    return SHORT.intro_seconds + t


# --- the rendered sound ------------------------------------------------------------------------


def test_length_level_and_type(short_track):
    assert short_track.dtype == np.float32
    assert short_track.ndim == 1
    assert len(short_track) == round((3.0 + 40.0 + TAIL_SECONDS) * RATE)
    assert np.all(np.isfinite(short_track))
    assert 0.5 < np.max(np.abs(short_track)) <= 0.99


def test_the_same_seed_gives_the_same_samples(short_track):
    assert np.array_equal(render_soundtrack(SHORT, RATE, seed=7), short_track)
    assert not np.array_equal(render_soundtrack(SHORT, RATE, seed=8), short_track)


def test_the_start_cue_sounds_at_the_end_of_the_intro(listener):
    when, strength = listener.strongest(SHORT.intro_seconds, within=0.5)
    assert abs(when - SHORT.intro_seconds) <= TOLERANCE
    # The introduction before it has no onset anywhere near as strong.
    _, before = listener.window(0.0, SHORT.intro_seconds - 0.2)
    assert before.max() < 0.3 * strength


@pytest.mark.parametrize("countdown", SHORT.countdowns, ids=lambda c: f"countdown{c.n}")
def test_each_countdown_opens_with_its_number_of_gong_strikes(listener, countdown):
    start = audio(countdown.start)
    last_strike = start + (countdown.n - 1) * 0.8
    strikes = listener.onsets(start - 0.5, last_strike + 0.5)
    assert len(strikes) == countdown.n
    for k, when in enumerate(strikes):
        assert abs(when - (start + 0.8 * k)) <= TOLERANCE


@pytest.mark.parametrize("countdown", SHORT.countdowns[:2], ids=lambda c: f"countdown{c.n}")
def test_a_door_slam_ends_countdowns_1_and_2(listener, countdown):
    when, strength = listener.strongest(audio(countdown.end))
    assert abs(when - audio(countdown.end)) <= TOLERANCE
    # Louder than the drumming that leads up to it.
    _, drums = listener.window(audio(countdown.end) - 2.0, audio(countdown.end) - 0.1)
    assert strength > 1.3 * drums.max()


def test_the_collapse_comes_at_the_end_of_the_game(listener):
    when, strength = listener.strongest(SHORT.total_seconds)
    assert abs(when - SHORT.total_seconds) <= TOLERANCE
    _, drums = listener.window(SHORT.total_seconds - 3.0, SHORT.total_seconds - 0.1)
    assert strength > 1.5 * drums.max()


def test_no_door_slam_ends_the_last_countdown(listener):
    # Countdown 3 ends in the collapse itself: between its gongs and the collapse the strongest
    # onset is the drumming, well below the collapse.
    _, collapse = listener.strongest(SHORT.total_seconds)
    _, drumming = listener.window(audio(33.0), SHORT.total_seconds - 0.1)
    assert drumming.max() < 0.7 * collapse


def test_gong_energy_sits_on_its_partials_and_the_door_slam_is_low(short_track):
    gong = audio(SHORT.countdown(1).start)
    partials = [(0.97 * f, 1.03 * f) for f in GONG_PARTIALS_HZ]
    assert band_fraction(short_track, RATE, gong + 0.1, gong + 0.7, partials) > 0.8
    assert band_fraction(short_track, RATE, gong + 0.1, gong + 0.7, [(0, 150)]) < 0.2
    for countdown in SHORT.countdowns[:2]:
        slam = audio(countdown.end)
        assert band_fraction(short_track, RATE, slam, slam + 0.3, [(0, 150)]) > 0.8


def test_markers_name_every_designed_sound_in_audio_time():
    assert soundtrack_markers(SHORT) == [
        Marker("start_cue", 3.0),
        Marker("gong", 8.0, 1),
        Marker("door_slam", 13.0, 1),
        Marker("gong", 18.0, 2),
        Marker("gong", 18.8, 2),
        Marker("door_slam", 23.0, 2),
        Marker("gong", 33.0, 3),
        Marker("gong", 33.8, 3),
        Marker("gong", 34.6, 3),
        Marker("collapse", 43.0),
    ]


def test_another_sample_rate_keeps_the_timing():
    rate = 16000
    listener = Listener(render_soundtrack(SHORT, rate), rate)
    for marker in soundtrack_markers(SHORT):
        when, _ = listener.strongest(marker.seconds, within=0.3)
        assert abs(when - marker.seconds) <= TOLERANCE, marker


def test_the_full_ten_minute_soundtrack():
    timeline = load_timeline()
    samples = render_soundtrack(timeline)
    assert len(samples) == round((12.0 + 600.0 + TAIL_SECONDS) * RATE)
    assert np.max(np.abs(samples)) <= 0.99
    first_gong = timeline.audio_seconds(180.0)
    around = samples[round((first_gong - 2) * RATE) : round((first_gong + 2) * RATE)]
    when, _ = Listener(around, RATE).strongest(2.0)
    assert abs(when - 2.0) <= TOLERANCE


# --- WAV files ---------------------------------------------------------------------------------


def test_a_wav_round_trips(tmp_path, short_track):
    path = write_wav(short_track, RATE, tmp_path / "short.wav")
    samples, rate = load_wav(path)
    assert rate == RATE
    assert samples.dtype == np.float32
    assert len(samples) == len(short_track)
    assert np.max(np.abs(samples - short_track)) <= 2 / 32768
    with wave.open(str(path), "rb") as wav:
        assert (wav.getnchannels(), wav.getsampwidth()) == (1, 2)


def test_load_wav_mixes_stereo_and_reads_8_and_24_bit(tmp_path):
    left, right = np.array([1000, -2000], "<i2"), np.array([3000, 2000], "<i2")
    stereo = tmp_path / "stereo.wav"
    with wave.open(str(stereo), "wb") as wav:
        wav.setnchannels(2)
        wav.setsampwidth(2)
        wav.setframerate(8000)
        wav.writeframes(np.column_stack([left, right]).tobytes())
    samples, rate = load_wav(stereo)
    assert rate == 8000
    assert np.allclose(samples, [2000 / 32768, 0.0])
    for width, frames in ((1, bytes([128, 255, 0])), (3, bytes([0, 0, 0x40, 0, 0, 0xC0, 0, 0, 0]))):
        path = tmp_path / f"{width}.wav"
        with wave.open(str(path), "wb") as wav:
            wav.setnchannels(1)
            wav.setsampwidth(width)
            wav.setframerate(8000)
            wav.writeframes(frames)
        samples, _ = load_wav(path)
        assert np.allclose(samples, [0.0, 127 / 128, -1.0] if width == 1 else [0.5, -0.5, 0.0])


def test_load_wav_explains_a_file_that_is_not_wav(tmp_path):
    path = tmp_path / "song.mp3"
    path.write_bytes(b"ID3\x03\x00 not a wave file at all")
    with pytest.raises(ValueError, match=r"is not a WAV file .*convert it") as caught:
        load_wav(path)
    assert str(path) in str(caught.value)
    with pytest.raises(ValueError, match="does not exist"):
        load_wav(tmp_path / "absent.wav")


def test_a_failed_write_leaves_the_old_file_and_no_partial_one(tmp_path, monkeypatch):
    path = tmp_path / "track.wav"
    path.write_bytes(b"the previous file")

    def disk_full(self, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(wave.Wave_write, "writeframes", disk_full)
    with pytest.raises(OSError, match="No space left"):
        write_wav(np.zeros(100, np.float32), RATE, path)
    assert path.read_bytes() == b"the previous file"
    assert os.listdir(tmp_path) == ["track.wav"]


def test_write_wav_refuses_bad_samples_before_touching_the_disk(tmp_path):
    with pytest.raises(ValueError, match="finite"):
        write_wav(np.array([0.0, np.nan]), RATE, tmp_path / "x.wav")
    with pytest.raises(ValueError, match="one-dimensional"):
        write_wav(np.zeros((2, 2)), RATE, tmp_path / "x.wav")
    assert os.listdir(tmp_path) == []


def test_the_cache_renders_once_per_timeline_rate_and_seed(tmp_path):
    cache = tmp_path / "cache"
    first = cached_soundtrack(SHORT, cache, sample_rate=8000)
    written = first.stat().st_mtime_ns
    assert cached_soundtrack(SHORT, cache, sample_rate=8000) == first
    assert first.stat().st_mtime_ns == written
    assert cached_soundtrack(SHORT, cache, sample_rate=8000, seed=8) != first
    samples, rate = load_wav(first)
    assert rate == 8000
    assert np.max(np.abs(samples - render_soundtrack(SHORT, 8000))) <= 2 / 32768


# --- the command line --------------------------------------------------------------------------


@pytest.fixture()
def short_timeline_path(tmp_path):
    path = tmp_path / "short.json"
    path.write_text(json.dumps(SHORT.to_json()), encoding="utf-8")
    return path


def test_the_soundtrack_command_writes_a_wav(tmp_path, short_timeline_path, capsys):
    out = tmp_path / "x.wav"
    status = main(["soundtrack", "--out", str(out), "--timeline", str(short_timeline_path)])
    assert status == 0
    samples, rate = load_wav(out)
    assert rate == 22050
    assert len(samples) == round(SHORT.total_seconds + TAIL_SECONDS) * rate
    printed = capsys.readouterr().out
    assert str(out) in printed
    assert "46.0 s" in printed
    assert "0:18.80" in printed  # the second gong of countdown 2, in audio time


def test_a_bad_timeline_is_a_user_error(tmp_path, short_timeline_path, capsys):
    data = SHORT.to_json()
    data["countdowns"][1]["start"] = 9.0
    short_timeline_path.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "x.wav"
    status = main(["soundtrack", "--out", str(out), "--timeline", str(short_timeline_path)])
    assert status == 2
    error = capsys.readouterr().err
    assert "countdown 2 'start'" in error
    assert "Traceback" not in error
    assert not out.exists()


def test_an_unwritable_output_is_a_user_error(tmp_path, capsys):
    status = main(["soundtrack", "--out", str(tmp_path / "absent" / "x.wav")])
    assert status == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["soundtrack", "--out", str(tmp_path / "x.mp3")]) == 2
    assert ".wav" in capsys.readouterr().err


def test_the_soundtrack_command_has_help(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["soundtrack", "--help"])
    assert exited.value.code == 0
    assert "--timeline FILE.json" in capsys.readouterr().out


# --- host playback -----------------------------------------------------------------------------


class FakeDevice:
    """Stands in for the sound card: records what the player asks of its stream."""

    def __init__(self):
        self.calls = []

    def open(self, sample_rate, device, callback):
        self.calls.append(("open", sample_rate, device))
        return self

    def start(self):
        self.calls.append(("start",))

    def stop(self):
        self.calls.append(("stop",))

    def close(self):
        self.calls.append(("close",))


def ramp_player(frames=1000, rate=100):
    device = FakeDevice()
    samples = np.arange(frames, dtype=np.float32) / frames
    return HostPlayer(samples, rate, stream_factory=device.open), device, samples


def pull(player, frames, channels=1):
    buffer = np.full((frames, channels), 9.0, dtype=np.float32)
    player.callback(buffer, frames, None, None)
    return buffer


def test_a_player_not_started_plays_silence():
    player, device, _ = ramp_player()
    assert not pull(player, 64).any()
    assert player.position_seconds() == 0.0
    assert device.calls == []


def test_playing_fills_buffers_in_order_and_advances_the_clock():
    player, device, samples = ramp_player()
    player.start()
    assert device.calls == [("open", 100, None), ("start",)]
    assert np.array_equal(pull(player, 64)[:, 0], samples[:64])
    stereo = pull(player, 36, channels=2)
    assert np.array_equal(stereo[:, 0], samples[64:100])
    assert np.array_equal(stereo[:, 1], samples[64:100])
    assert player.position_seconds() == 1.0


def test_pause_holds_the_clock_and_resume_continues():
    player, _, samples = ramp_player()
    player.start(at_seconds=2.0)
    pull(player, 50)
    player.pause()
    assert not pull(player, 50).any()
    assert player.position_seconds() == 2.5
    player.resume()
    assert np.array_equal(pull(player, 10)[:, 0], samples[250:260])


def test_seek_moves_the_clock_and_stops_at_the_end():
    player, _, samples = ramp_player()
    player.start()
    player.seek(9.5)
    buffer = pull(player, 100)
    assert np.array_equal(buffer[:50, 0], samples[950:])
    assert not buffer[50:].any()
    assert player.finished
    assert player.position_seconds() == 10.0
    player.seek(99.0)
    assert player.position_seconds() == player.duration_seconds == 10.0
    with pytest.raises(ValueError, match="seek"):
        player.seek(-1.0)


def test_stop_releases_the_device_and_keeps_the_position():
    player, device, _ = ramp_player()
    player.start()
    pull(player, 30)
    player.stop()
    assert device.calls[-2:] == [("stop",), ("close",)]
    assert not player.playing
    assert player.position_seconds() == 0.3
    with pytest.raises(RuntimeError, match="start"):
        player.resume()
    player.start(at_seconds=player.position_seconds())
    assert device.calls[-2:] == [("open", 100, None), ("start",)]


def test_probing_the_host_audio_never_raises():
    availability = probe_host_audio()
    assert isinstance(availability, AudioAvailability)
    assert availability.reason
    if availability.available:
        assert availability.device
    else:
        assert availability.device is None
        assert "browser will play the soundtrack" in availability.reason


def test_starting_without_host_audio_says_why():
    availability = probe_host_audio()
    if availability.available:
        pytest.skip(f"this host can play audio ({availability.device})")
    player = HostPlayer(np.zeros(100, np.float32), RATE)
    with pytest.raises(HostAudioError, match="browser will play the soundtrack"):
        player.start()
    assert not player.playing
