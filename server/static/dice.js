// The /dice page: photograph your dice face by face, check the labels, teach the die reader,
// compare the old and new reader, use the new one or roll back.
import { api, el, errorText, faceIcon, fill, setText } from "/static/common.js";
import { t } from "/static/words.js";

const capital = (words) => words.charAt(0).toUpperCase() + words.slice(1);
const NAMES = {
  adventurer: capital(t("face.adventurer")),
  key: capital(t("face.key")),
  torch: capital(t("face.torch")),
  golden_mask: capital(t("face.golden_mask")),
  black_mask: capital(t("face.black_mask")),
  not_die: t("dice.not_die"),
  empty: t("dice.empty"),
};
const LABELS = ["adventurer", "key", "torch", "golden_mask", "black_mask", "not_die"];
const POLL_MS = 1000;
const LIVE_MS = 1500;

const $ = (id) => document.getElementById(id);
const page = {
  steps: [],
  prompt: null,
  chosen: false,
  camera: { live: false },
  review: null,
  photo: null,
  job: { state: "idle" },
  models: null,
  compared: null,
  moving: null,
  readiness: null,
};

// ----- small helpers --------------------------------------------------------------------------

function icon(label) {
  if (label === "not_die") return el("span", { class: "not-die-icon", "aria-hidden": "true" }, "✕");
  if (label === "empty") return el("span", { class: "not-die-icon", "aria-hidden": "true" }, "▢");
  return faceIcon(label);
}

function named(label) {
  return el("span", { class: "face-name" }, icon(label), " ", NAMES[label] || label);
}

function say(id, text, kind = "ok") {
  const box = $(id);
  if (!text) {
    box.hidden = true;
    return;
  }
  box.textContent = text;
  box.dataset.kind = kind;
  box.hidden = false;
}

function percent(value) {
  return value === null || value === undefined ? "–" : `${Math.round(value * 1000) / 10} %`;
}

function when(iso) {
  if (!iso) return "an unknown date";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" });
}

function trend(before, after) {
  if (typeof before !== "number" || typeof after !== "number") return "";
  return after > before ? "better" : after < before ? "worse" : "";
}

function seconds(value) {
  if (value === null || value === undefined) return "estimating the time left…";
  if (value < 60) return `about ${Math.max(1, Math.round(value))} s left`;
  return `about ${Math.round(value / 60)} min left`;
}

// ----- 1. capture -----------------------------------------------------------------------------

function currentStep() {
  if (page.chosen && page.steps.some((s) => s.prompt === page.prompt)) {
    return page.steps.find((s) => s.prompt === page.prompt);
  }
  return page.steps.find((s) => s.count < s.target) || page.steps[page.steps.length - 1];
}

function renderCapture(state) {
  page.steps = state.steps;
  page.camera = state.camera;
  const step = currentStep();
  page.prompt = step ? step.prompt : null;
  fill(
    $("steps"),
    page.steps.map((s) =>
      el(
        "li",
        {},
        el(
          "button",
          {
            type: "button",
            class: `dice-step-button${s.prompt === page.prompt ? " current" : ""}${s.count >= s.target ? " done" : ""}`,
            "aria-pressed": s.prompt === page.prompt ? "true" : "false",
            dataset: { testid: `step-${s.prompt}` },
            onclick: () => {
              page.prompt = s.prompt;
              page.chosen = true;
              renderCapture({ steps: page.steps, camera: page.camera });
            },
          },
          named(s.prompt),
          el("span", { class: "step-count", dataset: { testid: `count-${s.prompt}` } }, t("dice.of_target", { n: s.count, target: s.target })),
        ),
      ),
    ),
  );
  if (step) {
    fill($("ask"), el("span", { class: "ask-icon" }, icon(step.prompt)), el("span", {}, step.ask));
    setText($("upload-text"), t("dice.upload_of", { what: step.prompt === "empty" ? t("dice.the_empty_table") : NAMES[step.prompt].toLowerCase() }));
  }
  const live = state.camera.live;
  $("capture-button").hidden = !live; // without a camera the photos are uploaded
  $("capture-button").disabled = !live || page.job.state === "running";
  setText($("camera-note"), live ? `Camera: ${state.camera.label}` : state.camera.note || "");
  $("live").hidden = !live;
  const photos = page.steps.reduce((sum, s) => sum + s.count, 0);
  $("label-button").disabled = photos === 0 || page.job.state === "running";
  $("undo-capture").disabled = !step || step.count === 0 || page.job.state === "running";
  if (state.readiness) showReadiness(state.readiness);
  else if (state.saved || state.taken_back) refreshReadiness();
}

