"""The localiser network: a small encoder-decoder that outputs centre heatmaps and box sizes.

CenterNet's idea at a size two CPU cores can train: the frame (downscaled so that a die is
10-17 px) goes through a narrow encoder down to stride 32 for context, a light top-down path
brings that back to stride 4, and the head predicts, per output cell, one centre score per class
and the box's width and height (log px of the network's input) and its centre's sub-cell offset.
"""

from __future__ import annotations

import torch
from torch import nn

STRIDE = 4
"""Output cells per input pixel: one output cell covers 4 x 4 input pixels."""
INPUT_MULTIPLE = 32
"""Input sides must be multiples of this (the deepest level is at stride 32)."""


def conv_bn(cin: int, cout: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
    """Return a 3x3 convolution, batch norm and ReLU."""
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, padding=dilation, dilation=dilation, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


class LocaliserNet(nn.Module):
    """Input (N, 3, H, W) RGB in 0..1; outputs heat logits (N, C, H/4, W/4) and box (N, 4, ...)."""

    def __init__(self, classes: int, width: int = 16) -> None:
        """Build the network for `classes` heatmap channels; `width` scales every layer."""
        super().__init__()
        w = width
        self.classes = classes
        self.stem = nn.Sequential(conv_bn(3, w, 2), conv_bn(w, w))  # stride 2
        self.level4 = nn.Sequential(conv_bn(w, 2 * w, 2), conv_bn(2 * w, 2 * w))  # stride 4
        self.level8 = nn.Sequential(conv_bn(2 * w, 3 * w, 2), conv_bn(3 * w, 3 * w))
        self.level16 = nn.Sequential(conv_bn(3 * w, 4 * w, 2), conv_bn(4 * w, 4 * w, dilation=2))
        self.level32 = nn.Sequential(conv_bn(4 * w, 6 * w, 2), conv_bn(6 * w, 6 * w, dilation=2))
        self.lateral16 = nn.Conv2d(6 * w, 4 * w, 1)
        self.lateral8 = nn.Conv2d(4 * w, 3 * w, 1)
        self.lateral4 = nn.Conv2d(3 * w, 2 * w, 1)
        self.smooth16 = conv_bn(4 * w, 4 * w)
        self.smooth8 = conv_bn(3 * w, 3 * w)
        self.smooth4 = conv_bn(2 * w, 2 * w)
        self.heat = nn.Sequential(conv_bn(2 * w, 2 * w), nn.Conv2d(2 * w, classes, 1))
        self.box = nn.Sequential(conv_bn(2 * w, 2 * w), nn.Conv2d(2 * w, 4, 1))
        # CenterNet's prior: start with every cell scoring about 0.01, so the focal loss is calm.
        nn.init.constant_(self.heat[-1].bias, -4.6)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Return (heat logits, box) at stride 4; box = (log w, log h, dx, dy) in input px."""
        up = nn.functional.interpolate
        s4 = self.level4(self.stem(x))
        s8 = self.level8(s4)
        s16 = self.level16(s8)
        s32 = self.level32(s16)
        t16 = self.smooth16(s16 + up(self.lateral16(s32), scale_factor=2.0, mode="nearest"))
        t8 = self.smooth8(s8 + up(self.lateral8(t16), scale_factor=2.0, mode="nearest"))
        t4 = self.smooth4(s4 + up(self.lateral4(t8), scale_factor=2.0, mode="nearest"))
        return self.heat(t4), self.box(t4)
