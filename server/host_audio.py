"""Soundtrack playback on the host's own audio output, through sounddevice (PortAudio).

The frames handed to the audio device are the game clock: `HostPlayer.position_seconds()` is the
position in the audio file, so the game clock is `timeline.game_clock(position)`. When the host
has no PortAudio or no output device, `probe_host_audio()` says so plainly, and the browser plays
the soundtrack instead.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from server.voice_mix import VoiceOver, limit

BROWSER_FALLBACK = "the browser will play the soundtrack instead"
PORTAUDIO_MISSING = f"PortAudio library not found: install libportaudio2; {BROWSER_FALLBACK}"
SOUNDDEVICE_MISSING = f"the sounddevice package is not installed; {BROWSER_FALLBACK}"


class HostAudioError(RuntimeError):
    """The host's audio output cannot be used; the message says why and what happens instead."""


@dataclass(frozen=True)
class AudioAvailability:
    """Whether the host can play audio itself, why (not), and through which device."""

    available: bool
    reason: str
    """Why, in a technician's words (for the log)."""
    device: str | None = None
    notice: str = ""
    """What a player reads on the page, in plain words (empty when the host plays)."""


NO_SPEAKERS = "No speakers found here: this page plays the soundtrack."
NO_SOUND_LIBRARY = (
    "This computer cannot play sound itself (its PortAudio library is missing): "
    "this page plays the soundtrack."
)
HOST_SOUND_OFF = "Sound on this computer is turned off: this page plays the soundtrack."
HOST_SOUND_FAILED = "The speakers stopped working: this page plays the soundtrack."


def probe_host_audio() -> AudioAvailability:
    """Check for PortAudio and a default output device; never raises."""
    try:
        sounddevice = _import_sounddevice()
    except HostAudioError as error:
        return AudioAvailability(False, str(error), notice=NO_SOUND_LIBRARY)
    try:
        info = sounddevice.query_devices(kind="output")
    except Exception as error:  # PortAudio reports a missing device in more than one way.
        reason = f"no audio output device ({error}); {BROWSER_FALLBACK}"
        return AudioAvailability(False, reason, notice=NO_SPEAKERS)
    name = str(info["name"])
    return AudioAvailability(True, f"playing through the default output, {name}", name)


class OutputStream(Protocol):
    """The part of `sounddevice.OutputStream` the player uses."""

    def start(self) -> None:
        """Start calling the callback."""

    def stop(self) -> None:
        """Stop calling the callback once the queued buffers have played."""

    def close(self) -> None:
        """Release the device."""


Callback = Callable[[npt.NDArray[np.float32], int, Any, Any], None]
StreamFactory = Callable[[int, int | str | None, Callback], OutputStream]


