// Chamber tiles drawn as they lie on the table: walls with gaps for doors, the stairway, the
// icons of the red frame and the gem icons. Used by the game page and the set-up page.

import { el, faceIcon, facePlural } from "./common.js";
import { marksRow } from "./module-art.js";

export const SIDES = ["N", "E", "S", "W"];

/** Each side in words: "the chamber to the north", "stairway to the west". */
export const SIDE_WORDS = { N: "north", E: "east", S: "south", W: "west" };

/** A tile's own-frame doors turned so that its stairway faces `stairs`, as it will be placed. */
export function turnedDoors(doors, stairs) {
  const turns = (SIDES.indexOf(stairs) - SIDES.indexOf("S") + 4) % 4;
  return doors.map((side) => SIDES[(SIDES.indexOf(side) + turns) % 4]);
}

export function entryRow(tile) {
  if (tile.kind === "start") return el("div", { class: "tile-row" });
  if (tile.enter.length === 0) return el("div", { class: "tile-row", text: "free entry" });
  return el(
    "div",
    { class: "tile-row", title: "icons needed to enter" },
    el("span", { class: "row-label", text: "in:" }),
    tile.enter.map((face) => faceIcon(face)),
  );
}

export function gemRow(tile) {
  const spec = tile.gem_icons;
  if (!spec) return el("div", { class: "tile-row" });
  const gems = [];
  for (let i = 0; i < spec.count; i += 1) gems.push(el("span", { class: `gem${i < tile.gems ? " active" : ""}` }));
  const label = tile.gems ? `${tile.gems} active` : spec.costs.join("·");
  return el(
    "div",
    { class: "tile-row", title: `${spec.count} gem icon(s): ${spec.costs.join(", ")} ${facePlural(spec.icon)}` },
    gems,
    faceIcon(spec.icon),
    el("span", { class: "gem-costs", text: label }),
  );
}

const SIDE_ROTATION = { S: 0, W: 90, N: 180, E: 270 };
const WALLS = {
  N: [[0, 3.5, 100, 3.5]],
  S: [[0, 96.5, 100, 96.5]],
  W: [[3.5, 0, 3.5, 100]],
  E: [[96.5, 0, 96.5, 100]],
};

/** The tile's walls (gaps for doors) and its stairway, as SVG on a 100 x 100 square. */
export function wallsSvg(openSides, stairs) {
  const parts = [];
  for (const side of ["N", "E", "S", "W"]) {
    const [x1, y1, x2, y2] = WALLS[side][0];
    if (!openSides.includes(side)) {
      parts.push(`<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}"/>`);
    } else if (x1 === x2) {
      parts.push(`<line x1="${x1}" y1="0" x2="${x1}" y2="32"/><line x1="${x1}" y1="68" x2="${x1}" y2="100"/>`);
    } else {
      parts.push(`<line x1="0" y1="${y1}" x2="32" y2="${y1}"/><line x1="68" y1="${y1}" x2="100" y2="${y1}"/>`);
    }
  }
  const steps =
    `<g class="stairs" transform="rotate(${SIDE_ROTATION[stairs] || 0} 50 50)" stroke-width="2.6">` +
    '<line x1="37" y1="93" x2="63" y2="93"/><line x1="39" y1="88" x2="61" y2="88"/>' +
    '<line x1="41" y1="83" x2="59" y2="83"/></g>';
  const span = document.createElement("span");
  span.innerHTML =
    '<svg class="walls" viewBox="0 0 100 100" preserveAspectRatio="none" aria-hidden="true" ' +
    'stroke="var(--wall)" stroke-width="7" stroke-linecap="square">' +
    `${parts.join("")}${steps}</svg>`;
  return span.firstChild;
}

/** A tile of the draw pile drawn as it will lie with its stairway facing `stairs`. */
export function pileTileNode(tile, stairs, size = "150px") {
  const drawn = { ...tile, open_sides: turnedDoors(tile.doors, stairs), stairs, gems: 0, players: [] };
  return el(
    "div",
    { class: `tile pile-tile kind-${tile.kind}${tile.gem_icons ? ` gems-${tile.gem_icons.icon}` : ""}`, style: { "--cell": size } },
    wallsSvg(drawn.open_sides, stairs),
    el("div", { class: "tile-body" }, el("div", { class: "tile-name", text: tile.label }), entryRow(drawn), gemRow(drawn), marksRow(tile)),
  );
}
