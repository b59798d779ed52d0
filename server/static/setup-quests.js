// Module 5's quest chambers on the set-up page (page 17): drawn at random (the default: the
// form's `quest_count`), or picked by the table from the tiles the modules ticked put in play
// (module 5's five, the Queenie quest chambers): the form's `quests`.
//
// Test ids: quest-choice, quest-pick-random, quest-pick-chosen, quest-tiles, quest-tile-<id> (a
// checkbox), field-error-quests (the server's refusal, beside the tiles).

import { el, fill } from "./common.js";
import { fieldError } from "./field-errors.js";
import { pileTileNode } from "./tile-art.js";
import { t } from "./words.js";

let mode = "random"; // "random" or "chosen"
const picked = new Set(); // quest ids ticked, kept while the modules change

/** The quest chambers the modules ticked put in play: [{id, tile}], module 5's first. */
export function questPool(moduleInfo, modules) {
  return moduleInfo.filter((m) => m.quest_tiles && modules.includes(m.id)).flatMap((m) => m.quest_tiles);
}

/** True when the table picks its quest chambers (false: they are drawn at random). */
export function questsChosen() {
  return mode === "chosen";
}

/** The quest chambers picked, in the order the pool lists them. */
export function pickedQuests(pool) {
  return pool.filter((quest) => picked.has(quest.id)).map((quest) => quest.id);
}

/** The form's quest fields: the count drawn at random, or the chambers the table picked. */
export function questFields(pool, count) {
  return mode === "chosen" ? { quests: pickedQuests(pool) } : { quest_count: count };
}

/** Show the choice in `box` (hidden without module 5); drawn again only when the pool changes. */
export function renderQuestChoice(box, pool, on) {
  box.hidden = !on;
  const key = on ? pool.map((quest) => quest.id).join(",") : "";
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  if (!on) return;
  for (const id of [...picked]) if (!pool.some((quest) => quest.id === id)) picked.delete(id);
  const tiles = el("div", { class: "quest-tiles", dataset: { testid: "quest-tiles" }, hidden: mode !== "chosen" });
  const size = window.innerWidth <= 600 ? "96px" : "120px";
  fill(
    tiles,
    pool.map((quest) =>
      el(
        "label",
        { class: "quest-tile", title: quest.tile.name },
        el("input", {
          type: "checkbox",
          checked: picked.has(quest.id),
          dataset: { testid: `quest-tile-${quest.id}` },
          onchange: (event) => (event.target.checked ? picked.add(quest.id) : picked.delete(quest.id)),
        }),
        pileTileNode(quest.tile, "S", size),
      ),
    ),
  );
  const radio = (value) =>
    el(
      "label",
      { class: "choice" },
      el("input", {
        type: "radio",
        name: "quest-pick",
        value,
        checked: mode === value,
        dataset: { testid: `quest-pick-${value}` },
        onchange: () => {
          mode = value;
          tiles.hidden = mode !== "chosen";
        },
      }),
      el("span", {}, t(`more.setup.quests_${value}`), " ", el("small", { text: t(`more.setup.quests_${value}_hint`) })),
    );
  fill(
    box,
    el(
      "fieldset",
      { class: "quest-pick" },
      el("legend", { text: t("more.setup.quests_which") }),
      el("div", { class: "choices" }, radio("random"), radio("chosen")),
      tiles,
      fieldError("quests"),
    ),
  );
}
