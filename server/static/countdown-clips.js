// Countdowns at random times in the browser's soundtrack. A game with them plays a track that
// leaves them out (its file must not tell when they come); each one's sounds (gong, drums, door
// slam) are a clip of their own, named in the state's `audio.clips`, fetched at once (a clip
// sounds the same whenever it comes, so it tells nothing). When the state's timeline shows a
// countdown begun, its clip is played in step with the page's soundtrack (game.js's
// window.templecam.audio): from the sample the gong's time has reached, on the same output, and
// again whenever the soundtrack is scheduled anew (a resync, a pause, Mute here).
// `window.templecamClips.started` lists each start ({n, offset}: seconds into the clip).

const CHECK_MS = 100;
const LEAD_SECONDS = 0.05;

const buffers = new Map(); // url -> AudioBuffer, or "loading" / "failed"
const playing = new Map(); // countdown n -> { main, source }
const started = [];
window.templecamClips = { started };

async function load(ctx, url) {
  if (buffers.has(url)) return;
  buffers.set(url, "loading");
  try {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`the server answered ${response.status}`);
    buffers.set(url, await ctx.decodeAudioData(await response.arrayBuffer()));
  } catch (error) {
    buffers.set(url, "failed");
    setTimeout(() => buffers.delete(url), 5000); // tried again
  }
}

function stop(entry) {
  if (!entry.source) return;
  try {
    entry.source.stop();
    entry.source.disconnect();
  } catch (error) {
    // already stopped
  }
}

function play(audio, n, buffer, position) {
  // The page's source plays soundtrack position p at context time startedAt + (p - startOffset).
  const due = audio.startedAt + (position - audio.startOffset);
  const when = Math.max(due, audio.ctx.currentTime + LEAD_SECONDS);
  const offset = when - due;
  if (offset >= buffer.duration) return null;
  const source = audio.ctx.createBufferSource();
  source.buffer = buffer;
  source.connect(audio.music || audio.ctx.destination);
  source.start(when, offset);
  started.push({ n, offset });
  return source;
}

function check() {
  const handle = window.templecam;
  const audio = handle && handle.audio;
  const state = handle && handle.state();
  if (!audio || !audio.ctx || !state || !state.audio) return;
  const clips = state.audio.clips || [];
  for (const clip of clips) load(audio.ctx, clip.url);
  const main = audio.source;
  for (const [n, entry] of playing) {
    if (entry.main !== main) {
      stop(entry);
      playing.delete(n);
    }
  }
  if (!main || audio.bufferUrl !== state.audio.url) return;
  const timeline = state.clock.timeline;
  for (const clip of clips) {
    if (playing.has(clip.n)) continue;
    const countdown = timeline.countdowns.find((c) => c.n === clip.n);
    const buffer = buffers.get(clip.url);
    if (!countdown || !(buffer instanceof AudioBuffer)) continue;
    const source = play(audio, clip.n, buffer, timeline.intro_seconds + countdown.start);
    playing.set(clip.n, { main, source });
  }
}

setInterval(check, CHECK_MS);