// ----- ready to teach? ----------------------------------------------------------------------------
// The server says what is still missing before teaching (every face photographed, the dice found
// in every photo, the labels checked) and which faces the shipped reader mostly reads otherwise.

function showReadiness(readiness) {
  page.readiness = readiness || null;
  const r = page.readiness;
  const warnings = r ? r.warnings : [];
  fill($("review-warnings"), warnings.map((w) => el("li", { dataset: { testid: `warning-${w.face}` } }, icon(w.face), " ", w.text)));
  $("review-warnings").hidden = !warnings.length;
  const review = page.review;
  $("review-done-row").hidden = !review;
  if (review) {
    setText($("review-done"), t(review.done ? "dice.check_again" : "dice.labels_right"));
    $("review-done").classList.toggle("btn-primary", !review.done);
    setText(
      $("review-done-note"),
      review.done
        ? "Labels checked."
        : warnings.length
          ? "Look at the warnings above first."
          : "Press it once every group holds only its own face.",
    );
  }
  const running = page.job.state === "running";
  $("teach-start").disabled = running || !(r && r.ready);
  const missing = r && !r.ready ? r.missing : [];
  fill($("teach-ready"), missing.length ? [el("strong", {}, "Before teaching:"), el("ul", {}, missing.map((m) => el("li", {}, m)))] : []);
  $("teach-ready").hidden = !missing.length || running;
}

async function refreshReadiness() {
  const answer = await api("/api/dice");
  if (answer.ok) showReadiness(answer.data.readiness);
}

async function markReviewed() {
  const done = !(page.review && page.review.done);
  $("review-done").disabled = true;
  const answer = await api("/api/dice/review/done", { method: "POST", body: { done } });
  $("review-done").disabled = false;
  if (!answer.ok) {
    say("review-message", answer.error, "error");
    return;
  }
  showReview(answer.data);
  say("review-message", done ? "Labels checked: you can teach now." : "Check the labels, then press The labels are right.");
}

async function capture() {
  const prompt = page.prompt;
  $("capture-button").disabled = true;
  const answer = await api("/api/dice/capture", { method: "POST", body: { prompt } });
  if (!answer.ok) {
    say("capture-message", answer.error, "error");
  } else {
    const step = answer.data.steps.find((s) => s.prompt === prompt);
    say("capture-message", `Saved photo ${step.count} of ${NAMES[prompt].toLowerCase()}${step.count < step.target && prompt !== "empty" ? ": move the dice a little, then capture again" : ""}.`);
    advance(answer.data, prompt);
  }
  renderCapture({ steps: answer.ok ? answer.data.steps : page.steps, camera: page.camera });
}

/** After a photo, move on to the next face once this one has enough. */
function advance(state, prompt) {
  const step = state.steps.find((s) => s.prompt === prompt);
  if (step && step.count >= step.target) page.chosen = false;
}

async function upload(files) {
  const prompt = page.prompt;
  let saved = 0;
  let last = null;
  const problems = [];
  for (const file of files) {
    let response;
    try {
      response = await fetch(`/api/dice/upload?prompt=${encodeURIComponent(prompt)}&name=${encodeURIComponent(file.name.slice(0, 150))}`, {
        method: "POST",
        headers: { "Content-Type": file.type && file.type.startsWith("image/") ? file.type : "application/octet-stream" },
        body: file,
      });
    } catch (error) {
      problems.push("the server cannot be reached");
      break;
    }
    let data = null;
    try {
      data = await response.json();
    } catch (error) {
      data = null;
    }
    if (response.ok) {
      saved += 1;
      last = data;
    } else {
      problems.push(errorText(data, response.status));
    }
  }
  const what = prompt === "empty" ? "the empty table" : NAMES[prompt].toLowerCase();
  const text = [saved ? `Saved ${saved} photo${saved === 1 ? "" : "s"} of ${what}.` : "", ...problems].filter(Boolean).join(" ");
  say("capture-message", text, problems.length ? "error" : "ok");
  if (last) {
    advance(last, prompt);
    renderCapture({ steps: last.steps, camera: page.camera });
  }
}

