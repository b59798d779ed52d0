// The set-up page: players, difficulty, soundtrack, dice tracking -> POST /api/games -> /game.
//
// Test ids: player-toggle-<colour> (aria-pressed), difficulty-<level>, audio-<mode>,
// module-basic, track-dice, start-game, setup-error, setup-summary, running-game, games-link,
// demo-row, demo-game (shown while the demo recording plays), starting-temple, start-layout,
// start-tile-<W|E> and start-choice-<W|E> (the two drawn chambers and their pickers), redraw,
// read-start (shown with a calibrated camera) and start-seen (what the camera saw, or why not),
// module-<id> (a Big Box module's checkbox, e.g. module-curses), character-<colour>,
// new-quests and new-quest-<id> (Queenie 15's chambers drawn), queenie-note-<id>; the quest
// chambers' choice (setup-quests.js), the Maya calendar's board and the beast's path
// (setup-boards.js), each with field-error-<field> beside it (field-errors.js).

import { api, el, fill, PLAYER_COLOURS, playerStyle, shapeIcon } from "./common.js";
import { clearFieldErrors, showFieldErrors } from "./field-errors.js";
import { beastPathChoice, boardFields, mayaBoard } from "./setup-boards.js";
import { pickedQuests, questFields, questPool, questsChosen, renderQuestChoice } from "./setup-quests.js";
import { pileTileNode } from "./tile-art.js";
import { timerChoice } from "./timer-options.js";
import { has, lang, t } from "./words.js";

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
      el("span", { class: "player-name", text: look.name }),
      el("span", { class: "check", text: t("setup.not_playing") }),
    );
    togglesBox.append(button);
  }
}

function togglePlayer(colour, button) {
  if (chosen.has(colour)) chosen.delete(colour);
  else chosen.add(colour);
  const on = chosen.has(colour);
  button.setAttribute("aria-pressed", String(on));
  button.querySelector(".check").textContent = t(on ? "setup.playing" : "setup.not_playing");
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
  const who = players.length ? players.map((pid) => playerStyle(pid).name).join(", ") : t("setup.nobody");
  const dice = t(document.getElementById("track-dice").checked ? "setup.summary_camera" : "setup.summary_manual");
  const names = moduleInfo
    .filter((m) => chosenModules().includes(m.id))
    .map((m) => {
      if (m.id === "quests") return `${m.name} (${questsChosen() ? pickedQuests(questPool(moduleInfo, chosenModules())).length : questCount()})`;
      if (m.id === "traps") return `${m.name} (${trapCount()})`;
      if (m.id === "time") return `${m.name} (${timeCount()})`;
      return m.name;
    });
  document.getElementById("time-count-row").hidden = !chosenModules().includes("time");
  document.getElementById("torch-penalty-row").hidden = !chosenModules().includes("time");
  document.getElementById("trap-count-row").hidden = !chosenModules().includes("traps");
  const quests = chosenModules().includes("quests");
  renderQuestChoice(document.getElementById("quest-choice"), questPool(moduleInfo, chosenModules()), quests);
  document.getElementById("quest-count-row").hidden = !quests || questsChosen();
  renderCharacters();
  renderQueenieChoices();
  const modules = names.length ? names.join(" + ") : t("setup.basic_game");
  const count = players.length === 1 ? t("setup.summary_player", { who }) : t("setup.summary_players", { count: players.length, who });
  summary.textContent = `${count} · ${t(`setup.${selected("difficulty")}`)} · ${modules} · ${dice}`;
}

function showError(message) {
  errorBox.textContent = message;
  errorBox.hidden = false;
}

function hideError() {
  errorBox.hidden = true;
}

/** Say why the server refused the game: beside each field it names, and above the button. */
function showRefusal(result) {
  showError(t("setup.could_not_start", { error: result.error }));
  const field = showFieldErrors(result.data && result.data.detail);
  if (field) field.scrollIntoView({ block: "center" });
}

