// The table's language on every page: the catalog of the chosen language (GET /api/words),
// `t(key, params)` for the words a script builds, elements marked `data-words="key"` filled
// (and `data-words-title`, `data-words-aria-label`, `data-words-placeholder`, `data-words-alt`), and a chooser in
// the page's header. The choice is this browser's (localStorage), the browser's own language
// by default, else English; the game record never holds any of these words.

const STORE_KEY = "templecam.lang";
const FALLBACK = "en";

/** The language this page asked for: the stored choice, else the browser's, else English. */
function wantedLanguage() {
  try {
    const stored = localStorage.getItem(STORE_KEY);
    if (stored) return stored;
  } catch (error) {
    // storage refused (a private window): the browser's language still works
  }
  const asked = (navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language]) || [];
  return asked.length ? String(asked[0]) : FALLBACK;
}

async function loadCatalog(wanted) {
  try {
    const response = await fetch(`/api/words?lang=${encodeURIComponent(wanted)}`, { cache: "no-store" });
    if (response.ok) return await response.json();
  } catch (error) {
    // the server cannot be reached: the page keeps the words written in its HTML
  }
  return { lang: FALLBACK, languages: [], words: {} };
}

const loaded = await loadCatalog(wantedLanguage());

/** The language the page speaks (`en`, `pt`, `es`, `el`). */
export const lang = loaded.lang;

/** The languages a page may offer: [{code, name}], each name in its own words. */
export const languages = loaded.languages;

const words = loaded.words;

/** The words of `key`, each `{name}` replaced by `params[name]` (the key itself if unknown). */
export function t(key, params = {}) {
  const text = Object.prototype.hasOwnProperty.call(words, key) ? words[key] : key;
  return text.replace(/\{([a-z_][a-z0-9_]*)\}/g, (whole, name) =>
    Object.prototype.hasOwnProperty.call(params, name) ? String(params[name]) : whole,
  );
}

/** True when the catalog has words for `key`. */
export function has(key) {
  return Object.prototype.hasOwnProperty.call(words, key);
}

/** A player's colour name in the page's language (`Red`, `Vermelho`); others capitalised. */
export function colourName(pid) {
  const key = `colour.${pid}`;
  if (has(key)) return t(key);
  return pid ? pid.charAt(0).toUpperCase() + pid.slice(1) : "?";
}

/** Names joined as people say them: "Red, Blue and Green" in the page's language. */
export function joinNames(names) {
  if (names.length <= 1) return names.join("");
  return t("list.and", { rest: names.slice(0, -1).join(", "), last: names[names.length - 1] });
}

const ATTRIBUTES = [
  ["wordsTitle", "title"],
  ["wordsAriaLabel", "aria-label"],
  ["wordsPlaceholder", "placeholder"],
  ["wordsAlt", "alt"],
];

/** Fill every element under `root` marked with a words key, in the page's language. */
export function fillWords(root = document) {
  for (const node of root.querySelectorAll("[data-words]")) {
    if (has(node.dataset.words)) node.textContent = t(node.dataset.words);
  }
  for (const [data, attribute] of ATTRIBUTES) {
    const selector = `[data-${data.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}]`;
    for (const node of root.querySelectorAll(selector)) {
      if (has(node.dataset[data])) node.setAttribute(attribute, t(node.dataset[data]));
    }
  }
}

/** Remember `code` as this browser's language and show the page again in it. */
export function chooseLanguage(code) {
  try {
    localStorage.setItem(STORE_KEY, code);
  } catch (error) {
    // storage refused: the choice lasts for this page only
  }
  location.reload();
}

/** The language chooser: a labelled select, put at the end of the header's links. */
function mountChooser() {
  if (!languages.length || document.querySelector("[data-testid='language-chooser']")) return;
  const nav =
    document.querySelector("header .nav-links") || document.querySelector("header") || document.querySelector("main");
  if (!nav) return;
  const label = document.createElement("label");
  label.className = "lang-chooser";
  const word = document.createElement("span");
  word.textContent = t("lang.label");
  const select = document.createElement("select");
  select.dataset.testid = "language-chooser";
  select.setAttribute("aria-label", t("lang.label"));
  for (const { code, name } of languages) {
    const option = document.createElement("option");
    option.value = code;
    option.textContent = name;
    option.lang = code;
    option.selected = code === lang;
    select.append(option);
  }
  select.addEventListener("change", () => chooseLanguage(select.value));
  label.append(word, select);
  nav.append(label);
}

document.documentElement.lang = lang;
fillWords(document);
mountChooser();
