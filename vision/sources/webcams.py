"""The webcams this computer has: each by its name and device, with the resolutions it offers.

On Linux every `/dev/videoN` is asked through V4L2 (the kernel's video API, with `ioctl`) what it
is and what it offers, without streaming from it, so a webcam already in use is listed too:

    for cam in list_webcams():
        cam.name, cam.device, cam.spec, cam.sizes   # "HD Pro Webcam C920", "/dev/video0", ...

A UVC webcam makes two device nodes, one for pictures and one for metadata; only the first is
listed. `spec` is what `open_source` takes: the stable `/dev/v4l/by-id/...` link when there is
one (it survives replugging), else the device. Elsewhere (macOS, Windows) the first camera
indexes are opened with OpenCV instead.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import struct
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import cv2

from vision.sources.capture import CaptureFactory
from vision.sources.open import _quiet_opencv

V4L2_CAP_VIDEO_CAPTURE = 0x00000001
V4L2_CAP_VIDEO_CAPTURE_MPLANE = 0x00001000
V4L2_CAP_DEVICE_CAPS = 0x80000000
V4L2_BUF_TYPE_VIDEO_CAPTURE = 1
V4L2_FRMSIZE_TYPE_DISCRETE = 1

QUERYCAP_FORMAT = "16s32s32sIII3I"
"""struct v4l2_capability: driver, card, bus_info, version, capabilities, device_caps."""
FMTDESC_FORMAT = "III32sII3I"
"""struct v4l2_fmtdesc: index, type, flags, description, pixelformat, mbus_code."""
FRMSIZE_FORMAT = "III6I2I"
"""struct v4l2_frmsizeenum: index, pixel_format, type, then the discrete size (width, height)
or the stepwise range (min/max/step width, min/max/step height)."""


def _iowr(nr: int, size: int, read_only: bool = False) -> int:
    """Return the ioctl request number of V4L2 call `nr` on a struct of `size` bytes."""
    direction = 2 if read_only else 3  # _IOR: read; _IOWR: read and write
    return (direction << 30) | (size << 16) | (ord("V") << 8) | nr


VIDIOC_QUERYCAP = _iowr(0, struct.calcsize(QUERYCAP_FORMAT), read_only=True)
VIDIOC_ENUM_FMT = _iowr(2, struct.calcsize(FMTDESC_FORMAT))
VIDIOC_ENUM_FRAMESIZES = _iowr(74, struct.calcsize(FRMSIZE_FORMAT))
MAX_ENTRIES = 64
"""At most this many formats, and sizes per format, are read from one device."""


class DeviceIO(Protocol):
    """How a device node is opened and asked (the real one: `os.open` and `fcntl.ioctl`)."""

    def open(self, path: str) -> int:
        """Open the device without streaming; return its file descriptor."""
        ...

    def ioctl(self, fd: int, request: int, buffer: bytearray) -> None:
        """Run one ioctl that fills `buffer`; raise OSError (EINVAL past the last entry)."""
        ...

    def close(self, fd: int) -> None:
        """Close the device."""
        ...


class LinuxDeviceIO:
    """The kernel's own device calls."""

    def open(self, path: str) -> int:
        """Open read-write and non-blocking: asking a device never waits for it."""
        return os.open(path, os.O_RDWR | os.O_NONBLOCK)

    def ioctl(self, fd: int, request: int, buffer: bytearray) -> None:
        """Run the ioctl, filling `buffer` in place."""
        fcntl.ioctl(fd, request, buffer, True)

    def close(self, fd: int) -> None:
        """Close the file descriptor."""
        os.close(fd)


