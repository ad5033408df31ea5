"""Profiles from DXF drawings: a layer's lines and arcs chained end to end into closed loops.

A profile entry of a mechanism file may name a DXF drawing and one of its layers
(the path relative to the mechanism file's folder)::

    profiles = [ { dxf = "parts/cam.dxf", layer = "cam" } ]

**What is read.** The entities on that layer (layer names match without regard to case,
as in CAD programs): ``LINE``, ``ARC``, ``CIRCLE``, ``LWPOLYLINE`` and the classic 2D
``POLYLINE`` (straight and bulged segments; the closing segment when the polyline is
closed; a spline-fit polyline's frame is not read, its fitted vertices are), a 3D
``POLYLINE`` (straight segments), and ``ELLIPSE`` (whole or an arc) and ``SPLINE``, which
ezdxf flattens into lines whose vertices lie on the curve and whose chords keep within the
mechanism's arc tolerance of it (the file's ``[tolerance] arc`` factor, default 1e-4, times
the longer side of the layer's bounding box: never more than the mechanism's size). A
block reference (``INSERT``, with its rows and columns) is exploded by ezdxf with its
transform (position, rotation, scale, mirroring; a circle scaled unevenly is an ellipse),
nested blocks too; as CAD programs show them, a block's entity drawn on layer 0 is on its
reference's layer, any other on its own. Any other entity type on the layer is an error
(``TEXT x2, HATCH x1``): nothing on the layer is silently left out. Other layers are not
looked at. z is ignored; an arc, circle, ellipse or polyline drawn in a plane other than
XY (an extrusion that is not +z or -z) is an error, one mirrored (extrusion -z) is read
mirrored, as CAD programs show it. The drawing's origin is the origin of the part's local
frame. A bulged segment whose arc's centre or radius lies beyond the largest number of a
mechanism file (a bulge of 1e300, or of 1e-300: a nearly straight arc about a centre far
away) is an error naming the entity. An entity of a block is named by its handle in the
block and the references it came through (``LINE #2F in block 'plate' of INSERT #3A``).

**Units.** Lengths are converted to millimetres: a mechanism with DXF parts is written
in millimetres. The drawing's unit is its header's ``$INSUNITS`` (inches x 25.4, metres
x 1000, ...: :data:`MM_PER_UNIT`); a unitless drawing (``$INSUNITS`` 0, or no such header
variable, as in R12 files) is taken to be in millimetres already. Positions in error
messages are the drawing's own coordinates, as the CAD program shows them.

**Chaining.** Two ends closer than the length tolerance are one point: the one policy of
:mod:`cspace.model.tolerance` (``DEFAULT_LENGTH``, 1e-7, times the size) applied to the drawing,
whose size is taken as the longer side of the layer's bounding box. That is never more
than the part's diameter, so never more than the size of any mechanism holding the part
(the diagonal of its parts' bounding box): ends joined here are one point to the
mechanism too. Joined ends are snapped to one point, preferring the numbers the drawing
states (a line's end, a polyline's vertex) to an arc's end computed from its centre and
angles, so an arc's end moves by at most the tolerance and its two radii pass the
mechanism's check. (A file's ``[tolerance] length`` is read after its parts: the default
factor is used here.) Segments shorter than the tolerance (a polyline's repeated vertex)
are points, and dropped. Every point must join exactly two ends; a point where one end
stops is a gap, one where three or more meet a branch: both are errors naming the
position.

**Loops and faces.** Each loop is one :class:`~cspace.model.geometry.Profile`; several loops
on a layer are several profiles of the slice (a loop inside another is a hole, one inside
that an island of material, and so on, as for any profile: nesting alternates). Loops come in the order of their first entity in the file; a loop starts
at that entity and runs in its drawn direction (a circle counterclockwise from its
rightmost point). Faces are named ``e0``, ``e1``, ... in that order, numbered on across
the loops of the layer, one per line, arc, circle, polyline segment or segment of a
flattened ellipse or spline; a profile
``name`` or a slice's ``p0.`` prefix comes first, as for any profile.

>>> loops = read_profiles("fixtures/parts/dxf-cam.dxf", "cam")
>>> len(loops), [e.name for e in loops[0].elements]
(3, ['e0', 'e1', 'e2', 'e3'])
>>> loops[0].elements[2].radius == 12.0  # the lobe, drawn as a bulged polyline segment
True
"""