async function startGame(event) {
  event.preventDefault();
  const players = chosenPlayers();
  if (players.length === 0) {
    showError(t("setup.no_players"));
    return;
  }
  if (chosenModules().includes("new_quests") && queenieFields().new_quests.length === 0) {
    showError("Tick at least one of the new quest chambers, or untick that module.");
    return;
  }
  const body = {
    players,
    difficulty: selected("difficulty"),
    modules: chosenModules(),
    starting_chambers: startingChambers(),
    ...(chosenModules().includes("quests") ? questFields(questPool(moduleInfo, chosenModules()), questCount()) : {}),
    ...(chosenModules().includes("traps") ? { trap_count: trapCount() } : {}),
    ...(chosenModules().includes("time")
      ? { time_count: timeCount(), torch_penalty: document.getElementById("torch-penalty").value }
      : {}),
    ...(chosenModules().includes("characters") ? { characters: chosenCharacters() } : {}),
    ...queenieFields(),
    track_dice: document.getElementById("track-dice").checked,
    audio: selected("audio"),
    ...timerChoice(),
  };
  startButton.disabled = true;
  startButton.textContent = t("setup.starting");
  clearFieldErrors();
  const result = await api("/api/games", { method: "POST", body });
  if (result.ok) {
    window.location.assign("/game");
    return;
  }
  startButton.disabled = false;
  startButton.textContent = t("setup.start_game");
  showRefusal(result);
}

/** Tell whether host audio exists, and whether a game is already running. */
async function loadServerState() {
  const result = await api("/api/state");
  if (!result.ok) {
    showError(t("setup.no_answer", { error: result.error }));
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
      `${t("setup.running", { players: state.game.setup.players.map((pid) => playerStyle(pid).name).join(", ") })} `,
      el("a", { href: "/game", text: t("setup.go_back") }),
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
        "aria-label": t(side === "W" ? "more.setup.west_of" : "more.setup.east_of"),
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
    el("div", { class: "start-slot", title: startingDraw.start.name }, pileTileNode(startingDraw.start, "S", size), el("span", { class: "muted", text: t("more.setup.start") })),
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

/** Module 6's cards, and those the Queenie modules ticked add (New Characters' four). */
function characterCards() {
  const info = moduleInfo.find((m) => m.id === "characters");
  if (!info) return [];
  const added = moduleInfo.filter((m) => m.queenie && m.cards && chosenModules().includes(m.id));
  return [...info.cards, ...added.flatMap((m) => m.cards)];
}

/** A character card as the choice lists it, in the page's language ("Doc · permanent: ..."). */
function characterOption(card) {
  const character = has(`character.${card.character}`) ? t(`character.${card.character}`) : card.character;
  const side = has(`cardside.${card.card}`) ? t(`cardside.${card.card}`) : card.card;
  const text = lang !== "en" && has(`ability.${card.id}`) ? t(`ability.${card.id}`) : card.text;
  return `${character} · ${side}: ${text}`;
}

/** A select per chosen player: his character's card, each character for one player only. */
function renderCharacters() {
  const box = document.getElementById("character-choices");
  const on = chosenModules().includes("characters");
  box.hidden = !on;
  const players = chosenPlayers();
  const cards = characterCards();
  const key = on ? `${players.join(",")}|${cards.length}` : "";
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  if (!on) return;
  const characters = [...new Set(cards.map((c) => c.character))];
  for (const [pid, card] of characterPicks) {
    if (!cards.some((c) => c.id === card)) characterPicks.delete(pid); // its module was unticked
  }
  fill(
    box,
    el("p", { class: "note", text: t("more.setup.characters_note") }),
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
          el("option", { value: c.id, selected: c.id === characterPicks.get(pid) }, characterOption(c)),
        ),
      );
      select.value = characterPicks.get(pid);
      return el("label", { class: "character-choice" }, el("span", { class: "player-name", text: playerStyle(pid).name }), select);
    }),
  );
}

// ----- the Queenie modules' own choices: the new quests drawn, the calendar, the beast -----

const newQuestPicks = new Map(); // quest id -> ticked, kept while the modules change

/** The choices of the Queenie modules ticked: a checkbox per new quest chamber (all three
 * ticked: ticking the module is enough), the Maya calendar's board, the beast chamber's path,
 * how cursed gems are dealt. */
