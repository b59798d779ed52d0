"""Errors that are the user's to fix: the command line prints them plainly and exits with 2."""


class UserError(Exception):
    """A mistake in the user's input; the message says what was wrong and what to do."""