from __future__ import annotations

import difflib
import math
import os
import stat
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterator

from ..model.errors import DxfError
from ..model.geometry import Arc, Element, Line, Point, Profile
from ..model.tolerance import DEFAULT_ARC, Tolerance
from .outputs import printable

SUPPORTED = ("LINE", "ARC", "CIRCLE", "ELLIPSE", "SPLINE", "LWPOLYLINE", "POLYLINE")
MAX_EXPLODED = 100_000  # entities a drawing's block references may expand to (nested blocks multiply)
MAX_BYTES = 16 * 1024 * 1024  # a part's drawing; a larger file is refused before ezdxf reads it
# Millimetres per unit, by $INSUNITS code (exact definitions: the inch is 25.4 mm, the US
# survey foot 1200/3937 m, the astronomical unit 149,597,870,700 m, the parsec 648000/pi au).
_SURVEY_FOOT = 1200_000 / 3937
MM_PER_UNIT: dict[int, float] = {
    0: 1.0,  # unitless: taken as millimetres
    1: 25.4, 2: 304.8, 3: 1_609_344.0, 4: 1.0, 5: 10.0, 6: 1000.0, 7: 1e6, 8: 25.4e-6, 9: 0.0254,
    10: 914.4, 11: 1e-7, 12: 1e-6, 13: 1e-3, 14: 100.0, 15: 1e4, 16: 1e5, 17: 1e12,
    18: 1.495978707e14, 19: 9.4607304725808e18, 20: 1.495978707e14 * 648000 / math.pi,
    21: _SURVEY_FOOT, 22: _SURVEY_FOOT / 12, 23: 3 * _SURVEY_FOOT, 24: 5280 * _SURVEY_FOOT,
}
_PLANAR = 1e-9  # an extrusion this close to +-z (per unit length) is the XY plane
_FRAME = 16  # a POLYLINE vertex flag: a spline-fit polyline's frame control point, not on the outline
_SAMPLES = 16  # the fewest segments ezdxf flattens an ellipse or spline into
# ezdxf subdivides a chord while the curve's point at the middle of its parameter span is farther
# than the distance asked for; the chord's farthest point is near there, not exactly there: half
# the arc tolerance is asked for, so that the whole outline keeps within it.
_FLATTENING = 0.5


def mm_per_unit(insunits: Any) -> float:
    """Millimetres per drawing unit for a ``$INSUNITS`` code; 0 (unitless) counts as millimetres.

    >>> mm_per_unit(1), mm_per_unit(4), mm_per_unit(0), mm_per_unit(6)
    (25.4, 1.0, 1.0, 1000.0)
    """
    if isinstance(insunits, bool) or not isinstance(insunits, int) or insunits not in MM_PER_UNIT:
        raise DxfError(f"unknown $INSUNITS {insunits!r}: the drawing's unit must be one of the codes 0 to "
                       f"{max(MM_PER_UNIT)}")
    return MM_PER_UNIT[insunits]


def read_profiles(path: str | os.PathLike, layer: str, *, prefix: str = "", shown: str | None = None,
                  max_faces: int | None = None, max_magnitude: float | None = None,
                  arc: float = DEFAULT_ARC) -> tuple[Profile, ...]:
    """The closed loops on ``layer`` of the DXF file at ``path``, in millimetres, as profiles.

    ``prefix`` goes before every face name (``e0``, ``e1``, ...); ``shown`` names the file
    in messages (default: ``path``). More than ``max_faces`` faces, or a coordinate larger
    than ``max_magnitude`` millimetres, is an error. Raises :class:`~cspace.model.errors.DxfError`.

    >>> [type(e).__name__ for e in read_profiles("fixtures/parts/dxf-cam.dxf", "cam")[1].elements]
    ['Arc', 'Line', 'Line', 'Line']
    """
    shown = printable(str(path) if shown is None else shown)
    return layer_profiles(read_drawing(path, shown), layer, prefix=prefix, shown=shown, max_faces=max_faces,
                          max_magnitude=max_magnitude, arc=arc)


