// The Fix dialog of the game page: correct any earlier event of the log, or remove it.
// What it builds is sent as {line, event} (event null to remove) to POST /api/correct.
//
// Stable test ids (data-testid):
//   fix-dialog, fix-title, fix-form                 the dialog, its title and its fields
//   fix-player                                       who did it (dice, enter, discover)
//   fix-die-<i>, fix-add-die, fix-remove-die         each die's face (dice)
//   fix-cell                                         the chamber (enter, activate)
//   fix-x, fix-y, fix-tile                           the new cell and tile (discover)
//   fix-gems, fix-with-<pid>                         gems and who activated them (activate)
//   fix-json                                         any other event, as JSON
//   fix-save, fix-remove, fix-restore, fix-cancel    the buttons

import { el, FACE_LABELS, FACES, fill, setText, toast } from "./common.js";

const $ = (id) => document.getElementById(id);

const MAX_DICE = 12;
/** Fields the engine does not judge; left out, so that the correction keeps the line's time. */
const NOT_JUDGED = ["t", "source", "conf"];

let session = null; // {entry, read, send}

/** The event without the fields the engine does not judge (the correction keeps `t`). */
function judged(event) {
  const copy = { ...event };
  for (const key of NOT_JUDGED) delete copy[key];
  return copy;
}

function select(testid, options, chosen) {
  return el(
    "select",
    { dataset: { testid } },
    options.map(([value, label]) => el("option", { value, selected: value === chosen }, label)),
  );
}

function field(label, control) {
  return el("label", { class: "fix-field" }, el("span", { text: label }), control);
}

function cellValue(cell) {
  return Array.isArray(cell) ? `${cell[0]},${cell[1]}` : "";
}

function parseCell(value) {
  const [x, y] = value.split(",").map(Number);
  return [x, y];
}

function playerSelect(event, game) {
  const players = game.setup.players.map((pid) => [pid, pid]);
  return select("fix-player", players, event.player);
}

/** Chambers of the temple to choose from (and the event's own cell, should it be elsewhere). */
function chamberSelect(event, game, onlyWithGems = false) {
  const options = game.temple
    .filter((tile) => !onlyWithGems || tile.gem_icons)
    .map((tile) => [cellValue(tile.cell), `${tile.kind === "start" ? "Start" : tile.name} [${tile.cell}]`]);
  const own = cellValue(event.cell);
  if (own && !options.some(([value]) => value === own)) options.unshift([own, `[${event.cell}] (no chamber)`]);
  return select("fix-cell", options, own);
}

function diceEditor(event, game) {
  const player = playerSelect(event, game);
  const dice = el("div", { class: "fix-dice" });
  const faces = Array.isArray(event.faces) ? event.faces.slice() : [];
  const draw = () => {
    fill(
      dice,
      faces.map((face, index) => {
        const control = select(`fix-die-${index}`, FACES.map((f) => [f, FACE_LABELS[f]]), face);
        control.addEventListener("change", () => {
          faces[index] = control.value;
        });
        return control;
      }),
    );
  };
  const add = el("button", { type: "button", class: "btn", dataset: { testid: "fix-add-die" } }, "+ die");
  const remove = el("button", { type: "button", class: "btn", dataset: { testid: "fix-remove-die" } }, "− die");
  add.addEventListener("click", () => {
    if (faces.length < MAX_DICE) faces.push("adventurer");
    draw();
  });
  remove.addEventListener("click", () => {
    if (faces.length > 1) faces.pop();
    draw();
  });
  draw();
  return {
    nodes: [field("Player", player), field("Faces", dice), el("div", { class: "button-row" }, add, remove)],
    read: () => ({ ...judged(event), player: player.value, faces: faces.slice() }),
  };
}

function enterEditor(event, game) {
  const player = playerSelect(event, game);
  const cell = chamberSelect(event, game);
  return {
    nodes: [field("Player", player), field("Into the chamber", cell)],
    read: () => ({ ...judged(event), player: player.value, cell: parseCell(cell.value) }),
  };
}

