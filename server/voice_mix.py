"""A spoken alert laid over the soundtrack: the music ducks under the voice, and a limiter keeps
the sum inside full scale whatever the music does at that moment (the collapse included).

The host player mixes block by block (`VoiceOver.mix`), the tests mix a whole stretch at once;
both give the same samples.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

DUCK_LEVEL = 0.25
"""The music's gain while a voice speaks (-12 dB)."""
LEAD_SECONDS = 0.12
"""The music fades down over this long before the first word."""
RELEASE_SECONDS = 0.5
"""...and comes back up over this long after the last."""
LIMIT_KNEE = 0.9
LIMIT_CEILING = 0.99
"""The limiter leaves samples under the knee alone and never lets one reach the ceiling."""

Samples = npt.NDArray[np.float32]


def limit(samples: npt.ArrayLike) -> Samples:
    """Soft-limit: identity up to `LIMIT_KNEE`, then bent smoothly toward `LIMIT_CEILING`."""
    data = np.asarray(samples, dtype=np.float32)
    size = np.abs(data)
    over = size > LIMIT_KNEE
    if not np.any(over):
        return data
    room = LIMIT_CEILING - LIMIT_KNEE
    bent = LIMIT_KNEE + room * np.tanh((size[over] - LIMIT_KNEE) / room)
    out = data.copy()
    out[over] = np.sign(data[over]) * bent
    return out


class VoiceOver:
    """One alert's voice at a volume, with the music's gain curve around it."""

    def __init__(self, voice: npt.ArrayLike, sample_rate: int, volume: float = 1.0) -> None:
        if not 0.0 <= volume <= 1.0:
            raise ValueError(f"volume {volume!r} is out of range: give 0 to 1")
        words = np.asarray(voice, dtype=np.float32) * np.float32(volume)
        lead = round(LEAD_SECONDS * sample_rate)
        release = round(RELEASE_SECONDS * sample_rate)
        self.voice = np.concatenate([np.zeros(lead, np.float32), words]).astype(np.float32)
        """The voice as heard, after the lead-in."""
        depth = (1.0 - DUCK_LEVEL) if volume > 0 else 0.0
        down = np.linspace(1.0, 1.0 - depth, lead, endpoint=False, dtype=np.float32)
        held = np.full(len(words), 1.0 - depth, np.float32)
        up = np.linspace(1.0 - depth, 1.0, release, dtype=np.float32)
        self.duck = np.concatenate([down, held, up]).astype(np.float32)
        """The music's gain, sample by sample, from the lead-in to the end of the release."""
        self.sample_rate = sample_rate

    def __len__(self) -> int:
        """Return the samples the voice-over spans (lead-in, words and release)."""
        return len(self.duck)

    def mix(self, music: npt.ArrayLike, at: int) -> Samples:
        """Mix the voice-over's samples `at`.. over a block of music; the block's length is
        kept, and so is the music past the voice-over's end. Not limited (see `limit`)."""
        block = np.asarray(music, dtype=np.float32).copy()
        span = max(0, min(len(block), len(self) - at))
        if span == 0:
            return block
        block[:span] *= self.duck[at : at + span]
        spoken = max(0, min(span, len(self.voice) - at))
        if spoken:
            block[:spoken] += self.voice[at : at + spoken]
        return block


def mix_at(music: npt.ArrayLike, over: VoiceOver, start: int) -> Samples:
    """The whole `music` with `over` laid in from sample `start`, the voiced stretch limited
    (as the host player does: the music alone plays as rendered)."""
    track = np.asarray(music, dtype=np.float32).copy()
    end = min(len(track), start + len(over))
    track[start:end] = limit(over.mix(track[start:end], 0))
    return track