def read_drawing(path: str | os.PathLike, shown: str | None = None) -> Any:
    """The ezdxf document of the DXF file at ``path``: a regular file of at most ``MAX_BYTES``.

    >>> read_drawing("fixtures/parts/dxf-cam.dxf").header["$INSUNITS"]
    4
    """
    import ezdxf  # only when a mechanism has DXF parts: it takes a third of a second

    shown = printable(str(path) if shown is None else shown)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise DxfError(f"{shown}: no such file (a dxf path is relative to the mechanism file's folder)") from None
    except OSError as error:
        raise DxfError(f"{shown}: cannot read: {error.strerror}") from None
    if stat.S_ISDIR(info.st_mode):
        raise DxfError(f"{shown}: is a directory, not a DXF file")
    if not stat.S_ISREG(info.st_mode):
        raise DxfError(f"{shown}: is not a regular file; a DXF drawing must be one")
    if info.st_size > MAX_BYTES:
        raise DxfError(f"{shown}: the file is over {MAX_BYTES // (1024 * 1024)} MB; a part's drawing is limited "
                       f"to {MAX_BYTES // (1024 * 1024)} MB")
    try:
        return ezdxf.readfile(path)
    except OSError as error:  # ezdxf's "not a DXF file", or the file could not be opened
        detail = f" ({error.strerror})" if error.strerror else ""
        raise DxfError(f"{shown}: not a DXF file ezdxf can read{detail}") from None
    except Exception as error:  # whatever else ezdxf raises on a file it cannot parse
        reason = " ".join(str(error).replace(str(path), shown).split()) or type(error).__name__
        raise DxfError(f"{shown}: not a DXF file ezdxf can read ({reason})") from None


def layer_profiles(doc: Any, layer: str, *, prefix: str = "", shown: str = "<drawing>",
                   max_faces: int | None = None, max_magnitude: float | None = None,
                   arc: float = DEFAULT_ARC) -> tuple[Profile, ...]:
    """The closed loops on ``layer`` of an ezdxf document, in millimetres (see the module's rules).

    >>> import ezdxf
    >>> doc = ezdxf.new(units=1)                        # a drawing in inches
    >>> _ = doc.modelspace().add_lwpolyline([(0, 0), (2, 0), (2, 1), (0, 1)], close=True,
    ...                                     dxfattribs={"layer": "plate"})
    >>> [e.end for e in layer_profiles(doc, "plate")[0].elements]
    [(50.8, 0.0), (50.8, 25.4), (0.0, 25.4), (0.0, 0.0)]
    """
    where = f"{shown}: layer {layer!r}"
    try:
        scale = mm_per_unit(doc.header.get("$INSUNITS", 0))
    except DxfError as error:
        raise DxfError(f"{shown}: {error.message}") from None
    entities = _entities(doc, layer, where)
    pieces, circles, curves = _pieces(entities, where, _Limit(scale, max_magnitude))
    count = len(pieces) + len(circles) + len(curves)
    if max_faces is not None and count > max_faces:
        raise DxfError(f"{where}: {count} segments; a mechanism has at most {max_faces} faces")
    points = ([p for piece in pieces for p in piece.extent()] + [p for c in circles for p in c.extent()]
              + [p for curve in curves for p in curve.samples(where)])
    if not points:
        raise DxfError(f"{where}: nothing to read: its entities have no length")
    x0, y0 = min(x for x, _ in points), min(y for _, y in points)
    x1, y1 = max(x for x, _ in points), max(y for _, y in points)
    size = max(x1 - x0, y1 - y0)  # at most the part's diameter
    tolerance = Tolerance.for_size(size).length
    largest = max(abs(x0), abs(y0), abs(x1), abs(y1)) * scale
    if max_magnitude is not None and largest > max_magnitude:
        raise DxfError(f"{where}: it reaches {largest:.3g} mm from the origin; numbers in a mechanism are at "
                       f"most {max_magnitude:g} in size")
    if curves:
        distance = Tolerance.for_size(size, arc=arc).arc * _FLATTENING
        most = max_faces if max_faces is not None else math.inf
        for curve in curves:
            pieces.extend(curve.lines(distance, where, most - len(pieces) - len(circles)))
    pieces = [p for p in pieces if not p.degenerate(tolerance)]
    loops = sorted(_chain(pieces, tolerance, where) + [[c] for c in circles if not c.degenerate(tolerance)],
                   key=lambda loop: loop[0].key)
    if not loops:
        raise DxfError(f"{where}: nothing to read: its entities have no length")
    profiles, face = [], 0
    for loop in loops:
        elements: list[Element] = []
        for piece in loop:
            elements.append(piece.element(f"{prefix}e{face}", scale))
            face += 1
        profiles.append(Profile(tuple(elements)))
    return tuple(profiles)


