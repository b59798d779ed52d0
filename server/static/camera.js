// The set-up page's camera panel: the sources this computer has, a live preview of the one
// chosen, switching the running camera without a restart, and "is the view good enough?".
//
// Test ids: camera-chooser, camera-in-use, camera-message, webcam-list, look-again, source-url,
// stream-url, file-list, demo-choice, source-<kind>-<n> (each choice), camera-preview,
// camera-use, preview-image, preview-info, check-view, view-summary, view-report.

import { api, el, fill } from "./common.js";

const $ = (id) => document.getElementById(id);
const PREVIEW_POLL_MS = 700;
const LEVEL_MARK = { good: "✓", warn: "!", bad: "✗" };

let previewTimer = null;
let switching = false;
let lastPick = null;

function showMessage(text, kind = "info") {
  const box = $("camera-message");
  box.textContent = text;
  box.dataset.kind = kind;
  box.hidden = !text;
}

/** One radio choice: a source the server offers. */
function choice(kind, value, title, detail, n, inUse) {
  return el(
    "label",
    { class: "choice" },
    el("input", {
      type: "radio",
      name: "camera-source",
      value,
      dataset: { kind, testid: `source-${kind}-${n}` },
    }),
    el("span", {}, title, inUse ? el("b", { class: "in-use-badge", text: " · in use" }) : null, el("small", { text: detail })),
  );
}

function sizesText(sizes) {
  if (!sizes.length) return "resolutions unknown";
  const shown = sizes.slice(0, 5).map(([w, h]) => `${w}×${h}`).join(", ");
  return sizes.length > 5 ? `${shown}, …` : shown;
}

function describeInUse(vision) {
  if (!vision || vision.mode === "off") {
    return vision && vision.problems && vision.problems.length
      ? "No camera in use: manual mode (enter events by clicking)."
      : "No camera in use.";
  }
  const parts = [`In use: ${vision.source ? vision.source.label : "camera"}`];
  const cam = vision.camera;
  if (cam) {
    parts.push(cam.status);
    if (cam.width) parts.push(`${cam.width}×${cam.height}`);
    parts.push(`${cam.fps} fps`);
  }
  let text = parts.join(" · ");
  if (vision.origin === "--camera") text += " (started with --camera: the next start uses it again)";
  else if (vision.origin === "remembered") text += " (chosen last time)";
  return text;
}

async function refreshInUse() {
  const answer = await api("/api/vision");
  if (!answer.ok) return null;
  const vision = answer.data;
  $("camera-in-use").textContent = describeInUse(vision);
  const cam = vision.camera;
  if (!switching && cam && cam.last_error && cam.status !== "live") {
    showMessage(`The camera in use has a problem: ${cam.last_error}`, "error");
  }
  return vision;
}

async function loadSources() {
  const answer = await api("/api/camera/sources");
  if (!answer.ok) {
    showMessage(`The sources could not be listed: ${answer.error}`, "error");
    return;
  }
  const data = answer.data;
  if (data.off) {
    $("camera-in-use").textContent = data.note;
    for (const button of document.querySelectorAll("#camera button, #camera input")) button.disabled = true;
    return;
  }
  const webcams = data.webcams.map((cam, n) =>
    choice("webcam", cam.spec, cam.name, `${cam.device} · ${cam.problem || sizesText(cam.sizes)}`, n, cam.in_use),
  );
  fill($("webcam-list"), webcams.length ? webcams : el("p", { class: "note", text: data.webcam_note }));
  const files = data.files.map((item, n) =>
    choice("file", item.value, item.value, item.kind === "images" ? `image folder · ${item.images} images` : "video file", n, item.in_use),
  );
  fill(
    $("file-list"),
    files.length ? files : el("p", { class: "note", text: "Nothing here yet: copy a video or a folder of images into templecam's data folder, then Look again." }),
  );
  const demoInUse = data.in_use && data.in_use.kind === "demo";
  fill($("demo-choice"), data.demo ? choice("demo", "", "The demo recording", "a five-player game rendered by templecam, looped", 0, demoInUse) : []);
  if (data.in_use && data.in_use.kind === "url" && !$("stream-url").value) $("stream-url").value = data.in_use.value;
  if (lastPick && !document.querySelector('input[name="camera-source"]:checked')) {
    const again = [...document.querySelectorAll('input[name="camera-source"]')].find(
      (input) => input.dataset.kind === lastPick.kind && (lastPick.kind === "url" || input.value === lastPick.value),
    );
    if (again) again.checked = true;
  }
}

