// The tiles page: every tile of every module, grouped by module, each with its card, and
// enrolling a tile from the camera. Players see names and pictures; ids stay in the requests.
import { api, el, fill } from "/static/common.js";
import { has, t } from "/static/words.js";

const groupsBox = document.getElementById("tile-grid");
const choice = document.getElementById("tile-id");
const errorBox = document.getElementById("enroll-error");
const done = document.getElementById("enroll-done");
let names = {};

function tileCard(tile) {
  const doors = tile.doors.length ? tile.doors.join(", ") : t("tiles.none");
  const enter = tile.enter.length ? tile.enter.join(" + ") : t("tiles.free");
  return el("figure", { class: "tile-card", dataset: { testid: `tile-${tile.id}` } },
    el("img", { src: `/api/tiles/${encodeURIComponent(tile.id)}/card.png?t=${Date.now()}`,
      alt: t("tiles.alt", { name: tile.name, doors, enter }), loading: "lazy" }),
    el("figcaption", {},
      el("strong", {}, tile.name),
      el("br"), t("tiles.doors", { doors, enter }),
      el("br"), el("span", { class: "muted" }, t(tile.photo ? "tiles.your_photo" : "tiles.packaged"))));
}

/** A group's heading: its modules' names ("Curses + Treasures"), the basic game, or the user's. */
function heading(group) {
  if (group.own) return t("tiles.own_group");
  // each module's name as the page's language prints it (the server's English otherwise)
  const named = group.modules.map((id, i) => (has(`module.${id}`) ? t(`module.${id}`) : group.names[i]));
  return named.length ? named.join(" + ") : t("setup.basic_game");
}

function groupSection(group, byId) {
  return el("section", { class: "tile-group", dataset: { testid: "tile-group" } },
    el("h2", { class: "tile-group-head" }, heading(group)),
    el("div", { class: "tile-grid" }, group.tiles.map((id) => tileCard(byId[id]))));
}

function options(groups, byId, chosen) {
  return groups.map((group) => el("optgroup", { label: heading(group) },
    group.tiles.map((id) => el("option", { value: id, selected: id === chosen }, byId[id].name))));
}

async function load() {
  const answer = await api("/api/tiles");
  if (!answer.ok) {
    fill(groupsBox, el("p", { class: "form-error" }, answer.error));
    return;
  }
  const byId = Object.fromEntries(answer.data.tiles.map((tile) => [tile.id, tile]));
  names = Object.fromEntries(answer.data.tiles.map((tile) => [tile.id, tile.name]));
  fill(choice, options(answer.data.groups, byId, choice.value));
  fill(groupsBox, answer.data.groups.map((group) => groupSection(group, byId)));
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
  // The words' {id} slot gets the tile's name: players never see internal ids.
  done.textContent = t("tiles.enrolled", { id: names[id] || id, stairs: answer.data.stairs, north: answer.data.north });
  load();
});

load();
