// The temple map of the game page: every placed tile drawn as it lies (walls, doors, stairway,
// icons, gems, module marks), the cells where a chamber can be discovered, and everyone's token
// inside the tile they stand in.
//
// The map fills its panel: the cell size is the largest that fits the room (the panel's box in
// the one-screen layout, else the panel's width and the screen's height under the sticky top
// bar), never smaller than a readable minimum; a temple too big for that pans inside the panel
// (drag it, scroll it, or swipe on a phone), and − / Fit / + zoom it. Each tile keeps its full
// name (the font shrinks until the longest word fits, never an ellipsis); its tokens sit in a
// strip along its bottom edge, shape and initial on the player's colour; a crowded small tile
// makes its icons denser first, and only when even that cannot fit them shows "+k" for the rest
// (named in its tooltip).
//
// Test ids: temple, tile-<x>_<y>, spot-<x>_<y>, tokens-<x>_<y>, more-players-<x>_<y>,
// temple-zoom-in, temple-zoom-out, temple-zoom-fit.

import { el, fill, playerBadge, playerStyle } from "./common.js";
import { entryRow, gemRow, SIDE_WORDS, wallsSvg } from "./tile-art.js";
import { innerWall, marksRow } from "./module-art.js";

const $ = (id) => document.getElementById(id);

const GAP = 6;
const MAX_CELL = 230;
const MIN_CELL_PHONE = 80;
const MIN_CELL = 96;
const MIN_NAME_PX = 10;
const ZOOM_STEP = 1.3;
const MAX_ZOOM = 3;

let zoom = 1;
let lastGame = null;
let panned = false; // the table moved the map itself: it stays where they put it

export function sameCell(a, b) {
  return Array.isArray(a) && Array.isArray(b) && a[0] === b[0] && a[1] === b[1];
}

export function cellKey(cell) {
  return `${cell[0]}_${cell[1]}`;
}

/** Empty cells that someone could discover now. */
export function discoverSpots(game) {
  const spots = new Map();
  for (const player of Object.values(game.players)) {
    for (const action of player.actions) {
      if (action.action === "discover") spots.set(cellKey(action.event.cell), action.event.cell);
    }
  }
  return [...spots.values()];
}

function phone() {
  return window.innerWidth <= 600;
}

/** The one-screen layout (wide screens, three players or more): the panel's box is the room. */
function boxedRoom(wrap) {
  return getComputedStyle(wrap).getPropertyValue("--room").trim() === "box";
}

/** Width and height the map may take before it has to pan. */
function room(wrap) {
  const style = getComputedStyle(wrap);
  const padX = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
  const padY = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom);
  const width = wrap.clientWidth - padX;
  if (boxedRoom(wrap)) {
    wrap.style.maxHeight = "";
    return { width, height: wrap.clientHeight - padY };
  }
  // The screen's height under the sticky bar, less the panel's heading and padding.
  const bar = document.querySelector(phone() ? ".glance" : ".topbar");
  const barHeight = bar ? bar.getBoundingClientRect().height : 0;
  const height = Math.max(260, window.innerHeight - barHeight - (phone() ? 70 : 90));
  wrap.style.maxHeight = `${Math.round(height + padY)}px`;
  return { width, height };
}

function cellSize(wrap, cols, rows) {
  const { width, height } = room(wrap);
  const byWidth = (width - GAP * (cols - 1)) / cols;
  const byHeight = (height - GAP * (rows - 1)) / rows;
  const fit = Math.floor(Math.min(byWidth, byHeight));
  const smallest = phone() ? MIN_CELL_PHONE : MIN_CELL;
  return Math.max(smallest, Math.min(MAX_CELL, Math.floor(fit * zoom)));
}

