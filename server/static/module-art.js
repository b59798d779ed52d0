// Pictures for the Big Box modules 1 (Curses), 2 (Treasures), 3 (Illusion chambers) and 4
// (Special chambers): the marks printed on the curse, treasure, illusion and special chambers,
// the chalice and the Large torch on the temple, an icon per curse card and per treasure tile,
// and the chips a player's card shows for each. Names come from the server's state (`curse_cards`, `treasures`): the page
// never shows an id.

import { el } from "./common.js";

const MASK = "M2.5 7 C2.5 4.5 21.5 4.5 21.5 7 C21.5 14.5 17 20.5 12 20.5 C7 20.5 2.5 14.5 2.5 7 Z";
const KEY = (x, y, s = 1) =>
  `<g transform="translate(${x} ${y}) scale(${s})" fill="none" stroke="#ffd23f" stroke-width="2.6" stroke-linecap="round">` +
  '<circle cx="6.5" cy="12" r="4"/><path d="M10.5 12 H22 M18 12 V16.5 M21.5 12 V15"/></g>';
const TORCH = (x, y, s = 1) =>
  `<g transform="translate(${x} ${y}) scale(${s})">` +
  '<path d="M12 1.5 C15.5 5.5 17.5 8 15.6 11.6 C14.4 13.6 9.6 13.6 8.5 11.5 C7 8.8 10 6.5 12 1.5 Z" fill="#ff8c2b"/>' +
  '<path d="M9.5 13.5 H14.5 L13.2 22.5 H10.8 Z" fill="#b07a3f"/></g>';
const GEM = (x, y, s = 1) =>
  `<g transform="translate(${x} ${y}) scale(${s})">` +
  '<path d="M12 2 L21 10 L12 22 L3 10 Z" fill="#33c5ff" stroke="#c9f1ff" stroke-width="1.2"/></g>';

/** The purple mask printed on a curse chamber (and the ground of every curse card's icon). */
const PURPLE_MASK =
  `<path d="${MASK}" fill="#8e44c9" stroke="#e3c4ff" stroke-width="1.2"/>` +
  '<ellipse cx="8.3" cy="10" rx="2.4" ry="1.7" fill="#1b0a29"/><ellipse cx="15.7" cy="10" rx="2.4" ry="1.7" fill="#1b0a29"/>';

/** The treasure icon printed on a treasure chamber: a chest. */
const CHEST =
  '<path d="M3 10 Q3 4 12 4 Q21 4 21 10 Z" fill="#c98a2e" stroke="#ffe3a3" stroke-width="1"/>' +
  '<rect x="3" y="10" width="18" height="10" rx="1" fill="#a86b1f" stroke="#ffe3a3" stroke-width="1"/>' +
  '<rect x="10.2" y="8.5" width="3.6" height="4.5" rx="0.6" fill="#ffd23f"/>';

const CURSE_GLYPHS = {
  // Trap: bars over the mask.
  trap: '<g stroke="#f0e0ff" stroke-width="1.8"><path d="M7 3 V21 M12 3 V21 M17 3 V21"/></g>',
  // Silence: a mouth crossed out.
  silence:
    '<path d="M8 15.5 Q12 18 16 15.5" stroke="#f0e0ff" stroke-width="1.6" fill="none"/>' +
    '<path d="M6 19.5 L18 12" stroke="#ff4d4f" stroke-width="2.2" stroke-linecap="round"/>',
  // Broken die: a die with a crack.
  broken_die:
    '<rect x="7" y="11" width="10" height="10" rx="1.8" fill="#f6ecd2"/>' +
    '<path d="M12 11 L10.5 15 L13 17 L11.5 21" stroke="#8e44c9" stroke-width="1.4" fill="none"/>',
  // Lost dice: a die falling off an edge.
  lost_dice:
    '<rect x="12" y="12" width="8" height="8" rx="1.5" fill="#f6ecd2" transform="rotate(20 16 16)"/>' +
    '<path d="M3 15 H10 V21" stroke="#f0e0ff" stroke-width="1.6" fill="none"/>',
  // Mask: a golden mask that frees only one (a "1").
  mask:
    '<circle cx="16.5" cy="16.5" r="5" fill="#f5c542" stroke="#1b0a29" stroke-width="0.8"/>' +
    '<text x="16.5" y="19.3" text-anchor="middle" font-size="8" font-weight="700" fill="#1b0a29">1</text>',
  // Cursed hand: a hand held on the head.
  cursed_hand:
    '<path d="M7 2.5 H17 V6 H7 Z" fill="#f6ecd2"/><path d="M8 2.5 V0.6 M10.5 2.5 V0 M13 2.5 V0 M15.5 2.5 V0.6" stroke="#f6ecd2" stroke-width="1.6" stroke-linecap="round"/>',
  // Soul exchange: two arrows swapping.
  soul_exchange:
    '<path d="M5 15 H17 L14.5 12.5 M19 19 H7 L9.5 21.5" stroke="#f0e0ff" stroke-width="1.8" fill="none" stroke-linecap="round"/>',
};

