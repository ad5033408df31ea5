"""Where a sweep's variants come from: a parametric mechanism file, or a Python function.

A file's variant is its text loaded with the parameter values set (:func:`cspace.loads`); a
function's is the function called with them as keyword arguments. A function is the way in
for geometry a file cannot express: the fixtures' generators (``tools/make_gears.py``,
``tools/make_rim_lock.py``, ...) compute a mechanism's numbers in Python and write TOML, so
a function of the design's parameters that builds that text and returns
``cspace.loads(text)`` sweeps them::

    def gears(backlash: float) -> cspace.Mechanism:
        return cspace.loads(make_gears.mechanism(make_gears.Pair(12, 18, backlash=backlash)))

    cspace.sweep(gears, {"backlash": [0.05, 0.1, 0.2]})

The function must be importable where the variants run (a module's top-level function, for
a Dask cluster's workers), and deterministic: its variants' ids hash its source code.
"""

from __future__ import annotations

import hashlib
import inspect
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..io.loader import loads, read_text
from ..io.parameters import of_text
from ..model.errors import CspaceError
from ..model.mechanism import Mechanism


class SourceError(CspaceError, TypeError):
    """A sweep given something that is neither a mechanism file nor a function returning a Mechanism."""


@dataclass(frozen=True)
class FileSource:
    """A parametric mechanism file's text (``path`` names it in errors and locates its DXF drawings).

    >>> FileSource.read("fixtures/sweeps/feeder.toml").parameters()
    ['crank', 'link']
    """

    text: str
    path: str = "<string>"
    digest: str = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "digest", hashlib.sha256(self.text.encode()).hexdigest())

    def __repr__(self) -> str:
        return f"FileSource({self.path!r}, {self.digest[:12]})"

    @classmethod
    def read(cls, path: str | os.PathLike) -> FileSource:
        return cls(read_text(path), str(path))

    def parameters(self) -> list[str]:
        """The names the file declares in ``[parameters]``."""
        return list(of_text(self.text, self.path))

    def mechanism(self, values: Mapping[str, float]) -> Mechanism:
        return loads(self.text, source=self.path, default_name=Path(self.path).stem, parameters=values)


@dataclass(frozen=True)
class FunctionSource:
    """A Python function of the parameters (keyword arguments) returning a Mechanism."""

    function: Callable[..., Mechanism]
    digest: str = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not callable(self.function):
            raise SourceError(f"a sweep takes a mechanism file or a function returning a Mechanism, "
                              f"got {type(self.function).__name__}")
        try:
            code = inspect.getsource(self.function)
        except (OSError, TypeError):
            code = ""
        name = f"{getattr(self.function, '__module__', '')}.{getattr(self.function, '__qualname__', '')}"
        object.__setattr__(self, "digest", hashlib.sha256(f"{name}\n{code}".encode()).hexdigest())

    def __repr__(self) -> str:
        return f"FunctionSource({getattr(self.function, '__qualname__', self.function)!r}, {self.digest[:12]})"

    @property
    def path(self) -> str:
        return getattr(self.function, "__qualname__", "function")

    def parameters(self) -> list[str]:
        """The function's parameter names."""
        try:
            return list(inspect.signature(self.function).parameters)
        except (TypeError, ValueError):
            return []

    def mechanism(self, values: Mapping[str, float]) -> Mechanism:
        result = self.function(**values)
        if not isinstance(result, Mechanism):
            raise SourceError(f"{self.path} returned {type(result).__name__}, not a Mechanism")
        return result


Source = FileSource | FunctionSource


def source_of(mechanism: str | os.PathLike | Callable[..., Mechanism] | Source) -> Source:
    """A sweep's source: a file's path, a function, or a source already."""
    if isinstance(mechanism, (FileSource, FunctionSource)):
        return mechanism
    if isinstance(mechanism, (str, os.PathLike)):
        return FileSource.read(mechanism)
    return FunctionSource(mechanism)
