"""templecam: models."""
