// Past games: the saved games (GET /api/games) and the replay of one (GET /api/games/{id}).
//
// Test ids: games-list, game-<id> (a button per saved game), outcome-<id> (its outcome in
// words), games-error, replay, replay-title, replay-outcome, replay-state, replay-players,
// replay-temple, replay-events (li.rejected for rejected events).

import { api, el, fill, formatClock, playerBadge } from "./common.js";

const listBox = document.getElementById("games-list");
const replayBox = document.getElementById("replay");
const errorBox = document.getElementById("games-error");

function showError(message) {
  errorBox.textContent = message;
  errorBox.hidden = !message;
}

function when(epochSeconds) {
  if (typeof epochSeconds !== "number") return "unknown date";
  return new Date(epochSeconds * 1000).toLocaleString(undefined, {
    dateStyle: "medium",
    timeStyle: "short",
  });
}

async function loadList() {
  const result = await api("/api/games");
  if (!result.ok) {
    fill(listBox);
    showError(`The saved games could not be listed: ${result.error}`);
    return;
  }
  const games = result.data;
  if (games.length === 0) {
    fill(listBox, el("li", { class: "muted" }, "No game saved yet. ", el("a", { href: "/setup", text: "Start one" })));
    return;
  }
  fill(listBox, games.map(gameItem));
  const wanted = decodeURIComponent(window.location.hash.slice(1));
  if (wanted && games.some((g) => g.game_id === wanted)) openGame(wanted);
}

function gameItem(game) {
  const events = Math.max(0, (game.lines || 1) - 1);
  return el(
    "li",
    {},
    el(
      "button",
      { dataset: { testid: `game-${game.game_id}`, game: game.game_id }, onclick: () => openGame(game.game_id) },
      el("span", { class: "when", text: when(game.created) }),
      el("span", {
        class: `game-outcome outcome-word ${game.outcome || ""}`,
        dataset: { testid: `outcome-${game.game_id}` },
        text: game.outcome_text || game.outcome || "",
      }),
      el(
        "span",
        { class: "meta" },
        game.players.map((pid) => playerBadge(pid)),
        ` ${events} event${events === 1 ? "" : "s"}`,
      ),
    ),
  );
}

async function openGame(gameId) {
  for (const button of listBox.querySelectorAll("button")) {
    button.setAttribute("aria-current", String(button.dataset.game === gameId));
  }
  history.replaceState(null, "", `#${encodeURIComponent(gameId)}`);
  fill(replayBox, el("p", { class: "muted", text: "Replaying…" }));
  const result = await api(`/api/games/${encodeURIComponent(gameId)}`);
  if (!result.ok) {
    fill(replayBox, el("p", { class: "form-error", role: "alert", text: `This game cannot be replayed: ${result.error}` }));
    return;
  }
  showError("");
  renderReplay(result.data);
}

function renderReplay(replay) {
  const state = replay.state;
  const rejected = replay.verdicts.filter((v) => !v.ok).length;
  fill(
    replayBox,
    el("h2", { class: "replay-title", dataset: { testid: "replay-title" }, text: `Game ${replay.game_id}` }),
    el("a", { class: "btn", href: `/games/${encodeURIComponent(replay.game_id)}`, dataset: { testid: "story-link" } }, "The story of this game: plots, moments, video"),
    finalState(state, replay.events.length, rejected),
    playersTable(state, replay.words),
    templeTable(replay.words),
    el("h2", { text: "Events" }),
    eventsList(replay),
  );
}

function finalState(state, events, rejected) {
  const stat = (label, value, extra = {}) => el("div", { class: "stat", ...extra }, el("b", {}, value), label);
  return el(
    "div",
    { class: "final-state", dataset: { testid: "replay-state" } },
    stat("outcome", el("span", { class: `outcome-word ${state.outcome}`, text: state.outcome.toUpperCase() }), {
      dataset: { testid: "replay-outcome" },
    }),
    stat("keys to escape", String(state.keys_to_escape)),
    stat("gems in the depot", String(state.depot)),
    stat("turns of fate left", String(state.turns_of_fate_left)),
    stat("events", String(events)),
    stat("rejected", String(rejected)),
  );
}

function playersTable(state, words) {
  return el(
    "table",
    { class: "state-table", dataset: { testid: "replay-players" } },
    el("tr", {}, ["player", "where", "dice", "locked"].map((h) => el("th", { text: h }))),
    Object.entries(state.players).map(([pid, p]) =>
      el(
        "tr",
        {},
        el("td", {}, playerBadge(pid), " ", pid.charAt(0).toUpperCase() + pid.slice(1)),
        el("td", { text: words.players[pid] || (p.escaped ? "out of the temple" : "somewhere") }),
        el("td", { text: String(p.dice) }),
        el("td", { text: String(p.locked) }),
      ),
    ),
  );
}

const STAIRS = { N: "north", E: "east", S: "south", W: "west" };

function templeTable(words) {
  return el(
    "table",
    { class: "state-table", dataset: { testid: "replay-temple" } },
    el("tr", {}, ["chamber", "where", "stairway faces", "active gems"].map((h) => el("th", { text: h }))),
    words.temple.map((tile) =>
      el(
        "tr",
        {},
        el("td", { title: tile.name, text: tile.label }),
        el("td", { text: tile.where }),
        el("td", { text: STAIRS[tile.stairs] || tile.stairs }),
        el("td", { text: String(tile.gems) }),
      ),
    ),
  );
}

function eventsList(replay) {
  if (replay.events.length === 0) return el("p", { class: "muted", text: "No event after the setup." });
  return el(
    "ol",
    { class: "replay-events", dataset: { testid: "replay-events" } },
    replay.events.map((entry, index) => {
      const verdict = replay.verdicts[index] || { ok: true };
      const t = entry.event && typeof entry.event.t === "number" ? formatClock(entry.event.t) : "–";
      return el(
        "li",
        { class: verdict.ok ? "" : "rejected" },
        el("span", { class: "line", text: `#${entry.line}` }),
        el("span", { class: "at", text: t }),
        el("span", { class: verdict.ok ? "mark ok" : "mark", text: verdict.ok ? "✓" : "✗" }),
        el(
          "span",
          {},
          entry.text,
          verdict.ok ? null : el("span", { class: "reason", text: `rejected: ${entry.reason_text || verdict.reason}` }),
        ),
      );
    }),
  );
}

loadList();
