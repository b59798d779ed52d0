// The Fix dialog of the game page: correct any earlier event of the log, or remove it.
// What it builds is sent as {line, event} (event null to remove) to POST /api/correct.
//
// Stable test ids (data-testid):
//   fix-dialog, fix-title, fix-form                 the dialog, its title and its fields
//   fix-player                                       who did it (dice, enter, discover)
//   fix-die-<i>, fix-add-die, fix-remove-die         each die's face (dice)
//   fix-cell                                         the chamber, by name and place (enter,
//                                                    activate; option values are "x,y")
//   fix-where, fix-tile, fix-tile-<tile id>          where it was discovered (a spot by its
//                                                    place) and the tile, by picture (discover)
//   fix-gems, fix-with-<pid>                         gems and who activated them (activate)
//   fix-json                                         any other event, as JSON
//   fix-save, fix-remove, fix-restore, fix-cancel    the buttons

import { el, FACE_LABELS, FACES, fill, playerStyle, setText, toast } from "./common.js";
import { pileTileNode, SIDES, turnedDoors } from "./tile-art.js";
import { lang, t } from "./words.js";

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
  const players = game.setup.players.map((pid) => [pid, playerStyle(pid).name]);
  return select("fix-player", players, event.player);
}

const NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];

/** Where a cell lies, as the log says it (rules/narrative.py place_name): `north of the start`,
 * `north-east of the start`, `two tiles north and one east of the start`. */
export function placeName(cell, start) {
  if (lang !== "en") return placeIn(cell, start);
  if (!Array.isArray(cell) || cell.length !== 2) return "somewhere";
  const dx = cell[0] - start[0];
  const dy = cell[1] - start[1];
  if (dx === 0 && dy === 0) return "the start";
  const parts = [];
  if (dy) parts.push([Math.abs(dy), dy > 0 ? "north" : "south"]);
  if (dx) parts.push([Math.abs(dx), dx > 0 ? "east" : "west"]);
  if (parts.every(([n]) => n === 1)) return `${parts.map(([, word]) => word).join("-")} of the start`;
  const count = (n) => NUMBER_WORDS[n] || String(n);
  const [[first, firstWord], ...rest] = parts;
  let said = `${count(first)} ${first === 1 ? "tile" : "tiles"} ${firstWord}`;
  for (const [n, word] of rest) said += ` and ${count(n)} ${word}`;
  return `${said} of the start`;
}

const COMPASS = { "0,1": "N", "0,-1": "S", "1,0": "E", "-1,0": "W", "1,1": "NE", "-1,1": "NW", "1,-1": "SE", "-1,-1": "SW" };

/** `placeName` in the page's language, from the catalog's words (as rules/narrative.py says it). */
function placeIn(cell, start) {
  if (!Array.isArray(cell) || cell.length !== 2) return t("place.somewhere");
  const dx = cell[0] - start[0];
  const dy = cell[1] - start[1];
  if (dx === 0 && dy === 0) return t("place.start");
  if (Math.abs(dx) <= 1 && Math.abs(dy) <= 1) return t(`place.${COMPASS[`${dx},${dy}`]}`);
  const parts = [];
  if (dy) parts.push([Math.abs(dy), t(dy > 0 ? "dir.north" : "dir.south")]);
  if (dx) parts.push([Math.abs(dx), t(dx > 0 ? "dir.east" : "dir.west")]);
  const count = (n) => (n <= 9 ? t(`num.${n}`) : String(n));
  const [[first, firstDir], ...rest] = parts;
  let said = first === 1 ? t("place.first_one", { dir: firstDir }) : t("place.first_many", { count: count(first), dir: firstDir });
  for (const [n, dir] of rest) said = t("list.and", { rest: said, last: t("place.more", { count: count(n), dir }) });
  return t("place.far", { steps: said });
}

function startCell(game) {
  const start = game.temple.find((tile) => tile.kind === "start");
  return start ? start.cell : [0, 0];
}

/** A chamber of the temple in words: `the start chamber`, `Gem chamber east of the start`. */
function chamberWords(tile, start) {
  if (tile.kind === "start") return t("chamber.the_start");
  return `${tile.label} ${placeName(tile.cell, start)}`;
}

/** Chambers of the temple to choose from by name and place (and the event's own spot, should
 * no chamber lie there). */
function chamberSelect(event, game, onlyWithGems = false) {
  const start = startCell(game);
  const options = game.temple
    .filter((tile) => !onlyWithGems || tile.gem_icons)
    .map((tile) => [cellValue(tile.cell), chamberWords(tile, start)]);
  const own = cellValue(event.cell);
  if (own && !options.some(([value]) => value === own)) {
    options.unshift([own, t("fix.no_chamber", { where: placeName(event.cell, start) })]);
  }
  return select("fix-cell", options, own);
}