async function undoCapture() {
  const answer = await api("/api/dice/capture/undo", { method: "POST", body: { prompt: page.prompt } });
  say("capture-message", answer.ok ? "Took back the last photo (kept aside in the data folder)." : answer.error, answer.ok ? "ok" : "error");
  if (answer.ok) renderCapture({ steps: answer.data.steps, camera: page.camera });
}

function refreshLive() {
  if (page.camera.live && !document.hidden) {
    const image = new Image();
    image.onload = () => {
      $("live").src = image.src;
    };
    image.src = `/api/camera/frame.jpg?t=${Date.now()}`;
  }
  setTimeout(refreshLive, LIVE_MS);
}

// ----- 2. review ------------------------------------------------------------------------------

async function label() {
  $("label-button").disabled = true;
  setText($("label-button"), t("dice.finding"));
  const answer = await api("/api/dice/label", { method: "POST" });
  setText($("label-button"), t("dice.find"));
  $("label-button").disabled = false;
  if (!answer.ok) {
    say("capture-message", answer.error, "error");
    return;
  }
  showReview(answer.data);
  const found = answer.data.dice.length;
  say("review-message", `Found ${found} dice and other things in ${answer.data.photos.length} photos: check the groups below.`);
  $("review").scrollIntoView({ block: "start" });
}

async function loadReview() {
  const answer = await api("/api/dice/review");
  if (answer.ok) showReview(answer.data);
  else if (answer.status === 409) showReview(null);
}

function cropImage(die, size = "") {
  return el("img", {
    src: `/api/dice/crops/${die.index}.png?b=${die.box.join(",")}`,
    alt: `a crop labelled ${NAMES[die.label]}`,
    class: `crop${size}`,
    width: 96,
    height: 96,
  });
}

function showReview(review) {
  page.review = review;
  if (!review) {
    fill($("review-grid"), el("p", { class: "muted" }, "Photograph your dice, then press Find the dice."));
    fill($("photo-pick"));
    $("photo-view").hidden = true;
    showReadiness(page.readiness);
    return;
  }
  const groups = LABELS.map((label) => {
    const dice = review.dice.filter((d) => d.label === label);
    return el(
      "section",
      { class: "review-group", dataset: { testid: `group-${label}`, label } },
      el("h3", {}, named(label), el("span", { class: "muted group-count" }, ` ${dice.length}`)),
      el(
        "div",
        { class: "crops" },
        dice.length
          ? dice.map((d) =>
              el(
                "button",
                {
                  type: "button",
                  class: `crop-button${d.source === "added" ? " added" : ""}`,
                  title: `Move this crop (now ${NAMES[d.label]})`,
                  dataset: { testid: "crop", index: String(d.index), image: d.image },
                  onclick: () => openMove(d),
                },
                cropImage(d),
              ),
            )
          : el("p", { class: "muted" }, "none"),
      ),
    );
  });
  fill($("review-grid"), groups);
  fill(
    $("photo-pick"),
    el("p", { class: "note" }, "Missed a die? Pick its photo, then click on the die."),
    el(
      "div",
      { class: "photo-buttons" },
      review.photos.map((p) =>
        el(
          "button",
          {
            type: "button",
            class: `btn photo-button${page.photo === p.file ? " current" : ""}`,
            dataset: { testid: "photo-button", file: p.file },
            onclick: () => showPhoto(p.file),
          },
          icon(p.prompt),
          ` ${p.name} ${review.photos.filter((q) => q.prompt === p.prompt).indexOf(p) + 1}`,
          p.held_back ? el("small", { class: "muted" }, " (held back)") : null,
        ),
      ),
    ),
  );
  if (page.photo && review.photos.some((p) => p.file === page.photo)) showPhoto(page.photo);
  else $("photo-view").hidden = true;
  showReadiness(review.readiness);
  if (review.stale) say("review-message", "Photos were added or taken back since the dice were found: press Find the dice again to label them.", "error");
}

