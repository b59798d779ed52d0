// The page of a game that is not saved (/games/N for an unknown N), in the table's language.

import { t } from "./words.js";

const heading = document.querySelector("[data-testid='story-missing']");
if (heading) heading.textContent = t("story.missing", { game: heading.dataset.game || "" });
