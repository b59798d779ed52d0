"""Load Ultralytics so that it never reaches the network, installs nothing, writes no home files.

Call `ultralytics_offline()` instead of `import ultralytics`: it sets the environment that
Ultralytics reads at import time (offline mode, no auto-install, a config folder inside the
templecam data folder), then turns off every setting that talks to the network (usage events,
the Platform, experiment trackers) and replaces the font check (which would download Arial.ttf
for plots that templecam never draws). Training and export must also be called with
`OFFLINE_TRAIN_ARGS` (no AMP check, which downloads yolo26n.pt; no plots; no pretrained weights).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from base.paths import data_dir

OFFLINE_ENV: dict[str, str] = {
    "YOLO_OFFLINE": "1",  # ultralytics.utils.is_online() -> False: no DNS probe, no update check
    "YOLO_AUTOINSTALL": "0",  # check_requirements() never runs pip
    "YOLO_VERBOSE": "1",
    "WANDB_MODE": "disabled",
    "COMET_MODE": "disabled",
    "COMET_START_ONLINE": "0",
    "CLEARML_OFFLINE_MODE": "1",
    "HF_HUB_OFFLINE": "1",
}
"""Environment set before Ultralytics is imported."""

DROPPED_ENV: tuple[str, ...] = ("ULTRALYTICS_API_KEY", "ULTRALYTICS_PLATFORM_URL")
"""Environment removed before Ultralytics is imported (they would switch on Platform uploads)."""

OFFLINE_SETTINGS: dict[str, Any] = {
    "sync": False,
    "api_key": "",
    "clearml": False,
    "comet": False,
    "dvc": False,
    "mlflow": False,
    "raytune": False,
    "tensorboard": False,
    "wandb": False,
    "vscode_msg": False,
    "openvino_msg": False,
}
"""Ultralytics settings that keep training and export off the network."""

OFFLINE_TRAIN_ARGS: dict[str, Any] = {
    "amp": False,  # the AMP check downloads a reference model
    "plots": False,  # plots download Arial.ttf
    "pretrained": False,  # never download weights; --base gives a local .pt instead
    "exist_ok": True,
    "verbose": True,
}
"""Arguments every offline `model.train(...)` call passes."""


def config_dir() -> Path:
    """Return the folder Ultralytics keeps its settings in: inside the templecam data folder."""
    return data_dir() / "ultralytics"


def set_offline_env() -> None:
    """Set the environment Ultralytics reads when it is imported (keeps a set YOLO_CONFIG_DIR)."""
    for name, value in OFFLINE_ENV.items():
        os.environ[name] = value
    for name in DROPPED_ENV:
        os.environ.pop(name, None)
    if not os.environ.get("YOLO_CONFIG_DIR"):
        folder = config_dir()
        folder.mkdir(parents=True, exist_ok=True)
        os.environ["YOLO_CONFIG_DIR"] = str(folder)
    if not os.environ.get("MPLCONFIGDIR") and "matplotlib" not in sys.modules:
        folder = config_dir() / "matplotlib"  # its font cache, beside the Ultralytics settings
        folder.mkdir(parents=True, exist_ok=True)
        os.environ["MPLCONFIGDIR"] = str(folder)


def _local_font(font: str = "Arial.ttf") -> Path | None:
    """Find a font in the config folder or the system's font list; never download it."""
    from matplotlib import font_manager
    from ultralytics.utils import USER_CONFIG_DIR

    file = USER_CONFIG_DIR / Path(font).name
    if file.exists():
        return file
    for entry in font_manager.fontManager.ttflist:
        if font in entry.fname and os.path.exists(entry.fname):
            return Path(entry.fname)
    return None


def ultralytics_offline() -> ModuleType:
    """Import Ultralytics in offline mode (see the module docstring) and return the module."""
    if "ultralytics" not in sys.modules:
        set_offline_env()
    else:  # already imported elsewhere: the import-time flags are what they are; force the rest
        os.environ.update({k: v for k, v in OFFLINE_ENV.items() if k != "YOLO_VERBOSE"})
        for name in DROPPED_ENV:
            os.environ.pop(name, None)
    import ultralytics
    import ultralytics.data.utils
    import ultralytics.utils
    import ultralytics.utils.checks

    ultralytics.utils.ONLINE = False
    ultralytics.utils.checks.ONLINE = False
    ultralytics.utils.AUTOINSTALL = False
    ultralytics.utils.checks.AUTOINSTALL = False
    ultralytics.data.utils.check_font = _local_font
    ultralytics.utils.checks.check_font = _local_font
    try:
        import ultralytics.utils.events

        ultralytics.utils.events.ONLINE = False
    except ImportError:  # pragma: no cover - older Ultralytics
        pass
    ultralytics.settings.update(OFFLINE_SETTINGS)
    return ultralytics