function showPhoto(file) {
  const review = page.review;
  const photo = review.photos.find((p) => p.file === file);
  page.photo = file;
  for (const button of document.querySelectorAll(".photo-button")) {
    button.classList.toggle("current", button.dataset.file === file);
  }
  const view = $("photo-view");
  const image = $("photo-image");
  const [prompt, name] = file.split("/");
  const source = `/api/dice/photos/${encodeURIComponent(prompt)}/${encodeURIComponent(name)}`;
  if (image.dataset.file !== file) {
    image.src = source;
    image.dataset.file = file;
  }
  image.alt = `${photo.name}: click on a die that was missed`;
  view.querySelectorAll(".die-box").forEach((box) => box.remove());
  for (const die of review.dice.filter((d) => d.image === file)) {
    const [x1, y1, x2, y2] = die.box;
    view.append(
      el("span", {
        class: `die-box label-${die.label}`,
        title: NAMES[die.label],
        style: {
          left: `${(x1 / photo.width) * 100}%`,
          top: `${(y1 / photo.height) * 100}%`,
          width: `${((x2 - x1) / photo.width) * 100}%`,
          height: `${((y2 - y1) / photo.height) * 100}%`,
        },
      }),
    );
  }
  view.hidden = false;
}

async function addDie(event) {
  const review = page.review;
  const photo = review && review.photos.find((p) => p.file === page.photo);
  if (!photo) return;
  const rect = $("photo-image").getBoundingClientRect();
  const x = ((event.clientX - rect.left) / rect.width) * photo.width;
  const y = ((event.clientY - rect.top) / rect.height) * photo.height;
  const answer = await api("/api/dice/add", { method: "POST", body: { image: photo.file, x, y } });
  if (!answer.ok) {
    say("review-message", answer.error, "error");
    return;
  }
  say("review-message", `Added a die as ${NAMES[answer.data.label]}: it is in its group above (click it to move it).`);
  await loadReview();
}

function openMove(die) {
  page.moving = die;
  $("move-crop").src = `/api/dice/crops/${die.index}.png?b=${die.box.join(",")}`;
  fill(
    $("move-choices"),
    LABELS.map((label) =>
      el(
        "button",
        {
          type: "button",
          class: `btn move-choice${label === die.label ? " current" : ""}`,
          disabled: label === die.label,
          dataset: { testid: `move-to-${label}` },
          onclick: () => move(label),
        },
        named(label),
      ),
    ),
  );
  $("move-dialog").showModal();
}

async function move(label) {
  const die = page.moving;
  $("move-dialog").close();
  if (!die) return;
  const answer = await api("/api/dice/relabel", { method: "POST", body: { index: die.index, label } });
  if (!answer.ok) {
    say("review-message", answer.error, "error");
    return;
  }
  say("review-message", `Moved to ${NAMES[label]}.`);
  await loadReview();
}

// ----- 3. teach -------------------------------------------------------------------------------

async function startTeaching() {
  $("teach-start").disabled = true;
  const answer = await api("/api/dice/teach", { method: "POST" });
  if (!answer.ok) {
    say("teach-message", answer.error, "error");
    await refreshReadiness();
    return;
  }
  say("teach-message", "");
  showJob(answer.data);
  poll();
}

async function cancelTeaching() {
  $("teach-cancel").disabled = true;
  const answer = await api("/api/dice/teach/cancel", { method: "POST" });
  $("teach-cancel").disabled = false;
  if (!answer.ok) say("teach-message", answer.error, "error");
  else showJob(answer.data);
}

function showJob(job) {
  const before = page.job.state;
  page.job = job;
  const running = job.state === "running";
  $("teach-start").disabled = running || !(page.readiness && page.readiness.ready);
  if (page.readiness) $("teach-ready").hidden = running || page.readiness.ready;
  $("teach-cancel").hidden = !running;
  $("teach-progress").hidden = !running && job.state !== "done";
  const pct = Math.round(job.percent || 0);
  $("teach-fill").style.width = `${pct}%`;
  $("teach-progress").setAttribute("aria-valuenow", String(pct));
  if (running) setText($("teach-stage"), `${job.stage_name} · ${pct} % · ${seconds(job.eta_s)}`);
  if (job.state === "done") setText($("teach-stage"), `Done in ${Math.round(job.elapsed_s || 0)} s.`);
  if (job.state === "failed") say("teach-message", `The fine-tune failed: ${job.message}`, "error");
  if (job.state === "cancelled") say("teach-message", "Cancelled: the camera keeps the reader it has.", "ok");
  if (before === "running" && job.state === "done") {
    say("teach-message", "Done: compare the new reader with the one in use below.");
    loadModels().then(() => compare(job.model));
  }
  $("start-over").disabled = running;
  for (const id of ["capture-button", "label-button", "undo-capture"]) {
    if (running) $(id).disabled = true;
  }
  if (!running && before === "running") renderCapture({ steps: page.steps, camera: page.camera });
}

