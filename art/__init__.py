"""The game's art, drawn procedurally: die-face icons, tile pictures, the tile back, the depot.

The renderer (`models.synth`) paints its tables with it and calibration (`calibration`) enrols
the packaged tiles and draws tile cards from it. It uses only the ground floor and the rules'
catalog and vocabulary.
"""
