// The game page: the clock, the countdown alerts, the temple, every player's open actions, and
// manual entry of events. Live updates come from /api/stream (Server-Sent Events).
//
// Stable test ids (data-testid):
//   clock, clock-label, clock-left          the big game clock, its label and the time left
//   clock-start, clock-pause, clock-resume, clock-restart, undo
//   keys-to-escape, depot, turns-of-fate    the counters
//   countdown-alert                          the flashing banner during a countdown, with
//     countdown-left, must-run-back           its time left and who must run back (or is inside)
//   notices, warnings, log, toast, connection, audio-status, enable-sound, mute-here
//   log-line-<line>, fix-<line>, corrected-<line>   a log entry, its Fix button, its "corrected"
//     flag (the Fix dialog's own ids are listed in fix.js)
//   outcome, outcome-close                   the WON / LOST overlay and its "show the board"
//   temple, tile-<x>_<y>, spot-<x>_<y>       placed tiles, and empty cells that can be discovered
//     (drawn by temple.js, which lists its own ids: tokens, "+k", zoom)
//   team-actions, team-turn_of_fate
//   player-<pid>, where-<pid>, stats-<pid>, showing-<pid>, actions-<pid>
//   action-<pid>-<action>[-<x>_<y>][-g<gems>][-by-<helper>][-to-<receiver>]
//       e.g. action-red-discover-1_0, action-red-enter-1_0, action-red-activate-1_0-g1,
//       action-red-escape, action-red-unlock-by-blue, action-red-give_die-to-blue
//   tile-picker, pick-tile-<tile id>, picker-cancel   (the discover picker)
//   modules-<pid>, curse-<pid>-<card>, curses-owed-<pid>, treasure-<pid>-<treasure>   (modules 1
//     and 2 on a player's card; a double key or torch is a toggle: spend it with the next action)
//   action-<pid>-curse, action-<pid>-lift-<card>, action-<pid>-claim, action-<pid>-lose_die,
//   action-<pid>-use-<treasure>[-<x>_<y>]
//   module-picker, pick-curse-<card>, pick-treasure-<treasure>, pick-passage-<n>,
//     pick-discard-<treasure> (the treasure a Lost treasure card costs), pick-choice-<n>,
//     module-picker-cancel   (what was drawn or turned up; where the secret passage goes)
//   more-<pid>, face-<pid>-<face>, roll-<pid>, report-roll-<pid>, clear-roll-<pid>
//   confirm-escape, confirm-escape-yes, confirm-escape-no   (an escape asks once)
//   advanced, advanced-json, advanced-send
//   no-game                                  shown when the server runs no game
//   camera-panel, camera-status, camera-video, camera-notes   the live camera (vision mode)
//   maya-calendar, maya-side, maya-next, maya-extra-keys, maya-track, maya-space-<n>, maya-dice
//     the Queenie Maya calendar board (its start is space 0)

import {
  api,
  ClockSync,
  el,
  FACE_LABELS,
  FACES,
  faceIcon,
  fill,
  formatClock,
  freshKey,
  gemIcon,
  keepFocus,
  phaseAt,
  playerBadge,
  playerStyle,
  positionNow,
  setText,
  toast,
} from "./common.js";
import { BrowserAudio } from "./audio.js";
import { has, joinNames, lang, t } from "./words.js";
import { renderTimers, tickTimers } from "./sand-timers.js";
import { entryRow, gemRow, SIDE_WORDS, SIDES, turnedDoors, wallsSvg } from "./tile-art.js";
import { cellKey, renderTemple, sameCell, wireTemple } from "./temple.js";
import { openFix, wireFixDialog } from "./fix.js";
import { calendarSymbol, characterIcon, curseIcon, marksRow, mayaFigure, moduleToken, reminderIcon, treasureIcon } from "./module-art.js";

const $ = (id) => document.getElementById(id);

const TICK_MS = 100;
const VISION_POLL_MS = 1000;
const POLL_MS = 2000;
const MAX_RECONNECT_MS = 15000;
const LOCAL_WARNINGS_KEPT = 3;
const SIDE_ARROWS = { N: "↑", E: "→", S: "↓", W: "←" };
const ACTION_ORDER = ["curse", "escape", "lava", "torch_task", "climb", "activate", "activate_linked", "carry", "sacrifice", "push_ghost", "task", "heal_tree", "enter", "discover", "claim", "unlock", "lift", "use", "lose_die", "give_die"];
const PAYING = new Set(["discover", "enter", "activate", "activate_linked", "carry", "push_ghost", "task", "heal_tree", "lava", "torch_task", "climb", "summon", "escape", "lift", "claim"]);

const sync = new ClockSync();
const audio = new BrowserAudio({
  sync,
  statusEl: $("audio-status"),
  enableButton: $("enable-sound"),
  muteButton: $("mute-here"),
});

let current = null;
let outcomeDismissedFor = null;
let alertKey = null;
const localWarnings = [];
const playerCards = new Map();

// ----- receiving states ---------------------------------------------------------------------

/** Take a state from the stream, a poll or a POST answer; older ones are ignored. */
function acceptState(state) {
  if (!state || !state.clock) return;
  if (current && state.server_time < current.server_time) return;
  const previous = current;
  current = state;
  render(previous, state);
}

function render(previous, state) {
  const game = state.game;
  $("no-game").hidden = Boolean(game);
  $("game-ui").hidden = !game;
  audio.update(state);
  if (!game) {
    $("outcome").hidden = true;
    return;
  }
  if (previous && previous.game_id !== state.game_id) localWarnings.length = 0;
  // The layout fits the number of player cards (set before the temple measures its room).
  document.body.dataset.players = String(Object.keys(game.players).length);
  renderCounters(previous, state);
  renderClockButtons(state);
  renderNotices(state.notices || []);
  renderReminders(game.reminders || []);
  renderMayaCalendar(game);
  renderTimers($("timers"), game.timers || []);
  renderTemple(game);
  renderTeam(game);
  renderPlayers(state);
  renderWarnings(state.warnings || []);
  renderLog(state.log || [], game);
  renderOutcome(state);
  tick();
}

// ----- counters and clock -------------------------------------------------------------------

function renderCounters(previous, state) {
  const now = state.game.state;
  const before = previous && previous.game && previous.game_id === state.game_id ? previous.game.state : null;
  showCounter("keys-to-escape", "keys-box", now.keys_to_escape, before && before.keys_to_escape);
  showCounter("depot", "depot-box", now.depot, before && before.depot);
  // After the game ends no turn of fate exists any more; a professional game never had one.
  const noFate = state.game.setup.difficulty === "professional" || now.outcome !== "running";
  const fate = noFate ? "–" : now.turns_of_fate_left;
  showCounter("turns-of-fate", "fate-box", fate, before && !noFate ? before.turns_of_fate_left : null);
  if (!$("depot-icon").firstChild) $("depot-icon").append(gemIcon());
}

function showCounter(id, boxId, value, previousValue) {
  setText($(id), String(value));
  if (previousValue !== null && previousValue !== undefined && previousValue !== value) {
    const box = $(boxId);
    box.classList.remove("changed");
    void box.offsetWidth; // restart the animation
    box.classList.add("changed");
  }
}

function renderClockButtons(state) {
  const status = state.clock.status;
  $("clock-start").hidden = status !== "ready";
  $("clock-pause").hidden = status !== "running";
  // The Maze's Time out holds the clock: its own "press play" action lets it go on.
  $("clock-resume").hidden = status !== "paused" || Boolean(state.clock.time_out);
  $("clock-restart").hidden = status === "ready";
  // A win can be undone (a mistaken last escape); the collapse cannot.
  $("undo").disabled = state.game.state.outcome === "lost";
  document.querySelector(".advanced").hidden = state.game.state.outcome === "lost";
}

/** Redraw what moves with time: the clock, the countdown alert, the page title. */
function tick() {
  if (!current || !current.game) return;
  const clock = current.clock;
  const timeline = clock.timeline;
  const position = positionNow(current, sync);
  const t = position - timeline.intro_seconds;
  const phase = phaseAt(timeline, t);
  showClock(clock.status, t, phase, timeline, current.game.state.outcome);
  showCountdownAlert(clock.status, phase, current);
  tickTimers($("timers"), t, clock.status === "running" && current.game.state.outcome === "running");
  audio.tick();
}