async function poll() {
  const answer = await api("/api/dice/teach");
  if (answer.ok) showJob(answer.data);
  if (page.job.state === "running") setTimeout(poll, POLL_MS);
}

// ----- 4. compare, use, roll back -------------------------------------------------------------

async function compare(name) {
  const answer = await api(`/api/dice/models/${encodeURIComponent(name)}`);
  if (!answer.ok) {
    say("models-message", answer.error, "error");
    return;
  }
  const model = answer.data;
  page.compared = model;
  const held = model.figures.held_back || {};
  const shipped = model.figures.shipped_look || {};
  const faces = Object.keys(held.per_face_after || {});
  setText(
    $("compare-note"),
    `The reader taught ${when(model.created)} against the one in use when it was taught, on the photos held back from teaching (the last of each face), and on rendered dice of the shipped look (nothing forgotten).`,
  );
  const row = (what, before, after, testid) =>
    el(
      "tr",
      { dataset: { testid } },
      el("th", { scope: "row" }, what),
      el("td", {}, percent(before)),
      el("td", { class: trend(before, after) }, percent(after)),
    );
  fill(
    $("compare-table"),
    el("thead", {}, el("tr", {}, el("th", {}, "held-back photos"), el("th", {}, "before"), el("th", {}, "after"))),
    el(
      "tbody",
      {},
      row("every die", held.before, held.after, "compare-all"),
      faces.map((face) => row(named(face), (held.per_face_before || {})[face], held.per_face_after[face], `compare-${face}`)),
      row("shipped look (rendered)", shipped.before, shipped.after, "compare-shipped"),
      model.localiser ? row("dice found (localiser taught too)", model.localiser.found_before, model.localiser.found_after, "compare-localiser") : null,
    ),
  );
  const wrongList = (which, title) => {
    const items = model.wrong[which] || [];
    return el(
      "div",
      { class: "wrong-list", dataset: { testid: `wrong-${which}` } },
      el("h3", {}, `${title}: ${items.length} misread`),
      items.length
        ? el(
            "div",
            { class: "crops" },
            items.slice(0, 40).map((item) => {
              const die = page.review && item.die !== null ? page.review.dice[item.die] : null;
              return el(
                "figure",
                { class: "wrong-crop" },
                die ? cropImage(die) : null,
                el("figcaption", {}, NAMES[item.truth] || item.truth, " read as ", NAMES[item.read] || item.read),
              );
            }),
          )
        : el("p", { class: "muted" }, "none"),
    );
  };
  fill($("wrong-crops"), wrongList("before", "Before"), wrongList("after", "After"));
  if (model.wrong_picture) {
    $("wrong-crops").append(el("img", { class: "wrong-picture", src: `/api/dice/models/${encodeURIComponent(model.name)}/wrong.png`, alt: "the crops each reader misread" }));
  }
  const use = $("use-model");
  use.disabled = !model.passed || model.active;
  setText(use, t(model.active ? "dice.in_use" : "dice.use"));
  const reason = $("use-reason");
  reason.hidden = model.passed;
  if (!model.passed) reason.textContent = `It cannot be used: it failed its checks (${model.problems.join("; ") || "unchecked"}).`;
  $("compare").hidden = false;
}

async function useModel(name) {
  const answer = await api("/api/dice/use", { method: "POST", body: { name } });
  if (!answer.ok) {
    say("models-message", answer.error, "error");
    return;
  }
  say("models-message", `${answer.data.message}.`);
  showModels(answer.data);
  if (page.compared) compare(page.compared.name);
}

async function loadModels() {
  const answer = await api("/api/dice/models");
  if (answer.ok) showModels(answer.data);
}