@dataclass
class _Piece:
    """One line or arc of the drawing, in drawing units, as drawn. ``key`` orders pieces as the
    file does (entity, then segment); ``exact`` says the ends are numbers the drawing states
    (a line's, a polyline's vertices), not computed from an arc's centre and angles; ``sweep``
    is an arc's angle as drawn (radians; a circle's is 2 pi)."""

    start: Point
    end: Point
    center: Point | None
    ccw: bool
    key: tuple[int, int]
    exact: bool
    sweep: float = 0.0

    @property
    def radius(self) -> float:
        return math.dist(self.start, self.center) if self.center is not None else 0.0

    def degenerate(self, tolerance: float) -> bool:
        """A point, not a face: a line or an arc under half a turn whose ends coincide, or an
        arc or circle of no radius (an arc over half a turn whose ends coincide is a circle)."""
        if self.center is not None:
            if self.radius <= tolerance:
                return True
            if self.sweep >= math.pi:
                return False
        return math.dist(self.start, self.end) <= tolerance

    def extent(self) -> list[Point]:
        """Points whose bounding box is the piece's: its ends, and an arc's axis extremes."""
        if self.center is None:
            return [self.start, self.end]
        (cx, cy), r = self.center, self.radius
        a0 = math.atan2(self.start[1] - cy, self.start[0] - cx)
        turn = 2 * math.pi
        extremes = [(cx + r * math.cos(k * math.pi / 2), cy + r * math.sin(k * math.pi / 2)) for k in range(4)]
        inside = [p for k, p in enumerate(extremes)
                  if ((k * math.pi / 2 - a0) if self.ccw else (a0 - k * math.pi / 2)) % turn <= self.sweep]
        return [self.start, self.end] + inside

    def element(self, name: str, scale: float) -> Element:
        start, end = _scaled(self.start, scale), _scaled(self.end, scale)
        if self.center is None:
            return Line(start, end, name)
        return Arc(start, end, _scaled(self.center, scale), self.ccw, name)

    def reversed(self) -> _Piece:
        return _Piece(self.end, self.start, self.center, not self.ccw, self.key, self.exact, self.sweep)


def _scaled(point: Point, scale: float) -> Point:
    return point if scale == 1.0 else (point[0] * scale, point[1] * scale)


@dataclass(frozen=True)
class _Drawn:
    """An entity of the layer, as read: one of model space, or one exploded from a block
    reference (transformed, without a handle of its own); ``label`` names it in messages."""

    entity: Any
    label: str


def _entities(doc: Any, layer: str, where: str) -> list[_Drawn]:
    """The layer's entities, block references exploded; an error if there are none, or any of a type not read."""
    wanted = layer.casefold()
    entities, others, seen = [], Counter(), 0
    for entity, on, label in _exploded(doc.modelspace(), wanted, where):
        seen += 1
        if seen > MAX_EXPLODED:
            raise DxfError(f"{where}: its block references expand to more than {MAX_EXPLODED} entities")
        if entity.dxftype() == "INSERT":
            continue
        if on.casefold() == wanted:
            entities.append(_Drawn(entity, label))
        else:
            others[on] += 1
    if not entities:
        layers = ", ".join(f"{name!r} ({n})" for name, n in sorted(others.items(), key=lambda kv: kv[0].casefold()))
        hint = difflib.get_close_matches(layer, list(others), n=1)
        suggestion = f" (did you mean {hint[0]!r}?)" if hint else ""
        present = f"the layers with entities are {layers}" if others else "model space is empty"
        raise DxfError(f"{where}: no entities on this layer{suggestion}; {present}")
    kinds = [d.entity.dxftype() for d in entities]
    unsupported = Counter(kind for kind in kinds if kind not in SUPPORTED)
    if unsupported:
        listed = ", ".join(f"{kind} x{n}" for kind, n in sorted(unsupported.items(), key=lambda kv: (-kv[1], kv[0])))
        raise DxfError(f"{where}: entities cspace does not read: {listed}; draw the outline with "
                       f"{', '.join(SUPPORTED[:-1])} and {SUPPORTED[-1]} (blocks are exploded)")
    return entities