function showClock(status, at, phase, timeline, outcome) {
  const box = $("clock-box");
  let label;
  let text;
  let left;
  if (status === "ready") {
    label = t("game.clock.press_start");
    text = formatClock(0);
    left = t("game.clock.to_escape", { time: formatClock(timeline.game_seconds) });
  } else if (outcome !== "running" || status === "over") {
    label = t(outcome === "won" ? "game.clock.escaped" : outcome === "lost" ? "game.clock.collapsed" : "game.clock.over");
    text = formatClock(Math.max(0, at));
    left = "";
  } else if (at < 0) {
    label = t(status === "paused" ? "game.clock.paused" : "game.clock.get_ready");
    text = formatClock(Math.ceil(-at));
    left = t("game.clock.until_escape");
  } else {
    label = t(status === "paused" ? "game.clock.paused" : "game.clock.game_time");
    const heldBy = status === "paused" && current.clock.time_out; // the Maze's Time out
    if (heldBy) label = t("game.clock.time_out", { name: playerStyle(heldBy).name });
    text = formatClock(at);
    left = t("game.clock.left", { time: formatClock(Math.ceil(phase.secondsLeft)) });
  }
  box.classList.toggle("intro", status !== "ready" && at < 0 && outcome === "running");
  box.classList.toggle("paused", status === "paused");
  setText($("clock-label"), label);
  setText($("clock"), text);
  setText($("clock-left"), left);
  const title = status === "ready" ? "templecam" : `${text}${phase.countdown ? ` · ${t("game.countdown_short", { n: phase.countdown })}` : ""} · templecam`;
  if (document.title !== title) document.title = title;
}

function showCountdownAlert(status, phase, state) {
  const box = $("countdown-alert");
  const active =
    phase.countdown !== null && (status === "running" || status === "paused") && state.game.state.outcome === "running";
  document.body.classList.toggle("alerting", active);
  $("clock-box").classList.toggle("countdown", active);
  if (!active) {
    box.hidden = true;
    alertKey = null;
    markMustRun([]);
    return;
  }
  const who = isLastCountdown(phase.countdown) ? stillInside(state.game) : mustRunBack(state, phase.countdown);
  const fading = isLastCountdown(phase.countdown) ? null : illusionWarning(state.game);
  const key = `${phase.countdown}:${who.join(",")}:${fading ? fading.textContent : ""}`;
  if (key !== alertKey) {
    alertKey = key;
    fill(box, countdownHeadline(phase.countdown), countdownWho(phase.countdown, who), fading);
    markMustRun(isLastCountdown(phase.countdown) ? [] : who);
  }
  setText(box.querySelector(".time-left"), t("game.clock.left", { time: formatClock(Math.ceil(phase.secondsLeftInCountdown)) }));
  box.hidden = false;
}

/** The last countdown ends with the collapse (the 3rd of the official timeline; a game's timer
 * options may make 1 to 6; the state's timeline always shows the last). */
function isLastCountdown(n) {
  const countdowns = current && current.clock ? current.clock.timeline.countdowns : [];
  return n === (countdowns.length ? Math.max(...countdowns.map((c) => c.n)) : 3);
}

function countdownHeadline(n) {
  const what = t(isLastCountdown(n) ? "game.countdown.collapse" : "game.countdown.back");
  return el(
    "div",
    { class: "headline" },
    el("span", {}, t("game.countdown", { n, what })),
    el("span", { class: "time-left", dataset: { testid: "countdown-left" } }),
  );
}

/** Module 3: the illusion chambers that vanish at this door slam, and who is still on one. */
function illusionWarning(game) {
  if (!game.setup.modules.includes("illusions")) return null;
  const tiles = game.temple.filter((tile) => tile.illusion);
  if (tiles.length === 0) return null;
  const on = tiles.flatMap((tile) => tile.players);
  const text = on.length
    ? t("game.illusions_on", { names: on.map((pid) => playerStyle(pid).name).join(", ") })
    : t(tiles.length === 1 ? "game.illusion_vanishes" : "game.illusions_vanish", { n: tiles.length });
  return el("div", { class: "who illusion-warning", dataset: { testid: "illusion-warning" } }, text);
}

function countdownWho(n, who) {
  if (who.length === 0) {
    const text = t(isLastCountdown(n) ? "game.countdown.all_out" : "game.countdown.all_in");
    return el("div", { class: "who", dataset: { testid: "must-run-back" } }, text);
  }
  const title = t(isLastCountdown(n) ? "game.countdown.still_inside" : "game.countdown.run_back");
  return el(
    "div",
    { class: "who", dataset: { testid: "must-run-back" } },
    title,
    who.map((pid) => el("span", {}, playerBadge(pid), " ", el("span", { class: "player-name", text: shownName(pid) }))),
  );
}

/** Who must run back: the server's list when it agrees on the countdown, else the same rule here. */
function mustRunBack(state, countdown) {
  const serverCountdown = state.clock.phase.countdown;
  if (serverCountdown === countdown) return state.game.must_run_back;
  return Object.entries(state.game.players)
    .filter(([, p]) => !p.escaped && !(p.safe ?? p.in_start))
    .map(([pid]) => pid);
}

function stillInside(game) {
  return Object.entries(game.players)
    .filter(([, p]) => !p.escaped)
    .map(([pid]) => pid);
}

function markMustRun(pids) {
  for (const [pid, card] of playerCards) card.root.classList.toggle("must-run", pids.includes(pid));
  for (const badge of document.querySelectorAll("#temple .badge")) {
    badge.classList.toggle("must-run", pids.includes(badge.dataset.player));
  }
}

// ----- notices, warnings, log, outcome ------------------------------------------------------

const dismissedNotices = new Set();

/** The server's notices, each once; a player can close one (× closes it on this page). */
function renderNotices(notices) {
  const box = $("notices");
  const shown = [...new Set(notices)].filter((text) => !dismissedNotices.has(text));
  const key = shown.join("\n");
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  fill(
    box,
    shown.map((text) =>
      el(
        "div",
        { class: "notice", dataset: { testid: "notice" } },
        el("span", {}, el("strong", {}, `${t("game.note")} `), text),
        el(
          "button",
          {
            class: "notice-close",
            title: "close this note",
            "aria-label": "close this note",
            onclick: () => {
              dismissedNotices.add(text);
              renderNotices(notices);
            },
          },
          "×",
        ),
      ),
    ),
  );
}

/** Module reminders (module 4: the chalice, the linked and double chambers, the Large torch). */
function renderReminders(reminders) {
  const box = $("reminders");
  const key = JSON.stringify(reminders);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.hidden = reminders.length === 0;
  fill(
    box,
    reminders.map((reminder) =>
      el(
        "div",
        { class: `reminder reminder-${reminder.kind}`, dataset: { testid: `reminder-${reminder.kind}` } },
        reminderIcon(reminder.kind),
        el("span", { text: reminder.text }),
      ),
    ),
  );
}

// ----- Queenie: the Maya calendar board -----------------------------------------------------

/** The Maya calendar board (module maya_calendar): its start and 9 spaces with their symbols,
 * the figure on its space, the doomed side's two bars, the escape's extra keys. */
function renderMayaCalendar(game) {
  const box = $("maya-calendar");
  const board = game.state.maya_calendar;
  const key = JSON.stringify([board, game.maya_calendar, lang]);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.hidden = !board;
  if (!board) return;
  const extra = game.maya_calendar ? game.maya_calendar.extra_keys : 0;
  const doomed = board.side === "doomed";
  const aside = Object.entries(board.dice_aside || {}).map(([pid, n]) => `${playerStyle(pid).name} ${n}`);
  fill(
    box,
    el(
      "div",
      { class: "maya-head" },
      el("strong", { text: t("maya.title") }),
      el("span", { class: "maya-side", dataset: { testid: "maya-side" }, text: t(`maya.side.${board.side}`) }),
      el("span", {
        class: "maya-next",
        dataset: { testid: "maya-next" },
        text: board.next ? t("maya.next", { symbol: t(`maya.${board.next}`) }) : t("maya.last"),
      }),
      el("span", { class: "maya-stack", text: t("maya.stack", { n: board.stack }) }),
      doomed
        ? el("span", {
            class: `maya-keys${extra ? " extra" : ""}`,
            dataset: { testid: "maya-extra-keys" },
            text: extra ? t("maya.extra_keys", { n: extra }) : t("maya.no_extra_keys"),
          })
        : null,
    ),
    el("ol", { class: "maya-track", dataset: { testid: "maya-track" } }, mayaSpaces(board)),
    aside.length ? el("div", { class: "maya-dice", dataset: { testid: "maya-dice" }, text: t("maya.dice_aside", { who: aside.join(", ") }) }) : null,
  );
}

