// The calibration page: the camera's raw frame, a players + seats form, and the result.
import { api, el, fill } from "/static/common.js";

const SEATS = ["S", "N", "E", "W"];
const rows = document.getElementById("seat-rows");
const errorBox = document.getElementById("calibrate-error");
const result = document.getElementById("calibration-result");
const picture = document.getElementById("camera-frame");
const cameraNote = document.getElementById("camera-note");

function seatRow(player, seat) {
  const select = el("select", { class: "seat", "aria-label": "seat" },
    SEATS.map((s) => el("option", { value: s, selected: s === seat }, s)));
  const row = el("div", { class: "seat-row" },
    el("input", { class: "player", value: player, "aria-label": "player", maxlength: 32 }),
    select,
    el("button", { type: "button", class: "btn", onclick: () => row.remove() }, "Remove"));
  return row;
}

function refreshFrame() {
  picture.hidden = false;
  picture.src = `/api/camera/frame.jpg?t=${Date.now()}`;
}

picture.addEventListener("error", () => {
  picture.hidden = true;
  cameraNote.textContent = "No camera frame: start the server with a camera to calibrate.";
});
picture.addEventListener("load", () => { cameraNote.textContent = ""; });

function showCalibration(cal, extra) {
  if (!cal) {
    fill(result, el("p", { class: "muted" }, "No calibration yet: events need one."));
    return;
  }
  const zones = cal.zones.map((z) => {
    const xs = z.polygon_mm.map((p) => p[0]);
    const ys = z.polygon_mm.map((p) => p[1]);
    return el("li", {}, `${z.player}: x ${Math.min(...xs).toFixed(0)} to ${Math.max(...xs).toFixed(0)} mm, `
      + `y ${Math.min(...ys).toFixed(0)} to ${Math.max(...ys).toFixed(0)} mm`);
  });
  fill(result,
    el("p", { dataset: { testid: "calibration-error" } },
      `Reprojection error: ${cal.error_px.toFixed(2)} px, ${cal.error_mm.toFixed(2)} mm`
      + ` (${cal.image_size[0]}×${cal.image_size[1]} px, ${cal.created || "?"})`),
    extra,
    el("ul", { class: "zone-list" }, zones),
    el("p", { class: "muted" }, cal.depot_mm ? "Gem depot: the view's north-east corner." : "No gem depot."));
}

async function load() {
  const answer = await api("/api/calibration");
  if (!answer.ok) {
    fill(result, el("p", { class: "form-error" }, answer.error));
    return;
  }
  const players = answer.data.players.length ? answer.data.players : ["red", "blue"];
  fill(rows, players.map((p, i) => seatRow(p, SEATS[i % SEATS.length])));
  showCalibration(answer.data.calibration);
  if (answer.data.camera) refreshFrame();
  else {
    picture.hidden = true;
    cameraNote.textContent = "The camera is turned off (templecam serve --no-camera).";
  }
}

document.getElementById("add-player").addEventListener("click", () => {
  rows.append(seatRow("", SEATS[rows.children.length % SEATS.length]));
});
document.getElementById("refresh-frame").addEventListener("click", refreshFrame);

document.getElementById("calibrate-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  errorBox.hidden = true;
  const entries = [...rows.querySelectorAll(".seat-row")]
    .map((row) => [row.querySelector(".player").value.trim(), row.querySelector(".seat").value])
    .filter(([player]) => player);
  if (!entries.length) {
    errorBox.textContent = "Add at least one player (a colour such as red) and their seat.";
    errorBox.hidden = false;
    return;
  }
  const body = {
    players: entries.map(([p]) => p),
    seats: entries.map(([, s]) => s),
    tile_mm: Number(document.getElementById("tile-mm").value),
    die_mm: Number(document.getElementById("die-mm").value),
  };
  const button = document.getElementById("calibrate");
  button.disabled = true;
  const answer = await api("/api/calibrate", { method: "POST", body });
  button.disabled = false;
  refreshFrame();
  if (!answer.ok) {
    errorBox.textContent = answer.error;
    errorBox.hidden = false;
    return;
  }
  const warnings = answer.data.warnings.map((w) => el("p", { class: "form-error" }, `Warning: ${w}`));
  const view = answer.data.view;
  const report = view
    ? [
      el("h3", { text: "Is the view good enough?" }),
      el("p", { class: "view-summary", dataset: { testid: "view-summary", level: view.verdict } }, view.summary),
      el("ul", { class: "view-report", dataset: { testid: "view-report" } },
        view.checks.map((c) => el("li", { class: `view-check level-${c.level}` },
          el("span", { class: "mark", text: { good: "✓", warn: "!", bad: "✗" }[c.level] }),
          el("span", {}, el("b", { text: `${c.name}: ` }), c.message)))),
      el("p", {}, el("a", { href: "/setup#camera", text: "Choose another camera" })),
    ]
    : [];
  showCalibration(answer.data.calibration,
    [el("p", {}, `Saved ${answer.data.saved} (${answer.data.corners} board corners found).`), ...warnings, ...report]);
});

load();
