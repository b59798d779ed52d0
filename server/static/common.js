// Shared helpers for the dashboard pages: API calls, DOM building, player styles, die-face
// icons, toasts, time formatting and the browser/server clock offset. The words come from
// words.js (the table's language), which every page that uses these helpers thereby loads.

import { colourName, lang, t } from "./words.js";

// ----- the API ----------------------------------------------------------------------------

/** Turn an API error body into one readable sentence. */
export function errorText(data, status) {
  const detail = data && data.detail;
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail) && detail.length) {
    return detail
      .map((item) => {
        const where = Array.isArray(item.loc) ? item.loc.filter((p) => p !== "body").join(".") : "";
        return where ? `${where}: ${item.msg}` : item.msg;
      })
      .join("; ");
  }
  if (status === 0) return "the server cannot be reached";
  return `the server answered ${status}`;
}

/** Call the API; resolve to {ok, status, data, error} (never throws). */
export async function api(path, { method = "GET", body } = {}) {
  const options = { method, headers: { "X-Templecam-Lang": lang }, cache: "no-store" }; // the state's words
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (error) {
    return { ok: false, status: 0, data: null, error: "the server cannot be reached" };
  }
  let data = null;
  try {
    data = await response.json();
  } catch (error) {
    data = null;
  }
  if (!response.ok) {
    return { ok: false, status: response.status, data, error: errorText(data, response.status) };
  }
  return { ok: true, status: response.status, data, error: null };
}

// ----- building the DOM -------------------------------------------------------------------

/**
 * Create an element: el("button", {class: "btn", dataset: {testid: "x"}, onclick}, "text", child).
 * Attribute values of null/undefined/false are left out.
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "dataset") Object.assign(node.dataset, value);
    else if (key === "style" && typeof value === "object") {
      for (const [name, v] of Object.entries(value)) node.style.setProperty(name, v);
    } else if (key.startsWith("on") && typeof value === "function") {
      node.addEventListener(key.slice(2), value);
    } else if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key === "html") node.innerHTML = value;
    else if (value === true) node.setAttribute(key, "");
    else node.setAttribute(key, String(value));
  }
  appendAll(node, children);
  return node;
}

function appendAll(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace an element's children. */
export function fill(node, ...children) {
  node.replaceChildren();
  appendAll(node, children);
  return node;
}

const FOCUSABLE = "button:not([disabled]), a[href], input:not([disabled]), select:not([disabled]), textarea, [tabindex]";

/**
 * Rebuild a part of the page without losing the keyboard's place: when the focus was inside
 * `container`, it goes back to the control with the same test id, else to the one at the same
 * position (or the last), else to the container itself.
 */
export function keepFocus(container, rebuild) {
  const active = document.activeElement;
  const inside = active && active !== document.body && active !== container && container.contains(active);
  const testid = inside && active.dataset ? active.dataset.testid : null;
  const index = inside ? [...container.querySelectorAll(FOCUSABLE)].indexOf(active) : -1;
  rebuild();
  if (!inside || container.contains(document.activeElement)) return;
  const same = testid ? [...container.querySelectorAll(FOCUSABLE)].find((node) => node.dataset.testid === testid) : null;
  const all = [...container.querySelectorAll(FOCUSABLE)];
  const target = same || all[Math.min(Math.max(index, 0), all.length - 1)];
  if (target) {
    target.focus({ preventScroll: true });
  } else {
    container.tabIndex = -1;
    container.focus({ preventScroll: true });
  }
}