/** The calendar's start and spaces, in order: symbol, number, figure, bar. */
function mayaSpaces(board) {
  const bars = board.side === "doomed" ? board.bars || [] : [];
  return ["start", ...board.spaces].map((symbol, n) => {
    const here = n === board.position;
    const bar = bars.indexOf(n) + 1;
    const name = n === 0 ? t("maya.start") : t("maya.space", { n, symbol: t(`maya.${symbol}`) });
    const words = [name, here ? t("maya.figure_here") : null, bar ? t("maya.bar", { n: bar }) : null].filter(Boolean).join(" · ");
    return el(
      "li",
      {
        class: `maya-space${here ? " here" : ""}${bar ? " bar" : ""}${n && n <= board.position ? " passed" : ""}`,
        title: words,
        "aria-label": words,
        dataset: { testid: `maya-space-${n}` },
      },
      n === 0 ? el("span", { class: "maya-start", text: "◆" }) : calendarSymbol(symbol, name),
      el("small", { class: "maya-n", text: n === 0 ? t("maya.start") : String(n) }),
      here ? mayaFigure(t("maya.figure_here")) : null,
      bar ? el("span", { class: "maya-bar", "aria-hidden": "true" }) : null,
    );
  });
}

function renderWarnings(warnings) {
  const items = [
    ...localWarnings.map((w) => ({ ...w, local: true })),
    ...warnings.slice().reverse(),
  ];
  const list = $("warnings");
  if (items.length === 0) {
    fill(list, el("li", { class: "none", text: t("game.no_rejected") }));
    return;
  }
  const quiet = items.filter(isCameraRejection);
  list.closest(".warnings-panel")?.classList.toggle("only-quiet", quiet.length === items.length);
  fill(
    list,
    items.map((item) =>
      isCameraRejection(item)
        ? cameraRejection(item)
        : el(
            "li",
            {},
            el("span", { class: "reason", text: item.reason }),
            el("span", { class: "what" }, item.local ? item.text : `${atText(item.t)} · ${item.text}`),
          ),
    ),
  );
}

/** An event the camera proposed and the engine did not take (a misread, most often). */
function isCameraRejection(item) {
  return !item.local && item.source === "vision";
}

/** A camera event not taken: one quiet line, what the camera saw, its Fix; the engine's reason
 * folded under "why". */
function cameraRejection(item) {
  const fixable = current && current.game && current.game.state.outcome !== "lost" && item.correctable;
  return el(
    "li",
    { class: "quiet", dataset: { testid: `camera-rejected-${item.line}` } },
    el("span", { class: "what" }, `${atText(item.t)} · camera saw `, eventWords(item), " · not taken"),
    el("details", { class: "why" }, el("summary", { text: "why" }), el("span", { text: item.reason || "" })),
    fixable
      ? el(
          "button",
          {
            class: "btn fix-btn",
            title: "correct what the camera saw, or remove it",
            "aria-label": `fix line ${item.line}: ${item.text}`,
            dataset: { testid: `warning-fix-${item.line}` },
            onclick: () => openFix(item, current.game, sendCorrection),
          },
          t("game.fix"),
        )
      : null,
  );
}

function rememberLocalWarning(text, reason) {
  localWarnings.unshift({ text, reason, t: null });
  localWarnings.length = Math.min(localWarnings.length, LOCAL_WARNINGS_KEPT);
  if (current && current.game) renderWarnings(current.warnings || []);
}

function atText(t) {
  return typeof t === "number" ? formatClock(t) : "–";
}

function renderLog(log, game) {
  const list = $("log");
  const fixable = game.state.outcome !== "lost";
  const key = JSON.stringify([fixable, log.map((e) => [e.line, e.ok, e.corrected_by, e.undone_by])]);
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  if (log.length === 0) {
    fill(list, el("li", {}, el("span", { class: "at" }), el("span", { class: "muted", text: t("game.nothing_yet") })));
    return;
  }
  keepFocus(list, () =>
    fill(
      list,
      log
        .slice()
        .reverse()
        .map((entry) => logItem(entry, fixable)),
    ),
  );
}

function logItem(entry, fixable) {
  const corrected = entry.corrected_by !== null && entry.corrected_by !== undefined;
  const undone = !corrected && entry.undone_by !== null && entry.undone_by !== undefined;
  const classes = [corrected ? "corrected" : undone ? "undone" : entry.ok ? "" : "rejected"];
  const quiet = !entry.ok && !corrected && !undone && entry.source === "vision";
  if (quiet) classes.push("quiet"); // a camera event not taken: the reason folded, not a red block
  const fix =
    fixable && entry.correctable
      ? el(
          "button",
          {
            class: "btn fix-btn",
            title: `correct line ${entry.line}, or remove it`,
            "aria-label": `fix line ${entry.line}: ${entry.text}`,
            dataset: { testid: `fix-${entry.line}` },
            onclick: () => openFix(entry, current.game, sendCorrection),
          },
          t("game.fix"),
        )
      : el("span");
  const said = eventWords(entry);
  return el(
    "li",
    { class: classes.join(" "), dataset: { testid: `log-line-${entry.line}`, line: String(entry.line) } },
    el("span", { class: "at" }, atText(entry.t), el("small", { class: "line-no", text: `#${entry.line}` })),
    el(
      "span",
      { class: "text" },
      corrected || undone ? el("s", { class: "was", "aria-label": entry.text }, said) : [entry.ok ? "" : "✗ ", said],
      entry.source && entry.source !== "manual" ? el("span", { class: "source", text: entry.source }) : null,
      corrected
        ? el("span", {
            class: "corrected-flag",
            dataset: { testid: `corrected-${entry.line}` },
            text: t("game.corrected_by", { line: entry.corrected_by }),
          })
        : null,
      corrected ? el("span", { class: "now", text: entry.struck ? t("game.removed") : `→ ${entry.corrected_text}` }) : null,
      undone
        ? el("span", { class: "corrected-flag", dataset: { testid: `undone-${entry.line}` }, text: t("game.undone_by", { line: entry.undone_by }) })
        : null,
      entry.ok || entry.struck || undone
        ? null
        : quiet
          ? el("details", { class: "why" }, el("summary", { text: t("game.not_taken") }), el("span", { text: entry.reason }))
          : el("span", { class: "reason", text: entry.reason }),
    ),
    fix,
  );
}

/** An event in a player's words: the player's badge first, a roll as die faces. */
function eventWords(entry) {
  const event = entry.event && typeof entry.event === "object" ? entry.event : {};
  const pid = typeof event.player === "string" && current && current.game && event.player in current.game.players ? event.player : null;
  const badge = pid ? [playerBadge(pid), " "] : [];
  if (entry.type === "dice" && Array.isArray(event.faces) && !entry.corrected_by) {
    const name = pid ? playerStyle(pid).name : String(event.player);
    return el(
      "span",
      { class: "words", title: entry.text },
      badge,
      `${t("log.rolls", { name })} `,
      event.faces.map((face) => (FACES.includes(face) ? faceIcon(face) : ` ${face} `)),
    );
  }
  return el("span", { class: "words" }, badge, entry.text);
}

function renderOutcome(state) {
  const box = $("outcome");
  const outcome = state.game.state.outcome;
  if (outcome === "running") outcomeDismissedFor = null; // a Fix took the end back: the next end shows
  if (outcome === "running" || outcomeDismissedFor === state.game_id) {
    box.hidden = true;
    return;
  }
  if (!box.hidden && box.dataset.game === state.game_id) return;
  box.dataset.game = state.game_id;
  const won = outcome === "won";
  const inside = stillInside(state.game);
  const detail = won
    ? t("game.won_detail")
    : inside.length
      ? t("game.lost_detail_inside", { names: joinNames(inside.map((pid) => playerStyle(pid).name)) })
      : t("game.lost_detail");
  box.className = `outcome ${won ? "won" : "lost"}`;
  fill(
    box,
    el(
      "div",
      { class: "box" },
      el("div", { class: "word", text: t(won ? "game.won" : "game.lost") }),
      el("div", { class: "detail", text: detail }),
      el(
        "div",
        { class: "button-row" },
        el("button", { class: "btn btn-big", dataset: { testid: "outcome-close" }, onclick: dismissOutcome }, t("game.show_board")),
        el("a", { class: "btn btn-primary btn-big", href: "/setup" }, t("nav.new_game")),
      ),
    ),
  );
  box.hidden = false;
}

function dismissOutcome() {
  outcomeDismissedFor = current ? current.game_id : null;
  $("outcome").hidden = true;
}

function renderTeam(game) {
  const box = $("team");
  const actions = game.team_actions;
  const fate = game.state.turns_of_fate_left;
  const outcome = game.state.outcome;
  const key = JSON.stringify([actions, fate, game.state.spare, outcome, game.piles]);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  if (outcome !== "running") {
    // Nothing is left to offer: no turn of fate, no spare gem to take.
    const text = t(outcome === "won" ? "game.team_won" : "game.team_lost");
    fill(box, el("strong", {}, t("game.team")), el("span", { class: "muted", dataset: { testid: "team-over" }, text }));
    return;
  }
  keepFocus(box, () => fill(
    box,
    el("strong", {}, t("game.team")),
    actions.length === 0
      ? el("span", { class: "muted", text: t("game.no_fate") })
      : actions.map((action) => actionButton("team", action, `team-${action.action}`)),
    el("span", { class: "muted", text: t("game.spare", { spare: game.state.spare, fate }) }),
    game.piles ? el("span", { class: "muted", dataset: { testid: "piles" }, text: `· ${game.piles}` }) : null,
  ));
}

