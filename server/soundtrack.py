"""Our own 10-minute soundtrack, synthesised with numpy, and WAV files to keep and play it.

The official soundtrack is copyrighted, so templecam makes one with the same shape from a
`Timeline`: an ambient introduction, a brass fanfare at "Escape!", a bed that grows tenser and
faster over the game, gong strikes opening each countdown (one for countdown 1, two for
countdown 2, ...), urgent drums during the countdowns, a door slam ending each countdown but the
last, and the temple's collapse. Any timeline the timer options make is rendered the same way.
Every designed sound starts on the exact sample its `Marker` gives.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import threading
import wave
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import numpy.typing as npt

from rules.timeline import Countdown, Timeline

RENDERER_VERSION = "1"
"""Bump when the synthesis changes, so that cached renders are made again."""

TAIL_SECONDS = 3.0
"""Audio after the collapse's first crash: the rumble dies away in it."""

GONG_SPACING_SECONDS = 0.8
"""Time between the gong strikes that open a countdown."""

GONG_PARTIALS_HZ: tuple[float, ...] = (196.0, 297.9, 433.2, 541.0, 682.1, 852.6)
"""The gong's partial frequencies (inharmonic, as a real gong's are); the first is strongest."""

PEAK_LEVEL = 0.95
"""The rendered track is scaled so that its loudest sample has this magnitude."""

MarkerKind = Literal["start_cue", "gong", "door_slam", "collapse"]
"""The designed sounds a `Marker` can name."""

Samples = npt.NDArray[np.float32]
_Array = npt.NDArray[np.float64]

# Drone frequencies are multiples of 1/_LOOP_SECONDS so that one loop of them tiles seamlessly.
_LOOP_SECONDS = 4.0
_NOISE_LOOP_SECONDS = 7.3
_GONG_AMPLITUDES = (1.0, 0.7, 0.5, 0.35, 0.22, 0.12)
_GONG_DECAYS_SECONDS = (2.6, 2.0, 1.4, 1.0, 0.7, 0.45)


@dataclass(frozen=True)
class Marker:
    """A designed sound: its kind, where it starts in the audio file, and its countdown if any."""

    kind: MarkerKind
    seconds: float
    countdown: int | None = None


def soundtrack_markers(timeline: Timeline) -> list[Marker]:
    """Return every designed sound of the soundtrack, in time order (audio-file seconds)."""
    markers = [Marker("start_cue", timeline.intro_seconds)]
    for countdown in timeline.countdowns:
        start = timeline.audio_seconds(countdown.start)
        markers += [
            Marker("gong", start + strike * GONG_SPACING_SECONDS, countdown.n)
            for strike in range(countdown.n)
        ]
        if countdown.end < timeline.game_seconds:
            markers.append(Marker("door_slam", timeline.audio_seconds(countdown.end), countdown.n))
    markers.append(Marker("collapse", timeline.total_seconds))
    return sorted(markers, key=lambda marker: marker.seconds)


def soundtrack_seconds(timeline: Timeline) -> float:
    """Return the length of the rendered soundtrack: introduction, game and tail."""
    return timeline.total_seconds + TAIL_SECONDS


def render_soundtrack(
    timeline: Timeline,
    sample_rate: int = 22050,
    seed: int = 7,
    silent: Collection[int] = (),
) -> Samples:
    """Render the soundtrack as float32 mono samples in [-PEAK_LEVEL, PEAK_LEVEL].

    The countdowns numbered in `silent` are left out (a browser must not hear, or find in the
    file, a countdown at a random time before it comes: it plays each one's
    `render_countdown_clip` from its gong); everything else is the very same samples as the
    whole track's, at the whole track's level, so that the track and the clips add up to it.
    """
    return _render(timeline, sample_rate, seed, silent)[0]


COUNTDOWN_CLIP_TAIL_SECONDS = 1.5
"""A countdown's clip runs this long past its end: the door slam's rumble."""


def countdown_clip_seconds(timeline: Timeline, n: int) -> float:
    """Return how long countdown `n`'s clip runs: its length and the door slam's tail."""
    countdown = timeline.countdown(n)
    return countdown.end - countdown.start + COUNTDOWN_CLIP_TAIL_SECONDS


