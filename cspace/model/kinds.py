"""The kinds the model and its results name, each an enumeration whose values are the words
files and outputs use (a ``StrEnum``: a value is its word, so ``Motion.FIXED == "fixed"``
and it prints, formats and serializes as ``fixed``).

>>> Motion("fixed-axes") is Motion.FIXED_AXES, f"{ForceKind.SPRING}", EndReason.INPUT_BLOCKED == "input blocked"
(True, 'spring', True)
"""

from __future__ import annotations

from enum import StrEnum


class Motion(StrEnum):
    """How a part may move: not at all, along fixed axes (translations and a rotation), or as
    a member of a linkage."""

    FIXED = "fixed"
    FIXED_AXES = "fixed-axes"
    LINKAGE = "linkage"


class CoordinateKind(StrEnum):
    """What a coordinate moves: along an axis in the plane, about a pivot, or up the z axis."""

    TRANSLATION = "translation"
    ROTATION = "rotation"
    SHIFT = "shift"


class JointKind(StrEnum):
    """A linkage's joint: a pin (two points kept together) or a slider (a point kept on a line)."""

    PIN = "pin"
    SLIDER = "slider"


class ForceKind(StrEnum):
    """An external motion: gravity or a spring along a translation, a torque about a pivot."""

    GRAVITY = "gravity"
    SPRING = "spring"
    TORQUE = "torque"


class Phase(StrEnum):
    """A step of the trace: an input motion, or the external motions (forces) run to completion."""

    INPUT = "input"
    EXTERNAL = "external"


class EndReason(StrEnum):
    """Why a trace ended, or an input motion gave way to the next."""

    TIME_ALLOTMENT_USED = "time allotment used"
    INPUT_BLOCKED = "input blocked"
    INPUT_DONE = "input motion done"  # it ran for its duration: the next takes over
    NO_INPUT_MOTIONS = "no input motions"


class DynamicsKind(StrEnum):
    """How forces move a mechanism: as instant motions (the paper's simple dynamics) or by
    integrating the equations of motion of its masses (full dynamics)."""

    SIMPLE = "simple"
    FULL = "full"


class Mode(StrEnum):
    """What a stretch of a full-dynamics path does: flies free, rests on contacts or stops (smooth,
    gripping or sliding), or is an impact (an instant)."""

    FLIGHT = "flight"
    CONTACT = "contact"  # resting on smooth contacts
    STICK = "stick"  # resting, every contact with friction gripping
    SLIP = "slip"  # resting, a contact with friction sliding
    IMPACT = "impact"