@dataclass(frozen=True)
class Webcam:
    """One webcam: what the page shows and what `open_source` is given."""

    device: str
    """The device node, "/dev/video0" (or "camera 0" where there are no device nodes)."""
    name: str
    """What the camera calls itself ("HD Pro Webcam C920")."""
    spec: str
    """What to open: the stable /dev/v4l/by-id link when there is one, else the device."""
    sizes: tuple[tuple[int, int], ...] = ()
    """The resolutions it offers, largest first (empty when it could not be asked)."""
    formats: tuple[str, ...] = ()
    """Its pixel formats ("MJPG", "YUYV", ...)."""
    problem: str | None = None
    """Why it could not be asked (no permission, ...); it may still open."""
    aliases: tuple[str, ...] = field(default=(), compare=False)
    """Other names of the same camera (its device when `spec` is a by-id link)."""

    def to_json(self) -> dict[str, Any]:
        """Return the webcam as the page shows it."""
        return {
            "device": self.device,
            "name": self.name,
            "spec": self.spec,
            "sizes": [list(size) for size in self.sizes],
            "formats": list(self.formats),
            "problem": self.problem,
        }


def list_webcams(
    dev: Path = Path("/dev"),
    sysfs: Path = Path("/sys/class/video4linux"),
    io: DeviceIO | None = None,
    *,
    probe_indexes: Iterable[int] = range(3),
    capture_factory: CaptureFactory = cv2.VideoCapture,
) -> list[Webcam]:
    """Return the webcams of this computer, in device order (see the module's docstring)."""
    if sys.platform.startswith("linux") or io is not None:
        return _v4l2_webcams(dev, sysfs, io or LinuxDeviceIO())
    return _probed_webcams(probe_indexes, capture_factory)


def _device_number(path: Path) -> int:
    match = re.fullmatch(r"video(\d+)", path.name)
    return int(match.group(1)) if match else -1


def _v4l2_webcams(dev: Path, sysfs: Path, io: DeviceIO) -> list[Webcam]:
    nodes = sorted((p for p in dev.glob("video*") if _device_number(p) >= 0), key=_device_number)
    links = _stable_links(dev / "v4l" / "by-id")
    found = []
    for node in nodes:
        webcam = _ask(node, sysfs, io, links.get(node.name))
        if webcam is not None:
            found.append(webcam)
    return found


def _stable_links(folder: Path) -> dict[str, str]:
    """Map "video0" to its /dev/v4l/by-id link (the first picture node of each camera)."""
    links: dict[str, str] = {}
    if not folder.is_dir():
        return links
    for link in sorted(folder.iterdir()):
        if not link.name.endswith("-video-index0"):
            continue  # index1, ... are the metadata nodes
        try:
            target = Path(os.path.realpath(link)).name
        except OSError:
            continue
        links.setdefault(target, str(link))
    return links


def _ask(node: Path, sysfs: Path, io: DeviceIO, stable: str | None) -> Webcam | None:
    """Ask one device node what it is; None when it gives no pictures (a metadata node)."""
    name = _read_name(sysfs / node.name / "name")
    spec = stable or str(node)
    aliases = (str(node),) if stable else ()
    try:
        fd = io.open(str(node))
    except OSError as error:
        problem = _open_problem(node, error)
        return Webcam(str(node), name or node.name, spec, problem=problem, aliases=aliases)
    try:
        try:
            card, capture = _query_capabilities(io, fd)
        except OSError:
            return None  # not a V4L2 device
        if not capture:
            return None
        formats = _formats(io, fd)
        sizes: set[tuple[int, int]] = set()
        for code, _ in formats:
            sizes.update(_frame_sizes(io, fd, code))
    finally:
        io.close(fd)
    ordered = tuple(sorted(sizes, key=lambda s: (s[0] * s[1], s[0]), reverse=True))
    return Webcam(
        device=str(node),
        name=name or card or node.name,
        spec=spec,
        sizes=ordered,
        formats=tuple(label for _, label in formats),
        aliases=aliases,
    )


def _read_name(path: Path) -> str:
    try:
        return path.read_text("utf-8", errors="replace").strip()
    except OSError:
        return ""


