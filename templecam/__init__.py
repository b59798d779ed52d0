"""templecam: templecam."""