/** The spots a chamber could have been discovered on: the event's own, every empty spot next to
 * a chamber; named by their place. */
function spotSelect(event, game) {
  const start = startCell(game);
  const taken = new Set(game.temple.map((tile) => cellValue(tile.cell)));
  const own = cellValue(event.cell);
  const spots = new Map();
  if (own) spots.set(own, event.cell);
  for (const tile of game.temple) {
    for (const [dx, dy] of [[0, 1], [1, 0], [0, -1], [-1, 0]]) {
      const cell = [tile.cell[0] + dx, tile.cell[1] + dy];
      const value = cellValue(cell);
      if (!taken.has(value) && !spots.has(value)) spots.set(value, cell);
    }
  }
  const options = [...spots.entries()].map(([value, cell]) => {
    const here = game.temple.find((tile) => cellValue(tile.cell) === value);
    const words = placeName(cell, start);
    return [value, here && value === own ? `${words} (where it lies now)` : words];
  });
  return select("fix-where", options, own);
}

/** A placed tile in its own frame (stairway south), as the draw pile's pictures show tiles. */
function ownFrame(tile) {
  const back = SIDES[(4 - SIDES.indexOf(tile.stairs)) % 4];
  return { ...tile, id: tile.tile, doors: turnedDoors(tile.open_sides || [], back) };
}

/** The tiles to choose from, as pictures with their names: one pressed at a time. */
function tilePicker(event, game) {
  const tiles = [
    ...game.temple.filter((tile) => tile.kind !== "start").map(ownFrame),
    ...game.draw_pile,
  ];
  let chosen = event.tile;
  const box = el("div", { class: "fix-tiles", role: "radiogroup", "aria-label": "the tile", dataset: { testid: "fix-tile" } });
  const buttons = tiles.map((tile) => {
    const button = el(
      "button",
      {
        type: "button",
        class: "pile-choice fix-tile-choice",
        role: "radio",
        title: tile.name,
        "aria-label": tile.name,
        "aria-checked": String(tile.id === chosen),
        dataset: { testid: `fix-tile-${tile.id}`, tile: tile.id },
      },
      pileTileNode(tile, "S", "96px"),
      el("span", { class: "pile-name", text: tile.name }),
    );
    button.addEventListener("click", () => {
      chosen = tile.id;
      for (const other of buttons) other.setAttribute("aria-checked", String(other === button));
      box.dataset.value = chosen;
    });
    return button;
  });
  box.dataset.value = chosen || "";
  fill(box, buttons);
  return { node: box, value: () => chosen };
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
    nodes: [field(t("fix.player"), player), field(t("fix.faces"), dice), el("div", { class: "button-row" }, add, remove)],
    read: () => ({ ...judged(event), player: player.value, faces: faces.slice() }),
  };
}

function enterEditor(event, game) {
  const player = playerSelect(event, game);
  const cell = chamberSelect(event, game);
  return {
    nodes: [field(t("fix.player"), player), field(t("fix.into"), cell)],
    read: () => ({ ...judged(event), player: player.value, cell: parseCell(cell.value) }),
  };
}

function discoverEditor(event, game) {
  const player = playerSelect(event, game);
  const where = spotSelect(event, game);
  const tile = tilePicker(event, game);
  return {
    nodes: [
      field(t("fix.player"), player),
      field(t("fix.where_laid"), where),
      el("div", { class: "fix-field fix-wide" }, el("span", { text: "The tile drawn" }), tile.node),
    ],
    read: () => {
      if (!where.value) throw new Error(t("fix.choose_where"));
      if (!tile.value()) throw new Error(t("fix.choose_tile"));
      const fixed = { ...judged(event), player: player.value, cell: parseCell(where.value), tile: tile.value() };
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
    return { pid, box, label: el("label", { class: "fix-check" }, box, el("span", { text: playerStyle(pid).name })) };
  });
  return {
    nodes: [
      field(t("fix.chamber"), cell),
      field(t("fix.gems"), gems),
      field("Players", el("div", { class: "fix-checks" }, boxes.map((b) => b.label))),
    ],
    read: () => {
      const players = boxes.filter((b) => b.box.checked).map((b) => b.pid);
      if (players.length === 0) throw new Error(t("fix.tick_player"));
      return { ...judged(event), cell: parseCell(cell.value), gems: Number(gems.value), players };
    },
  };
}

function jsonEditor(event) {
  const text = el("textarea", { spellcheck: "false", dataset: { testid: "fix-json" } });
  text.value = JSON.stringify(event && typeof event === "object" ? judged(event) : { type: "" });
  return {
    nodes: [field(t("fix.json"), text)],
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
  setText($("fix-title"), t("fix.line_title", { line: entry.line, text: entry.text }));
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
    toast(t("fix.not_sent", { error: error.message }));
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
