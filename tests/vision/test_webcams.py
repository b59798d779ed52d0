"""Listing webcams: this machine has none, so the V4L2 answers come from a stand-in device
(the only thing stood in for: the hardware); the packing, asking and sorting are the real code."""

from __future__ import annotations

import errno
import struct
from pathlib import Path

import pytest

from vision.sources import webcams
from vision.sources.webcams import Webcam, list_webcams


class StandInDevices:
    """Answers V4L2 ioctls as a Logitech C920 (picture node + metadata node) would."""

    def __init__(self, nodes: dict[str, dict]) -> None:
        self.nodes = nodes
        self.fds: dict[int, str] = {}
        self.opened: list[str] = []

    def open(self, path: str) -> int:
        node = self.nodes.get(Path(path).name)
        if node is None:
            raise OSError(errno.ENOENT, "No such file or directory")
        if node.get("denied"):
            raise OSError(errno.EACCES, "Permission denied")
        fd = 100 + len(self.fds)
        self.fds[fd] = Path(path).name
        self.opened.append(path)
        return fd

    def close(self, fd: int) -> None:
        del self.fds[fd]

    def ioctl(self, fd: int, request: int, buffer: bytearray) -> None:
        node = self.nodes[self.fds[fd]]
        if request == webcams.VIDIOC_QUERYCAP:
            caps = node["caps"]
            bus = b"usb-0000:00:14.0-1"
            fields = (b"uvcvideo", node["card"], bus, 0x60000, caps | 0x80000000, caps, 0, 0, 0)
            struct.pack_into(webcams.QUERYCAP_FORMAT, buffer, 0, *fields)
        elif request == webcams.VIDIOC_ENUM_FMT:
            index, kind = struct.unpack_from("II", buffer)
            assert kind == webcams.V4L2_BUF_TYPE_VIDEO_CAPTURE
            formats = list(node["formats"])
            if index >= len(formats):
                raise OSError(errno.EINVAL, "Invalid argument")
            code = int.from_bytes(formats[index].encode(), "little")
            fields = (index, kind, 0, b"desc", code, 0, 0, 0, 0)
            struct.pack_into(webcams.FMTDESC_FORMAT, buffer, 0, *fields)
        elif request == webcams.VIDIOC_ENUM_FRAMESIZES:
            index, code = struct.unpack_from("II", buffer)
            fourcc = code.to_bytes(4, "little").decode()
            sizes = node["formats"][fourcc]
            if index >= len(sizes):
                raise OSError(errno.EINVAL, "Invalid argument")
            size = sizes[index]
            if len(size) == 2:
                values = (*size, 0, 0, 0, 0)
                kind = webcams.V4L2_FRMSIZE_TYPE_DISCRETE
            else:
                values, kind = size, 3  # stepwise
            struct.pack_into(webcams.FRMSIZE_FORMAT, buffer, 0, index, code, kind, *values, 0, 0)
        else:
            raise OSError(errno.ENOTTY, "Inappropriate ioctl for device")


C920 = {
    "card": b"HD Pro Webcam C920",
    "caps": webcams.V4L2_CAP_VIDEO_CAPTURE,
    "formats": {
        "YUYV": [(640, 480), (1920, 1080)],
        "MJPG": [(1920, 1080), (1280, 720), (640, 480)],
    },
}
META = {"card": b"HD Pro Webcam C920", "caps": 0x00800000, "formats": {}}


def machine(tmp_path: Path, names: dict[str, str]) -> tuple[Path, Path]:
    """A /dev and a /sys/class/video4linux with these nodes (files: the hardware is stood in)."""
    dev, sysfs = tmp_path / "dev", tmp_path / "sys"
    dev.mkdir()
    for node, name in names.items():
        (dev / node).touch()
        (sysfs / node).mkdir(parents=True)
        (sysfs / node / "name").write_text(name + "\n")
    return dev, sysfs


def test_a_webcam_is_listed_by_name_and_device_with_its_resolutions_largest_first(tmp_path):
    dev, sysfs = machine(tmp_path, {"video0": "HD Pro Webcam C920", "video1": "C920 meta"})
    io = StandInDevices({"video0": C920, "video1": META})
    found = list_webcams(dev, sysfs, io)
    assert found == [
        Webcam(
            device=str(dev / "video0"),
            name="HD Pro Webcam C920",
            spec=str(dev / "video0"),
            sizes=((1920, 1080), (1280, 720), (640, 480)),
            formats=("YUYV", "MJPG"),
        )
    ]
    assert found[0].to_json()["sizes"][0] == [1920, 1080]
    assert io.fds == {}  # every device asked was closed again


def test_the_stable_by_id_link_is_what_gets_opened_and_remembered(tmp_path):
    dev, sysfs = machine(tmp_path, {"video0": "C920", "video1": "C920", "video2": "Cam B"})
    links = dev / "v4l" / "by-id"
    links.mkdir(parents=True)
    (links / "usb-046d_HD_Pro_Webcam_C920-video-index0").symlink_to(dev / "video0")
    (links / "usb-046d_HD_Pro_Webcam_C920-video-index1").symlink_to(dev / "video1")
    io = StandInDevices({"video0": C920, "video1": META, "video2": C920})
    found = list_webcams(dev, sysfs, io)
    assert [w.spec for w in found] == [
        str(links / "usb-046d_HD_Pro_Webcam_C920-video-index0"),
        str(dev / "video2"),
    ]
    assert found[0].aliases == (str(dev / "video0"),)


def test_devices_come_in_number_order_and_a_stepwise_range_gives_its_ends(tmp_path):
    dev, sysfs = machine(tmp_path, {"video10": "Ten", "video2": "Two"})
    ranged = {**C920, "formats": {"YUYV": [(160, 640, 16, 120, 480, 8)]}}
    found = list_webcams(dev, sysfs, StandInDevices({"video10": C920, "video2": ranged}))
    assert [w.name for w in found] == ["Two", "Ten"]
    assert found[0].sizes == ((640, 480), (160, 120))


def test_a_camera_without_permission_is_listed_with_the_fix(tmp_path):
    dev, sysfs = machine(tmp_path, {"video0": "HD Pro Webcam C920"})
    found = list_webcams(dev, sysfs, StandInDevices({"video0": {**C920, "denied": True}}))
    assert found[0].sizes == ()
    assert "video group" in (found[0].problem or "")


def test_a_node_that_is_no_v4l2_device_is_left_out(tmp_path):
    dev, sysfs = machine(tmp_path, {"video0": "odd"})
    # a plain file answers every ioctl with ENOTTY: the real kernel calls, no stand-in
    assert list_webcams(dev, sysfs, webcams.LinuxDeviceIO()) == []


@pytest.mark.skipif(Path("/dev/video0").exists(), reason="this machine has a webcam")
def test_this_machine_lists_no_webcam():
    assert list_webcams() == []
