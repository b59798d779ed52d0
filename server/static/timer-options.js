// The set-up page's Timer section: the official timeline, your own timer (game length, how many
// countdowns, their length, no countdown before a delay, countdowns at random times), or
// practice for new players. timerChoice() is what the new-game request adds: nothing for the
// official timeline, else {timer: {...}} (the server makes the timeline, and for random times
// its seed, and answers 422 with the reason when the countdowns do not fit).
//
// The times shown here follow rules/timer_options.py: the last countdown ends with the
// collapse; the others start at the delay and are spread evenly up to it, at least 10 s between
// a door slam and the next gong. With random times the page says only how many come, never when.

const MIN_GAP_SECONDS = 10; // rules/timer_options.MIN_GAP_SECONDS
const PRACTICE = { minutes: 20, countdowns: 3, countdown_seconds: 45, first_delay_seconds: 300, practice: true };
// rules/timer_options.PRACTICE

const $ = (id) => document.getElementById(id);

function clock(seconds) {
  const whole = Math.ceil(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

function chosen() {
  const input = document.querySelector('input[name="timer"]:checked');
  return input ? input.value : "official";
}

function ownOptions() {
  return {
    minutes: Number($("timer-minutes").value),
    countdowns: Number($("timer-countdowns").value),
    countdown_seconds: Number($("timer-length").value),
    first_delay_seconds: Number($("timer-delay").value),
    random: $("timer-random").checked,
  };
}

/** The shortest game the options' countdowns fit in (rules/timer_options.needed_seconds). */
function neededSeconds(o) {
  if (o.countdowns === 1) return o.countdown_seconds;
  return o.first_delay_seconds + (o.countdowns - 1) * (o.countdown_seconds + MIN_GAP_SECONDS) + o.countdown_seconds;
}

/** The countdowns' start times at fixed times (rules/timer_options.timer_timeline). */
function fixedStarts(o) {
  const game = o.minutes * 60;
  const lastStart = game - o.countdown_seconds;
  if (o.countdowns === 1) return [lastStart];
  const step = Math.floor((lastStart - o.first_delay_seconds) / (o.countdowns - 1));
  const starts = [];
  for (let k = 0; k < o.countdowns - 1; k += 1) starts.push(o.first_delay_seconds + k * step);
  starts.push(lastStart);
  return starts;
}

function summary(o) {
  const game = o.minutes * 60;
  const need = neededSeconds(o);
  if (need > game) {
    return {
      fits: false,
      text:
        `${o.countdowns} countdowns of ${o.countdown_seconds} s, none before ${clock(o.first_delay_seconds)}, ` +
        `need a game of at least ${clock(need)}: shorten the countdowns or the delay, have fewer, or play longer.`,
    };
  }
  const end = `the last at ${clock(game - o.countdown_seconds)}, ending with the collapse at ${clock(game)}`;
  if (o.countdowns === 1) return { fits: true, text: `One countdown of ${o.countdown_seconds} s: ${end}.` };
  if (o.random) {
    const others = o.countdowns - 1;
    return {
      fits: true,
      text:
        `${o.countdowns} countdowns of ${o.countdown_seconds} s: ${others === 1 ? "one" : others} at a random time ` +
        `after ${clock(o.first_delay_seconds)} (nobody knows when until the gong), ${end}.`,
    };
  }
  const starts = fixedStarts(o).map(clock);
  return {
    fits: true,
    text: `${o.countdowns} countdowns of ${o.countdown_seconds} s, at ${starts.join(", ")}; the collapse at ${clock(game)}.`,
  };
}

function show() {
  const which = chosen();
  $("timer-settings").hidden = which !== "custom";
  const o = ownOptions();
  $("timer-minutes-shown").textContent = `${o.minutes} min`;
  $("timer-countdowns-shown").textContent = String(o.countdowns);
  $("timer-length-shown").textContent = `${o.countdown_seconds} s`;
  $("timer-delay-shown").textContent = clock(o.first_delay_seconds);
  const delay = $("timer-delay");
  delay.disabled = o.countdowns === 1; // the one countdown ends with the collapse
  $("timer-delay-row").classList.toggle("unused", delay.disabled);
  const note = $("timer-summary");
  let said = { fits: true, text: "" };
  if (which === "custom") said = summary(o);
  else if (which === "practice") said = summary({ ...PRACTICE, random: false });
  note.textContent = said.text;
  note.classList.toggle("timer-misfit", !said.fits);
}

/** What the new-game request adds for the chosen timer (nothing for the official timeline). */
export function timerChoice() {
  const which = chosen();
  if (which === "custom") return { timer: ownOptions() };
  if (which === "practice") return { timer: { ...PRACTICE } };
  return {};
}

function wire() {
  const section = $("timer-options");
  if (!section) return;
  section.addEventListener("input", show);
  section.addEventListener("change", show);
  show();
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire);
else wire();
