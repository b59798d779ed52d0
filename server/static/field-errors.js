// A refused form's words beside the field they are about: a field check's 422 names it in its
// `loc` (["body", "maya_bars"]), the engine's own words quote it ('maya_bars' must ...).
//
// Test ids: field-error-<field> (e.g. field-error-beast_path), shown only with words in it.

import { el } from "./common.js";

/** The empty place for `field`'s refusal, to put beside its inputs. */
export function fieldError(field) {
  return el("p", { class: "field-error", role: "alert", hidden: true, dataset: { testid: `field-error-${field}`, fieldError: field } });
}

/** Hide every field's refusal (before the form is sent again). */
export function clearFieldErrors(root = document) {
  for (const box of root.querySelectorAll("[data-field-error]")) {
    box.hidden = true;
    box.textContent = "";
  }
}

/** Show each of a 422's refusals beside its field, where the page shows that field; return
 * the first field shown (to scroll to), or null. */
export function showFieldErrors(detail, root = document) {
  let first = null;
  for (const [field, words] of refusals(detail)) {
    const box = root.querySelector(`[data-field-error="${field}"]`);
    if (!box) continue;
    box.textContent = box.hidden ? words : `${box.textContent} ${words}`;
    box.hidden = false;
    first = first || box;
  }
  return first;
}

/** [field, words] for each refusal of a 422's detail that names a field. */
function refusals(detail) {
  if (typeof detail === "string") {
    const quoted = detail.match(/'([a-z_]+)'/);
    return quoted ? [[quoted[1], detail]] : [];
  }
  if (!Array.isArray(detail)) return [];
  return detail
    .filter((item) => Array.isArray(item.loc) && item.loc[0] === "body" && typeof item.loc[1] === "string")
    .map((item) => [item.loc[1], String(item.msg).replace(/^Value error, /, "")]);
}