def render_countdown_clip(
    timeline: Timeline, n: int, sample_rate: int = 22050, seed: int = 7
) -> Samples:
    """Render countdown `n`'s own sounds (gong, drums, door slam) from its gong on: the samples
    `render_soundtrack(..., silent={n})` leaves out, at the whole track's level. Their sound
    does not depend on when the countdown comes, so the file tells nothing of it (its level
    follows the whole track's loudest sample, as the served track's does, which a countdown
    landing on the loud end of the bed can move by a few percent)."""
    countdown = timeline.countdown(n)
    _, left_out = _render(timeline, sample_rate, seed, (n,))
    start = round(timeline.audio_seconds(countdown.start) * sample_rate)
    length = round(countdown_clip_seconds(timeline, n) * sample_rate)
    clip = np.zeros(length, dtype=np.float32)
    part = left_out[start : start + length]
    clip[: len(part)] = part
    return clip


def _render(
    timeline: Timeline, sample_rate: int, seed: int, silent: Collection[int]
) -> tuple[Samples, Samples]:
    """Render the track without the `silent` countdowns, and those countdowns alone, both
    scaled so that the whole track's loudest sample has the magnitude PEAK_LEVEL."""
    if sample_rate < 8000:
        raise ValueError(f"sample rate {sample_rate} Hz is too low: use 8000 Hz or more")
    rng = np.random.default_rng(seed)
    count = round(soundtrack_seconds(timeline) * sample_rate)
    track = _Track(np.zeros(count, dtype=np.float32), sample_rate)
    left_out = _Track(np.zeros(count if silent else 0, dtype=np.float32), sample_rate)
    _add_intro(track, timeline, rng)
    _add_bed(track, timeline, rng)
    _add_fanfare(track, timeline.intro_seconds, rng)
    for countdown in timeline.countdowns:
        # The same random draws either way: the other sounds do not change with `silent`.
        _add_countdown(left_out if countdown.n in silent else track, timeline, countdown, rng)
    _add_collapse(track, timeline.total_seconds, rng)
    samples = track.samples
    whole = samples + left_out.samples if silent else samples
    scale = np.float32(PEAK_LEVEL / float(np.max(np.abs(whole))))
    samples *= scale
    left_out.samples *= scale
    return samples, left_out.samples


@dataclass
class _Track:
    """The mix being built (float32, enough for audio) and its sample rate."""

    samples: Samples
    rate: int

    def index(self, seconds: float) -> int:
        """Return the sample index of `seconds` into the track."""
        return round(seconds * self.rate)

    def add(self, seconds: float, sound: npt.NDArray[np.floating]) -> None:
        """Mix `sound` in so that its first sample lands exactly at `seconds`."""
        start = self.index(seconds)
        end = min(len(self.samples), start + len(sound))
        if end > start:
            self.samples[start:end] += sound[: end - start]

    def times(self, seconds: float) -> _Array:
        """Return the time of each sample of a sound `seconds` long."""
        return np.arange(round(seconds * self.rate)) / self.rate


# --- building blocks ---------------------------------------------------------------------------


def _envelope(times: _Array, attack: float, decay: float) -> _Array:
    """A linear attack over `attack` seconds, then an exponential decay with time constant."""
    return np.minimum(1.0, times / attack) * np.exp(-times / decay)


def _glide(times: _Array, rate: int, f_from: float, f_to: float, glide: float) -> _Array:
    """A sine whose frequency falls exponentially from `f_from` to `f_to` (drums, thumps)."""
    frequency = f_to + (f_from - f_to) * np.exp(-times / glide)
    return np.sin(2 * np.pi * np.cumsum(frequency) / rate)


def _band_noise(rng: np.random.Generator, count: int, rate: int, low: float, high: float) -> _Array:
    """White noise band-limited to [low, high] Hz (circularly, through the FFT), RMS 1."""
    spectrum = np.fft.rfft(rng.standard_normal(count))
    frequencies = np.fft.rfftfreq(count, 1 / rate)
    spectrum[(frequencies < low) | (frequencies > high)] = 0
    noise = np.fft.irfft(spectrum, count)
    return noise / max(float(np.sqrt(np.mean(noise**2))), 1e-12)


def _soft(sound: npt.NDArray[np.floating], ceiling: float) -> npt.NDArray[np.floating]:
    """Saturate gently toward +-`ceiling`: tames the peaks of the loudest, noisiest sounds."""
    return ceiling * np.tanh(sound / ceiling)


