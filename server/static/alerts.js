// Spoken alerts in the browser: the server announces each one on /api/alerts/stream (server-sent
// events); the tab that plays the soundtrack fetches its voice (/api/alerts/<id>.wav, rendered
// offline by espeak-ng on the server), and plays it over the soundtrack: the music ducks under
// the voice, and everything goes through one limiter, so the mix never clips. Alerts come one
// after another, never over each other. When the host's speakers play the soundtrack, the host
// speaks them and this page only shows the choice.
//
// The table's choice (all alerts, the countdowns only, off; the volume) is the server's, kept in
// its data folder: every page and the host speakers follow it.

import { t } from "./words.js";

const DUCK_LEVEL = 0.25; // the music's gain under a voice (as the host mixes it)
const LEAD_SECONDS = 0.12; // the music fades down this long before the first word
const RELEASE_SECONDS = 0.5; // ...and back up after the last
const VOLUME_SAVE_MS = 300;
const HEARD_KEPT = 50;
const FREQUENCY_WORDS = { all: "alerts.all", countdowns: "alerts.countdowns", off: "alerts.off" };
const LANGUAGE_NAMES = { en: "English", pt: "Português", es: "Español", el: "Ελληνικά" }; // each in its own words

const PANEL_REM = 22; // the alert controls' panel, wide enough for the longest language's words

export class SpokenAlerts {
  /** audio: the page's BrowserAudio (its context, music gain and limiter); after: the element
   * the controls go after. */
  constructor(audio, after) {
    this.audio = audio;
    this.settings = null;
    this.voiceEnd = 0; // context time the last scheduled voice (and its release) ends
    this.scheduled = []; // what this page scheduled: {seq, text, url, when, duration, volume}
    this.heard = []; // every alert the stream brought: {seq, text, played, why}
    this.buffers = new Map();
    this.buildControls(after);
    this.loadSettings();
    this.listen();
  }

  buildControls(after) {
    const box = document.createElement("div");
    box.className = "spoken-alerts";
    box.dataset.testid = "spoken-alerts";
    // Laid out here (one wrapping row that fits 390 px), so that no style sheet depends on it.
    Object.assign(box.style, { display: "flex", flexWrap: "wrap", alignItems: "center", gap: "0.4rem 0.8rem", margin: "0.3rem 0" });
    const label = document.createElement("label");
    label.textContent = `${t("alerts.label")} `;
    this.frequency = document.createElement("select");
    this.frequency.dataset.testid = "alerts-frequency";
    this.frequency.style.fontSize = "inherit";
    for (const [value, key] of Object.entries(FREQUENCY_WORDS)) {
      const option = document.createElement("option");
      option.value = value;
      option.textContent = t(key);
      this.frequency.append(option);
    }
    label.append(this.frequency);
    this.language = document.createElement("select");
    this.language.dataset.testid = "alerts-language";
    this.language.style.fontSize = "inherit";
    this.language.setAttribute("aria-label", t("alerts.language"));
    for (const [value, words] of Object.entries(LANGUAGE_NAMES)) {
      const option = document.createElement("option");
      option.value = value;
      option.textContent = words;
      this.language.append(option);
    }
    const volumeLabel = document.createElement("label");
    volumeLabel.textContent = `${t("alerts.voice")} `;
    this.volume = document.createElement("input");
    Object.assign(this.volume, { type: "range", min: "0", max: "100", step: "5" });
    this.volume.dataset.testid = "alerts-volume";
    this.volume.setAttribute("aria-label", t("alerts.volume"));
    Object.assign(this.volume.style, { width: "7rem", maxWidth: "40vw", verticalAlign: "middle" });
    volumeLabel.append(this.volume);
    this.tryButton = document.createElement("button");
    this.tryButton.className = "btn";
    this.tryButton.textContent = t("alerts.try");
    this.tryButton.title = t("alerts.try_title");
    this.tryButton.dataset.testid = "alerts-try";
    this.notice = document.createElement("p");
    this.notice.className = "muted";
    this.notice.dataset.testid = "alerts-notice";
    this.notice.hidden = true;
    Object.assign(this.notice.style, { flexBasis: "100%", margin: "0", overflowWrap: "anywhere" });
    const said = document.createElement("span"); // "Spoken alerts [All alerts] in [English]"
    said.append(label, ` ${t("alerts.in")} `, this.language);
    box.append(said, volumeLabel, this.tryButton, this.notice);
    for (const control of this.controls()) control.disabled = true;
    // The controls fold away behind one button in the row of "Mute here": at 1920 x 1080 the
    // top bar must not grow (the temple needs the height), and the open panel floats over the page.
    const fold = document.createElement("details");
    fold.className = "spoken-alerts-fold";
    fold.dataset.testid = "spoken-alerts-fold";
    Object.assign(fold.style, { position: "relative", display: "inline-block" });
    const summary = document.createElement("summary");
    summary.className = "btn";
    summary.dataset.testid = "alerts-toggle";
    summary.textContent = `${t("alerts.label")} ▾`;
    Object.assign(summary.style, { listStyle: "none", cursor: "pointer" });
    Object.assign(box.style, {
      position: "absolute",
      top: "calc(100% + 0.3rem)",
      right: "0",
      zIndex: "30",
      width: `${PANEL_REM}rem`,
      maxWidth: "92vw",
      boxSizing: "border-box",
      padding: "0.6rem 0.8rem",
      borderRadius: "10px",
      border: "1px solid rgba(255, 255, 255, 0.25)",
      background: "#161c26",
      boxShadow: "0 6px 24px rgba(0, 0, 0, 0.5)",
    });
    const place = () => {
      // Under the button, its right edges aligned, but never beyond either side of the screen
      // (fixed to the screen, so that a page that moves while it is open cannot push it off;
      // placed before it opens: the panel's width is known from its style).
      const rem = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
      const wide = Math.min(PANEL_REM * rem, 0.92 * innerWidth);
      const button = summary.getBoundingClientRect();
      const margin = 8;
      const left = Math.max(margin, Math.min(button.right - wide, innerWidth - wide - margin));
      Object.assign(box.style, { position: "fixed", left: `${left}px`, right: "auto", top: `${button.bottom + 5}px` });
    };
    summary.addEventListener("click", place);
    // While open, it follows its button every frame: the top bar can still reflow after the
    // click (the game's state arriving, a notice, the fonts), which no resize or scroll tells.
    const follow = () => {
      if (!fold.open) return;
      place();
      requestAnimationFrame(follow);
    };
    fold.addEventListener("toggle", () => fold.open && follow());
    // However it came to open, it is placed as soon as it has a size.
    if (typeof ResizeObserver === "function") new ResizeObserver(() => fold.open && place()).observe(box);
    for (const moved of ["resize", "scroll"]) addEventListener(moved, () => fold.open && place(), { passive: true });
    fold.append(summary, box);
    after.append(fold);
    this.frequency.addEventListener("change", () => this.save({ frequency: this.frequency.value }));
    this.volume.addEventListener("input", () => {
      clearTimeout(this.volumeTimer);
      this.volumeTimer = setTimeout(() => this.save({ volume: Number(this.volume.value) / 100 }), VOLUME_SAVE_MS);
    });
    this.language.addEventListener("change", () => this.save({ language: this.language.value }));
    this.tryButton.addEventListener("click", () => this.tryVoice());
  }

