"""The localiser: a small fully convolutional centre-point network that finds dice and pieces."""