class HostPlayer:
    """Plays mono float32 samples on a host output stream; its position is the game clock.
    Spoken alerts (`say`) are mixed over it, one after another, the music ducked under them."""

    def __init__(
        self,
        samples: npt.ArrayLike,
        sample_rate: int,
        *,
        device: int | str | None = None,
        stream_factory: StreamFactory | None = None,
    ) -> None:
        self._samples = np.ascontiguousarray(samples, dtype=np.float32)
        if self._samples.ndim != 1:
            raise ValueError("HostPlayer plays mono audio: give a one-dimensional array")
        self.sample_rate = sample_rate
        self._device = device
        self._open_stream = stream_factory or _open_sounddevice_stream
        self._stream: OutputStream | None = None
        self._lock = threading.Lock()
        self._frame = 0
        self._playing = False
        self._voices: list[VoiceOver] = []
        self._voice_at = 0

    @property
    def duration_seconds(self) -> float:
        """Return the length of the audio."""
        return len(self._samples) / self.sample_rate

    @property
    def playing(self) -> bool:
        """Return whether the position advances (started, not paused, not stopped)."""
        return self._playing

    @property
    def finished(self) -> bool:
        """Return whether every frame has been delivered."""
        return self._frame >= len(self._samples)

    def position_seconds(self) -> float:
        """Return the audio position: frames delivered to the device, in seconds."""
        return self._frame / self.sample_rate

    def callback(
        self, outdata: npt.NDArray[np.float32], frames: int, time_info: Any, status: Any
    ) -> None:
        """Fill `outdata` (frames x channels) and advance; silence when paused or past the end."""
        frames = min(frames, len(outdata))
        with self._lock:
            start = self._frame if self._playing else len(self._samples)
            chunk = self._samples[start : start + frames]
            if self._playing:
                self._frame = start + len(chunk)
            if self._voices and self._playing:
                block = np.zeros(frames, np.float32)
                block[: len(chunk)] = chunk
                chunk = self._mix_voices(block)
        outdata[: len(chunk)] = chunk[:, np.newaxis]
        outdata[len(chunk) :] = 0

    def say(self, over: VoiceOver) -> None:
        """Queue a spoken alert: it is mixed over the music from the next block on (after the
        ones queued before it), while the player plays; pause, seek and stop drop it."""
        with self._lock:
            self._voices.append(over)

    def _mix_voices(self, block: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """Lay the queued voices over one block (the lock held), limited to full scale."""
        done = 0
        while done < len(block) and self._voices:
            over = self._voices[0]
            count = min(len(block) - done, len(over) - self._voice_at)
            block[done : done + count] = over.mix(block[done : done + count], self._voice_at)
            self._voice_at += count
            done += count
            if self._voice_at >= len(over):
                self._voices.pop(0)
                self._voice_at = 0
        return limit(block)

    def _drop_voices(self) -> None:
        with self._lock:
            self._voices.clear()
            self._voice_at = 0

    def start(self, at_seconds: float = 0.0) -> None:
        """Open the output stream if needed and play from `at_seconds` into the audio."""
        self.seek(at_seconds)
        if self._stream is None:
            self._stream = self._open_stream(self.sample_rate, self._device, self.callback)
            self._stream.start()
        self._playing = True

    def pause(self) -> None:
        """Hold the position; the stream stays open and plays silence."""
        self._playing = False
        self._drop_voices()

    def resume(self) -> None:
        """Continue from the held position."""
        if self._stream is None:
            raise RuntimeError("the player is not started: call start() first")
        self._playing = True

    def stop(self) -> None:
        """Stop playing and release the device; the position is kept for a later start()."""
        self._playing = False
        self._drop_voices()
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.stop()
            stream.close()

    def seek(self, seconds: float) -> None:
        """Move the position to `seconds` into the audio (the end at most)."""
        if not math.isfinite(seconds) or seconds < 0:
            raise ValueError(f"cannot seek to {seconds!r} s: give 0 or more seconds")
        with self._lock:
            self._frame = min(len(self._samples), round(seconds * self.sample_rate))
            self._voices.clear()
            self._voice_at = 0


def _import_sounddevice() -> Any:
    """Import sounddevice, turning a missing PortAudio or package into a `HostAudioError`."""
    try:
        # Imported here: sounddevice raises OSError at import time when PortAudio is missing.
        import sounddevice
    except OSError:
        raise HostAudioError(PORTAUDIO_MISSING) from None
    except ImportError:
        raise HostAudioError(SOUNDDEVICE_MISSING) from None
    return sounddevice


def _open_sounddevice_stream(
    sample_rate: int, device: int | str | None, callback: Callback
) -> OutputStream:
    """Open a mono float32 sounddevice output stream that pulls its audio from `callback`."""
    sounddevice = _import_sounddevice()
    try:
        stream: OutputStream = sounddevice.OutputStream(
            samplerate=sample_rate, channels=1, dtype="float32", device=device, callback=callback
        )
    except (sounddevice.PortAudioError, ValueError) as error:
        raise HostAudioError(
            f"cannot open the audio output ({error}); {BROWSER_FALLBACK}"
        ) from None
    return stream
