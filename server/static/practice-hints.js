// Practice for new players (the set-up page's Timer: Practice): the game page adds a Hints panel:
// before "Escape!" that nobody may act yet; then one line a player, from what the engine already works out for every open action (whether it
// can be taken now, what is missing and the chance that the next roll brings it):
//   during a countdown: back to the starting chamber before the door slams (or out, at the last);
//   else the most useful action that can be taken now (escape, gems, discover, enter, unlock);
//   else the likeliest one after the next roll of the dice not kept, with its chance.
// Other games show nothing. The panel reads /api/state itself (every 1.5 s in practice).

import { el, fill, playerBadge, playerStyle } from "./common.js";
import { lang, t } from "./words.js";

const POLL_MS = 1500;
const IDLE_POLL_MS = 10000; // not a practice game: look again now and then (a new game may be)
const USEFUL = ["escape", "activate", "activate_linked", "discover", "enter", "unlock"];
const SIDE_WORDS = { N: "dir.north", E: "dir.east", S: "dir.south", W: "dir.west" };

/** An action's label in a player's words: sides as words, no letters in brackets. */
function words(action) {
  return action.label
    .replace(/ \(([NESW])\)$/, (_, side) => ` (${t(SIDE_WORDS[side])})`)
    .replace(/to the ([NESW])$/, (_, side) => `to the ${t(SIDE_WORDS[side])}`);
}

function percent(chance) {
  return `${Math.round(chance * 100)} %`;
}

/** The one hint for a player, or null. */
export function hintFor(player, state) {
  if (player.escaped) return null;
  const timeline = state.clock.timeline;
  const n = state.clock.phase.countdown;
  const last = Math.max(...timeline.countdowns.map((c) => c.n));
  if (n !== null && n === last) return t("hint.collapse");
  if (n !== null && !(player.safe ?? player.in_start)) {
    return t("hint.run_back");
  }
  const actions = player.actions || [];
  for (const kind of USEFUL) {
    const now = actions.find((a) => a.action === kind && a.possible);
    if (now) return t("hint.now", { action: words(now) });
  }
  const likely = actions
    .filter((a) => !a.possible && !a.blocked && a.chance_next_roll !== null)
    .sort((a, b) => b.chance_next_roll - a.chance_next_roll)[0];
  if (likely) {
    const missing = likely.missing_text ? t("hint.missing", { what: likely.missing_text }) : "";
    return t("hint.roll", { chance: percent(likely.chance_next_roll), action: words(likely), missing });
  }
  return null;
}

function render(panel, state) {
  const game = state.game;
  const practice = Boolean(state.clock.timeline.timer && state.clock.timeline.timer.practice);
  panel.hidden = !practice || !game || game.state.outcome !== "running";
  if (panel.hidden) return;
  if (state.clock.status === "ready" || state.clock.t < 0) {
    const wait = state.clock.status === "ready" ? "hint.press_start" : "hint.wait";
    fill(panel.querySelector("ul"), el("li", { text: t(wait) }));
    return;
  }
  const rows = Object.entries(game.players)
    .map(([pid, player]) => [pid, hintFor(player, state)])
    .filter(([, hint]) => hint)
    .map(([pid, hint]) =>
      el(
        "li",
        { dataset: { testid: `hint-${pid}` } },
        playerBadge(pid),
        " ",
        el("strong", { text: playerStyle(pid).name }),
        `: ${hint}`,
      ),
    );
  fill(panel.querySelector("ul"), ...rows);
}

async function poll(panel) {
  let practice = false;
  try {
    const response = await fetch("/api/state", { cache: "no-store", headers: { "X-Templecam-Lang": lang } });
    if (response.ok) {
      const state = await response.json();
      practice = Boolean(state.clock.timeline.timer && state.clock.timeline.timer.practice);
      render(panel, state);
    }
  } catch (error) {
    // the game page itself says when the server does not answer
  }
  setTimeout(() => poll(panel), practice ? POLL_MS : IDLE_POLL_MS);
}

function start() {
  const board = document.querySelector("main.board");
  if (!board) return;
  const panel = el(
    "section",
    { class: "practice-hints", dataset: { testid: "practice-hints" }, "aria-live": "polite" },
    el("h2", { text: t("hint.title") }),
    el("ul"),
  );
  panel.hidden = true;
  board.before(panel);
  poll(panel);
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