/** A fresh key for one click (the server answers a retry with the same key as the first). */
export function freshKey() {
  if (window.crypto && typeof window.crypto.randomUUID === "function" && window.isSecureContext) return window.crypto.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}-${Math.random().toString(36).slice(2, 12)}`;
}

/** Set an element's text only when it changed (keeps the page calm). */
export function setText(node, text) {
  if (node && node.textContent !== text) node.textContent = text;
}

// ----- players: colour + initial + shape + pattern ----------------------------------------

export const PLAYER_COLOURS = ["red", "blue", "green", "yellow", "purple", "orange"];

const SHAPES = {
  triangle: '<path d="M12 2 L23 21 H1 Z"/>',
  circle: '<circle cx="12" cy="12" r="10.5"/>',
  square: '<rect x="2" y="2" width="20" height="20" rx="1.5"/>',
  star: '<path d="M12 1.5 L14.9 8.6 L22.6 9.2 L16.7 14.2 L18.5 21.8 L12 17.7 L5.5 21.8 L7.3 14.2 L1.4 9.2 L9.1 8.6 Z"/>',
  diamond: '<path d="M12 1 L23 12 L12 23 L1 12 Z"/>',
  cross: '<path d="M8.5 1.5 H15.5 V8.5 H22.5 V15.5 H15.5 V22.5 H8.5 V15.5 H1.5 V8.5 H8.5 Z"/>',
  hexagon: '<path d="M6 2 H18 L23.5 12 L18 22 H6 L0.5 12 Z"/>',
};

const PLAYER_SHAPES = {
  red: "triangle",
  blue: "circle",
  green: "square",
  yellow: "star",
  purple: "diamond",
  orange: "cross",
};

/** The look of a player: CSS colour, shape, initial and pattern class. */
export function playerStyle(pid) {
  const known = PLAYER_COLOURS.includes(pid);
  return {
    colour: known ? `var(--p-${pid})` : "var(--p-other)",
    shape: PLAYER_SHAPES[pid] || "hexagon",
    initial: (pid[0] || "?").toUpperCase(),
    pattern: known ? `pattern-${pid}` : "pattern-other",
    name: colourName(pid),
  };
}

/** An inline SVG shape (filled with currentColor). */
export function shapeIcon(shape, className = "shape") {
  const span = document.createElement("span");
  span.innerHTML =
    `<svg class="${className}" viewBox="0 0 24 24" fill="currentColor" aria-hidden="true">` +
    `${SHAPES[shape] || SHAPES.hexagon}</svg>`;
  return span.firstChild;
}

/** A player's badge: shape + initial on the player's colour, with the full name as title. */
export function playerBadge(pid, extraClass = "") {
  const look = playerStyle(pid);
  return el(
    "span",
    {
      class: `badge ${extraClass}`.trim(),
      title: look.name,
      "aria-label": look.name,
      style: { "--pc": look.colour },
      dataset: { player: pid },
    },
    shapeIcon(look.shape),
    look.initial,
  );
}

/** Badge followed by the player's name. */
export function playerLabel(pid) {
  return el("span", { class: "player-label" }, playerBadge(pid), " ", el("span", { class: "player-name", text: colourName(pid) }));
}

// ----- die faces --------------------------------------------------------------------------

export const FACES = ["adventurer", "key", "torch", "golden_mask", "black_mask"];

export const FACE_LABELS = Object.fromEntries(FACES.map((face) => [face, t(`face.${face}`)]));

/** A face's plural name: "torches", "keys", "golden masks". */
export function facePlural(face) {
  if (FACES.includes(face)) return t(`faces.${face}`);
  return /(ch|sh|s|x)$/.test(face) ? `${face}es` : `${face}s`;
}

const MASK = "M2.5 7 C2.5 4.5 21.5 4.5 21.5 7 C21.5 14.5 17 20.5 12 20.5 C7 20.5 2.5 14.5 2.5 7 Z";
const FACE_SVG = {
  adventurer:
    '<g fill="none" stroke="#f6ecd2" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round">' +
    '<path d="M12.5 8.5 L11 15 M12 10.5 L7 12.5 M12 10.5 L16.5 13 M11 15 L7.5 21 M11 15 L15.5 20"/></g>' +
    '<circle cx="13" cy="4.8" r="2.8" fill="#f6ecd2"/>',
  key:
    '<g fill="none" stroke="#ffd23f" stroke-width="2.6" stroke-linecap="round">' +
    '<circle cx="6.5" cy="12" r="4"/><path d="M10.5 12 H22 M18 12 V16.5 M21.5 12 V15"/></g>',
  torch:
    '<path d="M12 1.5 C15.5 5.5 17.5 8 15.6 11.6 C14.4 13.6 9.6 13.6 8.5 11.5 C7 8.8 10 6.5 12 1.5 Z" fill="#ff8c2b"/>' +
    '<path d="M12 6 C13.4 8 14 9.5 13.1 11 C12.5 11.8 11.3 11.8 10.9 11 C10.3 9.8 11.2 8.5 12 6 Z" fill="#ffe08a"/>' +
    '<path d="M9.5 13.5 H14.5 L13.2 22.5 H10.8 Z" fill="#b07a3f"/>',
  golden_mask:
    `<path d="${MASK}" fill="#f5c542" stroke="#fff1b0" stroke-width="1"/>` +
    '<ellipse cx="8.3" cy="10" rx="2.4" ry="1.7" fill="#1a1405"/><ellipse cx="15.7" cy="10" rx="2.4" ry="1.7" fill="#1a1405"/>' +
    '<path d="M9.5 15.5 Q12 17 14.5 15.5" stroke="#1a1405" stroke-width="1.3" fill="none"/>',
  black_mask:
    `<path d="${MASK}" fill="#0b0b0d" stroke="#e8e8e8" stroke-width="1.4"/>` +
    '<ellipse cx="8.3" cy="10" rx="2.4" ry="1.7" fill="#ff4d4f"/><ellipse cx="15.7" cy="10" rx="2.4" ry="1.7" fill="#ff4d4f"/>' +
    '<path d="M9.5 16.5 Q12 15 14.5 16.5" stroke="#e8e8e8" stroke-width="1.3" fill="none"/>',
};

/** An inline SVG icon for a die face (or gem icon), labelled for screen readers and tooltips. */
export function faceIcon(face) {
  const label = FACE_LABELS[face] || face;
  const span = document.createElement("span");
  span.innerHTML =
    `<svg class="icon face-${face}" viewBox="0 0 24 24" role="img" aria-label="${label}">` +
    `<title>${label}</title>${FACE_SVG[face] || ""}</svg>`;
  return span.firstChild;
}

/** A gem icon (for the depot counter). */
export function gemIcon() {
  const span = document.createElement("span");
  span.innerHTML =
    '<svg class="icon" viewBox="0 0 24 24" aria-hidden="true">' +
    '<path d="M12 2 L21 10 L12 22 L3 10 Z" fill="#33c5ff" stroke="#c9f1ff" stroke-width="1.2"/>' +
    '<path d="M3 10 H21 M8 10 L12 2 L16 10 L12 22 Z" fill="none" stroke="#c9f1ff" stroke-width="0.8"/></svg>';
  return span.firstChild;
}

// ----- toasts -----------------------------------------------------------------------------

/** Show a message at the top of the page for a few seconds (errors in red). */
export function toast(message, kind = "error", seconds = 7) {
  let box = document.getElementById("toasts");
  if (!box) {
    box = el("div", { id: "toasts", class: "toasts", "aria-live": "assertive" });
    document.body.append(box);
  }
  const item = el(
    "div",
    { class: `toast ${kind}`, role: "alert", title: "click to close", dataset: { testid: "toast" } },
    message,
  );
  item.addEventListener("click", () => item.remove());
  box.prepend(item);
  while (box.children.length > 3) box.lastChild.remove();
  setTimeout(() => item.remove(), seconds * 1000);
  return item;
}

// ----- time ------------------------------------------------------------------------------

/** "m:ss" for a number of seconds (rounded down; negative values as their size). */
export function formatClock(seconds) {
  const total = Math.max(0, Math.floor(Math.abs(seconds)));
  const minutes = Math.floor(total / 60);
  const rest = total % 60;
  return `${minutes}:${String(rest).padStart(2, "0")}`;
}

/** Seconds since the epoch on the browser's clock, smooth (monotonic within the page). */
export function nowSeconds() {
  return (performance.timeOrigin + performance.now()) / 1000;
}

/**
 * The offset between this browser's clock and the server's, estimated by pinging /api/time a few
 * times and keeping the sample with the smallest round trip:
 * offset = server_time - (t_send + rtt / 2).
 */
export class ClockSync {
  constructor(url = "/api/time") {
    this.url = url;
    this.offset = 0;
    this.rtt = null;
    this.measuredAt = null;
    this._pending = null;
  }

  /** Ping the server `samples` times; resolves to this (keeps the old offset on failure). */
  measure(samples = 5) {
    if (!this._pending) {
      this._pending = this._measure(samples).finally(() => {
        this._pending = null;
      });
    }
    return this._pending;
  }

  async _measure(samples) {
    let best = null;
    for (let i = 0; i < samples; i += 1) {
      try {
        const sent = nowSeconds();
        const response = await fetch(this.url, { cache: "no-store" });
        const data = await response.json();
        const rtt = nowSeconds() - sent;
        if (typeof data.server_time === "number" && (best === null || rtt < best.rtt)) {
          best = { rtt, offset: data.server_time - (sent + rtt / 2) };
        }
      } catch (error) {
        // one lost ping is fine; the others decide
      }
    }
    if (best) {
      this.offset = best.offset;
      this.rtt = best.rtt;
      this.measuredAt = nowSeconds();
    }
    return this;
  }

  /** The server's clock now, in epoch seconds, as well as we know it. */
  serverNow() {
    return nowSeconds() + this.offset;
  }

  /** Half the best round trip: how far off the offset may be, in seconds. */
  get uncertainty() {
    return this.rtt === null ? null : this.rtt / 2;
  }
}

/** Where the soundtrack is (seconds) now, from a state and the clock offset. */
export function positionNow(state, sync) {
  const clock = state.clock;
  const total = clock.timeline.intro_seconds + clock.timeline.game_seconds;
  if (clock.status !== "running") return clock.position;
  const elapsed = Math.max(0, sync.serverNow() - state.server_time);
  return Math.min(total, clock.position + elapsed);
}

/** The countdown running at game time t, like the server's Timeline.phase_at. */
export function phaseAt(timeline, t) {
  const secondsLeft = Math.min(timeline.game_seconds, Math.max(0, timeline.game_seconds - t));
  for (const countdown of timeline.countdowns) {
    if (countdown.start <= t && t < countdown.end) {
      return { countdown: countdown.n, secondsLeftInCountdown: countdown.end - t, secondsLeft };
    }
  }
  return { countdown: null, secondsLeftInCountdown: null, secondsLeft };
}

// ----- a link to a section of a page lands on it -------------------------------------------------
// Pages fill themselves in after they load (lists, panels, the temple): the browser jumps to
// `#section` before that, and what arrives above the section pushes it away (on /setup#camera by
// 2,100 px). So the section is brought back to the top whenever it moves while the page settles,
// until it has stayed put for LAND_STILL_MS (at most LAND_MAX_MS), and never again once the user
// scrolls, clicks or types.
const LAND_STILL_MS = 800;
const LAND_MAX_MS = 10000;
const LAND_POLL_MS = 50;