/** Draw the temple of `game` (again only when something it shows, or the room, changed). */
export function renderTemple(game) {
  lastGame = game;
  const spots = discoverSpots(game);
  const cells = [...game.temple.map((tile) => tile.cell), ...spots];
  const xs = cells.map((c) => c[0]);
  const ys = cells.map((c) => c[1]);
  const minX = Math.min(...xs);
  const maxY = Math.max(...ys);
  const cols = Math.max(...xs) - minX + 1;
  const rows = maxY - Math.min(...ys) + 1;
  const wrap = $("temple-wrap");
  const grid = $("temple");
  const size = cellSize(wrap, cols, rows);
  const key = JSON.stringify([game.temple, spots, game.must_run_back, size]);
  if (grid.dataset.key === key) {
    settleRoom(wrap, grid); // the same map, but its room may have changed
    return;
  }
  grid.dataset.key = key;
  grid.style.setProperty("--cell", `${size}px`);
  grid.classList.toggle("compact", size < 150);
  grid.classList.toggle("large-print", size >= 128); // 18 px labels, read across a table
  grid.style.gridTemplateColumns = `repeat(${cols}, ${size}px)`;
  grid.style.gridTemplateRows = `repeat(${rows}, ${size}px)`;
  const place = (node, cell) => {
    node.style.gridColumn = String(cell[0] - minX + 1);
    node.style.gridRow = String(maxY - cell[1] + 1);
    return node;
  };
  const tiles = game.temple.map((tile) => place(tileNode(tile, game), tile.cell));
  fill(grid, tiles, spots.map((cell) => place(spotNode(cell), cell)));
  for (const node of tiles) settle(node);
  settleRoom(wrap, grid);
  showZoom(size);
}

/** Mark a map that pans, and keep its starting chamber in view until the table moves it. */
function settleRoom(wrap, grid) {
  const pans = wrap.scrollWidth > wrap.clientWidth + 1 || wrap.scrollHeight > wrap.clientHeight + 1;
  wrap.classList.toggle("pans", pans);
  if (pans && !panned) centreOnStart(wrap, grid);
}

/** Bring the starting chamber (where players come back) to the middle of a map that pans,
 * until the table moves the map itself. */
function centreOnStart(wrap, grid) {
  const start = grid.querySelector(".kind-start");
  if (!start) return;
  const box = wrap.getBoundingClientRect();
  const tile = start.getBoundingClientRect();
  wrap.scrollLeft += tile.left + tile.width / 2 - (box.left + box.width / 2);
  wrap.scrollTop += tile.top + tile.height / 2 - (box.top + box.height / 2);
}

function tileTitle(tile) {
  const parts = [tile.name];
  if (tile.stairs && tile.kind !== "start") parts.push(`stairway to the ${SIDE_WORDS[tile.stairs]}`);
  if (tile.players.length) parts.push(`here: ${tile.players.map((pid) => playerStyle(pid).name).join(", ")}`);
  return parts.join(" · ");
}

function tileNode(tile, game) {
  const classes = ["tile", `kind-${tile.kind}`];
  if (tile.gem_icons) classes.push(`gems-${tile.gem_icons.icon}`);
  if (tile.illusion) classes.push("illusion");
  if (tile.special) classes.push(`special-${tile.special}`);
  const key = cellKey(tile.cell);
  return el(
    "div",
    {
      class: classes.join(" "),
      title: tileTitle(tile),
      dataset: { testid: `tile-${key}`, tile: tile.tile },
    },
    wallsSvg(tile.open_sides, tile.stairs),
    tile.rear_sides ? innerWall(tile.rear_sides) : null,
    el(
      "div",
      { class: "tile-body" },
      el("div", { class: "tile-name", text: tile.label || tile.name }),
      el("div", { class: "tile-icons" }, entryRow(tile), gemRow(tile), marksRow(tile)),
      tile.players.length
        ? el(
            "div",
            { class: "tile-players", dataset: { testid: `tokens-${key}` } },
            tile.players.map((pid) => playerBadge(pid, game.must_run_back.includes(pid) ? "token must-run" : "token")),
          )
        : null,
    ),
  );
}