// ----- players -------------------------------------------------------------------------------

function renderPlayers(state) {
  const game = state.game;
  const pids = Object.keys(game.players);
  const box = $("players");
  if ([...playerCards.keys()].join() !== pids.join() || box.dataset.game !== state.game_id) {
    playerCards.clear();
    box.dataset.game = state.game_id;
    fill(box, pids.map((pid) => buildCard(pid)));
  }
  for (const pid of pids) updateCard(playerCards.get(pid), game.players[pid], game);
}

function buildCard(pid) {
  const look = playerStyle(pid);
  const card = {
    pid,
    roll: [],
    where: el("span", { class: "where", dataset: { testid: `where-${pid}` } }),
    stats: el("div", { class: "player-stats", dataset: { testid: `stats-${pid}` } }),
    modules: el("div", { class: "player-modules", dataset: { testid: `modules-${pid}` }, hidden: true }),
    showing: el("div", { class: "showing", dataset: { testid: `showing-${pid}` } }),
    actions: el("div", { class: "actions", dataset: { testid: `actions-${pid}` } }),
    rollBox: el("div", { class: "roll", dataset: { testid: `roll-${pid}` } }),
    reportButton: null,
    dice: 0,
  };
  card.reportButton = el(
    "button",
    { class: "btn", dataset: { testid: `report-roll-${pid}` }, onclick: (click) => reportRoll(card, click) },
    t("card.report_roll"),
  );
  const more = el(
    "details",
    { class: "more", dataset: { testid: `more-${pid}` } },
    el("summary", {}, t("card.more")),
    el(
      "div",
      { class: "dice-entry" },
      FACES.map((face) =>
        el(
          "button",
          {
            class: "btn face-btn",
            title: `add ${FACE_LABELS[face]}`,
            dataset: { testid: `face-${pid}-${face}` },
            onclick: () => addFace(card, face),
          },
          faceIcon(face),
          FACE_LABELS[face],
        ),
      ),
    ),
    el(
      "div",
      { class: "dice-entry" },
      card.rollBox,
      card.reportButton,
      el("button", { class: "btn", dataset: { testid: `clear-roll-${pid}` }, onclick: () => clearRoll(card) }, t("card.clear")),
    ),
  );
  card.more = more;
  card.root = el(
    "article",
    {
      class: "player",
      style: { "--pc": look.colour },
      dataset: { testid: `player-${pid}`, player: pid },
    },
    el("span", { class: `stripe ${look.pattern}` }),
    el("div", { class: "player-head" }, playerBadge(pid), el("span", { class: "player-name", text: shownName(pid) }), card.stats),
    card.where,
    card.modules,
    card.showing,
    card.actions,
    more,
  );
  playerCards.set(pid, card);
  showRoll(card);
  return card.root;
}

function updateCard(card, player, game) {
  card.dice = player.free_dice; // a die locked by a black mask is not rolled: it is not asked for
  card.locked = player.locked;
  card.root.classList.toggle("escaped", player.escaped);
  if (player.escaped) {
    fill(card.where, el("strong", { text: t("chamber.out") }));
  } else {
    const where = player.in_start ? t("chamber.the_start") : player.where || player.chamber || "?";
    fill(card.where, `${t("card.in")} `, el("strong", { text: where }));
  }
  fill(
    card.stats,
    el("span", {}, el("b", { text: String(player.dice) }), ` ${t(player.dice === 1 ? "word.die" : "word.dice")}`),
    player.locked ? el("span", { class: "locked" }, faceIcon("black_mask"), ` ${t("card.locked")} `, el("b", { text: String(player.locked) })) : null,
    player.escaped ? el("span", { class: "escaped-flag", text: t("card.escaped") }) : null,
    player.gave_die ? el("span", { class: "muted", text: t("card.gave_die") }) : null,
    ...(player.tokens || []).map(moduleToken),
  );
  showShowing(card, player, game.setup.track_dice);
  showModules(card, player, game);
  showActions(card, player, game.state.outcome);
  // Manual mode reports no rolls: the roll entry is only for a game whose dice are tracked.
  card.more.hidden = game.state.outcome !== "running" || player.escaped || !game.setup.track_dice;
  showRoll(card);
}

function showShowing(card, player, trackDice) {
  if (!trackDice || player.escaped) {
    card.showing.hidden = true;
    return;
  }
  card.showing.hidden = false;
  const faces = [];
  for (const face of FACES) for (let i = 0; i < (player.showing[face] || 0); i += 1) faces.push(faceIcon(face));
  for (let i = 0; i < player.locked; i += 1) faces.push(faceIcon("black_mask"));
  fill(
    card.showing,
    `${t("card.showing")} `,
    faces.length ? faces : el("span", { text: t(player.rolled ? "card.nothing_usable" : "card.not_rolled") }),
    el("span", { text: ` · ${t("card.free", { n: player.free_dice })}` }),
  );
}

// ----- modules 1 and 2 on a player's card: curses and treasures, by name and picture -----

const armed = new Map(); // pid -> Set of double keys / torches to spend with the next action

function armedFor(pid) {
  if (!armed.has(pid)) armed.set(pid, new Set());
  return armed.get(pid);
}

function showModules(card, player, game) {
  const curses = game.curse_cards ? player.curses || [] : [];
  const treasures = game.treasures ? player.treasures || [] : [];
  const owed = player.curses_to_draw || 0;
  const spend = armedFor(card.pid);
  for (const id of [...spend]) if (!treasures.includes(id)) spend.delete(id);
  const character = game.characters && player.character ? game.characters[player.character] : null;
  const key = JSON.stringify([curses, treasures, owed, [...spend], player.character, player.charged]);
  if (card.modulesKey === key) return;
  card.modulesKey = key;
  card.modules.hidden = !game.curse_cards && !game.treasures && !character;
  const chips = [];
  if (character) chips.push(characterChip(card.pid, character, player.charged));
  if (owed) {
    chips.push(
      el("span", { class: "chip curse owed", dataset: { testid: `curses-owed-${card.pid}` } }, t(owed === 1 ? "card.curse_owed_one" : "card.curse_owed", { n: owed })),
    );
  }
  for (const id of curses) {
    const info = game.curse_cards[id];
    chips.push(
      el(
        "span",
        { class: "chip curse", title: `Curse ${info.name}: ${info.effect}`, dataset: { testid: `curse-${card.pid}-${id}` } },
        curseIcon(id, info.name),
        el("span", { class: "chip-name", text: info.name }),
      ),
    );
  }
  treasures.forEach((id, index) => {
    const info = game.treasures[id];
    if (info.icons.length && treasures.indexOf(id) === index) {
      // A double key or torch: spent with an action, so it is a toggle for the next one.
      const on = spend.has(id);
      chips.push(
        el(
          "button",
          {
            type: "button",
            class: "chip treasure spendable",
            "aria-pressed": String(on),
            title: `${info.name}: ${info.effect}. Click to spend it with ${card.pid}'s next action.`,
            dataset: { testid: `treasure-${card.pid}-${id}` },
            onclick: () => {
              if (spend.has(id)) spend.delete(id);
              else spend.add(id);
              card.modulesKey = null;
              card.actionsKey = null;
              updateCard(card, current.game.players[card.pid], current.game);
            },
          },
          treasureIcon(id, info.name),
          el("span", { class: "chip-name", text: info.name }),
          el("small", { text: on ? "✓ spent with the next action" : "spend with next action" }),
        ),
      );
      return;
    }
    if (info.icons.length) return; // a second copy: one toggle is enough
    chips.push(
      el(
        "span",
        { class: "chip treasure", title: `${info.name}: ${info.effect}`, dataset: { testid: `treasure-${card.pid}-${id}` } },
        treasureIcon(id, info.name),
        el("span", { class: "chip-name", text: info.name }),
      ),
    );
  });
  fill(card.modules, chips.length ? chips : el("span", { class: "muted", text: t("card.no_modules") }));
}

