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
//     module-picker-cancel   (what was drawn or turned up; where the secret passage goes)
//   more-<pid>, face-<pid>-<face>, roll-<pid>, report-roll-<pid>, clear-roll-<pid>
//   advanced, advanced-json, advanced-send
//   no-game                                  shown when the server runs no game
//   camera-panel, camera-status, camera-video, camera-notes   the live camera (vision mode)

import {
  api,
  ClockSync,
  el,
  FACE_LABELS,
  FACES,
  faceIcon,
  fill,
  formatClock,
  gemIcon,
  phaseAt,
  playerBadge,
  playerStyle,
  positionNow,
  setText,
  toast,
} from "./common.js";
import { BrowserAudio } from "./audio.js";
import { renderTimers, tickTimers } from "./sand-timers.js";
import { entryRow, gemRow, SIDES, turnedDoors, wallsSvg } from "./tile-art.js";
import { openFix, wireFixDialog } from "./fix.js";
import { characterIcon, curseIcon, innerWall, marksRow, reminderIcon, treasureIcon } from "./module-art.js";

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
  renderTimers($("timers"), game.timers || []);
  renderTemple(state);
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
  $("clock-resume").hidden = status !== "paused";
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

function showClock(status, t, phase, timeline, outcome) {
  const box = $("clock-box");
  let label;
  let text;
  let left;
  if (status === "ready") {
    label = "Press Start";
    text = formatClock(0);
    left = `${formatClock(timeline.game_seconds)} to escape`;
  } else if (outcome !== "running" || status === "over") {
    label = outcome === "won" ? "Escaped!" : outcome === "lost" ? "Collapsed" : "Game over";
    text = formatClock(Math.max(0, t));
    left = "";
  } else if (t < 0) {
    label = status === "paused" ? "Paused" : "Get ready";
    text = formatClock(Math.ceil(-t));
    left = 'until "Escape!"';
  } else {
    label = status === "paused" ? "Paused" : "Game time";
    text = formatClock(t);
    left = `${formatClock(Math.ceil(phase.secondsLeft))} left`;
  }
  box.classList.toggle("intro", status !== "ready" && t < 0 && outcome === "running");
  box.classList.toggle("paused", status === "paused");
  setText($("clock-label"), label);
  setText($("clock"), text);
  setText($("clock-left"), left);
  const title = status === "ready" ? "templecam" : `${text}${phase.countdown ? ` · COUNTDOWN ${phase.countdown}` : ""} · templecam`;
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
  const who = phase.countdown === 3 ? stillInside(state.game) : mustRunBack(state, phase.countdown);
  const fading = phase.countdown === 3 ? null : illusionWarning(state.game);
  const key = `${phase.countdown}:${who.join(",")}:${fading ? fading.textContent : ""}`;
  if (key !== alertKey) {
    alertKey = key;
    fill(box, countdownHeadline(phase.countdown), countdownWho(phase.countdown, who), fading);
    markMustRun(phase.countdown === 3 ? [] : who);
  }
  setText(box.querySelector(".time-left"), `${formatClock(Math.ceil(phase.secondsLeftInCountdown))} left`);
  box.hidden = false;
}

