// Browser audio: when the server says audio.mode is "browser", this page plays the soundtrack
// with Web Audio, in step with the server's game clock.
//
// How it stays in sync: the soundtrack is fetched and decoded once; the offset between this
// browser's clock and the server's is estimated by pinging /api/time (see ClockSync); the
// buffer source is started so that the sample being heard at any moment is the server clock's
// position (start(when, position at `when`)). It is re-scheduled on start, pause, resume and
// restart, and whenever the heard position drifts more than 150 ms from the server clock.

import { positionNow } from "./common.js";

const MAX_DRIFT_SECONDS = 0.15;
const SCHEDULE_LEAD_SECONDS = 0.15;
const DRIFT_CHECK_MS = 500;
const LOAD_RETRY_MS = 5000;
const MUTED_KEY = "templecam.muted";

function readMuted() {
  try {
    return localStorage.getItem(MUTED_KEY) === "1";
  } catch (error) {
    return false;
  }
}

export class BrowserAudio {
  /**
   * sync: a ClockSync; statusEl: where the status sentence goes; enableButton: "Enable sound";
   * muteButton: "Mute here" (for a second screen at the same table, so that only one plays).
   */
  constructor({ sync, statusEl, enableButton, muteButton }) {
    this.sync = sync;
    this.statusEl = statusEl;
    this.enableButton = enableButton;
    this.muteButton = muteButton;
    this.muted = readMuted();
    this.state = null;
    this.ctx = null;
    this.buffer = null;
    this.bufferUrl = null;
    this.loading = false;
    this.loadError = null;
    this.retryAt = 0;
    this.source = null;
    this.startedAt = 0; // context time the source's first sample is heard
    this.startOffset = 0; // soundtrack position of that sample
    this.lastDrift = null;
    this.lastKey = null;
    this.lastCheck = 0;
    this.schedules = 0; // how many times the source was (re)started: a sign of drift trouble
    enableButton.addEventListener("click", () => this.userGesture());
    muteButton.addEventListener("click", () => this.setMuted(!this.muted));
  }

  /** Mute or unmute the soundtrack on this page only (remembered by this browser). */
  setMuted(muted) {
    this.muted = muted;
    try {
      localStorage.setItem(MUTED_KEY, muted ? "1" : "0");
    } catch (error) {
      // private mode: remembered for this page only
    }
    this.resync();
    this.showStatus();
  }

  /** The server's mode for this game: host, browser or off. */
  get mode() {
    const state = this.state;
    if (!state || !state.game || !state.audio) return "off";
    return state.audio.mode;
  }

  /** Called with every new dashboard state. */
  update(state) {
    this.state = state;
    if (this.mode !== "browser") {
      this.stop();
      this.showStatus();
      return;
    }
    this.ensureContext();
    this.ensureBuffer(state.audio.url);
    const key = `${state.game_id}:${state.clock.status}:${state.clock.status === "running" ? "" : state.clock.position}`;
    if (key !== this.lastKey) {
      this.lastKey = key;
      this.resync();
    }
    this.showStatus();
  }

  /** Called often: start when ready, stop when the clock stops, re-sync on drift. */
  tick() {
    if (this.mode !== "browser") return;
    const now = performance.now();
    if (now - this.lastCheck < DRIFT_CHECK_MS) return;
    this.lastCheck = now;
    if (!this.playable()) {
      this.stop();
    } else if (!this.source) {
      this.schedule();
    } else {
      this.lastDrift = this.heardPosition() - positionNow(this.state, this.sync);
      if (Math.abs(this.lastDrift) > MAX_DRIFT_SECONDS) this.resync();
    }
    this.showStatus();
  }

  /** A click happened (Enable sound, Start, Resume): browsers allow audio to start now. */
  userGesture() {
    if (this.mode !== "browser") return;
    this.ensureContext();
    if (this.ctx && this.ctx.state !== "running") {
      this.ctx.resume().then(
        () => this.resync(),
        (error) => console.warn("audio: resume failed", error),
      );
    }
  }