  controls() {
    return [this.frequency, this.language, this.volume, this.tryButton];
  }

  async loadSettings() {
    try {
      const response = await fetch("/api/alerts/settings", { cache: "no-store" });
      if (response.ok) this.show(await response.json());
    } catch (error) {
      console.warn("alerts: settings not loaded", error);
    }
  }

  async save(change) {
    try {
      const response = await fetch("/api/alerts/settings", {
        method: "PUT",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(change),
      });
      const answer = await response.json();
      if (!response.ok) throw new Error(answer.detail || `the server answered ${response.status}`);
      this.show(answer);
    } catch (error) {
      this.showNotice(t("alerts.not_saved", { error: error.message || error }));
    }
  }

  async tryVoice() {
    this.audio.userGesture();
    try {
      await fetch("/api/alerts/try", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
    } catch (error) {
      this.showNotice(t("alerts.not_sent", { error: error.message || error }));
    }
  }

  show(settings) {
    this.settings = settings;
    for (const control of this.controls()) control.disabled = false;
    this.frequency.value = settings.frequency;
    this.language.value = settings.language;
    if (document.activeElement !== this.volume) this.volume.value = String(Math.round(settings.volume * 100));
    this.tryButton.disabled = !settings.engine.available;
    this.showNotice(settings.engine.available ? "" : settings.engine.notice);
  }

  showNotice(text) {
    this.notice.textContent = text;
    this.notice.hidden = !text;
  }

  listen() {
    if (typeof EventSource !== "function") return;
    this.stream = new EventSource("/api/alerts/stream");
    this.stream.addEventListener("message", (event) => {
      let alert = null;
      try {
        alert = JSON.parse(event.data);
      } catch (error) {
        return;
      }
      this.arrived(alert);
    });
  }

  /** An alert the server announced: speak it here when this page plays the soundtrack. */
  arrived(alert) {
    const heard = { seq: alert.seq, text: alert.text, played: false, why: "" };
    this.heard.push(heard);
    if (this.heard.length > HEARD_KEPT) this.heard.shift();
    if (this.audio.mode !== "browser") heard.why = `sound: ${this.audio.mode}`;
    else if (!this.audio.playing) heard.why = "another tab or muted";
    else if (!alert.url) heard.why = alert.notice || "no voice";
    else if (!this.audio.ctx || this.audio.ctx.state !== "running") heard.why = "sound not enabled on this page";
    if (heard.why) return;
    this.play(alert, heard);
  }

  async play(alert, heard) {
    const audio = this.audio;
    audio.ensureContext();
    const ctx = audio.ctx;
    if (!ctx || !audio.music) {
      heard.why = audio.loadError || "no Web Audio";
      return;
    }
    try {
      let buffer = this.buffers.get(alert.url);
      if (!buffer) {
        const response = await fetch(alert.url);
        if (!response.ok) throw new Error(`the server answered ${response.status}`);
        buffer = await ctx.decodeAudioData(await response.arrayBuffer());
        this.buffers.set(alert.url, buffer);
      }
      const when = Math.max(ctx.currentTime + LEAD_SECONDS, this.voiceEnd);
      const voice = ctx.createBufferSource();
      voice.buffer = buffer;
      const gain = ctx.createGain();
      gain.gain.value = alert.volume;
      voice.connect(gain);
      gain.connect(audio.limiter);
      voice.start(when);
      const end = when + buffer.duration;
      const music = audio.music.gain;
      if (alert.volume > 0) {
        music.setTargetAtTime(DUCK_LEVEL, when - LEAD_SECONDS, LEAD_SECONDS / 3);
        music.setTargetAtTime(1, end, RELEASE_SECONDS / 3);
      }
      this.voiceEnd = end + RELEASE_SECONDS / 2;
      heard.played = true;
      this.scheduled.push({ seq: alert.seq, text: alert.text, url: alert.url, when, duration: buffer.duration, volume: alert.volume });
    } catch (error) {
      heard.why = `the alert's voice could not be played: ${error.message || error}`;
    }
  }
}
