"""templecam: calibration."""
