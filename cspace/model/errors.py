"""Exception types: one root, each also a matching built-in so callers may catch either.

Every error about a mechanism file renders as one line that names the file, the
element (part, linkage, input...) and the field, e.g.::

    feeder.toml: part 'piston': slices[0].profiles[0]: profile is open: ends at (7, 2), starts at (0, 0)
"""

from __future__ import annotations


class CspaceError(Exception):
    """Root of every error cspace raises on purpose."""


class ModelError(CspaceError, ValueError):
    """A mechanism description that is malformed or physically impossible.

    >>> str(ModelError("speed must be positive", file="m.toml", where="input 1", field="sampling"))
    'm.toml: input 1: sampling: speed must be positive'
    """

    def __init__(self, message: str, *, file: str | None = None, where: str | None = None,
                 field: str | None = None) -> None:
        self.message = message
        self.file = file
        self.where = where
        self.field = field
        super().__init__(self._render())

    def _render(self) -> str:
        head = [part for part in (self.file, self.where, self.field) if part]
        return ": ".join(head + [self.message])

    def located(self, *, file: str | None = None, where: str | None = None,
                field: str | None = None) -> ModelError:
        """The same error with missing location parts filled in (inner code knows less)."""
        return type(self)(self.message, file=self.file or file, where=self.where or where,
                          field=self.field or field)


class GeometryError(ModelError):
    """A profile or slice that is not a valid closed planar region."""


class DxfError(ModelError):
    """A profile taken from a DXF drawing that cannot be read or is not closed loops
    (see :mod:`cspace.io.dxf`); the message names the drawing and the layer."""


class ExampleError(ModelError, LookupError):
    """A name that is not one of the example mechanisms cspace ships (:mod:`cspace.io.examples`)."""


class LinkageError(ModelError):
    """A linkage that cannot assemble, meets a dead point or is ill-posed."""


class UnsupportedPairError(ModelError):
    """A pair of parts whose configuration space lies outside what cspace computes."""


class BudgetError(ModelError):
    """A mechanism whose estimated memory (:mod:`cspace.spaces.budget`) exceeds the bound it was given:
    refused before the work, naming the estimate."""


class OutputError(CspaceError, OSError):
    """An output that could not be written: the disk full, standard output closed or full.
    The environment failed, not the input (the command line exits with status 1, not 2);
    a file being replaced is left as it was (see :mod:`cspace.io.outputs`).

    >>> str(OutputError("cannot write: No space left on device", file="path.csv", errno=28))
    'path.csv: cannot write: No space left on device'
    """

    def __init__(self, message: str, *, file: str, errno: int | None = None) -> None:
        self.message = message
        self.file = file
        super().__init__(f"{file}: {message}")
        self.errno = errno  # the failed call's, as an OSError's: the command line is quiet on EPIPE


class WorkersError(CspaceError, ValueError):
    """How many processes share an analysis (``workers``; the command line's ``CSPACE_WORKERS``) is not a whole
    number of at least 1."""


class TraceError(CspaceError, RuntimeError):
    """The tracer could not continue (no progress, unbounded motion, segment cap).

    Rendered like a file error, with the parts involved and the time:

    >>> str(TraceError("nothing ever stops this motion", file="m.toml", parts=("block",), time=2.5))
    "m.toml: part 'block': at t = 2.5: nothing ever stops this motion"
    """

    def __init__(self, message: str, *, file: str | None = None, parts: tuple[str, ...] = (),
                 time: float | None = None) -> None:
        self.message = message
        self.file = file
        self.parts = tuple(parts)
        self.time = time
        super().__init__(self._render())

    def _render(self) -> str:
        head = [self.file] if self.file else []
        if self.parts:
            names = [repr(p) for p in self.parts]
            head.append(f"part {names[0]}" if len(names) == 1 else
                        f"parts {', '.join(names[:-1])} and {names[-1]}")
        if self.time is not None:
            head.append(f"at t = {self.time:.6g}")
        return ": ".join(head + [self.message])

    def located(self, *, file: str | None = None, parts: tuple[str, ...] = (),
                time: float | None = None) -> TraceError:
        """The same error with missing location parts filled in (inner code knows less)."""
        return TraceError(self.message, file=self.file or file, parts=self.parts or tuple(parts),
                          time=self.time if self.time is not None else time)
