"""The pipeline's stages after the networks: motion gating, scene, stability, events."""
