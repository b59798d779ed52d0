"""Synthetic table renderer: overhead frames of an Escape game table with exact labels.

`models.synth.frame.render_frame(settings, seed, index)` renders one frame;
`models.synth.dataset.generate(plan)` writes an Ultralytics dataset (`templecam synth`).
Only numpy and OpenCV are used; nothing is downloaded. Importing this package is cheap:
the modules that need OpenCV load when they are imported themselves.
"""