const TREASURE_ART = {
  healing_mask:
    `<path d="${MASK}" fill="#2fbf71" stroke="#c8ffe0" stroke-width="1"/>` +
    '<path d="M12 8 V16 M8 12 H16" stroke="#ffffff" stroke-width="2.6" stroke-linecap="round"/>',
  secret_passage:
    '<path d="M4 22 V10 Q4 3 12 3 Q20 3 20 10 V22 Z" fill="#3a2a1a" stroke="#e0c48a" stroke-width="1.6"/>' +
    '<path d="M8 22 V12 Q8 7 12 7 Q16 7 16 12 V22" fill="#0d0a06"/>',
  double_torch: TORCH(-4, 0, 1) + TORCH(4, 0, 1),
  teleport:
    '<path d="M12 3 A9 9 0 1 1 3.5 15" stroke="#b28cff" stroke-width="2.4" fill="none" stroke-linecap="round"/>' +
    '<path d="M12 7.5 A4.5 4.5 0 1 1 7.6 13" stroke="#e3d4ff" stroke-width="2" fill="none" stroke-linecap="round"/>' +
    '<circle cx="12" cy="12" r="1.8" fill="#ffffff"/>',
  double_key: KEY(0, -4.5, 1) + KEY(0, 4.5, 1),
  extra_gem: GEM(0, 0, 1) + '<path d="M18 3 V9 M15 6 H21" stroke="#ffffff" stroke-width="2" stroke-linecap="round"/>',
  large_torch: TORCH(-1, -1, 1.1) + '<path d="M5 22.5 H19" stroke="#ffd23f" stroke-width="1.6"/>',
};

/** Module 4's pictures: the chalice, the chain of the linked chambers, the double chamber. */
const CHALICE =
  '<path d="M6 3 H18 Q18 11 12 12.5 Q6 11 6 3 Z" fill="#ffd23f" stroke="#fff1b0" stroke-width="1"/>' +
  '<path d="M12 12.5 V18.5 M7.5 21 H16.5 L15 18.5 H9 Z" stroke="#ffd23f" stroke-width="1.8" fill="#ffd23f"/>' +
  '<circle cx="12" cy="7" r="1.6" fill="#e8414c"/>';
const CHAIN =
  '<g fill="none" stroke="#9fe0ff" stroke-width="2.4"><rect x="2" y="8" width="11" height="8" rx="4"/>' +
  '<rect x="11" y="8" width="11" height="8" rx="4"/></g>';
const DOUBLE =
  '<rect x="3" y="3" width="18" height="18" rx="2" fill="none" stroke="#e0c48a" stroke-width="1.6"/>' +
  '<path d="M3 10 H21" stroke="#e0c48a" stroke-width="2.6"/><path d="M12 3 V8" stroke="#33c5ff" stroke-width="2"/>';

function svgIcon(className, label, body) {
  const span = document.createElement("span");
  span.innerHTML =
    `<svg class="icon ${className}" viewBox="0 0 24 24" role="img" aria-label="${label}">` +
    `<title>${label}</title>${body}</svg>`;
  return span.firstChild;
}

/** The purple mask printed on a curse chamber. */
export function curseMark() {
  return svgIcon("mark-curse", "purple mask: discovering it draws a curse card", PURPLE_MASK);
}

/** The treasure icon printed on a treasure chamber. */
export function treasureMark(lying = false) {
  const label = lying ? "a treasure tile lies here: roll 2 keys to claim it" : "treasure icon";
  return svgIcon(`mark-treasure${lying ? " lying" : ""}`, label, CHEST);
}

