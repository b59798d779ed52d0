// The story of a past game (/games/N): GET /api/games/N/story drawn as SVG plots, the temple as a
// heat map of where everyone spent the game, the countdowns, the moments that decided it, and
// the camera video kept beside the record, which a click on a moment (or a plot) seeks to.
//
// Test ids: story-outcome, story-facts, download-png, download-pdf, delete-game, story-video,
// video-now, video-size, video-notice, ring-mb, ring-save, plot-depot, plot-dice, plot-rate,
// countdowns, heat, heat-players, heat-<x>,<y>, moments (buttons moment-<line>), story-events.

import { api, el, fill, formatClock, playerBadge, playerStyle } from "./common.js";
import { pileTileNode } from "./tile-art.js";
import { joinNames, lang, t } from "./words.js";

const SVG = "http://www.w3.org/2000/svg";
const W = 420;
const H = 220;
const PAD = { left: 34, right: 10, top: 12, bottom: 30 };
const GEM_COLOUR = "#33c5ff";
const ROLL_COLOUR = "#ffd23f";
const ACTION_COLOUR = "#3ddc84";

const gameId = decodeURIComponent(window.location.pathname.split("/").filter(Boolean).pop() || "");
const $ = (id) => document.getElementById(id);
const plots = [];
let story = null;
let heatFor = "everyone";

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  for (const child of children) if (child) node.append(child);
  return node;
}

function words(pids) {
  return joinNames(pids.map((pid) => playerStyle(pid).name));
}

function showError(message) {
  $("story-error").textContent = message;
  $("story-error").hidden = !message;
}

// ----- plots --------------------------------------------------------------------------------

/** A plot's frame: time along (minutes), 0..top up, the countdowns as red bands; returns
 * {node, x, y} where x and y map a time and a value into the picture. */