  ensureContext() {
    if (this.ctx || this.loadError) return;
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) {
      this.loadError = "this browser cannot play audio (no Web Audio)";
      return;
    }
    try {
      this.ctx = new Context({ latencyHint: "interactive" });
    } catch (error) {
      this.loadError = `this browser cannot play audio (${error.message})`;
      return;
    }
    this.ctx.addEventListener("statechange", () => {
      if (this.ctx.state !== "running") this.stop();
      else if (!this.source) this.resync();
      this.showStatus();
    });
  }

  async ensureBuffer(url) {
    if (!this.ctx || this.loading || (this.buffer && this.bufferUrl === url)) return;
    if (performance.now() < this.retryAt) return;
    this.loading = true;
    this.showStatus();
    try {
      const response = await fetch(url, { cache: "no-cache" }); // revalidate: a new timeline, a new file
      if (!response.ok) {
        let detail = `the server answered ${response.status}`;
        try {
          detail = (await response.json()).detail || detail;
        } catch (error) {
          // not JSON: keep the status
        }
        throw new Error(detail);
      }
      const data = await response.arrayBuffer();
      this.buffer = await this.ctx.decodeAudioData(data);
      this.bufferUrl = url;
      this.loadError = null;
      await this.sync.measure();
      this.resync();
    } catch (error) {
      this.loadError = `the soundtrack could not be loaded: ${error.message || error}`;
      this.retryAt = performance.now() + LOAD_RETRY_MS;
      setTimeout(() => {
        this.loadError = null;
        if (this.state) this.update(this.state);
      }, LOAD_RETRY_MS);
    } finally {
      this.loading = false;
      this.showStatus();
    }
  }

  playable() {
    const state = this.state;
    return Boolean(
      !this.muted &&
        this.buffer &&
        this.ctx &&
        this.ctx.state === "running" &&
        state &&
        state.game &&
        state.clock.status === "running" &&
        state.game.state.outcome === "running",
    );
  }

  resync() {
    this.stop();
    if (this.playable()) this.schedule();
  }

  /** The context time being heard right now (the output timestamp accounts for latency). */
  heardContextTime() {
    const ctx = this.ctx;
    if (typeof ctx.getOutputTimestamp === "function") {
      const stamp = ctx.getOutputTimestamp();
      if (stamp && stamp.performanceTime > 0) {
        return stamp.contextTime + (performance.now() - stamp.performanceTime) / 1000;
      }
    }
    return ctx.currentTime - (ctx.baseLatency || 0) - (ctx.outputLatency || 0);
  }

  /** The soundtrack position being heard now, from the playing source. */
  heardPosition() {
    return this.startOffset + (this.heardContextTime() - this.startedAt);
  }

  schedule() {
    const heardNow = this.heardContextTime();
    let when = this.ctx.currentTime + SCHEDULE_LEAD_SECONDS;
    // `when` is heard (when - heardNow) seconds from now: play what the server clock says then.
    let offset = positionNow(this.state, this.sync) + (when - heardNow);
    if (offset >= this.buffer.duration) return;
    if (offset < 0) {
      when -= offset;
      offset = 0;
    }
    const source = this.ctx.createBufferSource();
    source.buffer = this.buffer;
    source.connect(this.ctx.destination);
    source.addEventListener("ended", () => {
      if (this.source === source) this.source = null;
    });
    source.start(when, offset);
    this.schedules += 1;
    this.source = source;
    this.startedAt = when;
    this.startOffset = offset;
    this.lastDrift = 0;
  }

  stop() {
    if (!this.source) return;
    const source = this.source;
    this.source = null;
    try {
      source.stop();
      source.disconnect();
    } catch (error) {
      // already stopped
    }
  }

  /** Say plainly where the sound comes from, and whether it is in sync. */
  showStatus() {
    const needsGesture = this.mode === "browser" && this.ctx && this.ctx.state === "suspended" && !this.muted;
    this.enableButton.hidden = !needsGesture;
    this.muteButton.hidden = this.mode !== "browser";
    const muteText = this.muted ? "Unmute here" : "Mute here";
    if (this.muteButton.textContent !== muteText) this.muteButton.textContent = muteText;
    const text = this.statusText(needsGesture);
    if (this.statusEl.textContent !== text) this.statusEl.textContent = text;
  }

  statusText(needsGesture) {
    if (!this.state || !this.state.game) return "Sound: no game";
    if (this.mode === "host") return "Sound: this computer's speakers";
    if (this.mode === "off") return "Sound off";
    if (this.muted) return "Sound: muted on this page";
    if (this.loadError) return `Sound: this browser — ${this.loadError}`;
    if (!this.buffer) return "Sound: this browser (loading the soundtrack…)";
    if (needsGesture) return "Sound: this browser — press Enable sound";
    const status = this.state.clock.status;
    if (status === "ready") return "Sound: this browser (ready)";
    if (status === "paused") return "Sound: this browser (paused)";
    if (!this.source) return "Sound: this browser (stopped)";
    const uncertainty = this.sync.uncertainty || 0;
    const error = Math.max(Math.abs(this.lastDrift || 0), uncertainty);
    return `Sound: this browser (in sync ±${Math.max(1, Math.round(error * 1000))} ms)`;
  }
}