function showModels(data) {
  page.models = data;
  const active = data.active;
  const activeIndex = data.models.findIndex((m) => m.name === active);
  const rows = [];
  data.models.forEach((model, index) => {
    const held = (model.figures && model.figures.held_back) || {};
    const shipped = (model.figures && model.figures.shipped_look) || {};
    const inUse = model.name === active;
    const older = activeIndex === -1 ? false : index > activeIndex;
    rows.push(
      el(
        "li",
        { class: `model-row${inUse ? " in-use" : ""}${model.passed ? "" : " failed"}`, dataset: { testid: "model", name: model.name } },
        el(
          "div",
          { class: "model-text" },
          el("strong", {}, `Taught ${when(model.created)}`),
          inUse ? el("span", { class: "in-use-badge", dataset: { testid: "in-use" } }, " · in use") : null,
          el("br"),
          el("span", { class: "muted" }, `held-back photos ${percent(held.before)} → ${percent(held.after)} · shipped look ${percent(shipped.after)}`),
          model.passed ? null : el("span", { class: "model-problem" }, el("br"), `Failed its checks: ${model.problems.join("; ") || "unchecked"}`),
        ),
        el(
          "div",
          { class: "model-buttons" },
          el("button", { type: "button", class: "btn", dataset: { testid: "model-compare" }, onclick: () => compare(model.name) }, "Compare"),
          el(
            "button",
            {
              type: "button",
              class: "btn",
              disabled: inUse || !model.passed,
              title: model.passed ? null : "a model that failed its checks cannot be used",
              dataset: { testid: "model-use" },
              onclick: () => useModel(model.name),
            },
            inUse ? "In use" : older ? "Roll back to this" : "Use this",
          ),
        ),
      ),
    );
  });
  const shippedInUse = active === "shipped";
  rows.push(
    el(
      "li",
      { class: `model-row${shippedInUse ? " in-use" : ""}`, dataset: { testid: "model", name: "shipped" } },
      el(
        "div",
        { class: "model-text" },
        el("strong", {}, "The shipped reader"),
        shippedInUse ? el("span", { class: "in-use-badge", dataset: { testid: "in-use" } }, " · in use") : null,
        el("br"),
        el("span", { class: "muted" }, "trained on rendered dice; comes with templecam"),
      ),
      el(
        "div",
        { class: "model-buttons" },
        el(
          "button",
          { type: "button", class: "btn", disabled: shippedInUse, dataset: { testid: "model-use" }, onclick: () => useModel("shipped") },
          shippedInUse ? "In use" : "Roll back to this",
        ),
      ),
    ),
  );
  fill($("model-list"), rows);
  if (data.in_use && data.in_use !== active) {
    say("models-message", "The camera switches to the chosen reader once it is on.", "ok");
  }
}

// ----- your photos ----------------------------------------------------------------------------

async function exportDataset() {
  const answer = await api("/api/dice/export", { method: "POST" });
  say("photos-message", answer.ok ? `${answer.data.message}: images/, labels/ and data.yaml, as Ultralytics, Roboflow or CVAT open them.` : answer.error, answer.ok ? "ok" : "error");
}

async function startOver() {
  $("start-over-confirm").hidden = true;
  const answer = await api("/api/dice/start-over", { method: "POST" });
  if (!answer.ok) {
    say("photos-message", answer.error, "error");
    return;
  }
  say("photos-message", `${answer.data.message}.`);
  page.chosen = false;
  page.photo = null;
  renderCapture(answer.data);
  showReview(null);
  $("compare").hidden = true;
  showJob(page.job);
}

// ----- start ----------------------------------------------------------------------------------

async function load() {
  const answer = await api("/api/dice");
  if (!answer.ok) {
    say("capture-message", answer.error, "error");
    return;
  }
  renderCapture(answer.data);
  if (answer.data.review) await loadReview();
  showJob(answer.data.job);
  if (answer.data.job.state === "running") poll();
  await loadModels();
}

$("capture-button").addEventListener("click", capture);
$("upload").addEventListener("change", async (event) => {
  const files = [...event.target.files];
  event.target.value = "";
  if (files.length) await upload(files);
});
$("undo-capture").addEventListener("click", undoCapture);
$("label-button").addEventListener("click", label);
$("photo-image").addEventListener("click", addDie);
$("teach-start").addEventListener("click", startTeaching);
$("review-done").addEventListener("click", markReviewed);
$("teach-cancel").addEventListener("click", cancelTeaching);
$("use-model").addEventListener("click", () => page.compared && useModel(page.compared.name));
$("export").addEventListener("click", exportDataset);
$("start-over").addEventListener("click", () => {
  $("start-over-confirm").hidden = false;
});
$("start-over-confirm").addEventListener("click", startOver);
$("move-dialog").addEventListener("close", () => {
  page.moving = null;
});

load();
refreshLive();
