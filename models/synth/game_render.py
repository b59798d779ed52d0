"""Drawing a game video's frames: pieces and hands over a background, and a fixed webcam look."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from art.tiles import tile_texture
from models.synth.camera import Camera
from models.synth.canvas import Canvas, Layer
from models.synth.draw_dice import die_shadow, draw_die, far_to_near
from models.synth.draw_props import (
    TILE_TEXTURE,
    chamber_quad,
    draw_figure,
    draw_flat,
    draw_gem,
    draw_hand,
    figure_shadow,
    gem_shadow,
    hand_shadow,
)
from models.synth.effects import _illumination, _kelvin_gains
from models.synth.game_stage import HandShot, Moving
from models.synth.render import _moved, _shadows
from models.synth.scene import Chamber, Figure, Scene

_SLACK = 64
"""Extra rows and columns of the noise field, for its per-frame offset."""


class _LayerCatcher(Canvas):
    """A canvas that keeps the one layer drawn on it instead of compositing it."""

    def __init__(self, width: int, height: int) -> None:
        super().__init__(np.zeros((1, 1, 3), np.float32))
        self._size = (width, height)
        self.layer: Layer | None = None

    @property
    def size(self) -> tuple[int, int]:
        """Return (width, height) of the frame the layer is drawn for."""
        return self._size

    def composite(self, layer: Layer, obj_id: int = 0, smeared: bool = False) -> None:
        """Keep the layer."""
        self.layer = layer


class Painter:
    """Paints frames over a background render: pieces at rest, then what moves, then hands.

    Every piece and every hand is drawn once into a layer and reused while it lies still
    (hands are slid along instead), so a frame costs a few composites and its shadows.
    """

    def __init__(self, scene: Scene, seed: int) -> None:
        self.scene = scene
        self.seed = seed
        rng = np.random.default_rng([seed, 7])
        scale = scene.camera.width / 1920
        self.strength = float(rng.uniform(0.3, 0.5))
        self.sharp = float(rng.uniform(1.0, 3.0)) * scale
        self.soft = float(rng.uniform(10, 25)) * scale
        self.sprites: dict[int, Layer | None] = {}
        self.pieces: dict[int, tuple[object, Layer | None]] = {}
        self.still: tuple[object, np.ndarray] | None = None

    def paint(
        self, background: np.ndarray, still: Scene, moving: Moving, key: object
    ) -> np.ndarray:
        """Return the background (RGB float, not changed) with every piece and hand over it.

        `key` names the still pieces' arrangement: the same key reuses their last painting.
        """
        if self.still is None or self.still[0] != key:
            self.still = (key, self._still(background, still))
        cam, s = self.scene.camera, self.scene.settings
        light = self.scene.light.direction()
        canvas = Canvas(self.still[1].copy())
        lifted = [_lifted_shadow(cam, c, h, s.tile_mm, light) for c, h in moving.tiles]
        lifted += [
            figure_shadow(cam, _shadow_of(f, light), s.figure_mm, light) for f in moving.figures
        ]
        _shadows(canvas, [(p, 1.0) for p in lifted], self.strength, self.sharp)
        swept = [
            np.vstack(
                [die_shadow(cam, d, s.die_mm, light), die_shadow(cam, _moved(d), s.die_mm, light)]
            )
            for d in moving.dice
        ]
        _shadows(canvas, [(p, 1.0) for p in swept], self.strength * 0.45, self.sharp * 4)
        for chamber, height in moving.tiles:
            quad = chamber_quad(chamber, s.tile_mm, z=height)
            draw_flat(canvas, cam, quad, tile_texture(chamber.tile, TILE_TEXTURE), 0)
        for figure in moving.figures:
            draw_figure(canvas, cam, figure, s.figure_mm, light, 0)
        for die in (moving.dice[i] for i in far_to_near(moving.dice, cam)):
            draw_die(canvas, cam, die, s.die_mm, light, 0)
        if moving.hands:
            hands = [(p, 1.0) for shot in moving.hands for p in hand_shadow(cam, shot.now(), light)]
            _shadows(canvas, hands, self.strength * 0.8, self.soft, hull=False)
        for shot in moving.hands:
            layer = self._slid(shot)
            if layer is not None:
                canvas.composite(layer)
        live = {shot.key for shot in moving.hands}
        self.sprites = {k: v for k, v in self.sprites.items() if k in live}
        return canvas.rgb

    def _still(self, background: np.ndarray, still: Scene) -> np.ndarray:
        """Return the background with the pieces lying still on it, and their shadows."""
        cam, s = self.scene.camera, self.scene.settings
        light = self.scene.light.direction()
        canvas = Canvas(background.copy())
        polygons = [die_shadow(cam, d, s.die_mm, light) for d in still.dice]
        polygons += [gem_shadow(cam, g, s.gem_mm, light) for g in still.gems]
        polygons += [figure_shadow(cam, f, s.figure_mm, light) for f in still.figures]
        _shadows(canvas, [(p, 1.0) for p in polygons], self.strength, self.sharp)
        used: set[int] = set()
        for gem in still.gems:
            self._piece(canvas, gem, used, lambda c, g=gem: draw_gem(c, cam, g, s.gem_mm, 0))
        for die in (still.dice[i] for i in far_to_near(still.dice, cam)):
            self._piece(canvas, die, used, lambda c, d=die: draw_die(c, cam, d, s.die_mm, light, 0))
        for figure in still.figures:
            self._piece(
                canvas,
                figure,
                used,
                lambda c, f=figure: draw_figure(c, cam, f, s.figure_mm, light, 0),
            )
        self.pieces = {k: v for k, v in self.pieces.items() if k in used}
        return canvas.rgb

    def _piece(
        self, canvas: Canvas, item: object, used: set[int], draw: Callable[[Canvas], object]
    ) -> None:
        """Composite a piece lying still, drawing it only the first time it is seen there."""
        key = id(item)
        cached = self.pieces.get(key)
        if cached is None or cached[0] is not item:
            catcher = _LayerCatcher(self.scene.camera.width, self.scene.camera.height)
            draw(catcher)
            cached = (item, catcher.layer)
            self.pieces[key] = cached
        used.add(key)
        if cached[1] is not None:
            canvas.composite(cached[1])

    def _slid(self, shot: HandShot) -> Layer | None:
        """Return the hand's drawing moved from where it was drawn to where it is now."""
        if shot.key not in self.sprites:
            catcher = _LayerCatcher(self.scene.camera.width, self.scene.camera.height)
            rng = np.random.default_rng([self.seed, 8, shot.key])
            draw_hand(catcher, self.scene.camera, shot.sprite, rng, 0)
            self.sprites[shot.key] = catcher.layer
        layer = self.sprites[shot.key]
        if layer is None:
            return None
        z = shot.sprite.height
        here, there = self.scene.camera.project(
            np.array([[*shot.sprite.wrist, z], [*shot.wrist, z]])
        )
        dx, dy = (round(float(v)) for v in there - here)
        return Layer(layer.x0 + dx, layer.y0 + dy, layer.rgb, layer.alpha)