function spotNode(cell) {
  return el(
    "div",
    { class: "tile spot", dataset: { testid: `spot-${cellKey(cell)}` }, title: "a chamber can be discovered here" },
    el("div", {}, "?", el("span", { text: "undiscovered" })),
  );
}

function overflows(body) {
  return body.scrollHeight > body.clientHeight + 1 || body.scrollWidth > body.clientWidth + 1;
}

/** Fit a drawn tile: its whole name, then its icons and tokens (denser, then "+k"). */
function settle(node) {
  const body = node.querySelector(".tile-body");
  const name = node.querySelector(".tile-name");
  let px = parseFloat(getComputedStyle(name).fontSize);
  while (name.scrollWidth > name.clientWidth + 0.5 && px > MIN_NAME_PX) {
    px -= 1;
    name.style.fontSize = `${px}px`;
  }
  for (const level of ["dense", "denser"]) {
    if (!overflows(body)) return;
    node.classList.add(level);
  }
  const strip = node.querySelector(".tile-players");
  if (!strip || !overflows(body)) return;
  // Too crowded for this size: the tokens that fit, and "+k" for the others.
  const tokens = [...strip.querySelectorAll(".badge")];
  const more = el("span", { class: "more-players", dataset: { testid: `more-${node.dataset.testid}` } });
  strip.append(more);
  for (let shown = tokens.length - 1; shown >= 1; shown -= 1) {
    const hidden = tokens.slice(shown);
    for (const token of tokens) token.hidden = hidden.includes(token);
    const names = hidden.map((token) => playerStyle(token.dataset.player).name);
    more.textContent = `+${hidden.length}`;
    more.title = `also here: ${names.join(", ")}`;
    more.dataset.players = hidden.map((token) => token.dataset.player).join(",");
    if (!overflows(body)) return;
  }
}

// ----- zoom and pan -------------------------------------------------------------------------------

function showZoom(size) {
  const zoomIn = $("temple-zoom-in");
  if (!zoomIn) return;
  zoomIn.disabled = size >= MAX_CELL || zoom >= MAX_ZOOM;
  $("temple-zoom-out").disabled = zoom <= 1;
  $("temple-zoom-fit").disabled = zoom === 1;
}

function setZoom(factor) {
  zoom = Math.min(MAX_ZOOM, Math.max(1, factor));
  if (lastGame) renderTemple(lastGame);
}

/** The zoom buttons, dragging the map with a mouse, and a new fit when the window changes. */
export function wireTemple() {
  $("temple-zoom-in").addEventListener("click", () => setZoom(zoom * ZOOM_STEP));
  $("temple-zoom-out").addEventListener("click", () => setZoom(zoom / ZOOM_STEP));
  $("temple-zoom-fit").addEventListener("click", () => setZoom(1));
  window.addEventListener("resize", () => lastGame && renderTemple(lastGame));
  const wrap = $("temple-wrap");
  new ResizeObserver(() => settleRoom(wrap, $("temple"))).observe(wrap);
  let drag = null;
  wrap.addEventListener("pointerdown", (event) => {
    if (event.pointerType !== "mouse" || event.button !== 0 || !wrap.classList.contains("pans")) return;
    drag = { x: event.clientX, y: event.clientY, left: wrap.scrollLeft, top: wrap.scrollTop };
    wrap.classList.add("dragging");
  });
  for (const kind of ["wheel", "touchmove", "keydown"]) {
    wrap.addEventListener(kind, () => (panned = true), { passive: true });
  }
  window.addEventListener("pointermove", (event) => {
    if (!drag) return;
    panned = true;
    wrap.scrollLeft = drag.left - (event.clientX - drag.x);
    wrap.scrollTop = drag.top - (event.clientY - drag.y);
  });
  window.addEventListener("pointerup", () => {
    drag = null;
    wrap.classList.remove("dragging");
  });
}
