// The set-up page: players, difficulty, soundtrack, dice tracking -> POST /api/games -> /game.
//
// Test ids: player-toggle-<colour> (aria-pressed), difficulty-<level>, audio-<mode>,
// module-basic, track-dice, start-game, setup-error, setup-summary, running-game, games-link,
// demo-row, demo-game (shown while the demo recording plays), starting-temple, start-layout,
// start-tile-<W|E> and start-choice-<W|E> (the two drawn chambers and their pickers), redraw,
// read-start (shown with a calibrated camera) and start-seen (what the camera saw, or why not),
// module-<id> (a Big Box module's checkbox, e.g. module-curses).

import { api, el, fill, PLAYER_COLOURS, playerStyle, shapeIcon } from "./common.js";
import { pileTileNode } from "./tile-art.js";

const form = document.getElementById("setup");
const togglesBox = document.getElementById("player-toggles");
const errorBox = document.getElementById("setup-error");
const summary = document.getElementById("setup-summary");
const startButton = document.getElementById("start-game");

const chosen = new Set();

function buildToggles() {
  for (const colour of PLAYER_COLOURS) {
    const look = playerStyle(colour);
    const button = el(
      "button",
      {
        type: "button",
        class: "player-toggle",
        "aria-pressed": "false",
        style: { "--pc": look.colour },
        dataset: { testid: `player-toggle-${colour}`, player: colour },
        onclick: () => togglePlayer(colour, button),
      },
      el("span", { class: "swatch" }, shapeIcon(look.shape)),
      el("span", { class: "player-name", text: colour }),
      el("span", { class: "check", text: "not playing" }),
    );
    togglesBox.append(button);
  }
}

function togglePlayer(colour, button) {
  if (chosen.has(colour)) chosen.delete(colour);
  else chosen.add(colour);
  const on = chosen.has(colour);
  button.setAttribute("aria-pressed", String(on));
  button.querySelector(".check").textContent = on ? "✓ playing" : "not playing";
  hideError();
  updateSummary();
}

/** The chosen players, in the order of the toggles (the table's seating is not known). */
function chosenPlayers() {
  return PLAYER_COLOURS.filter((colour) => chosen.has(colour));
}

function selected(name) {
  const input = form.querySelector(`input[name="${name}"]:checked`);
  return input ? input.value : null;
}

function updateSummary() {
  const players = chosenPlayers();
  const who = players.length ? players.join(", ") : "nobody yet";
  const dice = document.getElementById("track-dice").checked ? "camera tracks the dice" : "manual mode";
  const names = moduleInfo
    .filter((m) => chosenModules().includes(m.id))
    .map((m) => {
      if (m.id === "quests") return `${m.name} (${questCount()})`;
      if (m.id === "traps") return `${m.name} (${trapCount()})`;
      if (m.id === "time") return `${m.name} (${timeCount()})`;
      return m.name;
    });
  document.getElementById("time-count-row").hidden = !chosenModules().includes("time");
  document.getElementById("trap-count-row").hidden = !chosenModules().includes("traps");
  document.getElementById("quest-count-row").hidden = !chosenModules().includes("quests");
  renderCharacters();
  const modules = names.length ? names.join(" + ") : "basic game";
  summary.textContent = `${players.length} player${players.length === 1 ? "" : "s"}: ${who} · ${selected("difficulty")} · ${modules} · ${dice}`;
}

function showError(message) {
  errorBox.textContent = message;
  errorBox.hidden = false;
}

function hideError() {
  errorBox.hidden = true;
}

async function startGame(event) {
  event.preventDefault();
  const players = chosenPlayers();
  if (players.length === 0) {
    showError("Choose at least one player: click the colours of the adventurers at the table.");
    return;
  }
  const body = {
    players,
    difficulty: selected("difficulty"),
    modules: chosenModules(),
    starting_chambers: startingChambers(),
    ...(chosenModules().includes("quests") ? { quest_count: questCount() } : {}),
    ...(chosenModules().includes("traps") ? { trap_count: trapCount() } : {}),
    ...(chosenModules().includes("time") ? { time_count: timeCount() } : {}),
    ...(chosenModules().includes("characters") ? { characters: chosenCharacters() } : {}),
    track_dice: document.getElementById("track-dice").checked,
    audio: selected("audio"),
  };
  startButton.disabled = true;
  startButton.textContent = "Starting…";
  const result = await api("/api/games", { method: "POST", body });
  if (result.ok) {
    window.location.assign("/game");
    return;
  }
  startButton.disabled = false;
  startButton.textContent = "Start game";
  showError(`The game could not start: ${result.error}`);
}

