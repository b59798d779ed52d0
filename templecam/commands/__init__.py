"""The subcommands of `templecam`, one module each."""