def _exploded(entities: Any, wanted: str, where: str, layer: str = "0", inside: str = "",
              blocks: tuple[str, ...] = ()) -> Iterator[tuple[Any, str, str]]:
    """Each entity with the layer it shows on and its label; a block reference (INSERT, with
    its rows and columns) is followed by its block's entities, exploded by ezdxf with the
    reference's transform, nested blocks too. As in CAD programs, an entity of a block drawn on
    layer 0 shows on its reference's layer, any other on its own."""
    for entity in entities:
        own = entity.dxf.get("layer", "0")
        on = layer if own == "0" and blocks else own
        label = f"{entity.dxftype()}{_handle(entity)}{inside}"
        yield entity, on, label
        if entity.dxftype() != "INSERT":
            continue
        name = entity.dxf.get("name", "")
        if name in blocks:
            raise DxfError(f"{where}: {label} inserts block {name!r} within itself")
        within = f" in block {name!r} of INSERT{_handle(entity)}{inside}"
        for copy in entity.multi_insert():
            yield from _exploded(_block(copy, wanted, on, where, label), wanted, where, on, within, blocks + (name,))


def _block(insert: Any, wanted: str, layer: str, where: str, label: str) -> list[Any]:
    """The entities of a block reference, transformed by ezdxf; an entity ezdxf cannot transform
    (skipped, with its reason) is an error if it would show on the layer read."""
    skipped: list[tuple[Any, str]] = []
    try:
        parts = list(insert.virtual_entities(skipped_entity_callback=lambda e, why: skipped.append((e, why))))
    except Exception as error:  # a missing block definition, or one ezdxf cannot transform
        raise DxfError(f"{where}: {label} cannot be exploded ({' '.join(str(error).split())})") from None
    for entity, why in skipped:
        own = entity.dxf.get("layer", "0")
        if (layer if own == "0" else own).casefold() == wanted:
            raise DxfError(f"{where}: {entity.dxftype()}{_handle(entity)} in {label} cannot be exploded ({why})")
    return parts


def _handle(entity: Any) -> str:
    """`` #handle`` of an entity, or of the block's entity an exploded one was copied from; or nothing."""
    source = entity.source_of_copy
    handle = entity.dxf.get("handle") or (source.dxf.get("handle") if source is not None else None)
    return f" #{handle}" if handle else ""


@dataclass(frozen=True)
class _Limit:
    """How far from the origin an arc's centre and radius may reach: ``max_magnitude``
    millimetres (none: only finite) at ``scale`` millimetres per drawing unit."""

    scale: float
    max_magnitude: float | None

    def check(self, piece: _Piece, bulge: float, where: str, label: str) -> None:
        """Refuse a bulged segment whose arc cannot be held: a bulge far from 0 and 1 in size
        (1e300, or 1e-300) is an arc whose centre lies beyond any number a mechanism holds, or
        beyond any float; the extent of the arc's drawn points alone would not show it."""
        (cx, cy), radius = piece.center, piece.radius
        reach = max(abs(cx), abs(cy), radius) * self.scale
        segment = f"{label} segment {piece.key[1]} (bulge {bulge:g})"
        hint = " (a bulge near 0 is a straight segment: draw it with bulge 0)" if abs(bulge) < 1 else ""
        if not math.isfinite(reach):
            raise DxfError(f"{where}: {segment} is an arc too large to compute (its centre or radius overflows)"
                           + hint)
        if self.max_magnitude is not None and reach > self.max_magnitude:
            raise DxfError(f"{where}: {segment} is an arc of radius {radius * self.scale:.3g} mm about "
                           f"{_fmt(piece.center)}; numbers in a mechanism are at most {self.max_magnitude:g} in size"
                           + hint)


