// What test_temple_layout.py checks on /game: page.evaluate(this, {pid: "x_y"}) returns
// {problems, hidden, cell}: every player's token inside its tile and on top there (or counted in
// the tile's "+k"), with its shape and initial; no tile name cut short; nothing clipped inside a
// tile.
(where) => {
  const problems = [];
  const inside = (a, b) => a.left >= b.left - 0.5 && a.right <= b.right + 0.5 && a.top >= b.top - 0.5 && a.bottom <= b.bottom + 0.5;
  for (const [pid, cell] of Object.entries(where)) {
    const tile = document.querySelector(`[data-testid="tile-${cell}"]`);
    if (!tile) { problems.push(`${pid}: no tile ${cell}`); continue; }
    tile.scrollIntoView({ block: "center", inline: "center" });
    const box = tile.getBoundingClientRect();
    const token = tile.querySelector(`.badge[data-player="${pid}"]`);
    if (!token) { problems.push(`${pid}: no token in ${cell}`); continue; }
    let shown = token;
    if (token.hidden) {
      shown = tile.querySelector(".more-players");
      if (!shown || !shown.dataset.players.split(",").includes(pid)) { problems.push(`${pid}: hidden, not in +k`); continue; }
    } else {
      if (!token.querySelector("svg.shape")) problems.push(`${pid}: token without its shape`);
      if (token.textContent.trim() !== pid[0].toUpperCase()) problems.push(`${pid}: token says ${token.textContent}`);
    }
    const t = shown.getBoundingClientRect();
    if (t.width < 10 || t.height < 10) problems.push(`${pid}: token ${t.width}x${t.height} px`);
    if (!inside(t, box)) problems.push(`${pid}: token ${JSON.stringify(t)} outside its tile ${JSON.stringify(box)}`);
    const body = tile.querySelector(".tile-body").getBoundingClientRect();
    if (!inside(t, body)) problems.push(`${pid}: token outside the tile's inside`);
    const hit = document.elementFromPoint(t.left + t.width / 2, t.top + t.height / 2);
    if (!hit || !shown.contains(hit)) problems.push(`${pid}: token covered by ${hit && hit.className}`);
  }
  for (const name of document.querySelectorAll("#temple .tile-name")) {
    if (name.scrollWidth > name.clientWidth + 0.5) problems.push(`name cut short: ${name.textContent}`);
  }
  for (const body of document.querySelectorAll("#temple .tile-body")) {
    if (body.scrollHeight > body.clientHeight + 1 || body.scrollWidth > body.clientWidth + 1)
      problems.push(`clipped inside ${body.parentElement.dataset.testid}`);
  }
  const hidden = [...document.querySelectorAll("#temple .badge[hidden]")].length;
  return { problems, hidden, cell: getComputedStyle(document.getElementById("temple")).getPropertyValue("--cell").trim() };
}