/** Module 6: the player's character card, its ability and whether it is face up. */
function characterChip(pid, info, charged) {
  const ready = t(info.card === "permanent" ? "more.char.always_on" : charged ? "more.char.ready" : "more.char.used");
  const name = has(`character.${info.character}`) ? t(`character.${info.character}`) : info.character;
  const side = has(`cardside.${info.card}`) ? t(`cardside.${info.card}`) : info.card;
  return el(
    "span",
    {
      class: `chip character ${info.card}${charged ? "" : " spent"}`,
      title: `${name} (${side}): ${info.text}`,
      dataset: { testid: `character-${pid}` },
    },
    characterIcon(info.character),
    el("span", { class: "chip-name", text: name }),
    el("small", {}, el("span", { class: "ability", text: `${side}: ${info.text}` }), el("span", { class: "charge", text: ` · ${ready}` })),
  );
}

function showActions(card, player, outcome) {
  // Buttons are rebuilt only when they change, so that a push never swallows a click.
  const key = `${player.escaped}:${outcome}:${JSON.stringify(player.actions)}:${[...armedFor(card.pid)]}`;
  if (card.actionsKey === key) return;
  card.actionsKey = key;
  const sorted = player.actions
    .map((action, index) => ({ action, index }))
    .sort((a, b) => rank(a.action) - rank(b.action) || a.index - b.index)
    .map(({ action }) => action);
  // Five or six players share one screen: actions the rules forbid here fold under one line.
  const fold = Number(document.body.dataset.players) >= 5;
  const folded = fold ? sorted.filter((action) => isForbidden(card.pid, action)) : [];
  const shown = folded.length > 1 ? sorted.filter((action) => !folded.includes(action)) : sorted;
  const actions = shown.map((action) => actionButton(card.pid, action, actionTestId(card.pid, action)));
  if (shown.length < sorted.length) {
    actions.push(
      el(
        "details",
        { class: "forbidden-actions", dataset: { testid: `forbidden-${card.pid}` } },
        el("summary", { text: `${folded.length} more, not allowed here` }),
        ...folded.map((action) => actionButton(card.pid, action, actionTestId(card.pid, action))),
      ),
    );
  }
  if (actions.length === 0) {
    const text = player.escaped
      ? "escaped: nothing left to do"
      : outcome === "lost"
        ? "caught in the collapse"
        : outcome === "won"
          ? "the game is won"
          : "no action open here";
    keepFocus(card.actions, () => fill(card.actions, el("span", { class: "no-actions", text })));
  } else {
    keepFocus(card.actions, () => fill(card.actions, actions));
  }
}

/** Tell whether the rules forbid an action where the player stands (not merely dice missing). */
function isForbidden(pid, action) {
  return !action.possible && Boolean(action.blocked) && !coveredBySpend(pid, action);
}

function rank(action) {
  const index = ACTION_ORDER.indexOf(action.action);
  return index === -1 ? ACTION_ORDER.length : index;
}

/** action-<pid>-<action>[-<x>_<y>][-g<gems>][-by-<helper>][-to-<receiver>][-s<statue space>][-start|-end] */
export function actionTestId(pid, action) {
  const event = action.event;
  const parts = ["action", pid, action.action];
  if (action.action === "lift") parts.push(event.card);
  if (action.action === "use") parts.push(event.treasure);
  if (Array.isArray(event.cell)) parts.push(cellKey(event.cell));
  if (action.action === "activate") parts.push(`g${event.gems}`);
  if (action.action === "activate_linked") parts.push(...event.cells.map(cellKey));
  if (action.action === "task") parts.push(event.tile);
  if (action.action === "sacrifice") parts.push(`d${event.dice}`);
  if (action.action === "unlock") parts.push(`by-${event.by}`);
  if (action.action === "give_die") parts.push(`to-${event.to}`);
  if (action.action === "reveal_statue") parts.push(`s${event.space}`);
  if (action.action === "time_out") parts.push(event.phase); // two buttons, never one repeated
  return parts.join("-");
}

/** The treasures armed on `pid`'s card that this action could spend (their icon is needed). */
function spendsFor(pid, action) {
  if (!PAYING.has(action.action) || !current || !current.game.treasures) return [];
  const payers = action.event.players || [action.event.player];
  if (!payers.includes(pid)) return [];
  return [...armedFor(pid)].filter((id) => {
    const icons = current.game.treasures[id].icons;
    return icons.some((icon) => icon in (action.need || {}));
  });
}

/** Whether a double key or torch armed on the card makes up for what the action misses. */
function coveredBySpend(pid, action) {
  if (action.possible || action.blocked || !action.missing) return false;
  const spends = spendsFor(pid, action);
  if (!spends.length) return false;
  const bonus = {};
  for (const id of spends) for (const icon of current.game.treasures[id].icons) bonus[icon] = (bonus[icon] || 0) + 1;
  return Object.entries(action.missing).every(([icon, n]) => (bonus[icon] || 0) >= n);
}

function moduleIcon(action) {
  const game = current && current.game;
  if (!game) return null;
  if (action.action === "lift" && game.curse_cards) return curseIcon(action.event.card, game.curse_cards[action.event.card].name);
  if (action.action === "use" && game.treasures) return treasureIcon(action.event.treasure, game.treasures[action.event.treasure].name);
  return null;
}

function actionButton(pid, action, testid) {
  const covered = coveredBySpend(pid, action);
  const spends = spendsFor(pid, action);
  const button = el(
    "button",
    {
      class: `action kind-${action.action}`,
      disabled: !action.possible && !covered,
      dataset: { testid },
      title: action.label,
      onclick: (click) => takeAction(pid, action, click, testid),
    },
    el("span", { class: "label" }, moduleIcon(action), actionLabel(action)),
  );
  if (spends.length && (action.possible || covered)) {
    const names = spends.map((id) => current.game.treasures[id].name).join(" + ");
    button.append(el("span", { class: "odds", text: t("more.act.with", { treasure: names }) }));
  }
  if (!action.possible && !covered) {
    const why = action.blocked
      ? t("act.blocked", { reason: action.blocked === WAIT_FOR_ESCAPE ? t("act.wait_escape") : action.blocked })
      : action.missing_text
        ? t("act.missing", { what: missingWords(action) })
        : "";
    if (why) button.append(el("span", { class: "why", text: why, title: why }));
  }
  const odds = oddsText(action);
  if (odds) button.append(el("span", { class: "odds", text: odds }));
  return button;
}

/** A short label that fits a compact card: "↑ Discover N", "→ Enter Gem chamber (keys) 1". */
function actionLabel(action) {
  const side = /\(([NESW])\)$|to the ([NESW])$/.exec(action.label);
  const letter = side ? side[1] || side[2] : null;
  const arrow = letter ? `${SIDE_ARROWS[letter]} ` : "";
  if (action.action === "discover" && letter) return `${arrow}${t("act.discover", { side: t(`side.${letter}`) })}`;
  if (action.action === "carry" && letter) {
    const target = current && current.game ? current.game.temple.find((t) => sameCell(t.cell, action.event.cell)) : null;
    return `${arrow}${target ? t("more.act.carry", { name: target.label }) : t("more.act.carry_next")}`;
  }
  if (action.action === "enter" && letter) {
    const target = current && current.game ? current.game.temple.find((t) => sameCell(t.cell, action.event.cell)) : null;
    const name = target ? target.label : action.label.replace(/^enter /, "").replace(/ \([NESW]\)$/, "");
    return `${arrow}${t("act.enter", { name })}`;
  }
  if (action.action === "use" && action.event.treasure === "teleport") {
    const target = current && current.game ? current.game.temple.find((t) => sameCell(t.cell, action.event.cell)) : null;
    const who = target ? target.players.map((p) => playerStyle(p).name).join(", ") : "";
    const name = who || (target ? target.label : "");
    return name ? t("more.act.teleport", { name }) : t("more.act.teleport_anyone");
  }
  const told = lang === "en" ? null : basicLabel(action);
  if (told) return `${arrow}${told}`;
  const label = action.label.charAt(0).toUpperCase() + action.label.slice(1);
  return `${arrow}${label}`;
}

/** What an action still needs ("2 keys, 1 torch"): the engine's words in English, the
 * catalog's counted icons in the page's language. */
function missingWords(action) {
  if (lang === "en" || !action.missing) return action.missing_text;
  const parts = Object.entries(action.missing).map(([face, n]) =>
    FACES.includes(face) ? t(`count.${face}.${n === 1 ? "one" : "many"}`, { n }) : `${n} ${face}`,
  );
  return joinNames(parts);
}

/** A player's name as a card shows it: the id in English (capitalised by the style sheet), the
 * colour's name in the page's language otherwise. */
function shownName(pid) {
  return lang === "en" ? pid : playerStyle(pid).name;
}

const WAIT_FOR_ESCAPE = 'wait for "Escape!"'; // the dashboard's reason during the introduction

/** The basic game's actions in the page's language, from the action's own event (null for any
 * other: its label is the engine's, in English). */