function discoverEditor(event, game) {
  const player = playerSelect(event, game);
  const [x0, y0] = Array.isArray(event.cell) ? event.cell : [0, 1];
  const x = el("input", { type: "number", step: 1, value: x0, dataset: { testid: "fix-x" } });
  const y = el("input", { type: "number", step: 1, value: y0, dataset: { testid: "fix-y" } });
  const tiles = [
    ...game.temple.filter((tile) => tile.kind !== "start").map((tile) => [tile.tile, tile.name]),
    ...game.draw_pile.map((tile) => [tile.id, tile.name]),
  ].map(([id, name]) => [id, `${name} (${id})`]);
  const tile = select("fix-tile", tiles, event.tile);
  return {
    nodes: [field("Player", player), field("Cell x (east +)", x), field("Cell y (north +)", y), field("Tile", tile)],
    read: () => {
      const cell = [Number(x.value), Number(y.value)];
      if (!cell.every(Number.isInteger)) throw new Error("the cell needs two whole numbers, x and y");
      const fixed = { ...judged(event), player: player.value, cell, tile: tile.value };
      delete fixed.stairs; // the engine derives it: the stairway faces the discoverer's chamber
      return fixed;
    },
  };
}

function activateEditor(event, game) {
  const cell = chamberSelect(event, game, true);
  const gems = select(
    "fix-gems",
    ["1", "2", "3"].map((n) => [n, n]),
    String(event.gems),
  );
  const chosen = new Set(Array.isArray(event.players) ? event.players : []);
  const boxes = game.setup.players.map((pid) => {
    const box = el("input", { type: "checkbox", checked: chosen.has(pid), dataset: { testid: `fix-with-${pid}` } });
    return { pid, box, label: el("label", { class: "fix-check" }, box, el("span", { text: pid })) };
  });
  return {
    nodes: [
      field("Chamber", cell),
      field("Gems", gems),
      field("Players", el("div", { class: "fix-checks" }, boxes.map((b) => b.label))),
    ],
    read: () => {
      const players = boxes.filter((b) => b.box.checked).map((b) => b.pid);
      if (players.length === 0) throw new Error("tick at least one player who activated the gems");
      return { ...judged(event), cell: parseCell(cell.value), gems: Number(gems.value), players };
    },
  };
}

function jsonEditor(event) {
  const text = el("textarea", { spellcheck: "false", dataset: { testid: "fix-json" } });
  text.value = JSON.stringify(event && typeof event === "object" ? judged(event) : { type: "" });
  return {
    nodes: [field("The event as it should have been (JSON)", text)],
    read: () => {
      let fixed;
      try {
        fixed = JSON.parse(text.value);
      } catch (error) {
        throw new Error(`that is not valid JSON: ${error.message}`);
      }
      if (!fixed || typeof fixed !== "object" || Array.isArray(fixed)) {
        throw new Error('an event is a JSON object, e.g. {"type": "escape", "player": "red"}');
      }
      return fixed;
    },
  };
}

const EDITORS = { dice: diceEditor, enter: enterEditor, discover: discoverEditor, activate: activateEditor };

/**
 * Open the dialog on a log entry. `send(line, event | null)` posts the correction and resolves
 * to the verdict (or null when it could not be sent); the dialog closes once one is accepted.
 */
export function openFix(entry, game, send) {
  const event = entry.event && typeof entry.event === "object" ? entry.event : {};
  const editor = (EDITORS[event.type] || jsonEditor)(event, game);
  session = { entry, read: editor.read, send };
  setText($("fix-title"), `Fix line ${entry.line}: ${entry.text}`);
  fill($("fix-form"), editor.nodes);
  $("fix-restore").hidden = !entry.corrected_by || !entry.written;
  $("fix-dialog").showModal();
  const first = $("fix-form").querySelector("select, input, textarea");
  if (first) first.focus();
}

async function submit(event) {
  if (!session) return;
  let fixed;
  try {
    fixed = event === undefined ? session.read() : event;
  } catch (error) {
    toast(`Not sent: ${error.message}`);
    return;
  }
  const verdict = await session.send(session.entry.line, fixed);
  if (verdict && verdict.ok) close();
}

function close() {
  session = null;
  const dialog = $("fix-dialog");
  if (dialog.open) dialog.close();
}

/** Wire the dialog's buttons and keys once: Enter saves, Escape cancels (the dialog's own). */
export function wireFixDialog() {
  const dialog = $("fix-dialog");
  $("fix-save").addEventListener("click", () => submit());
  $("fix-remove").addEventListener("click", () => submit(null));
  $("fix-restore").addEventListener("click", () => session && submit(judged(session.entry.written)));
  $("fix-cancel").addEventListener("click", close);
  dialog.addEventListener("close", () => {
    session = null;
  });
  dialog.addEventListener("keydown", (key) => {
    if (key.key !== "Enter" || key.isComposing) return;
    const target = key.target;
    if (target.tagName === "TEXTAREA" && !(key.ctrlKey || key.metaKey)) return;
    if (target.tagName === "BUTTON") return; // the button's own click
    key.preventDefault();
    submit();
  });
}
