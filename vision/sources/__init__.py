"""Frame sources: cameras, streams, video files, image folders; the grabber; saving frames."""
