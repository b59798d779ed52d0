"""templecam: rules."""
