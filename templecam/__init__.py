"""templecam: a computer-vision assistant for Escape: The Curse of the Temple."""

__version__ = "0.1.0"
