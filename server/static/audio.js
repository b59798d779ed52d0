// Browser audio: when the server says audio.mode is "browser", this page plays the soundtrack
// with Web Audio, in step with the server's game clock.
//
// How it stays in sync: the soundtrack is fetched and decoded once; the offset between this
// browser's clock and the server's is estimated by pinging /api/time (see ClockSync); the
// buffer source is started so that the sample being heard at any moment is the server clock's
// position (start(when, position at `when`)). It is re-scheduled on start, pause, resume and
// restart, and whenever the heard position drifts more than 150 ms from the server clock.
//
// One tab plays: the tabs of this browser open on the dashboard agree over a BroadcastChannel.
// A new tab asks whether another one plays and, if so, mutes itself ("playing in another tab",
// with Play here to take the sound over); a tab that takes it over tells the others, which mute
// themselves. The tab that plays is remembered (localStorage), so it plays again after a reload;
// when it closes, one of the tabs muted for it takes over. "Mute here" is this tab's own choice,
// kept over a reload (sessionStorage). Two devices (a laptop and a phone) do not see each other:
// there "Mute here" on one is the way.
//
// The soundtrack plays through a gain (`music`, ducked under a spoken alert) into one limiter
// (`limiter`) before the speakers; the spoken alerts (alerts.js) join the limiter too.

import { SpokenAlerts } from "./alerts.js";
import { positionNow } from "./common.js";
import { t } from "./words.js";

const MAX_DRIFT_SECONDS = 0.15;
const SCHEDULE_LEAD_SECONDS = 0.15;
const DRIFT_CHECK_MS = 500;
const LOAD_RETRY_MS = 5000;
const MUTED_KEY = "templecam.muted"; // sessionStorage: this tab was muted by its user
const TAB_KEY = "templecam.audio.tab"; // sessionStorage: this tab's id, kept over a reload
const PLAYER_KEY = "templecam.audio.player"; // localStorage: the tab chosen to play
const CHANNEL_NAME = "templecam.audio";
const ASK_MS = 300; // how long a tab waits for another to say it plays
const TAKE_OVER_MS = 1500; // after the tab that played closed (a reload comes back sooner)

function stored(storage, key) {
  try {
    return window[storage].getItem(key);
  } catch (error) {
    return null; // private mode, storage off
  }
}

function store(storage, key, value) {
  try {
    if (value === null) window[storage].removeItem(key);
    else window[storage].setItem(key, value);
  } catch (error) {
    // private mode: remembered for this page only
  }
}