export function landOnAnchor(hash = window.location.hash) {
  if (!hash || hash.length < 2) return;
  let id;
  try {
    id = decodeURIComponent(hash.slice(1));
  } catch (error) {
    return;
  }
  const started = performance.now();
  let still = started;
  let landedAt = null;
  let stopped = false;
  const events = ["wheel", "touchstart", "keydown", "mousedown"];
  const stop = () => {
    stopped = true;
    for (const type of events) window.removeEventListener(type, stop, true);
  };
  for (const type of events) window.addEventListener(type, stop, { capture: true, passive: true });
  const step = () => {
    if (stopped) return;
    const now = performance.now();
    const target = document.getElementById(id);
    if (target && target.getClientRects().length) {
      const top = target.getBoundingClientRect().top;
      const room = document.documentElement.scrollHeight - window.innerHeight - window.scrollY;
      // Away from the top, and the page can scroll to bring it there (the page's end may not).
      const away = top < -2 || (top > 2 && room > 2);
      if (landedAt === null || away) {
        target.scrollIntoView({ block: "start" });
        landedAt = target.getBoundingClientRect().top;
        still = now;
      }
    }
    if ((landedAt !== null && now - still > LAND_STILL_MS) || now - started > LAND_MAX_MS) {
      stop();
      return;
    }
    setTimeout(step, LAND_POLL_MS);
  };
  step();
}

window.addEventListener("hashchange", () => landOnAnchor());
if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", () => landOnAnchor(), { once: true });
} else {
  landOnAnchor();
}
