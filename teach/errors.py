"""The one error of the teaching room."""


class TeachError(Exception):
    """Teaching cannot go on as asked; the message says what was wrong and what to do."""
