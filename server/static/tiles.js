// The tiles page: every enrolled tile's card, and enrolling a tile from the camera.
import { api, el, fill } from "/static/common.js";

const grid = document.getElementById("tile-grid");
const choice = document.getElementById("tile-id");
const errorBox = document.getElementById("enroll-error");
const done = document.getElementById("enroll-done");

function tileCard(tile) {
  const doors = tile.doors.length ? tile.doors.join(", ") : "none";
  const enter = tile.enter.length ? tile.enter.join(" + ") : "free";
  return el("figure", { class: "tile-card", dataset: { testid: `tile-${tile.id}` } },
    el("img", { src: `/api/tiles/${encodeURIComponent(tile.id)}/card.png?t=${Date.now()}`,
      alt: `${tile.name}: doors ${doors}, entry ${enter}`, loading: "lazy" }),
    el("figcaption", {},
      el("strong", {}, tile.id), ` · ${tile.name}`,
      el("br"), `doors ${doors} · entry ${enter}`,
      el("br"), el("span", { class: "muted" }, tile.photo ? "your photo" : "packaged art")));
}

async function load() {
  const answer = await api("/api/tiles");
  if (!answer.ok) {
    fill(grid, el("p", { class: "form-error" }, answer.error));
    return;
  }
  const chosen = choice.value;
  fill(choice, answer.data.tiles.map((t) => el("option", { value: t.id, selected: t.id === chosen }, t.id)));
  fill(grid, answer.data.tiles.map(tileCard));
}

document.getElementById("enroll-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  errorBox.hidden = true;
  done.textContent = "";
  const id = choice.value;
  const button = document.getElementById("enroll");
  button.disabled = true;
  const answer = await api(`/api/tiles/${encodeURIComponent(id)}/enroll`,
    { method: "POST", body: { stairs: document.getElementById("stairs").value } });
  button.disabled = false;
  if (!answer.ok) {
    errorBox.textContent = answer.error;
    errorBox.hidden = false;
    return;
  }
  done.textContent = `Enrolled ${id} (stairway ${answer.data.stairs}, N = ${answer.data.north}).`;
  load();
});

load();