def _pieces(entities: list[_Drawn], where: str, limit: _Limit) -> tuple[list[_Piece], list[_Piece], list[_Curve]]:
    """The lines and arcs of the entities in drawing units, the circles apart, and the
    ellipses and splines (flattened once the drawing's size is known)."""
    pieces: list[_Piece] = []
    circles: list[_Piece] = []
    curves: list[_Curve] = []
    for index, drawn in enumerate(entities):
        entity, label = drawn.entity, drawn.label
        kind = entity.dxftype()
        if kind == "LINE":
            start, end = _xy(entity.dxf.start, where, label), _xy(entity.dxf.end, where, label)
            pieces.append(_Piece(start, end, None, True, (index, 0), True))
        elif kind in ("ELLIPSE", "SPLINE"):
            curves.append(_Curve(entity, label, index))
        elif kind == "POLYLINE" and not entity.is_2d_polyline:
            pieces.extend(_polyline3d(entity, index, where, label))
        elif kind == "CIRCLE":
            circles.append(_circle(entity, index, where, label))
        else:
            pieces.extend(_planar(entity, index, where, label, limit))
    return pieces, circles, curves


def _circle(entity: Any, index: int, where: str, label: str) -> _Piece:
    """A CIRCLE, from its rightmost point counterclockwise."""
    _up(entity, where, label)
    center = _xy(entity.ocs().to_wcs(entity.dxf.center), where, label)
    radius = _finite(entity.dxf.radius, where, label)
    start = (center[0] + abs(radius), center[1])
    return _Piece(start, start, center, True, (index, 0), False, 2 * math.pi)


def _planar(entity: Any, index: int, where: str, label: str, limit: _Limit) -> list[_Piece]:
    """An ARC, an LWPOLYLINE or a 2D POLYLINE, drawn in its own coordinate system (OCS)."""
    up = _up(entity, where, label)
    kind = entity.dxftype()
    if kind == "ARC":
        center = _xy(entity.ocs().to_wcs(entity.dxf.center), where, label)
        _finite(entity.dxf.radius, where, label)
        degrees = (_finite(entity.dxf.end_angle, where, label) - _finite(entity.dxf.start_angle, where, label))
        sweep = math.radians(degrees % 360.0) or 2 * math.pi  # equal angles: the whole circle
        start, end = _xy(entity.start_point, where, label), _xy(entity.end_point, where, label)
        return [_Piece(start, end, center, up, (index, 0), False, sweep)]
    if kind == "LWPOLYLINE":
        vertices = [_xy(v, where, label) for v in entity.vertices_in_wcs()]
        bulges = [_finite(b, where, label) for _, _, b in entity.get_points("xyb")]
        return _polyline(vertices, bulges, entity.closed, up, index, where, label, limit)
    drawn = [v for v in entity.vertices if not v.dxf.flags & _FRAME]
    ocs = entity.ocs()
    vertices = [_xy(ocs.to_wcs(v.dxf.location), where, label) for v in drawn]
    bulges = [_finite(v.dxf.get("bulge", 0.0), where, label) for v in drawn]
    return _polyline(vertices, bulges, entity.is_closed, up, index, where, label, limit)


def _polyline(vertices: list[Point], bulges: list[float], closed: bool, up: bool, index: int, where: str,
              label: str, limit: _Limit) -> list[_Piece]:
    """A 2D polyline's segments (an LWPOLYLINE's or a POLYLINE's): straight or bulged, and the
    closing one if the polyline is closed."""
    pieces = []
    count = len(vertices) if closed else len(vertices) - 1
    for k in range(count):
        a, b = vertices[k], vertices[(k + 1) % len(vertices)]
        bulge = bulges[k] if up else -bulges[k]  # seen from -z, a counterclockwise bulge turns clockwise
        piece = _segment(a, b, bulge, (index, k))
        if piece.center is not None:
            limit.check(piece, bulges[k], where, label)
        pieces.append(piece)
    return pieces