function countdownHeadline(n) {
  const what = n === 3 ? "the temple collapses, get out!" : "back to the start chamber!";
  return el(
    "div",
    { class: "headline" },
    el("span", {}, `COUNTDOWN ${n} — ${what}`),
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
    ? `Illusion chambers vanish at the slam: ${on.map((pid) => playerStyle(pid).name).join(", ")} on one!`
    : `${tiles.length} illusion chamber${tiles.length === 1 ? "" : "s"} vanish at the slam`;
  return el("div", { class: "who illusion-warning", dataset: { testid: "illusion-warning" } }, text);
}

function countdownWho(n, who) {
  if (who.length === 0) {
    const text = n === 3 ? "Everybody is out" : "Everybody is in the start chamber ✓";
    return el("div", { class: "who", dataset: { testid: "must-run-back" } }, text);
  }
  const title = n === 3 ? "Still inside:" : "Must run back:";
  return el(
    "div",
    { class: "who", dataset: { testid: "must-run-back" } },
    title,
    who.map((pid) => el("span", {}, playerBadge(pid), " ", el("span", { class: "player-name", text: pid }))),
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
        el("span", {}, el("strong", {}, "Note: "), text),
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

function renderWarnings(warnings) {
  const items = [
    ...localWarnings.map((w) => ({ ...w, local: true })),
    ...warnings.slice().reverse(),
  ];
  const list = $("warnings");
  if (items.length === 0) {
    fill(list, el("li", { class: "none", text: "No rejected events." }));
    return;
  }
  fill(
    list,
    items.map((item) =>
      el(
        "li",
        {},
        el("span", { class: "reason", text: item.reason }),
        el("span", { class: "what" }, item.local ? item.text : `${atText(item.t)} · ${item.text}`),
      ),
    ),
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
    fill(list, el("li", {}, el("span", { class: "at" }), el("span", { class: "muted", text: "Nothing happened yet." })));
    return;
  }
  fill(
    list,
    log
      .slice()
      .reverse()
      .map((entry) => logItem(entry, fixable)),
  );
}

function logItem(entry, fixable) {
  const corrected = entry.corrected_by !== null && entry.corrected_by !== undefined;
  const undone = !corrected && entry.undone_by !== null && entry.undone_by !== undefined;
  const classes = [corrected ? "corrected" : undone ? "undone" : entry.ok ? "" : "rejected"];
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
          "Fix",
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
            text: `corrected by #${entry.corrected_by}`,
          })
        : null,
      corrected ? el("span", { class: "now", text: entry.struck ? "removed" : `→ ${entry.corrected_text}` }) : null,
      undone
        ? el("span", { class: "corrected-flag", dataset: { testid: `undone-${entry.line}` }, text: `undone by #${entry.undone_by}` })
        : null,
      entry.ok || entry.struck || undone ? null : el("span", { class: "reason", text: entry.reason }),
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
      `${name} rolls `,
      event.faces.map((face) => (FACES.includes(face) ? faceIcon(face) : ` ${face} `)),
    );
  }
  return el("span", { class: "words" }, badge, entry.text);
}

