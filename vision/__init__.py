"""templecam: vision."""