def _polyline3d(entity: Any, index: int, where: str, label: str) -> list[_Piece]:
    """A 3D polyline's straight segments, z ignored as a LINE's is; a mesh is an error."""
    if not entity.is_3d_polyline:
        raise DxfError(f"{where}: {label} is a mesh (polyface or polygon), not an outline; draw the outline as a "
                       "2D polyline")
    vertices = [_xy(v.dxf.location, where, label) for v in entity.vertices if not v.dxf.flags & _FRAME]
    count = len(vertices) if entity.is_closed else len(vertices) - 1
    return [_Piece(vertices[k], vertices[(k + 1) % len(vertices)], None, True, (index, k), True)
            for k in range(count)]


@dataclass(frozen=True)
class _Curve:
    """An ELLIPSE or a SPLINE of the layer, flattened into lines by ezdxf."""

    entity: Any
    label: str
    index: int

    def samples(self, where: str) -> list[Point]:
        """Points on the curve (its ends, and more between), for the drawing's size: every one
        is on the curve, so the size they give is never more than the part's."""
        return [_xy(v, where, self.label) for v in self.entity.flattening(math.inf, _SAMPLES)]

    def lines(self, distance: float, where: str, most: int) -> list[_Piece]:
        """The curve as lines whose vertices lie on it, the chords within ``distance`` of it
        (ezdxf's adaptive flattening); more than ``most`` lines is an error."""
        if self.entity.dxftype() == "ELLIPSE":
            _up(self.entity, where, self.label)  # drawn in XY (mirrored or not: ezdxf's points are as seen)
        points = []
        for vertex in self.entity.flattening(distance, _SAMPLES):
            points.append(_xy(vertex, where, self.label))
            if len(points) > most + 1:
                raise DxfError(f"{where}: {self.label} flattens into more than {most} segments at the arc "
                               f"tolerance; a mechanism has at most {most} faces")
        return [_Piece(a, b, None, True, (self.index, k), False) for k, (a, b) in enumerate(zip(points, points[1:]))]


def _segment(a: Point, b: Point, bulge: float, key: tuple[int, int]) -> _Piece:
    """A polyline segment from ``a`` to ``b``: straight, or an arc whose bulge is the tangent of a
    quarter of its sweep, positive counterclockwise. Its centre is off the chord's midpoint,
    to the chord's left, by ``chord * (1 - bulge^2) / (4 bulge)``, computed as
    ``(1 / bulge - bulge) / 4`` so that a large bulge is not squared past the largest float."""
    if bulge == 0:
        return _Piece(a, b, None, True, key, True)
    dx, dy = b[0] - a[0], b[1] - a[1]
    offset = (1 / bulge - bulge) / 4
    center = ((a[0] + b[0]) / 2 - dy * offset, (a[1] + b[1]) / 2 + dx * offset)
    return _Piece(a, b, center, bulge > 0, key, True, 4 * math.atan(abs(bulge)))


def _up(entity: Any, where: str, label: str) -> bool:
    """True if the entity is seen from +z (extrusion +z), False from -z (mirrored); an error otherwise."""
    x, y, z = (float(v) for v in entity.dxf.get("extrusion", (0.0, 0.0, 1.0)))
    norm = math.sqrt(x * x + y * y + z * z)
    if not math.isfinite(norm) or norm == 0 or math.hypot(x, y) > _PLANAR * norm:
        raise DxfError(f"{where}: {label} is drawn in a plane other than XY (extrusion ({x:g}, {y:g}, {z:g})); "
                       "a profile is drawn in XY")
    return z > 0


def _xy(vector: Any, where: str, label: str) -> Point:
    return (_finite(vector[0], where, label), _finite(vector[1], where, label))


def _finite(value: Any, where: str, label: str) -> float:
    value = float(value)
    if not math.isfinite(value):
        raise DxfError(f"{where}: {label} has a number that is not finite ({value})")
    return value


