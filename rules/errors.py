"""Errors the rules engine raises for input it cannot take."""


class RecordError(ValueError):
    """A game record (or a part of one) is malformed; the message says what and where."""


class Rejection(Exception):  # noqa: N818 - a rejection is an outcome, not a failure of the program
    """An event broke a rule; `reason` says why, in a player's words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