def _open_problem(node: Path, error: OSError) -> str:
    if error.errno in (errno.EACCES, errno.EPERM):
        return (
            f"no permission to use {node}: add yourself to the video group "
            "(sudo adduser $USER video) and log in again"
        )
    if error.errno == errno.EBUSY:
        return f"{node} is in use by another program: close it, then look again"
    return f"{node} cannot be asked ({error.strerror or error})"


def _query_capabilities(io: DeviceIO, fd: int) -> tuple[str, bool]:
    """Return the card's name and whether the node gives pictures."""
    buffer = bytearray(struct.calcsize(QUERYCAP_FORMAT))
    io.ioctl(fd, VIDIOC_QUERYCAP, buffer)
    fields = struct.unpack(QUERYCAP_FORMAT, buffer)
    card = fields[1].split(b"\0", 1)[0].decode("utf-8", errors="replace").strip()
    capabilities, device_caps = fields[4], fields[5]
    caps = device_caps if capabilities & V4L2_CAP_DEVICE_CAPS else capabilities
    return card, bool(caps & (V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_VIDEO_CAPTURE_MPLANE))


def _enumerate(call: Callable[[int], Any]) -> list[Any]:
    """Call `call(0)`, `call(1)`, ... until the device says there is no more (EINVAL)."""
    found = []
    for index in range(MAX_ENTRIES):
        try:
            found.append(call(index))
        except OSError as error:
            if error.errno != errno.EINVAL:
                raise
            break
    return found


def _formats(io: DeviceIO, fd: int) -> list[tuple[int, str]]:
    """Return the (code, fourcc) of every pixel format the camera offers."""

    def one(index: int) -> tuple[int, str]:
        buffer = bytearray(struct.calcsize(FMTDESC_FORMAT))
        fields = (index, V4L2_BUF_TYPE_VIDEO_CAPTURE, 0, b"", 0, 0, 0, 0, 0)
        struct.pack_into(FMTDESC_FORMAT, buffer, 0, *fields)
        io.ioctl(fd, VIDIOC_ENUM_FMT, buffer)
        code = struct.unpack(FMTDESC_FORMAT, buffer)[4]
        return code, code.to_bytes(4, "little").decode("ascii", errors="replace").strip()

    try:
        return _enumerate(one)
    except OSError:
        return []


def _frame_sizes(io: DeviceIO, fd: int, code: int) -> list[tuple[int, int]]:
    """Return the sizes of one pixel format (a stepwise range as its smallest and largest)."""

    def one(index: int) -> list[tuple[int, int]]:
        buffer = bytearray(struct.calcsize(FRMSIZE_FORMAT))
        struct.pack_into(FRMSIZE_FORMAT, buffer, 0, index, code, 0, *([0] * 8))
        io.ioctl(fd, VIDIOC_ENUM_FRAMESIZES, buffer)
        fields = struct.unpack(FRMSIZE_FORMAT, buffer)
        kind, values = fields[2], fields[3:9]
        if kind == V4L2_FRMSIZE_TYPE_DISCRETE:
            return [(values[0], values[1])]
        return [(values[0], values[3]), (values[1], values[4])]  # min and max of a range

    try:
        return [size for sizes in _enumerate(one) for size in sizes if size[0] and size[1]]
    except OSError:
        return []


def _probed_webcams(indexes: Iterable[int], capture_factory: CaptureFactory) -> list[Webcam]:
    """Without device nodes: open each camera index and note the size it gives."""
    found = []
    with _quiet_opencv():
        for index in indexes:
            capture = capture_factory(index, cv2.CAP_ANY, [])
            try:
                if not capture.isOpened():
                    continue
                ok, image = capture.read()
                sizes: tuple[tuple[int, int], ...] = ()
                if ok and image is not None:
                    sizes = ((int(image.shape[1]), int(image.shape[0])),)
                found.append(Webcam(f"camera {index}", f"Camera {index}", str(index), sizes))
            finally:
                capture.release()
    return found
