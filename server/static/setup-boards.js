// The Queenie boards a table sets on the set-up page as its own copy shows them: the Maya
// calendar's side, its 9 spaces' symbols and, on the doomed side, its two bars (Big Box pages
// 32-33: `maya_side`, `maya_spaces`, `maya_bars`), and the beast chamber's path (Queenie 16:
// `beast_path`). Each starts from the printed board the server offers and is sent only once the
// table changed it, so that ticking the module is enough.
//
// Test ids: maya-side, maya-board-space-<n> (a button: the space's next symbol), maya-bar-<1|2>
// (selects), beast-path, beast-step-<n> (a button: the space's next icon), beast-add,
// beast-remove; field-error-maya_spaces, field-error-maya_bars, field-error-beast_path.

import { el, faceIcon, fill, FACE_LABELS } from "./common.js";
import { fieldError } from "./field-errors.js";
import { calendarSymbol } from "./module-art.js";
import { t } from "./words.js";

const maya = { side: null, spaces: null, bars: null, printed: null };
const beast = { path: null, printed: null };

/** The next of `choices` after `value`, round again after the last. */
function next(choices, value) {
  return choices[(choices.indexOf(value) + 1) % choices.length];
}

function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The Maya calendar's choices: the board's side, its spaces and (doomed side) its bars. */
export function mayaBoard(offer) {
  if (!maya.side) {
    maya.side = offer.maya_sides[0].id;
    maya.spaces = [...offer.maya_spaces];
    maya.bars = [...offer.maya_bars];
    maya.printed = { spaces: [...offer.maya_spaces], bars: [...offer.maya_bars] };
  }
  const track = el("ol", { class: "board-track calendar-track", dataset: { testid: "maya-board" } });
  const sideHint = el("small", { class: "side-hint" });
  const bars = el("div", { class: "board-bars" });
  const draw = (focus = null) => {
    fill(track, maya.spaces.map((symbol, index) => spaceButton(offer, symbol, index + 1)));
    bars.hidden = maya.side !== "doomed";
    sideHint.textContent = t(`qsetup.side_hint.${maya.side}`);
    if (focus !== null) track.querySelector(`[data-testid="maya-board-space-${focus}"]`).focus();
  };
  const spaceButton = (board, symbol, n) => {
    const name = t("maya.space", { n, symbol: t(`maya.${symbol}`) });
    const bar = maya.side === "doomed" ? maya.bars.indexOf(n) + 1 : 0;
    const words = [name, bar ? t("maya.bar", { n: bar }) : null, t("qsetup.tap_to_change")].filter(Boolean).join(" · ");
    return el(
      "li",
      { class: `board-space${bar ? " bar" : ""}` },
      el(
        "button",
        {
          type: "button",
          class: "board-step",
          title: words,
          "aria-label": words,
          dataset: { testid: `maya-board-space-${n}`, symbol },
          onclick: () => {
            maya.spaces[n - 1] = next(board.maya_symbols, symbol);
            draw(n);
          },
        },
        calendarSymbol(symbol, name),
        el("small", { class: "maya-n", text: String(n) }),
      ),
      bar ? el("span", { class: "maya-bar", "aria-hidden": "true" }) : null,
    );
  };
  const side = el(
    "select",
    {
      dataset: { testid: "maya-side" },
      onchange: () => {
        maya.side = side.value;
        draw();
      },
    },
    offer.maya_sides.map((s) => el("option", { value: s.id, text: t(`qsetup.side.${s.id}`), selected: s.id === maya.side })),
  );
  const barChoice = (index) => {
    const select = el(
      "select",
      {
        dataset: { testid: `maya-bar-${index + 1}` },
        onchange: () => {
          maya.bars[index] = Number(select.value);
          draw();
        },
      },
      maya.spaces.map((_, i) => el("option", { value: String(i + 1), text: String(i + 1), selected: maya.bars[index] === i + 1 })),
    );
    return el("label", { class: "board-bar" }, el("span", { text: t("qsetup.bar_space", { n: index + 1 }) }), select);
  };
  fill(bars, barChoice(0), barChoice(1), fieldError("maya_bars"));
  draw();
  return el(
    "fieldset",
    { class: "queenie-choice board-choice", dataset: { testid: "maya-calendar-choice" } },
    el("legend", { text: offer.name }),
    el("label", { class: "character-choice" }, el("span", { text: t("qsetup.side") }), side, sideHint),
    el("p", { class: "note", text: t("qsetup.maya_spaces") }),
    track,
    fieldError("maya_spaces"),
    bars,
  );
}

/** The beast chamber's path: a button per space (its next icon), a space more or fewer. */
export function beastPathChoice(offer) {
  if (!beast.path) {
    beast.path = [...offer.beast_path];
    beast.printed = [...offer.beast_path];
  }
  const beastPath = beast.path;
  const row = el("ol", { class: "board-track beast-track", dataset: { testid: "beast-path" } });
  const add = el("button", { type: "button", class: "btn", dataset: { testid: "beast-add" }, text: t("qsetup.beast_add") });
  const remove = el("button", { type: "button", class: "btn", dataset: { testid: "beast-remove" }, text: t("qsetup.beast_remove") });
  const draw = (focus = null) => {
    fill(
      row,
      beastPath.map((icon, index) => {
        const words = `${t("qsetup.beast_step", { n: index + 1, icon: FACE_LABELS[icon] || icon })} · ${t("qsetup.tap_to_change")}`;
        return el(
          "li",
          {},
          el(
            "button",
            {
              type: "button",
              class: "board-step",
              title: words,
              "aria-label": words,
              dataset: { testid: `beast-step-${index + 1}`, icon },
              onclick: () => {
                beastPath[index] = next(offer.path_icons, icon);
                draw(index + 1);
              },
            },
            faceIcon(icon),
            el("small", { class: "maya-n", text: String(index + 1) }),
          ),
        );
      }),
    );
    add.disabled = beastPath.length >= offer.beast_path_most;
    remove.disabled = beastPath.length <= 1;
    if (focus !== null) row.querySelector(`[data-testid="beast-step-${focus}"]`).focus();
  };
  add.addEventListener("click", () => {
    beastPath.push(offer.path_icons[0]);
    draw();
  });
  remove.addEventListener("click", () => {
    beastPath.pop();
    draw();
  });
  draw();
  return el(
    "fieldset",
    { class: "queenie-choice board-choice", dataset: { testid: "beast-path-choice" } },
    el("legend", { text: `${offer.name}: ${t("mchamber.beast")}` }),
    el("p", { class: "note", text: t("qsetup.beast_path") }),
    row,
    el("div", { class: "start-buttons" }, add, remove),
    fieldError("beast_path"),
  );
}

/** The boards' fields of the new-game form: the side, and what the table changed. */
export function boardFields(modules) {
  const fields = {};
  if (modules.includes("maya_calendar") && maya.side) {
    fields.maya_side = maya.side;
    if (!same(maya.spaces, maya.printed.spaces)) fields.maya_spaces = [...maya.spaces];
    if (maya.side === "doomed" && !same(maya.bars, maya.printed.bars)) fields.maya_bars = [...maya.bars];
  }
  if (modules.includes("new_traps") && beast.path && !same(beast.path, beast.printed)) fields.beast_path = [...beast.path];
  return fields;
}