function renderQueenieChoices() {
  const box = document.getElementById("queenie-choices");
  const offers = moduleInfo.filter((m) => m.queenie && chosenModules().includes(m.id));
  const key = offers.map((m) => m.id).join(",");
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  const rows = [];
  for (const offer of offers) {
    if (offer.new_quests) rows.push(newQuestRow(offer));
    if (offer.maya_sides) rows.push(mayaBoard(offer));
    if (offer.beast_path) rows.push(beastPathChoice(offer));
    if (offer.quest_tiles) {
      const names = offer.quest_tiles.map((q) => q.tile.name).join(", ");
      rows.push(el("p", { class: "note", dataset: { testid: `queenie-note-${offer.id}` } }, t("qsetup.quests_note", { module: offer.name, names })));
    }
    if (offer.dealt) rows.push(el("p", { class: "note", dataset: { testid: `queenie-note-${offer.id}` } }, `${offer.name}: ${offer.dealt}.`));
  }
  box.hidden = rows.length === 0;
  fill(box, rows);
}

function newQuestRow(offer) {
  return el(
    "fieldset",
    { class: "queenie-choice", dataset: { testid: "new-quests" } },
    el("legend", { text: offer.name }),
    offer.new_quests.map((quest) => {
      if (!newQuestPicks.has(quest.id)) newQuestPicks.set(quest.id, true);
      return el(
        "label",
        { class: "choice" },
        el("input", {
          type: "checkbox",
          checked: newQuestPicks.get(quest.id),
          dataset: { testid: `new-quest-${quest.id}` },
          onchange: (event) => newQuestPicks.set(quest.id, event.target.checked),
        }),
        el("span", { text: quest.name }),
      );
    }),
  );
}

/** The Queenie modules' fields of the new-game form (left out: the server's defaults). */
function queenieFields() {
  const modules = chosenModules();
  const fields = {};
  if (modules.includes("new_quests")) fields.new_quests = [...newQuestPicks].filter(([, on]) => on).map(([id]) => id);
  return { ...fields, ...boardFields(modules) };
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

/** The names of modules by id, as the set-up page shows them. */
function moduleNames(ids) {
  return ids.map((id) => (moduleInfo.find((m) => m.id === id) || { name: id }).name).join(" + ");
}

/** A module the rulebook plays only with others ticks them too; unticking one of those unticks
 * the modules that need it (the server would refuse the game otherwise). */
function keepRequired(input, module) {
  const box = (id) => document.querySelector(`#module-choices input[data-module="${id}"]`);
  if (input.checked) {
    for (const id of module.requires || []) if (box(id)) box(id).checked = true;
  } else {
    for (const other of moduleInfo) {
      if ((other.requires || []).includes(module.id) && box(other.id)) box(other.id).checked = false;
    }
  }
}

function chosenModules() {
  return [...document.querySelectorAll("#module-choices input[data-module]:checked")].map((input) => input.dataset.module);
}

async function loadModules() {
  const result = await api("/api/modules");
  if (result.ok) {
    // the module names as the language's rulebook prints them (English: the server's own)
    moduleInfo = result.data.map((m) =>
      lang !== "en" && has(`module.${m.id}`)
        ? { ...m, name: t(`module.${m.id}`), summary: has(`module_summary.${m.id}`) ? t(`module_summary.${m.id}`) : m.summary }
        : m,
    );
    const choice = (module) =>
      el(
        "label",
        { class: "choice" },
        el("input", {
          type: "checkbox",
          dataset: { testid: `module-${module.id}`, module: module.id },
          onchange: (event) => {
            keepRequired(event.target, module);
            drawStartingTemple(); // their chambers replace the basic ones in the draw
          },
        }),
        el(
          "span",
          {},
          module.queenie ? `${module.name} ` : `${module.number} · ${module.name} `,
          el("small", { text: module.summary }),
          module.requires && module.requires.length
            ? el("small", { class: "module-needs", text: ` ${t("setup.module_needs", { names: moduleNames(module.requires) })}` })
            : null,
        ),
      );
    const bigBox = moduleInfo.filter((m) => !m.queenie);
    const queenie = moduleInfo.filter((m) => m.queenie);
    document.getElementById("module-choices").append(...bigBox.map(choice));
    if (queenie.length) {
      document
        .getElementById("module-choices")
        .append(el("h3", { class: "module-group", text: t("setup.queenie_modules") }), ...queenie.map(choice));
    }
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