/** Tell whether host audio exists, and whether a game is already running. */
async function loadServerState() {
  const result = await api("/api/state");
  if (!result.ok) {
    showError(`The server did not answer: ${result.error}`);
    return;
  }
  const state = result.data;
  const audio = state.audio || {};
  if (!audio.host_available) {
    const hostInput = form.querySelector('input[name="audio"][value="host"]');
    hostInput.disabled = true;
    document.getElementById("host-audio-note").textContent = audio.host_notice || `not available: ${audio.host_reason}`;
  }
  if (state.game && state.game.state.outcome === "running") {
    const box = document.getElementById("running-game");
    fill(
      box,
      `A game is running (${state.game.setup.players.join(", ")}). Starting a new one keeps it saved. `,
      el("a", { href: "/game", text: "Go back to it" }),
    );
    box.hidden = false;
    document.getElementById("game-link").hidden = false;
  }
}

// ----- the starting temple (page 5): the start and two drawn chambers, stairs towards it -----

let startingDraw = null; // {start, candidates, drawn: [west id, east id]}

function startingChambers() {
  return startingDraw ? [...startingDraw.drawn] : null;
}

async function drawStartingTemple() {
  showSeen(null); // a new draw (or new modules): what the camera saw earlier no longer shows
  const modules = chosenModules().join(",");
  const result = await api(`/api/starting-temple${modules ? `?modules=${encodeURIComponent(modules)}` : ""}`);
  if (modules !== chosenModules().join(",")) return; // the choice changed meanwhile: a newer draw comes
  if (!result.ok) return; // the game then starts from the starting chamber alone
  startingDraw = result.data;
  renderStartingTemple();
}

function renderStartingTemple() {
  const byId = new Map(startingDraw.candidates.map((tile) => [tile.id, tile]));
  const size = window.innerWidth <= 600 ? "96px" : "140px";
  const chamberColumn = (index, side) => {
    const tile = byId.get(startingDraw.drawn[index]);
    const stairs = side === "W" ? "E" : "W"; // the stairway touches the starting chamber
    const choice = el(
      "select",
      {
        class: "start-choice",
        "aria-label": `chamber to the ${side === "W" ? "west" : "east"} of the start`,
        dataset: { testid: `start-choice-${side}` },
        onchange: (event) => {
          // The tile lying on the other side? Then the two swap places.
          if (startingDraw.drawn[1 - index] === event.target.value) startingDraw.drawn[1 - index] = tile.id;
          startingDraw.drawn[index] = event.target.value;
          renderStartingTemple();
        },
      },
      startingDraw.candidates.map((candidate) => el("option", { value: candidate.id, text: candidate.name, selected: candidate.id === tile.id })),
    );
    return el(
      "div",
      { class: "start-slot", dataset: { testid: `start-tile-${side}`, tile: tile.id }, title: tile.name },
      pileTileNode(tile, stairs, size),
      choice,
    );
  };
  fill(
    document.getElementById("start-layout"),
    chamberColumn(0, "W"),
    el("div", { class: "start-slot", title: startingDraw.start.name }, pileTileNode(startingDraw.start, "S", size), el("span", { class: "muted", text: "start" })),
    chamberColumn(1, "E"),
  );
}

document.getElementById("redraw").addEventListener("click", drawStartingTemple);

// ----- the starting temple read from the camera (a calibrated camera over the table) -----

const readButton = document.getElementById("read-start");

/** Say what the camera saw (or why it could not read the table); null hides the line. */
function showSeen(text, problem = false) {
  const box = document.getElementById("start-seen");
  box.hidden = !text;
  box.textContent = text || "";
  box.classList.toggle("problem", problem);
}

/** Lay the chamber the camera saw on one side; the tile lying on the other side swaps places. */
function placeSeen(index, tileId) {
  if (!startingDraw.candidates.some((candidate) => candidate.id === tileId)) return;
  if (startingDraw.drawn[1 - index] === tileId) startingDraw.drawn[1 - index] = startingDraw.drawn[index];
  startingDraw.drawn[index] = tileId;
}