/** A curse card's icon: the purple mask with what the curse does drawn over it. */
export function curseIcon(cardId, name) {
  return svgIcon(`curse-icon curse-${cardId}`, name, PURPLE_MASK + (CURSE_GLYPHS[cardId] || ""));
}

/** A treasure tile's icon. */
export function treasureIcon(treasureId, name) {
  return svgIcon(`treasure-icon treasure-${treasureId}`, name, TREASURE_ART[treasureId] || CHEST);
}

/** An illusion chamber's mark (module 3): a fading chamber. */
export function illusionMark() {
  return svgIcon(
    "mark-illusion",
    "illusion chamber: it vanishes when the door slams after countdowns 1 and 2",
    '<path d="M4 21 V9 Q4 3 12 3 Q20 3 20 9 V21 L17 18.5 L14.5 21 L12 18.5 L9.5 21 L7 18.5 Z" fill="#cfd8ff" fill-opacity="0.75"/>' +
      '<circle cx="9" cy="10" r="1.6" fill="#1a1f3a"/><circle cx="15" cy="10" r="1.6" fill="#1a1f3a"/>',
  );
}

const SPECIAL_MARKS = {
  linked: ["mark-linked", "linked chamber: a gem in each of two at once, together, once a game", CHAIN],
  double: ["mark-double", "double chamber: its gems only from behind the inner wall (rear entrance)", DOUBLE],
  chalice: ["mark-chalice", "treasure chamber: carry its chalice to the exit", CHALICE],
};

/** A special chamber's mark (module 4). */
export function specialMark(kind) {
  const [className, label, body] = SPECIAL_MARKS[kind];
  return svgIcon(className, label, body);
}

/** The chalice lying on a tile (module 4), glowing: someone must carry it to the exit. */
export function chaliceToken(rear) {
  const label = `the chalice lies here${rear ? ", behind the inner wall" : ""}: carry it to the exit`;
  return svgIcon("chalice-token", label, CHALICE);
}

/** The Large torch lying on a tile (module 4): a second starting chamber until the next slam. */
export function largeTorchToken() {
  return svgIcon("large-torch-token", "the Large torch lies here: safe from the next door slam", TREASURE_ART.large_torch);
}

/** A double chamber's inner wall, drawn across the tile next to its rear side(s). */
export function innerWall(rearSides) {
  return el(
    "div",
    { class: "inner-walls", "aria-hidden": "true" },
    rearSides.map((side) => el("span", { class: `inner-wall rear-${side}` })),
  );
}

/** Module 5's pictures: a quest marker (a scroll with a seal) and the ghost. */
const QUEST_MARKER =
  '<path d="M5 3 H17 Q19.5 3 19.5 5.5 V21 H7.5 Q5 21 5 18.5 Z" fill="#e9d7a8" stroke="#8a6a2c" stroke-width="1.2"/>' +
  '<path d="M8 8 H16 M8 11 H16 M8 14 H13" stroke="#8a6a2c" stroke-width="1.3"/><circle cx="16" cy="18" r="2.6" fill="#c0392b"/>';
const GHOST =
  '<path d="M5 21 V10 Q5 3 12 3 Q19 3 19 10 V21 L16.5 19 L14 21 L12 19 L10 21 L7.5 19 Z" fill="#f4f7ff" stroke="#9fb3ff" stroke-width="1"/>' +
  '<ellipse cx="9.5" cy="10" rx="1.5" ry="2" fill="#1a1f3a"/><ellipse cx="14.5" cy="10" rx="1.5" ry="2" fill="#1a1f3a"/>';

/** A quest chamber's mark (module 5): a quest marker, ticked once its task is done. */
export function questMark(done) {
  const label = done ? "quest chamber: its task is done" : "quest chamber: its task keeps a quest marker on the depot";
  return svgIcon(`mark-quest${done ? " done" : ""}`, label, QUEST_MARKER);
}

/** The ghost (module 5) where it stands: 2 torches push it into the next chamber. */
export function ghostToken() {
  return svgIcon("ghost-token", "the ghost is here: roll 2 torches to push it towards the Ghost chamber", GHOST);
}