function basicLabel(action) {
  const event = action.event || {};
  const count = (n, thing) => t(`count.${thing}.${n === 1 ? "one" : "many"}`, { n });
  if (action.action === "escape") return t("act.escape", { keys: count(current.game.state.keys_to_escape, "key") });
  if (action.action === "give_die") return t("act.give_die", { name: playerStyle(event.to).name });
  if (action.action === "turn_of_fate") return t("act.turn_of_fate");
  if (action.action === "curse") return t("act.curse");
  if (action.action === "lose_die") return t("act.lose_die");
  if (action.action === "claim") return t("act.claim", { keys: count(2, "key") });
  if (action.action === "lift" && has(`card.${event.card}`)) return t("act.lift", { card: t(`card.${event.card}`) });
  if (action.action === "use" && !event.cell && has(`treasure.${event.treasure}`)) {
    return t("act.use", { treasure: t(`treasure.${event.treasure}`) });
  }
  if (action.action === "unlock") {
    const masks = count(event.count, "black_mask");
    if (event.by === event.player) return t("act.unlock", { masks });
    return t("act.unlock_helped", { masks, name: playerStyle(event.by).name });
  }
  if (action.action === "activate" && !event.offering) {
    const tile = current.game.temple.find((placed) => sameCell(placed.cell, event.cell));
    const icons = tile && tile.gem_icons;
    if (!icons || !icons.costs[event.gems - 1]) return null;
    const cost = count(icons.costs[event.gems - 1], icons.icon);
    const key = (event.players || []).length > 1 ? "act.activate_together" : "act.activate";
    return t(key, { gems: count(event.gems, "gem"), cost });
  }
  return null;
}

function oddsText(action) {
  if (action.possible || action.blocked || action.chance_next_roll === null) return "";
  const chance = t("act.next_roll", { percent: Math.round(action.chance_next_roll * 100) });
  if (action.expected_rolls === null) return t("act.not_enough_dice", { chance });
  return t("act.rolls", { chance, rolls: action.expected_rolls.toFixed(1) });
}

async function takeAction(pid, action, click = null, id = "action") {
  const what = `card:${pid}`;
  if (repeatClick(what, click, id)) return;
  if (action.action === "escape" && !(await confirmEscape(pid))) return;
  const spends = spendsFor(pid, action);
  const event = spends.length ? { ...action.event, treasures: spends } : action.event;
  const sent = (verdict) => {
    if (verdict && verdict.ok && spends.length) {
      for (const id of spends) armedFor(pid).delete(id);
      if (current && current.game) renderPlayers(current);
    }
  };
  if (action.action === "discover") openPicker(pid, { ...action, event }, sent);
  else if (action.action === "curse") openCursePicker(pid, action);
  else if (action.action === "claim") openTreasurePicker(pid, { ...action, event }, sent);
  else if (action.action === "use" && action.event.treasure === "secret_passage") openPassagePicker(pid, action);
  else if (action.choices) openChoicePicker(pid, action);
  else sendEvent(event, what, id).then(sent);
}

/** Ask once before an escape (the last one out wins the game at one click otherwise). */
function confirmEscape(pid) {
  const name = playerStyle(pid).name;
  const inside = Object.entries(current.game.players)
    .filter(([other, player]) => other !== pid && !player.escaped)
    .map(([other]) => playerStyle(other).name);
  const detail = inside.length
    ? `${name} leaves the temple for good; ${inside.join(", ")} ${inside.length === 1 ? "is" : "are"} still inside.`
    : `${name} is the last one inside: this wins the game.`;
  return new Promise((resolve) => {
    let answer = false;
    const yes = el("button", { class: "btn btn-primary btn-big", dataset: { testid: "confirm-escape-yes" } }, t("game.escape_yes", { name }));
    const no = el("button", { class: "btn btn-big", dataset: { testid: "confirm-escape-no" } }, t("game.escape_no"));
    const dialog = el(
      "dialog",
      { class: "picker confirm-dialog", dataset: { testid: "confirm-escape" }, "aria-labelledby": "confirm-escape-title" },
      el("h2", { id: "confirm-escape-title", text: t("game.escape_question", { name }) }),
      el("p", { text: detail }),
      el("div", { class: "button-row" }, yes, no),
    );
    yes.addEventListener("click", () => {
      answer = true;
      dialog.close();
    });
    no.addEventListener("click", () => dialog.close());
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(answer);
    });
    document.body.append(dialog);
    dialog.showModal();
    no.focus(); // Enter pressed twice never escapes by mistake
  });
}

// ----- the dice roll entry ----------------------------------------------------------------------

function addFace(card, face) {
  if (card.roll.length >= card.dice) {
    const name = playerStyle(card.pid).name;
    toast(t("card.too_many_faces", { name, dice: t(`count.die.${card.dice === 1 ? "one" : "many"}`, { n: card.dice }) }), "error", 4);
    return;
  }
  card.roll.push(face);
  showRoll(card);
}

function clearRoll(card) {
  card.roll = [];
  showRoll(card);
}

function showRoll(card) {
  fill(
    card.rollBox,
    card.roll.length === 0
      ? el("span", { class: "muted", text: `click ${card.dice} ${card.dice === 1 ? "face" : "faces"}` })
      : card.roll.map((face, index) =>
          el(
            "button",
            {
              title: `remove ${FACE_LABELS[face]}`,
              "aria-label": `remove ${FACE_LABELS[face]}`,
              onclick: () => {
                card.roll.splice(index, 1);
                showRoll(card);
              },
            },
            faceIcon(face),
          ),
        ),
  );
  if (card.locked) {
    const masks = [];
    for (let i = 0; i < card.locked; i += 1) masks.push(faceIcon("black_mask"));
    card.rollBox.append(el("span", { class: "muted locked-note", dataset: { testid: `roll-locked-${card.pid}` } }, " + ", masks, ` ${card.locked} locked`));
  }
  setText(card.reportButton, t("card.report_roll_count", { n: card.roll.length, dice: card.dice }));
  card.reportButton.disabled = card.roll.length === 0;
}

async function reportRoll(card, click = null) {
  if (repeatClick(`card:${card.pid}`, click, "report-roll")) return;
  // The locked dice still show their black masks: the record lists every die.
  const faces = [...card.roll, ...Array(card.locked || 0).fill("black_mask")];
  const verdict = await sendEvent({ type: "dice", player: card.pid, faces }, `card:${card.pid}`, "report-roll");
  if (verdict && verdict.ok) clearRoll(card);
}

// ----- the discover picker ----------------------------------------------------------------------

let enrolledPhotos = null; // tile id -> true when the user enrolled a photo of it

/** Which tiles have an enrolled photo (asked once; none when the library cannot be read). */
async function photos() {
  if (enrolledPhotos === null) {
    const answer = await api("/api/tiles");
    enrolledPhotos = new Set(answer.ok ? answer.data.tiles.filter((t) => t.photo).map((t) => t.id) : []);
  }
  return enrolledPhotos;
}

/** The picker's picture of a tile: the enrolled photo's card, else the tile drawn as it will lie. */
function pileTilePicture(tile, stairs, photo) {
  if (photo) {
    return el("img", {
      class: "pile-photo",
      src: `/api/tiles/${encodeURIComponent(tile.id)}/card.png`,
      alt: `${tile.name}: your photo of the tile`,
    });
  }
  const drawn = { ...tile, open_sides: turnedDoors(tile.doors, stairs), stairs, gems: 0, players: [] };
  const node = el(
    "div",
    { class: `tile pile-tile kind-${tile.kind}${tile.gem_icons ? ` gems-${tile.gem_icons.icon}` : ""}`, style: { "--cell": "150px" } },
    wallsSvg(drawn.open_sides, stairs),
    el("div", { class: "tile-body" }, el("div", { class: "tile-name", text: tile.label }), entryRow(drawn), gemRow(drawn), marksRow(tile)),
  );
  return node;
}

async function openPicker(pid, action, after = () => {}) {
  const dialog = $("tile-picker");
  const pile = current.game.draw_pile;
  const side = /to the ([NESW])$/.exec(action.label);
  const letter = side ? side[1] : null;
  const stairs = letter ? SIDES[(SIDES.indexOf(letter) + 2) % 4] : "S"; // it faces the discoverer
  const name = playerStyle(pid).name;
  setText(
    $("picker-title"),
    lang === "en"
      ? `${name} discovers the chamber ${letter ? `to the ${SIDE_WORDS[letter]}` : "next door"}: which tile?`
      : t("picker.discovers", { name, where: letter ? t(`dir.${SIDE_WORDS[letter]}`) : "?" }),
  );
  const withPhoto = await photos();
  fill(
    $("picker-tiles"),
    pile.length === 0
      ? el("p", { class: "muted", text: t("picker.pile_empty") })
      : pile.map((tile) =>
          el(
            "button",
            {
              class: "pile-choice",
              title: `${tile.name} (${tile.id})`,
              "aria-label": tile.name,
              dataset: { testid: `pick-tile-${tile.id}` },
              onclick: () => {
                dialog.close();
                sendEvent({ ...action.event, tile: tile.id }, `card:${pid}`).then(after);
              },
            },
            pileTilePicture(tile, stairs, withPhoto.has(tile.id)),
            el("span", { class: "pile-name", text: tile.name }),
          ),
        ),
  );
  dialog.showModal();
}