def _looped(loop: _Array, count: int) -> _Array:
    """Repeat a seamless loop to `count` samples."""
    return np.tile(loop, -(-count // len(loop)))[:count]


def _chord_loop(rate: int, frequencies: tuple[float, ...], detune: float) -> _Array:
    """One seamless loop of a chord of slightly detuned sine pairs (they beat slowly)."""
    times = np.arange(round(_LOOP_SECONDS * rate)) / rate
    loop = np.zeros_like(times)
    for frequency in frequencies:
        for offset in (-detune, detune):
            loop += np.sin(2 * np.pi * (frequency + offset) * times)
    return loop / (2 * len(frequencies))


def _ramp(times: _Array, points: list[tuple[float, float]]) -> _Array:
    """A piecewise-linear curve through (seconds, value) points."""
    xs, ys = zip(*points, strict=True)
    return np.interp(times, xs, ys)


# --- the introduction and the bed --------------------------------------------------------------


def _add_intro(track: _Track, timeline: Timeline, rng: np.random.Generator) -> None:
    """An A-minor pad and wind that fade in, then give way to the fanfare."""
    intro = timeline.intro_seconds
    if intro <= 0:
        return
    length = intro + 2.0
    times = track.times(length)
    pad = _looped(_chord_loop(track.rate, (110.0, 164.75, 220.0, 261.75), 0.25), len(times))
    wind = _looped(
        _band_noise(rng, round(_NOISE_LOOP_SECONDS * track.rate), track.rate, 250, 900), len(times)
    )
    knots = np.arange(0.0, length + 1.5, 1.5)
    gusts = np.interp(times, knots, rng.uniform(0.3, 1.0, len(knots)))
    fade_in = min(3.0, intro / 3)
    level = _ramp(times, [(0, 0), (fade_in, 1), (max(fade_in, intro - 0.5), 1), (length, 0)])
    track.add(0.0, level * (0.15 * pad + 0.035 * wind * gusts))


def _add_bed(track: _Track, timeline: Timeline, rng: np.random.Generator) -> None:
    """The game's bed: a drone and a pulse that grow louder and faster until the collapse."""
    count = track.index(timeline.game_seconds)
    drone = _chord_loop(track.rate, (55.0, 82.5, 110.0), 0.25)
    steady = 0.1 * drone + 0.032 * _band_noise(rng, len(drone), track.rate, 30, 160)
    tension = 0.04 * _chord_loop(track.rate, (440.0, 466.25), 0.0) * _tremolo_loop(track.rate)
    # Built in float32, in few passes: this is the one sound that spans the whole game.
    growth = np.linspace(0.0, 1.0, count, endpoint=False, dtype=np.float32)
    bed = (1 + growth) * _looped(steady.astype(np.float32), count)
    half = count // 2
    bed[half:] += (2 * growth[half:] - 1) * _looped(tension.astype(np.float32), count - half)
    fade_in, fade_out = min(count, track.index(1.5)), min(count, track.index(0.01))
    bed[:fade_in] *= np.linspace(0, 1, fade_in, dtype=np.float32)
    bed[count - fade_out :] *= np.linspace(1, 0, fade_out, dtype=np.float32)
    track.add(timeline.intro_seconds, bed)
    _add_pulse(track, timeline)


def _tremolo_loop(rate: int) -> _Array:
    """A 6 Hz tremolo, seamless over one loop."""
    times = np.arange(round(_LOOP_SECONDS * rate)) / rate
    return 0.6 + 0.4 * np.sin(2 * np.pi * 6.0 * times)


def _add_pulse(track: _Track, timeline: Timeline) -> None:
    """A low heartbeat thump, from 66 to 126 beats a minute, louder as the end nears."""
    game = timeline.game_seconds
    times = track.times(0.4)
    thump = _glide(times, track.rate, 80.0, 50.0, 0.05) * _envelope(times, 0.008, 0.09)
    # The beat phase is the integral of the tempo; beats fall where it crosses a whole number.
    grid = np.arange(0.0, game, 0.01)
    tempo = 66.0 + 60.0 * (grid / game) ** 1.5
    phase = np.cumsum(tempo / 60.0 * 0.01)
    beats = grid[np.searchsorted(phase, np.arange(1, int(phase[-1]) + 1))]
    for beat in beats:
        if beat + 0.4 < game:
            track.add(timeline.audio_seconds(beat), (0.16 + 0.19 * beat / game) * thump)


# --- the designed sounds -----------------------------------------------------------------------


def _add_fanfare(track: _Track, at: float, rng: np.random.Generator) -> None:
    """The "Escape!" cue: timpani, cymbal and a rising brass call, starting exactly at `at`."""
    g4, c5, e5, c3, g3 = 392.0, 523.25, 659.25, 130.81, 196.0
    notes = [
        (0.0, 0.17, g4),
        (0.2, 0.17, g4),
        (0.4, 0.17, g4),
        (0.6, 1.6, c5),
        (0.6, 1.6, e5),
        (0.0, 2.2, c3),
        (0.0, 2.2, g3),
    ]
    part = _Track(np.zeros(track.index(2.5), dtype=np.float32), track.rate)
    for offset, length, frequency in notes:
        part.add(offset, 0.3 * _brass(track, frequency, length))
    part.add(0.0, 0.8 * _timpani(track))
    part.add(0.0, 0.25 * _cymbal(track, rng))
    part.add(0.6, 0.4 * _timpani(track))
    track.add(at, _soft(part.samples, 1.0))


def _brass(track: _Track, frequency: float, length: float) -> _Array:
    """A brass-like note: harmonics that brighten at the attack, with a late vibrato."""
    times = track.times(length + 0.06)
    vibrato = 1 + 0.004 * np.sin(2 * np.pi * 5.0 * times) * np.clip((times - 0.3) / 0.3, 0, 1)
    phase = 2 * np.pi * np.cumsum(frequency * vibrato) / track.rate
    brightness = 0.55 + 0.25 * np.exp(-times / 0.08)
    note = np.zeros_like(times)
    for harmonic in range(1, 13):
        if harmonic * frequency < 0.45 * track.rate:
            note += brightness ** (harmonic - 1) * np.sin(harmonic * phase)
    level = _ramp(times, [(0, 0), (0.012, 1), (0.1, 0.8), (length, 0.75), (length + 0.06, 0)])
    return note * level / 3


def _timpani(track: _Track) -> _Array:
    """A tuned drum hit (G2) with a mallet click."""
    times = track.times(1.5)
    body = _glide(times, track.rate, 104.0, 98.0, 0.05) + 0.5 * _glide(
        times, track.rate, 156.0, 147.0, 0.05
    )
    return body * _envelope(times, 0.003, 0.45)


def _cymbal(track: _Track, rng: np.random.Generator) -> _Array:
    """A crash cymbal: bright noise with a long shimmering decay."""
    times = track.times(2.0)
    return _band_noise(rng, len(times), track.rate, 3000, 10000) * _envelope(times, 0.001, 0.5)


def _add_countdown(
    track: _Track, timeline: Timeline, countdown: Countdown, rng: np.random.Generator
) -> None:
    """Gong strikes at the start, urgent drums until the end, and a door slam (not for the last)."""
    start = timeline.audio_seconds(countdown.start)
    end = timeline.audio_seconds(countdown.end)
    gong = _gong(track, rng)
    for strike in range(countdown.n):
        track.add(start + strike * GONG_SPACING_SECONDS, 0.55 * gong)
    drums_from = start + (countdown.n - 1) * GONG_SPACING_SECONDS + 1.0
    if drums_from < end:
        track.add(drums_from, _drums(track, end - drums_from, countdown.n, rng))
    if countdown.end < timeline.game_seconds:
        track.add(end, _door_slam(track, rng))


def _gong(track: _Track, rng: np.random.Generator) -> _Array:
    """A gong strike: inharmonic partials ringing from a sharp mallet hit."""
    times = track.times(4.5)
    sound = np.zeros_like(times)
    partials = zip(GONG_PARTIALS_HZ, _GONG_AMPLITUDES, _GONG_DECAYS_SECONDS, strict=True)
    for frequency, amplitude, decay in partials:
        if frequency < 0.45 * track.rate:
            shimmer = np.sin(2 * np.pi * frequency * times) + np.sin(
                2 * np.pi * (frequency + 0.7) * times
            )
            sound += amplitude * shimmer * _envelope(times, 0.002, decay) / 2
    click = _band_noise(rng, len(times), track.rate, 1500, 6000) * _envelope(times, 0.0005, 0.004)
    return sound + 0.35 * click


def _drums(track: _Track, length: float, n: int, rng: np.random.Generator) -> _Array:
    """Sixteenth-note tom and rim drumming that swells toward the end; it stops dead at `length`."""
    step = 60.0 / (144.0 + 8.0 * n) / 4
    times = track.times(0.3)
    low_tom = _glide(times, track.rate, 110.0, 70.0, 0.03) * _envelope(times, 0.002, 0.08)
    high_tom = _glide(times, track.rate, 180.0, 125.0, 0.03) * _envelope(times, 0.002, 0.06)
    rim = 0.4 * _band_noise(rng, len(times), track.rate, 800, 3000) * _envelope(times, 0.002, 0.02)
    rest = None
    pattern = (low_tom, rest, high_tom, low_tom, rim, rest, low_tom, rest)
    pattern += (high_tom, rest, low_tom, high_tom, rim, rest, low_tom, rest)
    part = _Track(np.zeros(track.index(length), dtype=np.float32), track.rate)
    for index in range(int(length / step)):
        hit = pattern[index % len(pattern)]
        if hit is not None:
            swell = 0.45 + 0.55 * index * step / length
            accent = 1.0 if index % 4 == 0 else 0.7
            part.add(index * step, 0.22 * swell * accent * hit)
    # End in silence a few milliseconds before the door slam, so the slam is heard clean.
    return part.samples * _ramp(
        track.times(length), [(0, 1), (length - 0.02, 1), (length - 0.005, 0), (length, 0)]
    )


def _door_slam(track: _Track, rng: np.random.Generator) -> _Array:
    """A heavy stone door slamming: a deep thump with a short, dark burst of noise."""
    times = track.times(1.2)
    thump = _glide(times, track.rate, 90.0, 42.0, 0.06) * _envelope(times, 0.002, 0.22)
    burst = _band_noise(rng, len(times), track.rate, 20, 320) * _envelope(times, 0.001, 0.05)
    crack = _band_noise(rng, len(times), track.rate, 300, 4000) * _envelope(times, 0.0005, 0.015)
    return _soft(1.0 * thump + 0.45 * burst + 0.4 * crack, 1.0)


def _add_collapse(track: _Track, at: float, rng: np.random.Generator) -> None:
    """The temple collapses: a huge crash, a long rumble, and falling stones, from `at`."""
    length = max(0.0, len(track.samples) / track.rate - at)
    if length <= 0:
        return
    times = track.times(length)
    boom = _glide(times, track.rate, 70.0, 32.0, 0.15) * _envelope(times, 0.002, 0.9)
    crash = _band_noise(rng, len(times), track.rate, 40, 7000) * _envelope(times, 0.001, 0.3)
    rumble = _band_noise(rng, len(times), track.rate, 20, 180)
    rumble *= _ramp(times, [(0, 0), (0.03, 1), (0.6 * length, 0.8), (length, 0)])
    track.add(at, _soft(1.0 * boom + 0.8 * crash + 0.35 * rumble, 1.2))
    for offset in np.sort(rng.uniform(0.4, max(0.5, length - 0.6), 4)):
        stone_times = track.times(0.8)
        stone = _band_noise(rng, len(stone_times), track.rate, 200, 3500)
        stone *= _envelope(stone_times, 0.001, 0.1)
        track.add(at + float(offset), rng.uniform(0.2, 0.35) * stone)


# --- WAV files ---------------------------------------------------------------------------------


def write_wav(samples: npt.ArrayLike, sample_rate: int, path: str | os.PathLike[str]) -> Path:
    """Write mono samples in [-1, 1] as a 16-bit PCM WAV, atomically (all or nothing)."""
    data = np.asarray(samples, dtype=np.float64)
    if data.ndim != 1 or not np.all(np.isfinite(data)):
        raise ValueError("samples must be a one-dimensional array of finite numbers")
    pcm = np.round(np.clip(data, -1.0, 1.0) * 32767).astype("<i2")
    target = Path(path)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    # os.open with 0o666 honours the umask, as a plain open() would (mkstemp would give 0600).
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(handle, "wb") as file:
            with wave.open(file, "wb") as wav:
                wav.setnchannels(1)
                wav.setsampwidth(2)
                wav.setframerate(sample_rate)
                wav.writeframes(pcm.tobytes())
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return target


def load_wav(path: str | os.PathLike[str]) -> tuple[Samples, int]:
    """Read a PCM WAV file as float32 mono samples in [-1, 1] and its sample rate."""
    try:
        with wave.open(os.fspath(path), "rb") as wav:
            channels, width, rate = wav.getnchannels(), wav.getsampwidth(), wav.getframerate()
            frames = wav.readframes(wav.getnframes())
    except FileNotFoundError:
        raise ValueError(f"{path} does not exist: give the path of a WAV file") from None
    except OSError as error:
        raise ValueError(f"{path} cannot be read: {error.strerror or error}") from None
    except (wave.Error, EOFError) as error:
        raise ValueError(
            f"{path} is not a WAV file templecam can read ({error}): convert it to 16-bit PCM "
            f"WAV with `ffmpeg -i INPUT -c:a pcm_s16le OUTPUT.wav`"
        ) from None
    samples = _pcm_to_float(frames, width)
    return samples.reshape(-1, channels).mean(axis=1, dtype=np.float32), rate


def _pcm_to_float(frames: bytes, width: int) -> Samples:
    """Decode little-endian PCM of 1 to 4 bytes a sample into floats in [-1, 1]."""
    if width == 1:
        return ((np.frombuffer(frames, np.uint8).astype(np.float32) - 128) / 128).astype(np.float32)
    if width == 3:
        raw = np.frombuffer(frames, np.uint8).reshape(-1, 3)
        padded = np.zeros((len(raw), 4), np.uint8)
        padded[:, 1:] = raw
        return (padded.view("<i4")[:, 0] / 2.0**31).astype(np.float32)
    if width not in (2, 4):
        raise ValueError(f"{width}-byte samples are not supported: use 16-bit PCM")
    kind = "<i2" if width == 2 else "<i4"
    return (np.frombuffer(frames, kind) / 2.0 ** (8 * width - 1)).astype(np.float32)


def soundtrack_key(
    timeline: Timeline,
    sample_rate: int = 22050,
    seed: int = 7,
    silent: Collection[int] = (),
    clip: int | None = None,
) -> str:
    """Return the short digest naming one render: its timeline, rate, seed and silent
    countdowns, or the countdown whose clip it is (the whole track's digest is what it was
    before countdowns could be left out)."""
    fields: dict[str, object] = {
        "timeline": timeline.to_json(),
        "sample_rate": sample_rate,
        "seed": seed,
        "renderer": RENDERER_VERSION,
    }
    if silent:
        fields["silent"] = sorted(set(silent))
    if clip is not None:
        fields["clip"] = clip
    key = json.dumps(fields, sort_keys=True)
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def cached_soundtrack(
    timeline: Timeline,
    cache_dir: Path,
    sample_rate: int = 22050,
    seed: int = 7,
    silent: Collection[int] = (),
) -> Path:
    """Return the path of the rendered soundtrack WAV in `cache_dir`, rendering it only once
    (one render at a time; the cache keeps the newest `CACHE_KEPT` renders)."""
    path = Path(cache_dir) / f"soundtrack-{soundtrack_key(timeline, sample_rate, seed, silent)}.wav"
    with _RENDERING:
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            write_wav(render_soundtrack(timeline, sample_rate, seed, silent), sample_rate, path)
            _prune(path.parent, keep=path)
    return path


def cached_countdown_clip(
    timeline: Timeline, n: int, cache_dir: Path, sample_rate: int = 22050, seed: int = 7
) -> Path:
    """Return the path of countdown `n`'s clip WAV in `cache_dir`, rendering it only once."""
    key = soundtrack_key(timeline, sample_rate, seed, clip=n)
    path = Path(cache_dir) / f"countdown-{key}.wav"
    with _RENDERING:
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            write_wav(render_countdown_clip(timeline, n, sample_rate, seed), sample_rate, path)
            _prune(path.parent, keep=path, pattern="countdown-*.wav")
    return path


CACHE_KEPT = 12
"""Soundtrack renders the cache keeps (a 45-minute game's is 119 MB)."""

_RENDERING = threading.Lock()


def _prune(folder: Path, keep: Path, pattern: str = "soundtrack-*.wav") -> None:
    """Delete all but the newest `CACHE_KEPT` renders in `folder` (never `keep`)."""
    renders = sorted(folder.glob(pattern), key=_modified, reverse=True)
    for old in renders[CACHE_KEPT:]:
        if old != keep:
            with contextlib.suppress(OSError):
                old.unlink()


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