/** Module 6: a character's portrait badge, its initial on a medallion coloured by character. */
const CHARACTER_COLOURS = {
  Discoverer: "#2e8b57",
  Doc: "#d64545",
  Priest: "#c9a227",
  Mechanic: "#6b7b8c",
  Mentalist: "#8e44c9",
  Muscleman: "#c0642b",
};

export function characterIcon(character) {
  const colour = CHARACTER_COLOURS[character] || "#555";
  return svgIcon(
    "character-icon",
    character,
    `<circle cx="12" cy="12" r="10.5" fill="${colour}" stroke="#fff3" stroke-width="1.5"/>` +
      '<circle cx="12" cy="9" r="3.6" fill="#f6ecd2"/><path d="M5.5 19.5 Q12 11.5 18.5 19.5 Z" fill="#f6ecd2"/>',
  );
}

/** Module 7's picture: a trap (spikes under a pit's edge), on trap chambers and reminders. */
const TRAP =
  '<path d="M2 9 H22" stroke="#e0c48a" stroke-width="2"/>' +
  '<path d="M3 21 L6 12 L9 21 L12 12 L15 21 L18 12 L21 21 Z" fill="#c0392b" stroke="#ffb3a7" stroke-width="0.8"/>';

/** A trap chamber's mark (module 7), its name in the tooltip. */
export function trapMark(name) {
  return svgIcon("mark-trap", `trap chamber: ${name}`, TRAP);
}

/** Module 8's picture: an hourglass, on time chambers. */
const HOURGLASS =
  '<path d="M6 2 H18 M6 22 H18" stroke="#e0c48a" stroke-width="2"/>' +
  '<path d="M7 3 Q7 10 12 12 Q7 14 7 21 H17 Q17 14 12 12 Q17 10 17 3 Z" fill="#f3dfa2" fill-opacity="0.35" stroke="#e0c48a" stroke-width="1.5"/>' +
  '<path d="M9 19 Q12 15 15 19 Z" fill="#e0c48a"/>';

/** A time chamber's mark (module 8), its name in the tooltip. */
export function timeMark(name) {
  return svgIcon("mark-time", `time chamber: ${name}`, HOURGLASS);
}

/** The icon beside a reminder line, by its kind. */
export function reminderIcon(kind) {
  if (kind.startsWith("time")) return svgIcon("reminder-icon", "time token", HOURGLASS);
  if (kind.startsWith("trap")) return svgIcon("reminder-icon", "trap", TRAP);
  if (kind === "quest-ghost-where") return svgIcon("reminder-icon", "the ghost", GHOST);
  if (kind.startsWith("quest")) return svgIcon("reminder-icon", "quest", QUEST_MARKER);
  if (kind === "chalice") return svgIcon("reminder-icon", "chalice", CHALICE);
  if (kind === "linked") return svgIcon("reminder-icon", "linked chambers", CHAIN);
  if (kind === "double") return svgIcon("reminder-icon", "double chamber", DOUBLE);
  if (kind === "large_torch") return svgIcon("reminder-icon", "Large torch", TREASURE_ART.large_torch);
  return null;
}

/** A tile's module marks (purple mask, treasure icon, illusion, special) as a row, or nothing. */
export function marksRow(tile) {
  if (!tile.curse && !tile.treasure && !tile.illusion && !tile.special && !tile.large_torch && !tile.chalice_lies && !tile.quest && !tile.ghost && !tile.trap && !tile.time) return null;
  return el(
    "div",
    { class: "tile-row tile-marks" },
    tile.time ? timeMark(tile.name) : null,
    tile.trap ? trapMark(tile.name) : null,
    tile.quest ? questMark(Boolean(tile.quest_done)) : null,
    tile.ghost ? ghostToken() : null,
    tile.special ? specialMark(tile.special) : null,
    tile.chalice_lies ? chaliceToken(tile.chalice_lies === "rear") : null,
    tile.large_torch ? largeTorchToken() : null,
    tile.illusion ? illusionMark() : null,
    tile.curse ? curseMark() : null,
    tile.treasure ? treasureMark(Boolean(tile.treasure_lies)) : null,
    tile.treasure_lies ? el("span", { class: "mark-note", text: "treasure!" }) : null,
  );
}
