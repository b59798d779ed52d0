// Pictures for the Big Box modules 1 (Curses), 2 (Treasures), 3 (Illusion chambers) and 4
// (Special chambers): the marks printed on the curse, treasure, illusion and special chambers,
// the chalice and the Large torch on the temple, an icon per curse card and per treasure tile,
// and the chips a player's card shows for each. Names come from the server's state (`curse_cards`, `treasures`): the page
// never shows an id. Then the Queenie modules' tokens (`TOKEN_ART`, drawn by `moduleToken`,
// each chip's `data-token` its picture's name) and the Maya calendar's symbols and figure.

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

/** The picture beside a Queenie module's reminders, by the module. */
const QUEENIE_REMINDER_ART = {
  pit: "pit",
  doomed: "doomed",
  fountain: "fountain",
  queenie_quests: "mother-snake",
  maze: "mirage",
  new_characters: "grey-slide",
  maya_calendar: "maya-figure",
  exchange_teleport: "teleporter",
  totem: "totem",
  cursed_gems: "cursed-gem",
  slide: "slide",
  map: "map",
  wishing_well: "wish",
  new_quests: "statue",
  new_traps: "quicksand",
};

/** A Queenie module's reminder icon: decorative, the reminder's words say it all. */
function queenieReminderIcon(module) {
  const art = TOKEN_ART[QUEENIE_REMINDER_ART[module]];
  if (!art) return null;
  const span = document.createElement("span");
  span.innerHTML = `<svg class="icon reminder-icon" viewBox="0 0 24 24" aria-hidden="true">${typeof art === "function" ? art({}) : art}</svg>`;
  return span.firstChild;
}