function tabId() {
  let id = stored("sessionStorage", TAB_KEY);
  if (!id) {
    id = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
    store("sessionStorage", TAB_KEY, id);
  }
  return id;
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
    this.muted = stored("sessionStorage", MUTED_KEY) === "1";
    this.tab = tabId();
    this.elsewhere = false; // another tab of this browser plays the sound
    this.deciding = false; // asking the other tabs whether one plays
    this.channel = null;
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
    this.music = null; // the soundtrack's gain (ducked under a spoken alert)
    this.limiter = null; // everything this page plays goes through it: the mix never clips
    enableButton.addEventListener("click", () => this.userGesture());
    muteButton.addEventListener("click", () => {
      if (this.muted || this.elsewhere) this.playHere();
      else this.setMuted(true);
    });
    this.joinTabs();
    this.alerts = new SpokenAlerts(this, muteButton.parentElement);
  }

  /** Mute or unmute the soundtrack on this page only (remembered over a reload). */
  setMuted(muted) {
    this.muted = muted;
    store("sessionStorage", MUTED_KEY, muted ? "1" : null);
    this.resync();
    this.showStatus();
  }

  /** Play the sound on this tab: the other tabs of this browser mute themselves. */
  playHere() {
    this.muted = false;
    store("sessionStorage", MUTED_KEY, null);
    this.claim();
    this.userGesture();
  }

  /** Whether this tab is the one that plays (as far as the tabs agree). */
  get playing() {
    return !this.muted && !this.elsewhere && !this.deciding;
  }

  joinTabs() {
    if (typeof BroadcastChannel !== "function") return; // no coordination: every tab plays
    this.channel = new BroadcastChannel(CHANNEL_NAME);
    this.channel.addEventListener("message", (event) => this.heard(event.data || {}));
    window.addEventListener("pagehide", () => {
      if (this.playing) this.channel.postMessage({ type: "bye", tab: this.tab });
    });
    if (this.muted) return;
    if (stored("localStorage", PLAYER_KEY) === this.tab) {
      this.claim(); // this tab played before its reload
      return;
    }
    this.ask(() => this.claim(true));
  }

  /** Ask whether another tab plays; `otherwise` runs when none says so within ASK_MS. */
  ask(otherwise) {
    this.deciding = true;
    this.asked = otherwise;
    this.channel.postMessage({ type: "who-plays", tab: this.tab });
    clearTimeout(this.askTimer);
    this.askTimer = setTimeout(() => {
      if (!this.deciding) return;
      this.deciding = false;
      otherwise();
    }, ASK_MS);
    this.showStatus();
  }

  /**
   * Play on this tab and tell the others. `auto`: nobody answered "who plays?" in time, which a
   * busy tab that does play may only have been slow to say: such a claim yields to a tab that
   * played before it (`since`), where a player's own "Play here" always wins.
   */
  claim(auto = false) {
    this.deciding = false;
    this.elsewhere = false;
    this.since = Date.now();
    clearTimeout(this.askTimer);
    clearTimeout(this.takeOverTimer);
    store("localStorage", PLAYER_KEY, this.tab);
    if (this.channel) {
      this.channel.postMessage({ type: "claim", tab: this.tab, auto, since: this.since });
    }
    this.resync();
    this.showStatus();
  }

  heard(message) {
    if (message.tab === this.tab) return;
    if (message.type === "who-plays" && this.playing) {
      this.channel.postMessage({ type: "playing", tab: this.tab, since: this.since });
    } else if (message.type === "claim" && message.auto && this.playing && this.since <= message.since) {
      this.channel.postMessage({ type: "playing", tab: this.tab, since: this.since }); // I was first
    } else if (message.type === "playing" && this.playing && this.since < message.since) {
      // a tab that claimed after this one: it yields when it hears this tab play
    } else if (message.type === "playing" || message.type === "claim") {
      clearTimeout(this.takeOverTimer);
      if (this.muted) return;
      this.deciding = false;
      clearTimeout(this.askTimer);
      this.elsewhere = true;
      this.stop();
      this.showStatus();
    } else if (message.type === "bye" && this.elsewhere && !this.muted) {
      // The tab that played went away: take over unless it comes back (a reload) or another
      // tab muted for it is quicker (the random part keeps two of them from both taking over).
      clearTimeout(this.takeOverTimer);
      this.takeOverTimer = setTimeout(() => {
        if (this.elsewhere && !this.muted) this.ask(() => this.claim(true));
      }, TAKE_OVER_MS + Math.random() * 1000);
    }
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
    // A limiter: a fast compressor with a hard knee just under full scale.
    this.limiter = this.ctx.createDynamicsCompressor();
    this.limiter.threshold.value = -3;
    this.limiter.knee.value = 0;
    this.limiter.ratio.value = 20;
    this.limiter.attack.value = 0.002;
    this.limiter.release.value = 0.1;
    this.limiter.connect(this.ctx.destination);
    this.music = this.ctx.createGain();
    this.music.connect(this.limiter);
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
      this.playing &&
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
    source.connect(this.music);
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
    const needsGesture = this.mode === "browser" && this.ctx && this.ctx.state === "suspended" && this.playing;
    this.enableButton.hidden = !needsGesture;
    this.muteButton.hidden = this.mode !== "browser";
    const muteText = this.elsewhere && !this.muted ? t("sound.play_here") : this.muted ? t("sound.unmute_here") : t("game.mute_here");
    if (this.muteButton.textContent !== muteText) this.muteButton.textContent = muteText;
    const title = this.playing ? t("game.mute_here_title") : t("sound.play_title");
    if (this.muteButton.title !== title) this.muteButton.title = title;
    const text = this.statusText(needsGesture);
    if (this.statusEl.textContent !== text) this.statusEl.textContent = text;
  }

  statusText(needsGesture) {
    if (!this.state || !this.state.game) return t("sound.no_game");
    if (this.mode === "host") return t("sound.host");
    if (this.mode === "off") return t("sound.off");
    if (this.muted) return t("sound.muted");
    if (this.elsewhere) return t("sound.elsewhere");
    if (this.loadError) return t("sound.load_error", { error: this.loadError });
    if (!this.buffer) return t("sound.loading");
    if (needsGesture) return t("sound.press_enable");
    const status = this.state.clock.status;
    if (status === "ready") return t("sound.ready");
    if (status === "paused") return t("sound.paused");
    if (!this.source) return t("sound.stopped");
    const uncertainty = this.sync.uncertainty || 0;
    const error = Math.max(Math.abs(this.lastDrift || 0), uncertainty);
    return t("sound.in_sync", { ms: Math.max(1, Math.round(error * 1000)) });
  }
}
