"""templecam: server."""
