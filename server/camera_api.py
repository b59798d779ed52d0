"""The camera panel's routes: list the sources, preview one, switch to it, check the view."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, HTTPException
from fastapi.responses import Response

from server.camera_choice import (
    URL_SCHEMES,
    CameraPick,
    PickError,
    list_files,
    remember,
    resolve_pick,
    webcam_label,
)
from server.vision_demo import demo_files
from server.vision_service import SwitchError, VisionService

OFF = (
    "the camera is turned off (templecam serve --no-camera): start templecam without "
    "--no-camera to choose one here"
)


def camera_router(service: VisionService | None, data_dir: Path) -> APIRouter:
    """Return the routes of the set-up page's camera panel."""
    router = APIRouter()

    def running() -> VisionService:
        if service is None:
            raise HTTPException(409, OFF)
        return service

    def webcams() -> list[Any]:
        from vision.sources.webcams import list_webcams

        return list_webcams()

    def chosen_from(pick: CameraPick) -> Any:
        try:
            return resolve_pick(pick, data_dir, webcams, demo_files()["video"])
        except PickError as error:
            raise HTTPException(422, str(error)) from None

    @router.get("/api/camera/sources")
    def sources() -> dict[str, Any]:
        """The sources this computer offers: webcams, data-folder files, the demo recording."""
        if service is None:
            return {"off": True, "note": OFF}
        in_use = service.chosen.spec if service.chosen is not None else None
        cams = webcams()
        return {
            "off": False,
            "in_use": service.chosen.to_json() if service.chosen is not None else None,
            "webcams": [
                {**cam.to_json(), "label": webcam_label(cam), "in_use": cam.spec == in_use}
                for cam in cams
            ],
            "webcam_note": None
            if cams
            else "No webcam found on this computer (no /dev/video device answers): plug one "
            "in and press Look again, or use a phone's stream",
            "files": [
                {**item, "in_use": str((data_dir / item["value"]).resolve()) == in_use}
                for item in list_files(data_dir)
            ],
            "demo": demo_files()["video"].is_file(),
            "url_schemes": list(URL_SCHEMES),
        }

    @router.post("/api/camera/preview")
    def preview(body: CameraPick) -> dict[str, Any]:
        """Open a source to look at (the camera in use carries on)."""
        vision = running()
        chosen = chosen_from(body)
        in_use = vision.chosen is not None and vision.chosen.spec == chosen.spec
        vision.preview.open(chosen, shared=vision.grabber if in_use else None)
        return vision.preview.state()

    @router.get("/api/camera/preview")
    def preview_state() -> dict[str, Any]:
        """The preview's source, status, size, frame rate and error (open: false when none)."""
        return running().preview.state()

    @router.get("/api/camera/preview.jpg")
    def preview_frame() -> Response:
        """The preview's newest frame, scaled down, as one JPEG."""
        vision = running()
        data = vision.preview.jpeg()
        if data is None:
            state = vision.preview.state()
            detail = state.get("error") or "no picture from the preview yet"
            raise HTTPException(404 if not state["open"] else 409, detail)
        return Response(data, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    @router.post("/api/camera/preview/close")
    def close_preview() -> dict[str, Any]:
        """Stop previewing."""
        vision = running()
        vision.preview.close()
        return vision.preview.state()

    @router.post("/api/camera/use")
    def use(body: CameraPick) -> dict[str, Any]:
        """Switch the running vision to this source once it gives a picture; remember it."""
        vision = running()
        chosen = chosen_from(body)
        try:
            message = vision.switch(chosen)
        except SwitchError as error:
            raise HTTPException(409, str(error)) from None
        remember(data_dir, chosen)
        return {"message": message, "vision": vision.state_json()}

    @router.get("/api/camera/check")
    def check() -> dict[str, Any]:
        """Is the view good enough? The newest frame checked against the calibration."""
        from calibration.view_check import check_view

        vision = running()
        image = vision.snapshot(timeout=2.0)
        if image is None:
            raise HTTPException(409, "no picture from the camera yet: choose a camera first")
        grabber = vision.grabber
        fps = grabber.state().fps if grabber is not None else None
        calibration = vision.saved_calibration()
        report = check_view(image, calibration, fps, camera=vision.chosen_label())
        return {"camera": vision.chosen_label(), **report.to_json()}

    return router