def _shadow_of(figure: Figure, light: np.ndarray) -> Figure:
    """Return a figure standing where a lifted figure's shadow falls."""
    x, y, z = figure.position
    return Figure(
        figure.colour, figure.cell, (x - z * light[0] / light[2], y - z * light[1] / light[2], 0.0)
    )


def _lifted_shadow(
    camera: Camera, chamber: Chamber, height: float, tile_mm: float, light: np.ndarray
) -> np.ndarray:
    """Return the image polygon of the shadow of a tile held `height` mm above the table."""
    quad = chamber_quad(chamber, tile_mm, z=height)
    return camera.project_flat(quad[:, :2] - quad[:, 2:3] * light[:2] / light[2])


class WebcamLook:
    """A webcam's fixed light, colour and focus, with fresh sensor noise in every frame."""

    def __init__(self, width: int, height: int, seed: int, noise: float) -> None:
        rng = np.random.default_rng([seed, 5])
        field, info = _illumination(rng, height, width, False)
        kelvin = float(rng.uniform(3000, 6500))
        balance = float(rng.uniform(0.75, 0.98))
        tint = rng.uniform(0.96, 1.04, 3).astype(np.float32)
        gains = _kelvin_gains(kelvin) ** (1 - balance) * tint
        self.gain = cv2.merge([field * float(g) * 255 for g in gains])
        self.defocus = float(rng.choice([0.0, rng.uniform(0.4, 0.9)])) * width / 1920
        gamma = float(rng.uniform(0.9, 1.1))
        self.lut = np.clip(255 * (np.arange(256) / 255) ** gamma + 0.5, 0, 255).astype(np.uint8)
        # Sensor noise: one field drawn once, seen through a new random offset in each frame
        # (white noise shifted by a pixel or more is new noise at every pixel).
        self.grain = (rng.standard_normal((height + _SLACK, width + _SLACK)) * noise * 255).astype(
            np.int16
        )
        self.size = (width, height)
        self.seed = seed
        self.info = {
            **info,
            "kelvin": round(kelvin, 1),
            "white_balance": round(balance, 3),
            "defocus_px": round(self.defocus, 3),
            "gamma": round(gamma, 3),
            "noise": noise,
        }

    def expose(self, rgb: np.ndarray) -> np.ndarray:
        """Return a clean RGB render (0..1 floats) lit, tinted and focused as the webcam sees it."""
        image = cv2.convertScaleAbs(cv2.multiply(rgb, self.gain))
        if self.defocus > 0.2:
            image = cv2.GaussianBlur(image, (0, 0), self.defocus)
        return cv2.cvtColor(cv2.LUT(image, self.lut), cv2.COLOR_RGB2BGR)

    def noisy(self, exposed: np.ndarray, frame: int) -> np.ndarray:
        """Return frame `frame`: an exposed image (uint8 BGR) with this frame's sensor noise."""
        rng = np.random.default_rng([self.seed, 6, frame])
        dy, dx = (int(v) for v in rng.integers(0, _SLACK, 2))
        w, h = self.size
        grain = self.grain[dy : dy + h, dx : dx + w]
        return cv2.add(exposed, cv2.merge([grain, grain, grain]), dtype=cv2.CV_8U)
