"""Offline speech: words to mono samples through Debian's espeak-ng, run as a subprocess.

Nothing leaves the computer: espeak-ng speaks with the voices it installs (en, pt, es, el). A
computer without it gets `SpeechError`, whose message is the one command that installs it;
the caller shows that as a notice and plays the soundtrack without words.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import numpy.typing as npt

from server.soundtrack import load_wav

ENGINE = "espeak-ng"
INSTALL_COMMAND = "sudo apt-get install espeak-ng"
MISSING_NOTICE = (
    f"Spoken alerts need the espeak-ng speech engine, which this computer lacks: "
    f"run `{INSTALL_COMMAND}`, then restart templecam. The soundtrack plays without words."
)
VOICE_PEAK = 0.7
"""A rendered voice is scaled so that its loudest sample has this magnitude (at volume 1)."""
VOICE_DRIVE = 2.5
"""How hard the voice is compressed (tanh) before scaling: speech peaks far above its average,
and a compressed voice carries over the music at the same peak."""
WORDS_PER_MINUTE = 165
"""A little faster than espeak-ng's default (175 is its default; slower reads clearer at a
table, but an alert must be over before the next one)."""
RENDER_TIMEOUT_SECONDS = 10.0
MAX_TEXT_CHARACTERS = 300

Samples = npt.NDArray[np.float32]


class SpeechError(RuntimeError):
    """The speech engine cannot speak here; the message says why and what to run."""


def find_engine() -> str | None:
    """Return the path of espeak-ng on this computer's PATH, or None."""
    return shutil.which(ENGINE)


def speak(text: str, voice: str, sample_rate: int) -> Samples:
    """Render `text` with the espeak-ng `voice` as float32 mono at `sample_rate`, peak
    `VOICE_PEAK`; raises `SpeechError` when espeak-ng is missing or fails."""
    words = " ".join(text.split())
    if not words or len(words) > MAX_TEXT_CHARACTERS:
        raise ValueError(f"give 1 to {MAX_TEXT_CHARACTERS} characters of words to speak")
    engine = find_engine()
    if engine is None:
        raise SpeechError(MISSING_NOTICE)
    with tempfile.TemporaryDirectory(prefix="templecam-speech-") as folder:
        wav = Path(folder) / "words.wav"
        # -w writes a WAV with a true header (--stdout cannot seek back to write its length);
        # "--" keeps words that begin with "-" from reading as options.
        command = [engine, "-v", voice, "-s", str(WORDS_PER_MINUTE), "-w", str(wav), "--", words]
        try:
            done = subprocess.run(
                command, capture_output=True, timeout=RENDER_TIMEOUT_SECONDS, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            raise SpeechError(f"espeak-ng could not speak ({error})") from None
        if done.returncode != 0 or not wav.exists():
            said = done.stderr.decode("utf-8", "replace").strip() or f"status {done.returncode}"
            raise SpeechError(f"espeak-ng could not speak with the voice {voice!r}: {said}")
        samples, rate = load_wav(wav)
    return shaped(resample(samples, rate, sample_rate))


def resample(samples: npt.ArrayLike, from_rate: int, to_rate: int) -> Samples:
    """Resample mono audio by linear interpolation (band-limited first when going down)."""
    data = np.asarray(samples, dtype=np.float64)
    if from_rate <= 0 or to_rate <= 0:
        raise ValueError("sample rates must be positive")
    if from_rate == to_rate or len(data) == 0:
        return data.astype(np.float32)
    if to_rate < from_rate:  # cut what the lower rate cannot carry, so that it does not alias
        spectrum = np.fft.rfft(data)
        spectrum[np.fft.rfftfreq(len(data), 1 / from_rate) > 0.45 * to_rate] = 0
        data = np.fft.irfft(spectrum, len(data))
    count = max(1, round(len(data) * to_rate / from_rate))
    at = np.arange(count) * (from_rate / to_rate)
    return np.interp(at, np.arange(len(data)), data).astype(np.float32)


def shaped(samples: Samples, peak: float = VOICE_PEAK) -> Samples:
    """Compress the voice (tanh) and scale it so that its loudest sample is `peak` (silence
    stays silence)."""
    loudest = float(np.max(np.abs(samples))) if len(samples) else 0.0
    if loudest <= 1e-6:
        return samples.astype(np.float32)
    squeezed = np.tanh(VOICE_DRIVE * samples / loudest) / np.tanh(VOICE_DRIVE)
    return (squeezed * peak).astype(np.float32)