def _chain(pieces: list[_Piece], tolerance: float, where: str) -> list[list[_Piece]]:
    """The pieces chained end to end into closed loops, each starting at its first piece (in the
    file's order) as drawn. End ``2 i`` is piece ``i``'s start, ``2 i + 1`` its end."""
    # Hand-written, not ezdxf.edgeminer: edgeminer searches a network of edges for loops (it
    # accepts junctions and chooses among branches, within a time limit, joining ends within a
    # fixed gap without snapping them), and orders and orients the loops its own way. A profile
    # needs a branch or a gap to be an error naming where it is, joined ends snapped to the
    # drawing's stated numbers, and loops in file order as drawn (the face names e0, e1, ...
    # and the dxf-cam goldens depend on it); edgeminer has none of these.
    ends = [p for piece in pieces for p in (piece.start, piece.end)]
    node = _cluster(ends, tolerance, where)
    members: dict[int, list[int]] = {}
    for end, n in enumerate(node):
        members.setdefault(n, []).append(end)
    for group in members.values():
        if len(group) > 2:
            at = _mean([ends[e] for e in group])
            raise DxfError(f"{where}: {len(group)} ends meet at {_fmt(at)}: a loop may not branch "
                           "(a line drawn twice, or one ending on another)")
    loose = [ends[group[0]] for group in members.values() if len(group) == 1]
    if loose:
        raise DxfError(f"{where}: {_gap(loose)}")
    point = {}
    for n, group in members.items():
        exact = [ends[e] for e in group if pieces[e // 2].exact]
        point[n] = _mean(exact or [ends[e] for e in group])
    partner = {}
    for a, b in members.values():
        partner[a], partner[b] = b, a
    loops, used = [], [False] * len(pieces)
    for first in sorted(range(len(pieces)), key=lambda i: pieces[i].key):
        if used[first]:
            continue
        loop, exit_end = [], 2 * first + 1
        index, forward = first, True
        while not used[index]:
            used[index] = True
            piece = pieces[index] if forward else pieces[index].reversed()
            entry_end = exit_end - 1 if forward else exit_end + 1
            loop.append(_Piece(point[node[entry_end]], point[node[exit_end]], piece.center, piece.ccw, piece.key,
                               piece.exact, piece.sweep))
            following = partner[exit_end]
            index, forward = following // 2, following % 2 == 0
            exit_end = following + 1 if forward else following - 1
        loops.append(loop)
    return loops


def _cluster(points: list[Point], tolerance: float, where: str) -> list[int]:
    """A cluster number per point: points closer than ``tolerance`` (transitively) share one.
    Points are bucketed on a grid of that step, so each is compared with its 9 neighbouring cells.
    A cell holds ends of at most 4 points more than ``tolerance`` apart, 2 ends each, unless the
    outline branches: more than 8 is a branch at once (so a hostile drawing of a thousand lines
    through one point costs no more than a valid one)."""
    parent = list(range(len(points)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    step = tolerance if tolerance > 0 else 1.0
    cells: dict[tuple[int, int], list[int]] = {}
    for i, (x, y) in enumerate(points):
        cx, cy = math.floor(x / step), math.floor(y / step)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for j in cells.get((cx + dx, cy + dy), ()):
                    if math.dist(points[i], points[j]) <= tolerance:
                        parent[root(i)] = root(j)
        cell = cells.setdefault((cx, cy), [])
        cell.append(i)
        if len(cell) > 8:
            raise DxfError(f"{where}: more than 8 ends meet at {_fmt(points[i])}: a loop may not branch "
                           "(a line drawn twice, or one ending on another)")
    return [root(i) for i in range(len(points))]


def _gap(loose: list[Point]) -> str:
    """Where the outline is open: the two nearest of its loose ends (the first such pair)."""
    if len(loose) < 2:  # not possible when every other point joins two ends
        return f"the outline is open: a chain ends at {_fmt(loose[0])}"
    from scipy.spatial import cKDTree

    distances, nearest = cKDTree(loose).query(loose, k=2)
    i = int(distances[:, 1].argmin())
    a, b = sorted((i, int(nearest[i, 1])))
    distance, a, b = math.dist(loose[a], loose[b]), loose[a], loose[b]
    more = f" ({len(loose)} loose ends in all)" if len(loose) > 2 else ""
    return (f"the outline is open: a gap of {distance:.6g} between {_fmt(a)} and {_fmt(b)}{more}; ends closer "
            "than the length tolerance join")


def _mean(points: list[Point]) -> Point:
    if all(p == points[0] for p in points):
        return points[0]
    return (sum(x for x, _ in points) / len(points), sum(y for _, y in points) / len(points))


def _fmt(point: Point) -> str:
    return f"({point[0]:.6g}, {point[1]:.6g})"