// ----- the module pickers: the curse card drawn, the treasure turned up, the secret passage -----

/** Open the module picker with these choices: [{testid, icon, name, note, event}]. */
function openModulePicker(title, hint, choices, after = () => {}, what = "picker") {
  const dialog = $("module-picker");
  setText($("module-picker-title"), title);
  setText($("module-picker-hint"), hint);
  fill(
    $("module-picker-choices"),
    choices.map((choice) =>
      el(
        "button",
        {
          class: "module-choice",
          title: choice.note,
          dataset: { testid: choice.testid },
          onclick: () => {
            dialog.close();
            if (choice.next) choice.next(); // a second question first (which treasure to discard)
            else sendEvent(choice.event, what).then(after);
          },
        },
        choice.icon,
        el("span", { class: "choice-name", text: choice.name }),
        el("small", { text: choice.note }),
      ),
    ),
  );
  dialog.showModal();
}

/** Curse cards that make the player discard one of his treasure tiles (The Pit's). */
const DISCARDS_A_TREASURE = new Set(["lost_treasure"]);

function openCursePicker(pid, action) {
  const cards = current.game.curse_cards;
  const held = current.game.players[pid].curses || [];
  const kinds = [...new Set(current.game.players[pid].treasures || [])];
  const name = playerStyle(pid).name;
  openModulePicker(
    t("picker.curse", { name }),
    "Pick the card drawn from the curse pile.",
    Object.entries(cards).map(([id, info]) => ({
      testid: `pick-curse-${id}`,
      icon: curseIcon(id, info.name),
      name: info.name,
      note: held.includes(id) ? `${name} has it already: discarded without effect` : info.effect,
      event: { ...action.event, card: id },
      next: DISCARDS_A_TREASURE.has(id) && kinds.length > 1 ? () => openDiscardPicker(pid, { ...action.event, card: id }, kinds) : null,
    })),
    () => {},
    `card:${pid}`,
  );
}

/** A curse card that costs a treasure tile, the player holding several kinds: which one goes. */
function openDiscardPicker(pid, event, kinds) {
  const tiles = current.game.treasures || {};
  const name = playerStyle(pid).name;
  openModulePicker(
    `${name} drew ${(current.game.curse_cards[event.card] || { name: "the curse" }).name}: which treasure tile does ${name} discard?`,
    "Pick the tile put back in the box.",
    kinds.map((id) => ({
      testid: `pick-discard-${id}`,
      icon: treasureIcon(id, (tiles[id] || { name: id }).name),
      name: (tiles[id] || { name: id }).name,
      note: "discarded",
      event: { ...event, treasure: id },
    })),
    () => {},
    `card:${pid}`,
  );
}

function openTreasurePicker(pid, action, after) {
  const tiles = current.game.treasures;
  const name = playerStyle(pid).name;
  openModulePicker(
    `${name} claims the treasure: which tile was under it?`,
    "Turn the treasure tile face up and pick it.",
    Object.entries(tiles).map(([id, info]) => ({
      testid: `pick-treasure-${id}`,
      icon: treasureIcon(id, info.name),
      name: info.name,
      note: info.effect,
      event: { ...action.event, treasure: id },
    })),
    after,
    `card:${pid}`,
  );
}

/** An action with several ways to do it (a character's run, turn or move): pick one. */
function openChoicePicker(pid, action) {
  const who = playerStyle(pid).name;
  const statue = action.action === "reveal_statue"; // the Riddle chamber: the colour turned up
  openModulePicker(
    `${who}: ${action.label}`,
    statue ? "Turn the statue up: which colour does it show?" : "Pick where, as on the table.",
    action.choices.map((choice, index) => ({
      testid: `pick-choice-${index}`,
      icon: null,
      name: statue ? `${choice.name.charAt(0).toUpperCase()}${choice.name.slice(1)} statue` : choice.name,
      note: choice.note || "",
      event: choice.event,
    })),
    () => {},
    `card:${pid}`,
  );
}

function openPassagePicker(pid, action) {
  const spots = current.game.secret_passage_spots || [];
  openModulePicker(
    `${playerStyle(pid).name} lays the Secret passage: between which chambers?`,
    "Two adjacent chambers with no open passage between them; everyone may use it until the end.",
    spots.map((spot, index) => ({
      testid: `pick-passage-${index}`,
      icon: treasureIcon("secret_passage", "Secret passage"),
      name: spot.text.charAt(0).toUpperCase() + spot.text.slice(1),
      note: "joined for good",
      event: { ...action.event, cells: spot.cells },
    })),
    () => {},
    `card:${pid}`,
  );
}

// ----- sending --------------------------------------------------------------------------------

const REPEAT_MS = 500;
const lastClicks = new Map(); // where it was clicked ("card:red", "undo") -> {at: ms, id: button}
const sending = new Map(); // where -> the button whose event is being sent now

/**
 * Whether this click repeats one: the second click of a double click (wherever it lands once
 * the card is rebuilt), the same button again within half a second, or while its event is still
 * being sent. A double click records one event, never two; the repeat is ignored, and the page
 * says so. Another button of the same card is another action and goes through.
 */
function repeatClick(what, click = null, id = what) {
  const now = performance.now();
  const last = lastClicks.get(what);
  const again = Boolean(click && click.detail > 1);
  const soon = last !== undefined && last.id === id && now - last.at < REPEAT_MS;
  if (again || soon || sending.get(what) === id) {
    const said = what === "undo" ? "Undo" : what.startsWith("card:") ? `${playerStyle(what.slice(5)).name}'s card` : "that";
    toast(lang === "en" ? `A second click on ${said} was ignored: one is taken at a time.` : t("game.second_click"), "info", 3);
    return true;
  }
  lastClicks.set(what, { at: now, id });
  return false;
}

/**
 * POST an event with a fresh key for this click (a retry after a lost answer is answered with
 * the first verdict and records nothing); show a rejection loudly. Resolves to the verdict (or
 * null on error). `what` is what was clicked: a repeat of it is ignored while this is sent.
 */
async function sendEvent(event, what = `card:${event.player || "team"}`, id = "picker") {
  const key = freshKey();
  sending.set(what, id);
  try {
    let result = await api("/api/event", { method: "POST", body: { event, key } });
    if (!result.ok && result.status === 0) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      result = await api("/api/event", { method: "POST", body: { event, key } }); // the same key
    }
    return handleVerdict(result, `${event.type} event`);
  } finally {
    sending.delete(what);
    lastClicks.set(what, { at: performance.now(), id });
  }
}

function handleVerdict(result, what) {
  if (!result.ok) {
    toast(`${what} not sent: ${result.error}`);
    // The server said no (4xx): the table should see why. A network or server failure is not
    // something the game rejected: the toast and the connection status say it, not this list.
    if (result.status >= 400 && result.status < 500) rememberLocalWarning(what, result.error);
    return null;
  }
  acceptState(result.data.state);
  const verdict = result.data.verdict;
  if (!verdict.ok) toast(t("game.rejected_toast", { reason: result.data.reason_text || verdict.reason }));
  return verdict;
}

/** POST a correction of one log line (event null removes it); resolves to the verdict. */
async function sendCorrection(line, event) {
  const result = await api("/api/correct", { method: "POST", body: { line, event, key: freshKey() } });
  const verdict = handleVerdict(result, `fix of line ${line}`);
  if (verdict && verdict.ok) toast(t(event === null ? "fix.removed_toast" : "fix.corrected_toast", { line }), "info", 3);
  return verdict;
}

async function undo(click) {
  if (repeatClick("undo", click)) return;
  sending.set("undo", "undo");
  let result;
  try {
    result = await api("/api/undo", { method: "POST", body: { key: freshKey() } });
  } finally {
    sending.delete("undo");
    lastClicks.set("undo", { at: performance.now(), id: "undo" });
  }
  const verdict = handleVerdict(result, "undo");
  if (verdict && verdict.ok) toast(t("game.undone_toast", { what: undoneWords(result.data.state) }), "info", 5);
}

