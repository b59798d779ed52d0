// Module 8's digital sand timers on the game page: the green (30 s) and blue (1 min) timers
// running on time chambers, each with its chamber, what the table must (not) do meanwhile, the
// seconds left on the game clock and a draining bar. A short beep sounds at 10 seconds left
// and a chime when the sand runs out (the server then records `time_up` by itself).
//
// Test ids: timers, timer-<colour> (its row), timer-left-<colour>.

import { el, fill, setText } from "./common.js";
import { t as say } from "./words.js";

const WARN_SECONDS = 10;
let ctx = null;

/** Web Audio needs a user's gesture once: any click or key on the page opens it. */
function unlockAudio() {
  if (ctx) return;
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return;
  try {
    ctx = new Context();
  } catch (error) {
    console.warn("sand timers: no audio", error);
  }
}
window.addEventListener("pointerdown", unlockAudio, { once: true });
window.addEventListener("keydown", unlockAudio, { once: true });

function tone(frequency, seconds, delay = 0) {
  if (!ctx || ctx.state !== "running") return;
  const start = ctx.currentTime + delay;
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.frequency.value = frequency;
  gain.gain.setValueAtTime(0.0001, start);
  gain.gain.exponentialRampToValueAtTime(0.25, start + 0.02);
  gain.gain.exponentialRampToValueAtTime(0.0001, start + seconds);
  osc.connect(gain).connect(ctx.destination);
  osc.start(start);
  osc.stop(start + seconds + 0.05);
}

/** Play a sound (or mark it played where the page cannot sound yet). */
function sound(box, name) {
  box.dataset.lastSound = name;
  box.dataset.sounds = String(Number(box.dataset.sounds || 0) + 1);
  if (name === "ten-seconds") tone(880, 0.15);
  else {
    tone(660, 0.35);
    tone(990, 0.5, 0.3);
  }
}

const HOURGLASS = (colour) =>
  `<svg class="icon hourglass" viewBox="0 0 24 24" role="img" aria-label="${colour} sand timer"><title>${colour} sand timer</title>` +
  '<path d="M6 2 H18 M6 22 H18" stroke="#e0c48a" stroke-width="2"/>' +
  `<path d="M7 3 Q7 10 12 12 Q7 14 7 21 H17 Q17 14 12 12 Q17 10 17 3 Z" fill="none" stroke="${colour === "green" ? "#3ecf6e" : "#4aa3ff"}" stroke-width="1.6"/>` +
  `<path d="M9 19 Q12 15 15 19 Z" fill="${colour === "green" ? "#3ecf6e" : "#4aa3ff"}"/></svg>`;

function hourglass(colour) {
  const span = document.createElement("span");
  span.innerHTML = HOURGLASS(colour);
  return span.firstChild;
}

/** Lay out the running timers (rebuilt only when they change). */
export function renderTimers(box, timers) {
  const key = JSON.stringify(timers);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.warned = box.warned || {};
  // A timer the server ended (its time_up) before this page's clock got there: chime now.
  const now = new Set(timers.map((timer) => `${timer.colour}@${timer.ends}`));
  for (const old of box.timers || []) {
    const id = `${old.colour}@${old.ends}`;
    if (!now.has(id) && box.warned[id] !== "out" && old.ends <= (box.lastT ?? -Infinity) + 2) {
      box.warned[id] = "out";
      sound(box, "run-out");
    }
  }
  box.hidden = timers.length === 0;
  box.timers = timers;
  fill(
    box,
    timers.map((timer) =>
      el(
        "div",
        { class: `timer timer-${timer.colour}`, dataset: { testid: `timer-${timer.colour}` } },
        hourglass(timer.colour),
        el(
          "div",
          { class: "timer-text" },
          el("strong", { text: `${timer.name}: ` }),
          el("span", { text: timer.task }),
          el("div", { class: "timer-bar" }, el("span", { class: "timer-sand" })),
        ),
        el("span", { class: "timer-left", dataset: { testid: `timer-left-${timer.colour}` } }),
      ),
    ),
  );
}

/** Show the seconds left at game time `t`, beep at 10 seconds, chime when the sand is out. */
export function tickTimers(box, t, running) {
  box.lastT = t;
  const timers = box.timers || [];
  timers.forEach((timer, index) => {
    const row = box.children[index];
    if (!row) return;
    const left = Math.max(0, timer.ends - t);
    setText(row.querySelector(".timer-left"), left > 0 ? say("sand.seconds", { n: Math.ceil(left) }) : say("sand.out"));
    row.querySelector(".timer-sand").style.width = `${Math.max(0, Math.min(100, (left / timer.seconds) * 100))}%`;
    row.classList.toggle("hurry", left <= WARN_SECONDS);
    const id = `${timer.colour}@${timer.ends}`;
    if (!running) return;
    if (left <= WARN_SECONDS && left > 0 && box.warned[id] !== "ten") {
      box.warned[id] = "ten";
      sound(box, "ten-seconds");
    }
    if (left <= 0 && box.warned[id] !== "out") {
      box.warned[id] = "out";
      sound(box, "run-out");
    }
  });
}
