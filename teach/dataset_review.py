"""A labelled dataset as teaching material: its die-face boxes become a review.

`templecam teach --dataset SRC` fine-tunes the reader on a dataset people already have (any
format `teach.datasets.load_dataset` reads). Its die-face boxes are taught as they are labelled;
its gems and figures are taught as `not_die` (die-sized crops centred on them, as on the empty
table of a prompted capture); other classes are not die crops and are left out. Its val split
is what the old and new reader are compared on.
"""

from __future__ import annotations

from teach.datasets import DatasetView
from teach.errors import TeachError
from teach.prompted import Capture
from teach.review import Review, ReviewedDie, median_side, square_around
from vision.perception.classes import FACES, NOT_DIE

DATASET_PROMPT = "dataset"
"""The prompt of a dataset's images: they show any faces, as their labels say."""
NEGATIVES = ("gem", "figure")
"""Classes whose boxes are taught as not_die, at the size of the dataset's dice."""


def dataset_review(view: DatasetView) -> tuple[Review, set[str]]:
    """Return the dataset as a review (image paths as files) and its val images, held back."""
    captures, dice = [], []
    for image in view.images:
        file = str(image.path)
        captures.append(Capture(file, DATASET_PROMPT, image.width, image.height))
        for box in image.boxes:
            if box.label in FACES:
                dice.append(ReviewedDie(file, (box.x1, box.y1, box.x2, box.y2), box.label))
    if not dice:
        raise TeachError(
            f"{view.source} has no box of a die face ({', '.join(FACES)}): map its classes "
            "with --map, e.g. --map Key=key"
        )
    side = median_side([d.box for d in dice])
    for image in view.images:
        for box in image.boxes:
            if box.label in NEGATIVES:
                square = square_around((box.x1 + box.x2) / 2, (box.y1 + box.y2) / 2, side)
                dice.append(ReviewedDie(str(image.path), square, NOT_DIE, "piece"))
    back = {str(image.path) for image in view.images if image.split == "val"}
    return Review(captures, dice), back
