"""Teaching templecam one's own dice: prompted captures, automatic labels, review, datasets and
the taught models kept in the data folder (torch-free; the fine-tune itself is `models.teach`)."""