/** The source picked on the panel, as the API takes it, or null. */
function picked() {
  const input = document.querySelector('input[name="camera-source"]:checked');
  if (!input) return null;
  const kind = input.dataset.kind;
  lastPick = { kind, value: kind === "url" ? $("stream-url").value.trim() : input.value };
  return lastPick;
}

function previewText(state) {
  if (!state.open) return "Choose a source to see it here before using it.";
  const label = state.source.label;
  if (state.error) return `${label}: ${state.error}`;
  if (!state.width) return `${label}: opening…`;
  const use = state.in_use ? " (the camera in use)" : "";
  return `${label}${use} · ${state.width}×${state.height} · ${state.fps} fps · ${state.status}`;
}

async function pollPreview() {
  clearTimeout(previewTimer);
  const answer = await api("/api/camera/preview");
  if (!answer.ok) return;
  const state = answer.data;
  $("preview-info").textContent = previewText(state);
  const image = $("preview-image");
  if (state.open && state.frames > 0 && !state.error) {
    image.hidden = false;
    image.src = `/api/camera/preview.jpg?t=${Date.now()}`;
  } else if (!state.open || state.error) {
    image.hidden = true;
  }
  if (state.open) previewTimer = setTimeout(pollPreview, PREVIEW_POLL_MS);
}

async function preview() {
  const pick = picked();
  if (!pick) {
    showMessage("Choose a source first: a webcam, a stream address, a file or the demo.", "error");
    return;
  }
  showMessage("");
  $("preview-info").textContent = "Opening…";
  const answer = await api("/api/camera/preview", { method: "POST", body: pick });
  if (!answer.ok) {
    $("preview-image").hidden = true;
    $("preview-info").textContent = "";
    showMessage(answer.error, "error");
    return;
  }
  pollPreview();
}

async function useCamera() {
  const pick = picked();
  if (!pick) {
    showMessage("Choose a source first: a webcam, a stream address, a file or the demo.", "error");
    return;
  }
  const button = $("camera-use");
  button.disabled = true;
  switching = true;
  showMessage("Switching… the game and the camera in use carry on meanwhile.");
  const answer = await api("/api/camera/use", { method: "POST", body: pick });
  switching = false;
  button.disabled = false;
  if (answer.ok) {
    await Promise.all([loadSources(), refreshInUse()]);
    await api("/api/camera/preview", { method: "POST", body: pick }); // now the camera in use
    showMessage(`${answer.data.message}. It will be used again at the next start.`, "ok");
    setTimeout(checkView, 1500); // let a frame or two arrive first
  } else {
    showMessage(answer.error, "error");
    refreshInUse();
  }
  pollPreview();
}

async function checkView() {
  const button = $("check-view");
  button.disabled = true;
  $("view-summary").textContent = "Looking…";
  const answer = await api("/api/camera/check");
  button.disabled = false;
  if (!answer.ok) {
    $("view-summary").textContent = answer.error;
    fill($("view-report"));
    return;
  }
  const report = answer.data;
  $("view-summary").textContent = `${report.camera}, ${report.size[0]}×${report.size[1]}: ${report.summary}`;
  $("view-summary").dataset.level = report.verdict;
  fill(
    $("view-report"),
    report.checks.map((check) =>
      el(
        "li",
        { class: `view-check level-${check.level}`, dataset: { testid: `view-${check.name.replace(" ", "-")}`, level: check.level } },
        el("span", { class: "mark", "aria-label": check.level, text: LEVEL_MARK[check.level] }),
        el("span", {}, el("b", { text: `${check.name}: ` }), check.message),
      ),
    ),
  );
}

$("camera-preview").addEventListener("click", preview);
$("camera-use").addEventListener("click", useCamera);
$("check-view").addEventListener("click", checkView);
$("look-again").addEventListener("click", loadSources);
$("camera-sources").addEventListener("change", (event) => {
  if (event.target.name === "camera-source" && event.target.dataset.kind !== "url") preview();
});
$("stream-url").addEventListener("focus", () => {
  document.querySelector('input[data-kind="url"]').checked = true;
});
$("stream-url").addEventListener("keydown", (event) => {
  if (event.key === "Enter") preview();
});

loadSources();
refreshInUse().then((vision) => {
  if (vision && vision.mode !== "off" && vision.camera) checkView();
});
setInterval(() => {
  if (!switching) refreshInUse();
}, 3000);