function frame(top, label) {
  const duration = Math.max(story.duration, 60 * story.per_minute.rolls.length);
  const x = (t) => PAD.left + ((W - PAD.left - PAD.right) * t) / duration;
  const y = (v) => H - PAD.bottom - ((H - PAD.top - PAD.bottom) * v) / Math.max(top, 1);
  const node = svg("svg", { class: "plot", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": label });
  for (const cd of story.countdowns) {
    const start = cd.start ?? cd.end;
    const end = cd.end ?? story.duration;
    if (start === null || start === undefined) continue;
    node.append(svg("rect", { class: "band", x: x(start), y: PAD.top, width: Math.max(2, x(end) - x(start)), height: H - PAD.top - PAD.bottom }));
  }
  const step = Math.max(1, Math.ceil(top / 5));
  for (let v = 0; v <= top; v += step) {
    node.append(svg("line", { class: "axis", x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v) }));
    node.append(svg("text", { x: PAD.left - 6, y: y(v) + 5, "text-anchor": "end" }, document.createTextNode(String(v))));
  }
  const minutes = Math.floor(duration / 60);
  const every = minutes > 12 ? 5 : minutes > 6 ? 2 : 1;
  for (let m = 0; m <= minutes; m += every) {
    node.append(svg("text", { x: x(m * 60), y: H - 8, "text-anchor": "middle" }, document.createTextNode(m === 0 ? t("story.minutes", { n: 0 }) : String(m))));
  }
  const cursor = svg("line", { class: "cursor", x1: 0, x2: 0, y1: PAD.top, y2: H - PAD.bottom, visibility: "hidden" });
  node.append(cursor);
  node.addEventListener("click", (event) => {
    const box = node.getBoundingClientRect();
    const at = ((event.clientX - box.left) / box.width) * W;
    const t = ((at - PAD.left) / (W - PAD.left - PAD.right)) * duration;
    showMoment(Math.min(story.duration, Math.max(0, t)));
  });
  plots.push({ cursor, x });
  return { node, x, y };
}

function stepPath(points, x, y, lift = 0) {
  let d = "";
  points.forEach(([t, v], i) => {
    if (i === 0) d += `M${x(t)},${y(v) - lift}`;
    else d += ` H${x(t)} V${y(v) - lift}`;
  });
  return d;
}

function legend(items) {
  return el(
    "div",
    { class: "legend" },
    items.map(([label, colour, badge]) =>
      el("span", {}, badge || el("span", { class: "swatch", style: { "--sw": colour } }), label),
    ),
  );
}

function depotPlot() {
  const top = Math.max(...story.depot.map(([, v]) => v));
  const { node, x, y } = frame(top, t("story.depot_label"));
  node.append(svg("path", { class: "series", d: stepPath(story.depot, x, y), stroke: GEM_COLOUR }));
  const last = story.moments.find((m) => m.kind === "last-gem");
  if (last) node.append(svg("line", { class: "mark", x1: x(last.t), x2: x(last.t), y1: PAD.top, y2: H - PAD.bottom }));
  const end = story.depot[story.depot.length - 1][1];
  fill($("plot-depot"), node, legend([[t("story.depot_legend", { start: story.start_depot, end }), GEM_COLOUR]]));
}

function dicePlot() {
  const top = Math.max(...Object.values(story.dice).flatMap((points) => points.map(([, v]) => v)));
  const { node, x, y } = frame(top, t("story.dice_label"));
  story.players.forEach((pid, i) => {
    node.append(svg("path", { class: "series", d: stepPath(story.dice[pid], x, y, i * 3), stroke: `var(--p-${pid}, var(--p-other))` }));
  });
  const items = story.players.map((pid) => {
    const points = story.dice[pid];
    return [` ${playerStyle(pid).name}: ${points[points.length - 1][1]}`, null, playerBadge(pid)];
  });
  fill($("plot-dice"), node, legend(items));
}

function ratePlot() {
  const { rolls, actions } = story.per_minute;
  const top = Math.max(1, ...rolls, ...actions);
  const { node, x, y } = frame(top, t("story.rate_label"));
  rolls.forEach((r, m) => {
    const left = x(m * 60);
    const width = (x(60) - x(0)) * 0.4;
    node.append(svg("rect", { x: left + width * 0.2, y: y(r), width, height: y(0) - y(r), fill: ROLL_COLOUR }));
    const a = actions[m];
    node.append(svg("rect", { x: left + width * 1.2, y: y(a), width, height: y(0) - y(a), fill: ACTION_COLOUR }));
  });
  const sum = (list) => list.reduce((a, b) => a + b, 0);
  fill($("plot-rate"), node, legend([
      [t("story.rolls", { n: sum(rolls) }), ROLL_COLOUR],
      [t("story.actions", { n: sum(actions) }), ACTION_COLOUR],
    ]));
}

// ----- countdowns, heat map, moments -----------------------------------------------------------

function countdowns() {
  const box = $("countdowns");
  if (!story.countdowns.length) {
    fill(box, el("li", { class: "muted", text: t("story.no_countdown") }));
    return;
  }
  const last = Math.max(...story.countdowns.map((cd) => cd.n));
  fill(
    box,
    story.countdowns.map((cd) => {
      const final = cd.collapse ?? (cd.n === last && !story.moments.some((m) => m.kind === "slam" && m.t === cd.end));
      const when = cd.end === null ? t("story.not_reached") : formatClock(cd.end);
      const group = (label, pids) =>
        el("span", { class: "who" }, `${label}: `, pids.length ? pids.map((pid) => playerBadge(pid)) : t("story.nobody"), pids.length ? ` ${words(pids)}` : "");
      return el(
        "li",
        { dataset: { testid: `countdown-${cd.n}` } },
        el("b", { text: t(final ? "story.cd_collapse" : "story.cd_slam", { n: cd.n, when }) }),
        group(t(final ? "story.out_in_time" : "story.made_it_back"), cd.back || []),
        group(t(final ? "story.inside_collapse" : "story.lost_die"), cd.caught || []),
      );
    }),
  );
}

function heatButtons() {
  const choice = (key, label, badge) =>
    el(
      "button",
      { class: "btn", type: "button", "aria-pressed": String(heatFor === key), dataset: { testid: `heat-for-${key}` }, onclick: () => ((heatFor = key), heatButtons(), heatMap()) },
      badge,
      label,
    );
  fill($("heat-players"), choice("everyone", t("story.everyone")), story.players.map((pid) => choice(pid, ` ${playerStyle(pid).name}`, playerBadge(pid))));
}

function heatMap() {
  const box = $("heat");
  const tiles = story.temple;
  const xs = tiles.map((t) => t.cell[0]);
  const ys = tiles.map((t) => t.cell[1]);
  const minX = Math.min(...xs);
  const maxY = Math.max(...ys);
  const cols = Math.max(...xs) - minX + 1;
  const rows = maxY - Math.min(...ys) + 1;
  const room = box.clientWidth || box.parentElement.clientWidth - 40;
  const size = Math.max(64, Math.min(170, Math.floor((room - 4 * (cols - 1)) / cols)));
  box.style.gridTemplateColumns = `repeat(${cols}, ${size}px)`;
  box.style.gridTemplateRows = `repeat(${rows}, ${size}px)`;
  const spent = (tile) => (heatFor === "everyone" ? Object.values(tile.seconds).reduce((a, b) => a + b, 0) : tile.seconds[heatFor] || 0);
  const most = Math.max(1, ...tiles.map(spent));
  const whole = Math.max(1, story.duration);
  fill(
    box,
    tiles.map((tile) => {
      const key = `${tile.cell[0]},${tile.cell[1]}`;
      const shares = story.players
        .filter((pid) => (heatFor === "everyone" || heatFor === pid) && tile.seconds[pid] > 0)
        .map((pid) => el("span", { style: { color: `var(--p-${pid}, var(--p-other))` }, title: playerStyle(pid).name, text: `${playerStyle(pid).initial} ${Math.round((100 * tile.seconds[pid]) / whole)}%` }));
      const said = story.players.map((pid) => `${playerStyle(pid).name} ${formatClock(tile.seconds[pid] || 0)}`).join(", ");
      return el(
        "div",
        {
          class: "heat-cell",
          style: { "--heat-size": `${size}px`, "--heat": (0.6 * spent(tile)) / most, "grid-column": String(tile.cell[0] - minX + 1), "grid-row": String(maxY - tile.cell[1] + 1) },
          title: `${tile.label}, ${tile.where}: ${said}`,
          dataset: { testid: `heat-${key}`, seconds: String(spent(tile)) },
        },
        pileTileNode(tile.tile, tile.stairs, `${size}px`),
        el("div", { class: "heat-glow" }),
        el("div", { class: "heat-share" }, shares),
      );
    }),
  );
}

function momentItem(entry, prefix) {
  return el(
    "li",
    {},
    el(
      "button",
      {
        type: "button",
        class: entry.kind,
        dataset: { testid: `${prefix}-${entry.line}`, t: String(entry.t) },
        onclick: (event) => showMoment(entry.t, event.currentTarget),
      },
      el("span", { class: "at", text: formatClock(entry.t) }),
      el("span", { text: entry.text }),
    ),
  );
}

function moments() {
  const shown = story.moments.length ? story.moments.map((m) => momentItem(m, "moment")) : el("li", { class: "muted", text: t("story.nothing_yet") });
  fill($("moments"), shown);
  fill($("story-events"), story.events.map((e) => momentItem(e, "event")));
}

/** Show the moment `t` (game clock): the plots' cursors, and the camera video there. */
function showMoment(t, button = null) {
  for (const node of document.querySelectorAll(".moments button[aria-current]")) node.removeAttribute("aria-current");
  if (button) button.setAttribute("aria-current", "true");
  moveCursors(t);
  seekVideo(t);
  if (button && story.video.segments.length) $("story-video").scrollIntoView({ block: "nearest" });
}

/** As the video plays, the moment it has reached is marked in the list (in step with it). */
function markNow(t) {
  const buttons = [...document.querySelectorAll("#moments button")];
  const reached = buttons.filter((b) => Number(b.dataset.t) <= t + 0.01).pop();
  for (const b of buttons) b.classList.toggle("now", b === reached);
}

function moveCursors(t) {
  for (const plot of plots) {
    plot.cursor.setAttribute("x1", plot.x(t));
    plot.cursor.setAttribute("x2", plot.x(t));
    plot.cursor.setAttribute("visibility", "visible");
  }
}

// ----- the camera video -----------------------------------------------------------------------

let segment = null;

function segmentAt(t) {
  const segments = story.video.segments;
  return segments.find((s) => s.start <= t && t <= s.end + 1 / s.fps) || segments.find((s) => s.start >= t) || segments[segments.length - 1];
}

function frameIndex(seg, t) {
  let index = 0;
  while (index + 1 < seg.times.length && seg.times[index + 1] <= t) index += 1;
  return index;
}

function seekVideo(t) {
  const video = $("story-video");
  if (!story.video.segments.length) return;
  const seg = segmentAt(t);
  const at = (frameIndex(seg, t) + 0.5) / seg.fps;
  if (segment !== seg) {
    segment = seg;
    video.src = `/api/games/${encodeURIComponent(gameId)}/video/${encodeURIComponent(seg.file)}`;
    video.addEventListener("loadedmetadata", () => (video.currentTime = at), { once: true });
  } else {
    video.currentTime = at;
  }
  video.dataset.seeked = String(seg.times[frameIndex(seg, t)]);
}

function videoTime() {
  const video = $("story-video");
  if (!segment) return null;
  const index = Math.min(segment.times.length - 1, Math.max(0, Math.floor(video.currentTime * segment.fps)));
  return segment.times[index];
}

function wireVideo() {
  const video = $("story-video");
  video.addEventListener("timeupdate", () => {
    const at = videoTime();
    if (at === null) return;
    $("video-now").hidden = false;
    $("video-now").textContent = t("story.video_now", { clock: formatClock(at) });
    video.dataset.gameT = String(at);
    moveCursors(at);
    markNow(at);
  });
  video.addEventListener("ended", () => {
    const segments = story.video.segments;
    const next = segments[segments.indexOf(segment) + 1];
    if (next) {
      seekVideo(next.start);
      video.play().catch(() => {});
    }
  });
}

function megabytes(bytes) {
  return bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${Math.round(bytes / 1e3)} kB`;
}

function showVideo() {
  const video = story.video;
  const kept = video.segments.length;
  $("story-video").hidden = !kept;
  const span = kept ? t("story.video_from", { start: formatClock(video.segments[0].start), end: formatClock(video.segments[kept - 1].end) }) : "";
  const cap = video.on ? t("story.ring_keeps", { mb: video.megabytes }) : t("story.ring_off");
  $("video-size").textContent = kept ? t("story.video_kept", { size: megabytes(video.bytes), span, cap }) : t("story.no_video", { cap });
  $("video-notice").hidden = !video.notice;
  $("video-notice").textContent = video.notice || "";
  $("ring-mb").value = String(video.megabytes);
  if (kept && !segment) seekVideo(video.segments[0].start);
}

async function saveRing(event) {
  event.preventDefault();
  const value = Number($("ring-mb").value);
  const result = await api("/api/video-ring", { method: "PUT", body: { megabytes: Number.isInteger(value) ? value : -1 } });
  if (!result.ok) {
    showError(t("story.ring_error", { error: result.error }));
    return;
  }
  showError("");
  story.video.megabytes = result.data.megabytes;
  story.video.on = result.data.megabytes > 0;
  showVideo();
}

async function deleteGame() {
  if (!window.confirm(t("story.delete_confirm"))) return;
  const result = await api(`/api/games/${encodeURIComponent(gameId)}`, { method: "DELETE" });
  if (!result.ok) {
    showError(t("story.delete_error", { error: result.error }));
    return;
  }
  window.location.assign("/games");
}

// ----- the page -------------------------------------------------------------------------------

function summary() {
  const outcome = $("story-outcome");
  outcome.textContent = story.outcome_text;
  outcome.className = `story-outcome ${story.outcome}`;
  const rolls = story.per_minute.rolls.reduce((a, b) => a + b, 0);
  $("story-facts").textContent = t("story.facts", { clock: formatClock(story.duration), players: story.players.length, events: story.events.length, rolls });
  const base = `/api/games/${encodeURIComponent(gameId)}/story`;
  $("download-png").href = `${base}.png?lang=${encodeURIComponent(lang)}`; // drawn in the page's language
  $("download-pdf").href = `${base}.pdf?lang=${encodeURIComponent(lang)}`;
  $("delete-game").disabled = story.playing;
  if (story.playing) $("delete-game").title = t("story.playing_title");
}

function draw() {
  plots.length = 0;
  summary();
  depotPlot();
  dicePlot();
  ratePlot();
  countdowns();
  heatButtons();
  heatMap();
  moments();
  showVideo();
}

async function load() {
  const result = await api(`/api/games/${encodeURIComponent(gameId)}/story`);
  if (!result.ok) {
    $("story-outcome").textContent = t("story.cannot");
    showError(result.error);
    return;
  }
  story = result.data;
  draw();
}

$("ring-form").addEventListener("submit", saveRing);
$("delete-game").addEventListener("click", deleteGame);
window.addEventListener("resize", () => story && heatMap());
wireVideo();
load();
