"""WCAG contrast of every visible text of a page, measured in the browser.

`low_contrast(page)` walks every text node that is drawn (and every form control's own text),
takes its computed colour and the background it is drawn on: the element's ancestors, from the
page down to the text, composited layer by layer (a half-transparent background over the one
below it, an ancestor's `opacity` fading everything inside it) until the first opaque one; a
gradient counts with each of its colours (the worst one is kept). Text over a picture
(`url(...)` backgrounds) cannot be measured this way and is left out, as is SVG text (its
background is a sibling shape, not an ancestor).

It returns the offenders below the threshold: the text, its ratio, both colours and where it
is, so that a test can print them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

AA_NORMAL = 4.5
"""WCAG 2 AA for body text; the dashboard asks it of every text, large or not."""

_SCRIPT = r"""
(threshold) => {
  const parse = (value) => {
    const m = value.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const parts = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return { r: parts[0], g: parts[1], b: parts[2], a: parts.length > 3 ? parts[3] : 1 };
  };
  const colours = (image) => {
    if (!image || image === "none") return [];
    if (image.includes("url(")) return null;  // a picture: cannot be measured
    return (image.match(/rgba?\([^)]+\)/g) || []).map(parse);
  };
  const over = (top, alpha, bottom) => ({
    r: top.r * alpha + bottom.r * (1 - alpha),
    g: top.g * alpha + bottom.g * (1 - alpha),
    b: top.b * alpha + bottom.b * (1 - alpha),
  });
  const channel = (v) => {
    const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
  };
  const luminance = (c) => 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b);
  const ratio = (a, b) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  const hex = (c) =>
    "#" + [c.r, c.g, c.b].map((v) => Math.round(v).toString(16).padStart(2, "0")).join("");
  const where = (el) => {
    const parts = [];
    for (let node = el; node && node !== document.body && parts.length < 4;
         node = node.parentElement) {
      let part = node.tagName.toLowerCase();
      if (node.id) part += "#" + node.id;
      else if (node.dataset && node.dataset.testid) part += `[data-testid=${node.dataset.testid}]`;
      else if (node.classList.length) part += "." + [...node.classList].slice(0, 2).join(".");
      parts.unshift(part);
    }
    return parts.join(" > ");
  };
  const visible = (el) => {
    if (el.checkVisibility && !el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true,
        opacityProperty: true, visibilityProperty: true })) return false;
    return true;
  };

  // The background(s) an element's text is drawn on, and the opacity it is drawn with.
  const backdrop = (el) => {
    const chain = [];
    for (let node = el; node; node = node.parentElement) chain.unshift(node);
    let candidates = [{ r: 255, g: 255, b: 255 }];  // the canvas
    let opacity = 1;
    for (const node of chain) {
      const style = getComputedStyle(node);
      opacity *= Number(style.opacity);
      const layers = [];
      const image = colours(style.backgroundImage);
      if (image === null) return null;
      const colour = parse(style.backgroundColor);
      if (colour && colour.a > 0) layers.push([colour]);
      if (image.length) layers.push(image);
      for (const layer of layers) {
        const next = [];
        for (const below of candidates) {
          for (const c of layer) next.push(over(c, c.a * opacity, below));
        }
        candidates = next.slice(0, 32);
      }
    }
    return { candidates, opacity };
  };

  const offenders = [];
  let checked = 0;
  const check = (el, text) => {
    const style = getComputedStyle(el);
    const colour = parse(style.color);
    if (!colour || colour.a === 0) return;
    const back = backdrop(el);
    if (!back) return;
    checked += 1;
    let worst = null;
    for (const bg of back.candidates) {
      const fg = over(colour, colour.a * back.opacity, bg);
      const r = ratio(fg, bg);
      if (!worst || r < worst.ratio) worst = { ratio: r, fg, bg };
    }
    if (worst.ratio < threshold) {
      offenders.push({
        text: text.trim().replace(/\s+/g, " ").slice(0, 60),
        ratio: Math.round(worst.ratio * 100) / 100,
        color: hex(worst.fg),
        background: hex(worst.bg),
        where: where(el),
        font_px: parseFloat(style.fontSize),
      });
    }
  };

  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent.trim()) continue;
    const el = node.parentElement;
    if (!el || el.closest("svg, script, style, template, option, noscript")) continue;
    if (!visible(el)) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const boxes = [...range.getClientRects()].filter((r) => r.width >= 2 && r.height >= 2);
    if (!boxes.length) continue;
    check(el, node.textContent);
  }
  for (const el of document.querySelectorAll("input, select, textarea")) {
    if (!visible(el) || el.type === "hidden" || el.type === "file" || el.type === "checkbox" ||
        el.type === "radio" || el.type === "range" || el.type === "color") continue;
    const rect = el.getBoundingClientRect();
    if (rect.width < 2 || rect.height < 2) continue;
    const text =
      el.tagName === "SELECT" ? (el.selectedOptions[0] || {}).textContent || "" : el.value;
    if (text && text.trim()) check(el, text);
  }
  return { offenders, checked };
}
"""


@dataclass(frozen=True)
class Offender:
    """A text drawn below the threshold."""

    text: str
    ratio: float
    color: str
    background: str
    where: str
    font_px: float

    def __str__(self) -> str:
        return (
            f"{self.ratio:.2f}:1 {self.text!r} ({self.color} on {self.background}, "
            f"{self.font_px:g} px) at {self.where}"
        )


def measure(page: Any, threshold: float = AA_NORMAL) -> tuple[list[Offender], int]:
    """Return the texts of `page` below `threshold` and how many texts were measured."""
    answer = page.evaluate(_SCRIPT, threshold)
    return [Offender(**item) for item in answer["offenders"]], int(answer["checked"])


def low_contrast(page: Any, threshold: float = AA_NORMAL) -> list[Offender]:
    """Return every visible text of `page` whose contrast is below `threshold` (WCAG 2)."""
    return measure(page, threshold)[0]


def describe(offenders: list[Offender], limit: int = 25) -> str:
    """Say the offenders one a line (the first `limit`, distinct texts and places)."""
    seen: dict[tuple[str, str, str], Offender] = {}
    for offender in offenders:
        seen.setdefault((offender.where, offender.color, offender.background), offender)
    lines = [str(o) for o in list(seen.values())[:limit]]
    more = len(seen) - limit
    return "\n".join(lines + ([f"... and {more} more"] if more > 0 else []))