function renderOutcome(state) {
  const box = $("outcome");
  const outcome = state.game.state.outcome;
  if (outcome === "running" || outcomeDismissedFor === state.game_id) {
    box.hidden = true;
    return;
  }
  if (!box.hidden && box.dataset.game === state.game_id) return;
  box.dataset.game = state.game_id;
  const won = outcome === "won";
  const inside = stillInside(state.game);
  const detail = won
    ? "Everybody escaped from the temple!"
    : `The temple collapsed${inside.length ? ` with ${inside.join(", ")} still inside` : ""}.`;
  box.className = `outcome ${won ? "won" : "lost"}`;
  fill(
    box,
    el(
      "div",
      { class: "box" },
      el("div", { class: "word", text: won ? "WON!" : "LOST" }),
      el("div", { class: "detail", text: detail }),
      el(
        "div",
        { class: "button-row" },
        el("button", { class: "btn btn-big", dataset: { testid: "outcome-close" }, onclick: dismissOutcome }, "Show the board"),
        el("a", { class: "btn btn-primary btn-big", href: "/setup" }, "New game"),
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
  const key = JSON.stringify([actions, fate, game.state.spare, outcome]);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  if (outcome !== "running") {
    // Nothing is left to offer: no turn of fate, no spare gem to take.
    const text = outcome === "won" ? "Everybody escaped: the game is won." : "The temple has collapsed: the game is over.";
    fill(box, el("strong", {}, "Team"), el("span", { class: "muted", dataset: { testid: "team-over" }, text }));
    return;
  }
  fill(
    box,
    el("strong", {}, "Team"),
    actions.length === 0
      ? el("span", { class: "muted", text: "no turn of fate in this game" })
      : actions.map((action) => actionButton("team", action, `team-${action.action}`)),
    el("span", { class: "muted", text: `spare gems: ${game.state.spare} · turns of fate left: ${fate}` }),
  );
}

// ----- the temple ---------------------------------------------------------------------------

function sameCell(a, b) {
  return Array.isArray(a) && Array.isArray(b) && a[0] === b[0] && a[1] === b[1];
}

function cellKey(cell) {
  return `${cell[0]}_${cell[1]}`;
}

/** Empty cells that someone could discover now. */
function discoverSpots(game) {
  const spots = new Map();
  for (const player of Object.values(game.players)) {
    for (const action of player.actions) {
      if (action.action === "discover") spots.set(cellKey(action.event.cell), action.event.cell);
    }
  }
  return [...spots.values()];
}

function renderTemple(state) {
  const game = state.game;
  const spots = discoverSpots(game);
  const cells = [...game.temple.map((tile) => tile.cell), ...spots];
  const xs = cells.map((c) => c[0]);
  const ys = cells.map((c) => c[1]);
  const minX = Math.min(...xs);
  const maxY = Math.max(...ys);
  const cols = Math.max(...xs) - minX + 1;
  const rows = maxY - Math.min(...ys) + 1;
  const size = cellSize(cols, rows);
  const grid = $("temple");
  const key = JSON.stringify([game.temple, spots, game.must_run_back, size]);
  if (grid.dataset.key === key) return;
  grid.dataset.key = key;
  grid.style.setProperty("--cell", `${size}px`);
  grid.classList.toggle("compact", size < 170);
  grid.style.gridTemplateColumns = `repeat(${cols}, ${size}px)`;
  grid.style.gridTemplateRows = `repeat(${rows}, ${size}px)`;
  const place = (node, cell) => {
    node.style.gridColumn = String(cell[0] - minX + 1);
    node.style.gridRow = String(maxY - cell[1] + 1);
    return node;
  };
  fill(
    grid,
    game.temple.map((tile) => place(tileNode(tile, game), tile.cell)),
    spots.map((cell) => place(spotNode(cell), cell)),
  );
}

function cellSize(cols, rows) {
  const wrap = $("temple-wrap");
  const width = Math.max(window.innerWidth <= 600 ? 200 : 240, wrap.clientWidth - 12);
  const top = wrap.getBoundingClientRect().top + window.scrollY;
  let height = Math.max(320, window.innerHeight - top - 70);
  const players = Number(document.body.dataset.players || 0);
  if (window.innerWidth > 1400 && players >= 3) height = Math.min(height, window.innerHeight * 0.45);
  const gap = 6;
  const byWidth = Math.floor((width - gap * (cols - 1)) / cols);
  const byHeight = Math.floor((height - gap * (rows - 1)) / rows);
  const smallest = window.innerWidth <= 600 ? 58 : 96; // a phone shows the whole temple, smaller
  return Math.max(smallest, Math.min(210, byWidth, byHeight));
}

function tileNode(tile, game) {
  const classes = ["tile", `kind-${tile.kind}`];
  if (tile.gem_icons) classes.push(`gems-${tile.gem_icons.icon}`);
  if (tile.illusion) classes.push("illusion");
  if (tile.special) classes.push(`special-${tile.special}`);
  const name = tile.label || tile.name;
  return el(
    "div",
    {
      class: classes.join(" "),
      title: `${tile.name} (${tile.tile}) at [${tile.cell}], stairs ${tile.stairs}`,
      dataset: { testid: `tile-${cellKey(tile.cell)}`, tile: tile.tile },
    },
    wallsSvg(tile.open_sides, tile.stairs),
    tile.rear_sides ? innerWall(tile.rear_sides) : null,
    el(
      "div",
      { class: "tile-body" },
      el("div", { class: "tile-name", text: name }),
      entryRow(tile),
      gemRow(tile),
      marksRow(tile),
      el(
        "div",
        { class: "tile-players" },
        tile.players.map((pid) => playerBadge(pid, game.must_run_back.includes(pid) ? "must-run" : "")),
      ),
    ),
  );
}

function spotNode(cell) {
  return el(
    "div",
    { class: "tile spot", dataset: { testid: `spot-${cellKey(cell)}` }, title: `empty cell [${cell}]` },
    el("div", {}, "?", el("span", { text: "undiscovered" })),
  );
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
    { class: "btn", dataset: { testid: `report-roll-${pid}` }, onclick: () => reportRoll(card) },
    "Report roll",
  );
  const more = el(
    "details",
    { class: "more", dataset: { testid: `more-${pid}` } },
    el("summary", {}, "More events: report a dice roll"),
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
      el("button", { class: "btn", dataset: { testid: `clear-roll-${pid}` }, onclick: () => clearRoll(card) }, "Clear"),
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
    el("div", { class: "player-head" }, playerBadge(pid), el("span", { class: "player-name", text: pid }), card.stats),
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
  card.dice = player.dice;
  card.root.classList.toggle("escaped", player.escaped);
  if (player.escaped) {
    fill(card.where, el("strong", { text: "out of the temple" }));
  } else {
    const where = player.in_start ? "the start chamber" : player.where || player.chamber || "?";
    fill(card.where, "in ", el("strong", { text: where }));
  }
  fill(
    card.stats,
    el("span", {}, el("b", { text: String(player.dice) }), player.dice === 1 ? " die" : " dice"),
    player.locked ? el("span", { class: "locked" }, faceIcon("black_mask"), " locked ", el("b", { text: String(player.locked) })) : null,
    player.escaped ? el("span", { class: "escaped-flag", text: "✓ ESCAPED" }) : null,
    player.gave_die ? el("span", { class: "muted", text: "gave a die" }) : null,
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
    "showing: ",
    faces.length ? faces : el("span", { text: player.rolled ? "nothing usable" : "not rolled yet" }),
    el("span", { text: ` · ${player.free_dice} free to roll` }),
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
      el("span", { class: "chip curse owed", dataset: { testid: `curses-owed-${card.pid}` } }, `draws ${owed} curse card${owed === 1 ? "" : "s"}`),
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
  fill(card.modules, chips.length ? chips : el("span", { class: "muted", text: "no curse, no treasure" }));
}

/** Module 6: the player's character card, its ability and whether it is face up. */
function characterChip(pid, info, charged) {
  const ready = info.card === "permanent" ? "always on" : charged ? "ready" : "used: face up after the next slam";
  return el(
    "span",
    {
      class: `chip character ${info.card}${charged ? "" : " spent"}`,
      title: `${info.character} (${info.card}): ${info.text}`,
      dataset: { testid: `character-${pid}` },
    },
    characterIcon(info.character),
    el("span", { class: "chip-name", text: info.character }),
    el("small", { text: `${info.card}: ${info.text} · ${ready}` }),
  );
}

function showActions(card, player, outcome) {
  // Buttons are rebuilt only when they change, so that a push never swallows a click.
  const key = `${player.escaped}:${outcome}:${JSON.stringify(player.actions)}:${[...armedFor(card.pid)]}`;
  if (card.actionsKey === key) return;
  card.actionsKey = key;
  const actions = player.actions
    .map((action, index) => ({ action, index }))
    .sort((a, b) => rank(a.action) - rank(b.action) || a.index - b.index)
    .map(({ action }) => actionButton(card.pid, action, actionTestId(card.pid, action)));
  if (actions.length === 0) {
    const text = player.escaped
      ? "escaped: nothing left to do"
      : outcome === "lost"
        ? "caught in the collapse"
        : outcome === "won"
          ? "the game is won"
          : "no action open here";
    fill(card.actions, el("span", { class: "no-actions", text }));
  } else {
    fill(card.actions, actions);
  }
}

function rank(action) {
  const index = ACTION_ORDER.indexOf(action.action);
  return index === -1 ? ACTION_ORDER.length : index;
}

/** action-<pid>-<action>[-<x>_<y>][-g<gems>][-by-<helper>][-to-<receiver>] */
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
      onclick: () => takeAction(pid, action),
    },
    el("span", { class: "label" }, moduleIcon(action), actionLabel(action)),
  );
  if (spends.length && (action.possible || covered)) {
    const names = spends.map((id) => current.game.treasures[id].name).join(" + ");
    button.append(el("span", { class: "odds", text: `with the ${names}` }));
  }
  if (!action.possible && !covered) {
    const why = action.blocked ? `blocked: ${action.blocked}` : action.missing_text ? `missing ${action.missing_text}` : "";
    if (why) button.append(el("span", { class: "why", text: why }));
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
  if (action.action === "discover" && letter) return `${arrow}Discover ${letter}`;
  if (action.action === "carry" && letter) {
    const target = current && current.game ? current.game.temple.find((t) => sameCell(t.cell, action.event.cell)) : null;
    return `${arrow}Carry the chalice into ${target ? target.label : "the next chamber"}`;
  }
  if (action.action === "enter" && letter) {
    const target = current && current.game ? current.game.temple.find((t) => sameCell(t.cell, action.event.cell)) : null;
    const name = target ? target.label : action.label.replace(/^enter /, "").replace(/ \([NESW]\)$/, "");
    return `${arrow}Enter ${name}`;
  }
  if (action.action === "use" && action.event.treasure === "teleport") {
    const target = current && current.game ? current.game.temple.find((t) => sameCell(t.cell, action.event.cell)) : null;
    const who = target ? target.players.map((p) => playerStyle(p).name).join(", ") : "";
    return `Teleport to ${who || (target ? target.label : "another adventurer")}`;
  }
  const label = action.label.charAt(0).toUpperCase() + action.label.slice(1);
  return `${arrow}${label}`;
}

function oddsText(action) {
  if (action.possible || action.blocked || action.chance_next_roll === null) return "";
  const chance = `next roll ${Math.round(action.chance_next_roll * 100)} %`;
  if (action.expected_rolls === null) return `${chance}, not enough dice`;
  return `${chance}, ~${action.expected_rolls.toFixed(1)} rolls`;
}

function takeAction(pid, action) {
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
  else sendEvent(event).then(sent);
}

// ----- the dice roll entry ----------------------------------------------------------------------

function addFace(card, face) {
  if (card.roll.length >= card.dice) {
    toast(`${card.pid} holds ${card.dice} dice: remove a face first`, "error", 4);
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
      ? el("span", { class: "muted", text: `click ${card.dice} faces` })
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
  setText(card.reportButton, `Report roll (${card.roll.length}/${card.dice})`);
  card.reportButton.disabled = card.roll.length === 0;
}

async function reportRoll(card) {
  const verdict = await sendEvent({ type: "dice", player: card.pid, faces: card.roll.slice() });
  if (verdict && verdict.ok) clearRoll(card);
}

// ----- the discover picker ----------------------------------------------------------------------

const SIDE_WORDS = { N: "north", E: "east", S: "south", W: "west" };
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
  setText($("picker-title"), `${name} discovers the chamber ${letter ? `to the ${SIDE_WORDS[letter]}` : "next door"}: which tile?`);
  const withPhoto = await photos();
  fill(
    $("picker-tiles"),
    pile.length === 0
      ? el("p", { class: "muted", text: "The draw pile is empty." })
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
                sendEvent({ ...action.event, tile: tile.id }).then(after);
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
function openModulePicker(title, hint, choices, after = () => {}) {
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
            sendEvent(choice.event).then(after);
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

function openCursePicker(pid, action) {
  const cards = current.game.curse_cards;
  const held = current.game.players[pid].curses || [];
  const name = playerStyle(pid).name;
  openModulePicker(
    `${name} draws a curse card: which one?`,
    "Pick the card drawn from the curse pile.",
    Object.entries(cards).map(([id, info]) => ({
      testid: `pick-curse-${id}`,
      icon: curseIcon(id, info.name),
      name: info.name,
      note: held.includes(id) ? `${name} has it already: discarded without effect` : info.effect,
      event: { ...action.event, card: id },
    })),
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
  );
}

/** An action with several ways to do it (a character's run, turn or move): pick one. */
function openChoicePicker(pid, action) {
  const who = playerStyle(pid).name;
  openModulePicker(
    `${who}: ${action.label}`,
    "Pick where, as on the table.",
    action.choices.map((choice, index) => ({
      testid: `pick-choice-${index}`,
      icon: null,
      name: choice.name,
      note: choice.note || "",
      event: choice.event,
    })),
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
  );
}

// ----- sending --------------------------------------------------------------------------------

/** POST an event; show a rejection loudly. Resolves to the verdict (or null on error). */
async function sendEvent(event) {
  const result = await api("/api/event", { method: "POST", body: { event } });
  return handleVerdict(result, `${event.type} event`);
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
  if (!verdict.ok) toast(`Rejected: ${result.data.reason_text || verdict.reason}`);
  return verdict;
}

/** POST a correction of one log line (event null removes it); resolves to the verdict. */
async function sendCorrection(line, event) {
  const result = await api("/api/correct", { method: "POST", body: { line, event } });
  const verdict = handleVerdict(result, `fix of line ${line}`);
  if (verdict && verdict.ok) toast(event === null ? `Line ${line} removed.` : `Line ${line} corrected.`, "info", 3);
  return verdict;
}

async function undo() {
  const result = await api("/api/undo", { method: "POST", body: {} });
  const verdict = handleVerdict(result, "undo");
  if (verdict && verdict.ok) toast("The last event was taken back.", "info", 3);
}

let restartArmedUntil = 0;

async function clockAction(action) {
  if (action === "restart" && Date.now() > restartArmedUntil) {
    restartArmedUntil = Date.now() + 4000;
    setText($("clock-restart"), "↺ Sure? Click again");
    setTimeout(() => setText($("clock-restart"), "↺ Restart"), 4000);
    return;
  }
  setText($("clock-restart"), "↺ Restart");
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
    toast(`That is not valid JSON: ${error.message}`);
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
    const source = new EventSource("/api/stream");
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
      this.setStatus("live", "● live");
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
      else this.setStatus("down", `reconnecting… (${retry})`);
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
  window.addEventListener("resize", () => current && current.game && renderTemple(current));
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
  const parts = [vision.mode === "demo" ? "demo recording" : "camera"];
  const cam = vision.camera;
  if (cam) {
    parts.push(cam.status);
    if (cam.width) parts.push(`${cam.width}×${cam.height}`);
    parts.push(`${cam.fps} fps`);
    if (cam.dropped) parts.push(`${cam.dropped} frames skipped`);
  }
  const pipe = vision.pipeline;
  if (pipe) parts.push(`vision ${pipe.fps} fps, ${pipe.ms_median ?? "–"} ms`);
  return parts.join(" · ");
}

function renderVision(vision) {
  const panel = $("camera-panel");
  if (!vision || vision.mode === "off") {
    panel.hidden = true;
    return;
  }
  panel.hidden = false;
  const video = $("camera-video");
  if (!video.getAttribute("src")) video.setAttribute("src", "/api/video.mjpg");
  setText($("camera-status"), cameraStatusText(vision));
  const notes = [];
  if (vision.note) notes.push(vision.note);
  if (vision.camera && vision.camera.last_error && vision.camera.status !== "live") notes.push(vision.camera.last_error);
  if (vision.pipeline && vision.pipeline.last_error) notes.push(`vision: ${vision.pipeline.last_error}`);
  for (const problem of vision.problems || []) notes.push(problem);
  for (const wait of vision.waiting || []) notes.push(`waiting: ${wait}`);
  if (!vision.calibrated) notes.push("The table is not calibrated: run templecam calibrate (see the README).");
  if (vision.demo_game && !vision.playing_demo) notes.push("The demo recording shows another game: start it from the set-up page (Watch the demo game).");
  fill($("camera-notes"), notes.map((text) => el("li", { text })));
}

async function pollVision() {
  const result = await api("/api/vision");
  if (result.ok) renderVision(result.data); // else the connection badge says the server is away
  setTimeout(pollVision, VISION_POLL_MS);
}

pollVision();