/** What the undo just recorded took back, in the log's words. */
function undoneWords(state) {
  const log = (state && state.log) || [];
  if (log.length === 0) return "the last action.";
  const undoLine = Math.max(...log.map((entry) => entry.line));
  const target = log.find((entry) => entry.undone_by === undoLine);
  return target ? `${target.text}.` : "the last action.";
}

let restartArmedUntil = 0;

async function clockAction(action) {
  if (action === "restart" && Date.now() > restartArmedUntil) {
    restartArmedUntil = Date.now() + 4000;
    setText($("clock-restart"), t("game.restart_sure"));
    setTimeout(() => setText($("clock-restart"), t("game.restart")), 4000);
    return;
  }
  setText($("clock-restart"), t("game.restart"));
  const result = await api("/api/clock", { method: "POST", body: { action } });
  if (!result.ok) {
    toast(`${action}: ${result.error}`); // the clock is not a game event: never a rejected one
    return;
  }
  if (action === "restart") outcomeDismissedFor = null;
  acceptState(result.data);
  audio.userGesture();
}

function sendAdvanced() {
  const text = $("advanced-json").value;
  let event;
  try {
    event = JSON.parse(text);
  } catch (error) {
    toast(t("game.bad_json", { error: error.message }));
    return;
  }
  if (!event || typeof event !== "object" || Array.isArray(event)) {
    toast('An event is a JSON object, e.g. {"type": "escape", "player": "red"}');
    return;
  }
  sendEvent(event);
}

// ----- live updates ----------------------------------------------------------------------------

/**
 * EventSource on /api/stream; on error: reconnect with back-off, and poll /api/state meanwhile.
 * "live" means a state from the stream was read, not merely that the stream is open: a stream
 * that sends what the page cannot read says so, and the page polls instead.
 */
class LiveUpdates {
  constructor(onState, statusEl) {
    this.onState = onState;
    this.statusEl = statusEl;
    this.delay = 1000;
    this.pollTimer = null;
    this.source = null;
    this.unreadable = null;
  }

  start() {
    this.connect();
    this.poll(); // the first state, in case the stream is slow to open
  }

  connect() {
    const source = new EventSource(`/api/stream?lang=${encodeURIComponent(lang)}`);
    this.source = source;
    source.onopen = () => {
      if (!this.unreadable) this.setStatus("down", "connecting…");
    };
    source.onmessage = (message) => {
      let state;
      try {
        state = JSON.parse(message.data);
      } catch (error) {
        this.cannotRead(`the server sent an update this page cannot read (${error.message})`);
        return;
      }
      this.unreadable = null;
      this.delay = 1000;
      this.setStatus("live", t("conn.live"));
      this.stopPolling();
      this.onState(state);
    };
    source.addEventListener("problem", (message) => {
      let detail = "the server cannot send the game's state";
      try {
        detail = JSON.parse(message.data).detail || detail;
      } catch (error) {
        // keep the general sentence
      }
      this.cannotRead(detail);
    });
    source.onerror = () => {
      source.close();
      if (this.source !== source) return;
      this.source = null;
      const retry = `retry in ${Math.round(this.delay / 1000)} s`;
      if (this.unreadable) this.setStatus("broken", `⚠ ${this.unreadable}: not live (${retry})`);
      else this.setStatus("down", t("conn.reconnecting", { retry }));
      this.startPolling();
      setTimeout(() => this.connect(), this.delay);
      this.delay = Math.min(this.delay * 2, MAX_RECONNECT_MS);
    };
  }

  /** The stream gave something unreadable: say so (never "live") and poll meanwhile. */
  cannotRead(reason) {
    console.error("live updates:", reason);
    this.unreadable = reason;
    this.setStatus("broken", `⚠ ${reason}: not live, reload the page`);
    this.startPolling();
  }

  setStatus(kind, text) {
    this.statusEl.className = kind;
    setText(this.statusEl, text);
  }

  startPolling() {
    if (this.pollTimer === null) this.pollTimer = setInterval(() => this.poll(), POLL_MS);
  }

  stopPolling() {
    if (this.pollTimer !== null) clearInterval(this.pollTimer);
    this.pollTimer = null;
  }

  async poll() {
    const result = await api("/api/state");
    if (result.ok) this.onState(result.data);
  }
}

// ----- start ------------------------------------------------------------------------------------

function wireControls() {
  for (const action of ["start", "pause", "resume", "restart"]) {
    $(`clock-${action}`).addEventListener("click", () => clockAction(action));
  }
  $("undo").addEventListener("click", undo);
  $("advanced-send").addEventListener("click", sendAdvanced);
  $("picker-cancel").addEventListener("click", () => $("tile-picker").close());
  $("module-picker-cancel").addEventListener("click", () => $("module-picker").close());
  wireFixDialog();
  wireTemple();
  // Browsers let a page start audio after a click: any first click enables the soundtrack.
  document.addEventListener("pointerdown", () => audio.userGesture(), { capture: true });
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) sync.measure();
  });
}

// For debugging from the browser console (and for checking the audio sync in tests).
window.templecam = { audio, sync, state: () => current };

wireControls();
new LiveUpdates(acceptState, $("connection")).start();
sync.measure().then(tick);
setInterval(() => sync.measure(), 60000);
setInterval(tick, TICK_MS);

// ----- the camera ---------------------------------------------------------------------------

function cameraStatusText(vision) {
  const parts = [t(vision.mode === "demo" ? "camera.demo_recording" : "camera.camera")];
  const cam = vision.camera;
  if (cam) {
    parts.push(cam.status);
    if (cam.width) parts.push(`${cam.width}×${cam.height}`);
    parts.push(`${cam.fps} fps`);
    if (cam.dropped) parts.push(t("camera.skipped", { n: cam.dropped }));
  }
  const pipe = vision.pipeline;
  if (pipe) parts.push(t("camera.vision_rate", { fps: pipe.fps, ms: pipe.ms_median ?? "–" }));
  return parts.join(" · ");
}

/** Start the camera picture once the page has loaded: the picture is an endless stream, and a
 * stream begun before then keeps the page loading for ever (the tab's spinner never stops). */
function startCameraVideo(video) {
  if (video.getAttribute("src")) return;
  if (document.readyState !== "complete") {
    if (!video.dataset.waitingForLoad) {
      video.dataset.waitingForLoad = "1";
      window.addEventListener("load", () => startCameraVideo(video), { once: true });
    }
    return;
  }
  video.setAttribute("src", "/api/video.mjpg");
}

function renderVision(vision) {
  const panel = $("camera-panel");
  if (!vision || vision.mode === "off") {
    panel.hidden = true;
    return;
  }
  panel.hidden = false;
  const video = $("camera-video");
  startCameraVideo(video);
  if (!panel.dataset.enlargeReady) {
    panel.dataset.enlargeReady = "1";
    $("camera-enlarge").addEventListener("click", () => enlargeCamera(!panel.classList.contains("enlarged")));
    video.addEventListener("click", () => enlargeCamera(!panel.classList.contains("enlarged")));
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && panel.classList.contains("enlarged")) enlargeCamera(false);
    });
  }
  setText($("camera-status"), cameraStatusText(vision));
  const notes = [];
  if (vision.note) notes.push(vision.note);
  if (vision.camera && vision.camera.last_error && vision.camera.status !== "live") notes.push(vision.camera.last_error);
  if (vision.pipeline && vision.pipeline.last_error) notes.push(t("camera.vision_error", { error: vision.pipeline.last_error }));
  for (const problem of vision.problems || []) notes.push(problem);
  for (const wait of vision.waiting || []) notes.push(t("camera.waiting", { what: wait }));
  if (!vision.calibrated) notes.push(t("camera.not_calibrated"));
  if (vision.demo_game && !vision.playing_demo) notes.push(t("camera.demo_other_game"));
  fill($("camera-notes"), notes.map((text) => el("li", { text })));
}

/** Show the camera picture large (over the page, as wide as the screen allows) or back in its
 * panel; the page remembers the choice. */
function enlargeCamera(on) {
  const panel = $("camera-panel");
  panel.classList.toggle("enlarged", on);
  const button = $("camera-enlarge");
  button.textContent = t(on ? "game.smaller" : "game.enlarge");
  button.setAttribute("aria-pressed", String(on));
  try {
    localStorage.setItem("templecam-camera-enlarged", on ? "1" : "");
  } catch {
    /* private mode: not remembered */
  }
}

async function pollVision() {
  const result = await api("/api/vision");
  if (result.ok) renderVision(result.data); // else the connection badge says the server is away
  setTimeout(pollVision, VISION_POLL_MS);
}

pollVision();
try {
  if (localStorage.getItem("templecam-camera-enlarged")) enlargeCamera(true);
} catch {
  /* private mode: not remembered */
}