async function readStartingTemple() {
  const modules = chosenModules().join(",");
  readButton.disabled = true;
  showSeen("Looking at the table…");
  const result = await api(`/api/starting-temple/seen${modules ? `?modules=${encodeURIComponent(modules)}` : ""}`);
  readButton.disabled = false;
  if (!result.ok) {
    showSeen(result.error, true);
    return;
  }
  if (!startingDraw || modules !== chosenModules().join(",")) return; // the modules changed meanwhile
  const seen = result.data;
  seen.sides.forEach((side, index) => {
    if (side.tile) placeSeen(index, side.tile.id);
  });
  renderStartingTemple();
  showSeen(seen.message, !seen.ok);
}

readButton.addEventListener("click", readStartingTemple);

// ----- the Big Box modules (pages 10-11): a checkbox each, with what it adds -----

let moduleInfo = []; // [{id, number, name, summary}] from /api/modules

// ----- module 6: each player's character card (page 20) -----

const characterPicks = new Map(); // pid -> card id, kept while the players change

function characterCards() {
  const info = moduleInfo.find((m) => m.id === "characters");
  return info ? info.cards : [];
}

/** A select per chosen player: his character's card, each character for one player only. */
function renderCharacters() {
  const box = document.getElementById("character-choices");
  const on = chosenModules().includes("characters");
  box.hidden = !on;
  const players = chosenPlayers();
  const key = on ? players.join(",") : "";
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  if (!on) return;
  const cards = characterCards();
  const characters = [...new Set(cards.map((c) => c.character))];
  fill(
    box,
    el("p", { class: "note", text: "Characters (page 20): each player keeps one card of a character nobody else plays." }),
    players.map((pid, index) => {
      if (!characterPicks.has(pid)) {
        const character = characters[index % characters.length];
        characterPicks.set(pid, cards.find((c) => c.character === character && c.card === "permanent").id);
      }
      const select = el(
        "select",
        {
          dataset: { testid: `character-${pid}` },
          onchange: () => characterPicks.set(pid, select.value),
        },
        cards.map((c) =>
          el("option", { value: c.id, selected: c.id === characterPicks.get(pid) }, `${c.character} · ${c.card}: ${c.text}`),
        ),
      );
      select.value = characterPicks.get(pid);
      return el("label", { class: "character-choice" }, el("span", { class: "player-name", text: playerStyle(pid).name }), select);
    }),
  );
}

function chosenCharacters() {
  return Object.fromEntries(chosenPlayers().map((pid) => [pid, characterPicks.get(pid)]));
}

/** How many time chambers module 8 draws (page 24: 2, 3 or 4). */
function timeCount() {
  return Number(document.getElementById("time-count").value);
}

/** How many trap chambers module 7 draws (page 22: 2, 3 or 4). */
function trapCount() {
  return Number(document.getElementById("trap-count").value);
}

/** How many quest chambers module 5 draws (page 17: 1, 2 or 3). */
function questCount() {
  return Number(document.getElementById("quest-count").value);
}

function chosenModules() {
  return [...document.querySelectorAll("#module-choices input[data-module]:checked")].map((input) => input.dataset.module);
}

async function loadModules() {
  const result = await api("/api/modules");
  if (result.ok) {
    moduleInfo = result.data;
    document.getElementById("module-choices").append(
      ...moduleInfo.map((module) =>
        el(
          "label",
          { class: "choice" },
          el("input", {
            type: "checkbox",
            dataset: { testid: `module-${module.id}`, module: module.id },
            onchange: drawStartingTemple, // their chambers replace the basic ones in the draw
          }),
          el("span", {}, `${module.number} · ${module.name} `, el("small", { text: module.summary })),
        ),
      ),
    );
  }
  drawStartingTemple();
  updateSummary();
}

loadModules();

buildToggles();
form.addEventListener("submit", startGame);
form.addEventListener("change", updateSummary);
updateSummary();
loadServerState();

/** With a calibrated camera, let it track the dice; without one, offer the demo game. */
async function fitToCamera() {
  const result = await api("/api/vision");
  if (!result.ok) return;
  if (result.data.mode === "camera" && result.data.calibrated) {
    document.getElementById("track-dice").checked = true;
    readButton.hidden = false; // the camera may read the starting temple laid on the table
  }
  if (!result.data.demo_game) return;
  const row = document.getElementById("demo-row");
  const button = document.getElementById("demo-game");
  row.hidden = false;
  button.addEventListener("click", async () => {
    button.disabled = true;
    const started = await api("/api/demo-game", { method: "POST" });
    if (started.ok) {
      window.location.assign("/game");
      return;
    }
    button.disabled = false;
    showError(`The demo game could not start: ${started.error}`);
  });
}

fitToCamera();
