"""A race as plain data: the state machine (:mod:`.core`), its states (:mod:`.states`),
the effects it returns (:mod:`.effects`), the placing rule (:mod:`.places`) and rebuilding
a race from its log (:mod:`.restore`). Sans-I/O: the server's driver applies the effects.
"""

from .core import Race
from .places import Standing, places
from .restore import restore, restore_waiting
from .rules import KEEP_ANSWERS, RaceOptions, RaceRules, Timing, admits
from .seat import Seat
from .states import RACE, IllegalTransition

__all__ = [
    "KEEP_ANSWERS",
    "RACE",
    "IllegalTransition",
    "Race",
    "RaceOptions",
    "RaceRules",
    "Seat",
    "Standing",
    "Timing",
    "admits",
    "places",
    "restore",
    "restore_waiting",
]
