"""The ground floor: helpers every room may use, importing nothing else of the project.

`base.files` writes files whole or not at all; `base.paths` finds the user's data folder.
"""