/** The icon beside a reminder line, by its kind. */
export function reminderIcon(kind) {
  if (kind.startsWith("queenie-")) return queenieReminderIcon(kind.slice("queenie-".length));
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

// ----- the Queenie modules' tokens -------------------------------------------------------------
// Each a 24x24 picture bright enough on a dark tile; its words are the module's label (tooltip).

const SNAKE =
  '<path d="M4 19 C4 14 11 16 11 12 C11 8 5 10 5 6.5 C5 4 8 3 10.5 3.6" fill="none" stroke="#3fcf5a" stroke-width="3.2" stroke-linecap="round"/>' +
  '<path d="M4 19 C7 21.5 12 21 14.5 18" fill="none" stroke="#3fcf5a" stroke-width="3.2" stroke-linecap="round"/>' +
  '<ellipse cx="14.5" cy="4.6" rx="4.4" ry="3" fill="#3fcf5a"/><circle cx="15.8" cy="3.8" r="0.9" fill="#10240f"/>' +
  '<path d="M18.8 4.8 L21.8 5.6 M21.8 5.6 L23 4.6 M21.8 5.6 L23 6.8" stroke="#ff4d4f" stroke-width="0.9" stroke-linecap="round"/>';
const MOTHER_SNAKE =
  '<path d="M12 21.5 C3 21.5 2 14 7.5 13 C12 12 14 16.5 10 17" fill="none" stroke="#2fa24a" stroke-width="3.6" stroke-linecap="round"/>' +
  '<path d="M12 21.5 C19 21.5 21 16 18 12 C16 9.5 13 10 12 8.8" fill="none" stroke="#2fa24a" stroke-width="3.6" stroke-linecap="round"/>' +
  '<ellipse cx="11.8" cy="7.4" rx="4.6" ry="3.2" fill="#2fa24a" stroke="#b8ffb0" stroke-width="0.6"/>' +
  '<circle cx="10.2" cy="6.8" r="0.9" fill="#ffd23f"/><circle cx="13.4" cy="6.8" r="0.9" fill="#ffd23f"/>' +
  '<path d="M7.5 4.2 L8.6 0.8 L10.6 3 L11.8 0.3 L13 3 L15 0.8 L16.1 4.2 Z" fill="#ffd23f"/>';
const STATUE_COLOURS = { blue: "#3b8cff", red: "#ff4d4f", yellow: "#ffd23f", green: "#3fcf5a" };
const STATUE_ORDER = ["blue", "red", "yellow", "green"];
/** A statue on its plinth, and under it a pip per statue space: filled in its colour once face up. */
const STATUE = (mark) => {
  const up = Array.isArray(mark.colours) ? mark.colours : [];
  const pips = STATUE_ORDER.map((colour, i) => {
    const on = up.includes(colour);
    return `<circle cx="${4.5 + i * 5}" cy="21.2" r="2.1" fill="${on ? STATUE_COLOURS[colour] : "none"}" stroke="${on ? "#fff" : "#8d8d8d"}" stroke-width="0.8"/>`;
  });
  return (
    '<circle cx="12" cy="3.6" r="2.6" fill="#d9d2c3"/>' +
    '<path d="M8.3 15 L9.2 7.4 Q12 6.2 14.8 7.4 L15.7 15 Z" fill="#d9d2c3"/>' +
    '<path d="M9.2 8.4 L6 11.5 M14.8 8.4 L18 11.5" stroke="#d9d2c3" stroke-width="1.6" stroke-linecap="round"/>' +
    '<rect x="6.5" y="15" width="11" height="3" rx="0.6" fill="#9b8f7a"/>' +
    pips.join("")
  );
};
const GUARDIAN =
  '<path d="M12 1.8 L20.5 5 V11 C20.5 16.5 16.5 20.3 12 22.2 C7.5 20.3 3.5 16.5 3.5 11 V5 Z" fill="#b9772c" stroke="#ffe3a3" stroke-width="1.3"/>' +
  '<path d="M8 10 H16 M12 7 V18" stroke="#ffe3a3" stroke-width="1.8" stroke-linecap="round"/>';
const TELEPORTER =
  '<ellipse cx="12" cy="12" rx="10" ry="10" fill="#102a3a" stroke="#4ee6ff" stroke-width="2"/>' +
  '<ellipse cx="12" cy="12" rx="6" ry="6" fill="none" stroke="#9ff3ff" stroke-width="1.6" stroke-dasharray="3 2"/>' +
  '<path d="M8.5 12 H15.5 M13 9.5 L15.5 12 L13 14.5" fill="none" stroke="#ffffff" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round"/>';
/** A calendar tile: a stone square with its symbol. */
const CALENDAR_TILE = (body) =>
  '<rect x="1.5" y="1.5" width="21" height="21" rx="3" fill="#3a3227" stroke="#e0c48a" stroke-width="1.4"/>' + body;
const SUN_SYMBOL =
  '<circle cx="12" cy="12" r="4.3" fill="#ffc83d"/>' +
  '<g stroke="#ffc83d" stroke-width="1.8" stroke-linecap="round"><path d="M12 3.6 V5.6 M12 18.4 V20.4 M3.6 12 H5.6 M18.4 12 H20.4 M6 6 L7.4 7.4 M16.6 16.6 L18 18 M6 18 L7.4 16.6 M16.6 7.4 L18 6"/></g>';
const MOON_SYMBOL = '<path d="M15.5 4.5 A8 8 0 1 0 19.5 16.2 A6.4 6.4 0 1 1 15.5 4.5 Z" fill="#cfe3ff"/>';
const COG = (fill, stroke) =>
  `<g fill="${fill}" stroke="${stroke}" stroke-width="0.8">` +
  '<path d="M10.6 2.5 H13.4 L13.9 5.2 L16.2 6.2 L18.4 4.6 L20.4 6.6 L18.8 8.8 L19.8 11.1 L22.5 11.6 V14.4 L19.8 14.9 L18.8 17.2 L20.4 19.4 L18.4 21.4 L16.2 19.8 L13.9 20.8 L13.4 23.5 H10.6 L10.1 20.8 L7.8 19.8 L5.6 21.4 L3.6 19.4 L5.2 17.2 L4.2 14.9 L1.5 14.4 V11.6 L4.2 11.1 L5.2 8.8 L3.6 6.6 L5.6 4.6 L7.8 6.2 L10.1 5.2 Z" transform="translate(12 13) scale(0.85) translate(-12 -13)"/></g>' +
  '<circle cx="12" cy="13" r="3" fill="#1c1712"/>';
const GEAR_SYMBOL = '<g transform="translate(12 12) scale(0.72) translate(-12 -13)">' + COG("#b8c4cf", "#eef4f8") + "</g>";
const DIE =
  '<rect x="3" y="3" width="18" height="18" rx="3.5" fill="#f6ecd2" stroke="#8a6a2c" stroke-width="1"/>' +
  '<g fill="#2b2118"><circle cx="8" cy="8" r="1.7"/><circle cx="16" cy="16" r="1.7"/><circle cx="12" cy="12" r="1.7"/></g>';
const GATE =
  '<path d="M3 22 V9 Q3 2.5 12 2.5 Q21 2.5 21 9 V22" fill="#2a2a2f" stroke="#c8ccd6" stroke-width="1.6"/>' +
  '<g stroke="#c8ccd6" stroke-width="1.6"><path d="M7.5 4.2 V22 M12 2.5 V22 M16.5 4.2 V22 M3 11 H21 M3 16.5 H21"/></g>';
const BEAST =
  '<ellipse cx="12" cy="16" rx="5.5" ry="4.8" fill="#ff8a3d"/>' +
  '<g fill="#ff8a3d"><ellipse cx="4.6" cy="10.2" rx="2.2" ry="2.8"/><ellipse cx="9" cy="5.8" rx="2.2" ry="2.9"/><ellipse cx="15" cy="5.8" rx="2.2" ry="2.9"/><ellipse cx="19.4" cy="10.2" rx="2.2" ry="2.8"/></g>' +
  '<path d="M9.5 15.5 L11 17.2 M12 15 V17.6 M14.5 15.5 L13 17.2" stroke="#5a2408" stroke-width="1" stroke-linecap="round"/>';
const QUICKSAND =
  '<ellipse cx="12" cy="14" rx="10.5" ry="7.5" fill="#c9a15a"/>' +
  '<path d="M12 14 m-1.5 0 a1.5 1.1 0 1 1 3 0 a3.2 2.4 0 1 1 -6.4 0 a5 3.7 0 1 1 10 0" fill="none" stroke="#6b4a1a" stroke-width="1.4" stroke-linecap="round"/>' +
  '<path d="M12 2.5 V8.5 M9.8 6.3 L12 8.5 L14.2 6.3" stroke="#ffffff" stroke-width="1.6" fill="none" stroke-linecap="round" stroke-linejoin="round"/>';
const PIT =
  '<ellipse cx="12" cy="13" rx="10.5" ry="7" fill="#7a4a25" stroke="#e0a86a" stroke-width="1.3"/>' +
  '<ellipse cx="12" cy="13.8" rx="7.2" ry="4.4" fill="#050302"/>' +
  '<path d="M7 9 L6 4 M12 7.5 V2.5 M17 9 L18 4" stroke="#e0a86a" stroke-width="1.2" stroke-linecap="round"/>';
const FOUNTAIN =
  '<path d="M12 13 C12 7 8 5 5.5 8.5 M12 13 C12 7 16 5 18.5 8.5 M12 13 V3" fill="none" stroke="#6fd3ff" stroke-width="1.8" stroke-linecap="round"/>' +
  '<path d="M3 13 H21 L19 17 H5 Z" fill="#4aa8e0" stroke="#d6f3ff" stroke-width="1"/>' +
  '<path d="M9.5 17 H14.5 V21 H17 V22.5 H7 V21 H9.5 Z" fill="#9fb3c8"/>';
const TOTEM =
  '<rect x="7" y="1.5" width="10" height="6.6" rx="1.4" fill="#2fbf71"/><rect x="7" y="8.7" width="10" height="6.6" rx="1.4" fill="#ffd23f"/><rect x="7" y="15.9" width="10" height="6.6" rx="1.4" fill="#ff8c2b"/>' +
  '<g fill="#1b140d"><circle cx="10" cy="4.3" r="1"/><circle cx="14" cy="4.3" r="1"/><circle cx="10" cy="11.5" r="1"/><circle cx="14" cy="11.5" r="1"/><circle cx="10" cy="18.7" r="1"/><circle cx="14" cy="18.7" r="1"/></g>' +
  '<path d="M10 6.4 H14 M10 13.6 H14 M10 20.8 H14" stroke="#1b140d" stroke-width="0.9"/>';
const SLIDE_BODY = (colour, edge) =>
  `<path d="M2.5 4 H7 C8.5 13 13 18.5 21.5 19 V22 H2.5 Z" fill="${colour}" stroke="${edge}" stroke-width="1.2"/>` +
  '<path d="M10 6 C11.5 11.5 14.5 14.5 19.5 15.5 M16.5 13.2 L19.5 15.5 L16.3 17.2" fill="none" stroke="#ffffff" stroke-width="1.7" stroke-linecap="round" stroke-linejoin="round"/>';
const GEM_LOCATION =
  '<rect x="2" y="2" width="20" height="20" rx="2.5" fill="#5a3d22" stroke="#e0c48a" stroke-width="1.3" stroke-dasharray="3 1.6"/>' +
  '<path d="M12 5 L17 9.5 L12 16.5 L7 9.5 Z" fill="none" stroke="#33c5ff" stroke-width="1.6"/>' +
  '<text x="12" y="21" text-anchor="middle" font-size="6.5" font-weight="700" fill="#ffe3a3">?</text>';
const CURSED_GEM =
  '<path d="M12 2 L21 10 L12 22 L3 10 Z" fill="#b23bd6" stroke="#f0c8ff" stroke-width="1.2"/>' +
  '<path d="M12 5 L10.5 9.5 L13.5 12 L11 17" fill="none" stroke="#1b0a29" stroke-width="1.6" stroke-linecap="round"/>';
const REALLY_CURSED =
  `<g transform="translate(0 0) scale(0.7)"><path d="${MASK}" fill="#5e2a86" stroke="#e3c4ff" stroke-width="1.6"/></g>` +
  `<g transform="translate(7.5 7) scale(0.7)"><path d="${MASK}" fill="#8e44c9" stroke="#e3c4ff" stroke-width="1.6"/>` +
  '<ellipse cx="8.3" cy="10" rx="2.4" ry="1.7" fill="#1b0a29"/><ellipse cx="15.7" cy="10" rx="2.4" ry="1.7" fill="#1b0a29"/></g>' +
  '<text x="4.5" y="22" text-anchor="middle" font-size="8.5" font-weight="800" fill="#ffffff">2</text>';
const MIRAGE =
  '<path d="M4 21 V10 Q4 3 12 3 Q20 3 20 10 V21" fill="none" stroke="#9ff3ff" stroke-width="1.6" stroke-dasharray="2.6 2"/>' +
  '<g fill="none" stroke="#ffe08a" stroke-width="1.6" stroke-linecap="round"><path d="M6.5 11 Q8.5 9.5 10.5 11 T14.5 11 T18 11"/><path d="M6.5 15 Q8.5 13.5 10.5 15 T14.5 15 T18 15"/><path d="M6.5 19 Q8.5 17.5 10.5 19 T14.5 19 T18 19"/></g>';
const GEAR_TOKEN = COG("#d98b3a", "#ffd9a8");
const TIME_OUT =
  '<circle cx="12" cy="12" r="10.2" fill="#167a74" stroke="#bff6ef" stroke-width="1.4"/>' +
  '<rect x="7.8" y="6.8" width="3" height="10.4" rx="0.8" fill="#ffffff"/><rect x="13.2" y="6.8" width="3" height="10.4" rx="0.8" fill="#ffffff"/>';
const STAND_UP =
  '<circle cx="9.5" cy="4" r="2.6" fill="#ffe3a3"/>' +
  '<path d="M9.5 7 V14.5 M9.5 14.5 L6.5 22 M9.5 14.5 L12.5 22 M5 10.5 H14" stroke="#ffe3a3" stroke-width="2.2" stroke-linecap="round"/>' +
  '<path d="M19 21 V5 M15.8 8.2 L19 5 L22.2 8.2" fill="none" stroke="#7fdc8a" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"/>';
const DOOMED =
  '<path d="M12 2 C6.5 2 3.5 5.8 3.5 10.3 C3.5 13.5 5.3 15.4 7 16.3 V20.5 H17 V16.3 C18.7 15.4 20.5 13.5 20.5 10.3 C20.5 5.8 17.5 2 12 2 Z" fill="#f1ece2" stroke="#ff4d4f" stroke-width="1.2"/>' +
  '<g fill="#1a1010"><circle cx="8.7" cy="10.5" r="2.3"/><circle cx="15.3" cy="10.5" r="2.3"/><path d="M12 13 L10.6 15.6 H13.4 Z"/></g>' +
  '<path d="M9.5 17.5 V20.5 M12 17.5 V20.5 M14.5 17.5 V20.5" stroke="#1a1010" stroke-width="1"/>';
const VINES =
  '<rect x="5" y="5" width="14" height="14" rx="2.6" fill="#f6ecd2"/>' +
  '<path d="M2 18 C7 16 6 9 11 8.5 C15.5 8 15 14 20 13 M20 13 C21.5 12.5 22 11 22 9.5" fill="none" stroke="#2e9e3e" stroke-width="2.2" stroke-linecap="round"/>' +
  '<g fill="#4fd35e"><ellipse cx="7" cy="13" rx="1.6" ry="1" transform="rotate(-40 7 13)"/><ellipse cx="13.5" cy="9.5" rx="1.6" ry="1" transform="rotate(30 13.5 9.5)"/><ellipse cx="17.5" cy="14.5" rx="1.6" ry="1" transform="rotate(-20 17.5 14.5)"/></g>';
const WISH =
  '<ellipse cx="12" cy="13" rx="8.5" ry="2.6" fill="#2e6fbf"/>' +
  '<path d="M3.5 13 V20 Q12 24 20.5 20 V13" fill="#7d6a55" stroke="#d8c7a8" stroke-width="1"/>' +
  '<path d="M3.5 16.5 Q12 19.5 20.5 16.5" stroke="#d8c7a8" stroke-width="0.8" fill="none"/>' +
  '<circle cx="12" cy="6" r="3" fill="#ffd23f" stroke="#fff1b0" stroke-width="0.8"/>' +
  '<path d="M18.5 2 V6 M16.5 4 H20.5 M5.5 3.5 V6.5 M4 5 H7" stroke="#fff1b0" stroke-width="1.2" stroke-linecap="round"/>';
const MAP =
  '<path d="M2.5 5 L8.5 3 L15.5 5.5 L21.5 3.5 V19 L15.5 21 L8.5 18.5 L2.5 20.5 Z" fill="#e9d7a8" stroke="#8a6a2c" stroke-width="1.1"/>' +
  '<path d="M8.5 3 V18.5 M15.5 5.5 V21" stroke="#b59a61" stroke-width="0.9"/>' +
  '<path d="M5 15 Q9 9 13 12 T18 8" fill="none" stroke="#8a6a2c" stroke-width="1" stroke-dasharray="1.6 1.2"/>' +
  '<path d="M16.3 6.3 L19.7 9.7 M19.7 6.3 L16.3 9.7" stroke="#d62f2f" stroke-width="1.8" stroke-linecap="round"/>';
const STEP =
  '<path d="M2 22 V17.5 H7 V13 H12 V8.5 H17 V4 H22 V22 Z" fill="#c9a227" stroke="#fff1b0" stroke-width="1"/>' +
  '<circle cx="4.5" cy="14" r="2" fill="#ffffff"/><path d="M4.5 16 V17.5" stroke="#ffffff" stroke-width="1.6"/>';
const CURSE_TOKEN = PURPLE_MASK;
/** The Maya figure (the calendar board's pawn). */
const MAYA_FIGURE =
  '<circle cx="12" cy="5" r="3.6" fill="#1fd1a5" stroke="#e6fff8" stroke-width="1"/>' +
  '<path d="M7 22 L9 9.5 H15 L17 22 Z" fill="#1fd1a5" stroke="#e6fff8" stroke-width="1"/>' +
  '<path d="M7.5 1.8 H16.5" stroke="#ffd23f" stroke-width="1.6" stroke-linecap="round"/>';

/** Pictures of the Queenie modules' tokens, by the name a module's `tile_marks` or
 * `player_marks` gives (a string, or a function of the mark for one drawn from its data). */
export const TOKEN_ART = {
  snake: SNAKE,
  "mother-snake": MOTHER_SNAKE,
  statue: STATUE,
  guardian: GUARDIAN,
  teleporter: TELEPORTER,
  "calendar-sun": CALENDAR_TILE(SUN_SYMBOL),
  "calendar-moon": CALENDAR_TILE(MOON_SYMBOL),
  "calendar-gear": CALENDAR_TILE(GEAR_SYMBOL),
  die: DIE,
  gate: GATE,
  beast: BEAST,
  quicksand: QUICKSAND,
  pit: PIT,
  fountain: FOUNTAIN,
  totem: TOTEM,
  slide: SLIDE_BODY("#a8742f", "#ffe3a3"),
  "grey-slide": SLIDE_BODY("#7c8591", "#e3e8ee"),
  "gem-location": GEM_LOCATION,
  "cursed-gem": CURSED_GEM,
  "really-cursed": REALLY_CURSED,
  curse: CURSE_TOKEN,
  mirage: MIRAGE,
  gear: GEAR_TOKEN,
  time_out: TIME_OUT,
  "stand-up": STAND_UP,
  doomed: DOOMED,
  vines: VINES,
  wish: WISH,
  map: MAP,
  step: STEP,
  "maya-figure": MAYA_FIGURE,
};

/** The symbols of the Maya calendar's spaces and tiles, drawn alone. */
export const CALENDAR_SYMBOLS = { sun: SUN_SYMBOL, moon: MOON_SYMBOL, gear: GEAR_SYMBOL };

const TOKEN_COLOURS = ["#e0c48a", "#9fe0ff", "#c39bff", "#7fdc8a", "#ff9f80", "#f3dfa2"];

/** A disc with the label's initial: the picture of a token no module art is drawn for yet. */
function fallbackArt(mark, label) {
  const name = String(mark.token || label);
  const colour = TOKEN_COLOURS[[...name].reduce((sum, ch) => sum + ch.charCodeAt(0), 0) % TOKEN_COLOURS.length];
  const initial = (label.trim()[0] || "?").toUpperCase().replace(/[<>&"]/g, "");
  return (
    `<circle cx="12" cy="12" r="10" fill="#2b2118" stroke="${colour}" stroke-width="2"/>` +
    `<text x="12" y="16.5" text-anchor="middle" font-size="12" font-weight="700" fill="${colour}">${initial}</text>`
  );
}

/** A Queenie module's token: its picture (or a disc with its initial), its words in the
 * tooltip, and beside it a short word (a quest's progress) or a count when there are several. */
export function moduleToken(mark) {
  const label = String(mark.label || mark.token || "token");
  const art = Object.prototype.hasOwnProperty.call(TOKEN_ART, mark.token) ? TOKEN_ART[mark.token] : null;
  const body = art ? (typeof art === "function" ? art(mark) : art) : fallbackArt(mark, label);
  const chip = el("span", { class: `module-token${art ? "" : " token-fallback"}`, title: label, dataset: { token: String(mark.token || "") } });
  chip.append(svgIcon("token-icon", label.replace(/[<>&"]/g, ""), body));
  if (mark.short) chip.append(el("span", { class: "token-words", text: String(mark.short) }));
  else if (mark.count && mark.count > 1) chip.append(el("b", { class: "token-count", text: `×${mark.count}` }));
  return chip;
}

/** The Maya figure's picture, its words in the tooltip. */
export function mayaFigure(label) {
  return svgIcon("maya-figure", label, MAYA_FIGURE);
}

/** A Maya calendar space's symbol, its name in the tooltip. */
export function calendarSymbol(symbol, label) {
  return svgIcon(`calendar-symbol symbol-${symbol}`, label, CALENDAR_SYMBOLS[symbol] || "");
}

/** A row of Queenie tokens (on a tile or a player's card), or nothing. */
export function tokensRow(tokens) {
  if (!tokens || !tokens.length) return null;
  return el("div", { class: "tile-row module-tokens" }, ...tokens.map(moduleToken));
}

/** A tile's module marks (purple mask, treasure icon, illusion, special) as a row, or nothing. */
export function marksRow(tile) {
  if (tile.tokens && tile.tokens.length && !tile.curse && !tile.treasure && !tile.illusion && !tile.special && !tile.large_torch && !tile.chalice_lies && !tile.quest && !tile.ghost && !tile.trap && !tile.time) {
    return tokensRow(tile.tokens);
  }
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
    ...(tile.tokens || []).map(moduleToken),
  );
}
