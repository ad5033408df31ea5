"""A mechanism file's ``[parameters]``: names with default values and optional bounds.

::

    [parameters]
    crank = 3                                  # a default
    link = { default = 8, min = 6, max = 12 }  # a default and bounds (either may be left out)

Any number elsewhere in the file may then be an expression string of them
(:mod:`cspace.model.expressions`). A variant's values are the defaults with some set
(``cspace trace FILE --set crank=2.5``); :func:`values` checks the names and bounds.
"""

from __future__ import annotations

import difflib
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..model.errors import ModelError
from ..model.expressions import CONSTANTS, FUNCTIONS
from ..model.limits import NAME

WHERE = "parameters"


@dataclass(frozen=True)
class Parameter:
    """A declared parameter: its default and its bounds (``None``: unbounded that way).

    >>> Parameter("crank", 3.0, 2.0, None)
    Parameter('crank', default=3, min=2)
    """

    name: str
    default: float
    low: float | None = None
    high: float | None = None

    def __repr__(self) -> str:
        bounds = "".join(f", {key}={value:g}" for key, value in (("min", self.low), ("max", self.high))
                         if value is not None)
        return f"Parameter({self.name!r}, default={self.default:g}{bounds})"

    def check(self, value: float, how: str) -> float:
        """``value`` if it is a finite number within the bounds, else ModelError naming ``how`` it was given."""
        if not math.isfinite(value):
            raise ModelError(f"{how}: expected a finite number, got {value}", where=WHERE, field=self.name)
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            low = "-inf" if self.low is None else f"{self.low:g}"
            high = "inf" if self.high is None else f"{self.high:g}"
            raise ModelError(f"{how}: {value:g} is outside the bounds [{low}, {high}]", where=WHERE, field=self.name)
        return float(value)


def declared(data: Mapping[str, Any]) -> dict[str, Parameter]:
    """The parameters a parsed file declares, in the file's order.

    >>> declared({"parameters": {"crank": 3, "link": {"default": 8, "min": 6}}})
    {'crank': Parameter('crank', default=3), 'link': Parameter('link', default=8, min=6)}
    """
    table = data.get(WHERE, {})
    if not isinstance(table, dict):
        raise ModelError("expected a table [parameters] of name = default", field=WHERE)
    result = {}
    for name, entry in table.items():
        if not NAME.fullmatch(name) or not name.isidentifier() or name in CONSTANTS or name in FUNCTIONS:
            raise ModelError(f"{name!r} cannot name a parameter: use letters, digits and _ (not a constant "
                             "or function name such as pi or sin)", where=WHERE, field=name)
        if isinstance(entry, dict):
            unknown = [key for key in entry if key not in ("default", "min", "max")]
            if unknown:
                raise ModelError(f"unknown field {unknown[0]!r}; allowed: default, min, max", where=WHERE, field=name)
            if "default" not in entry:
                raise ModelError("missing: the default value", where=WHERE, field=f"{name}.default")
            low, high = (_number(entry.get(key), f"{name}.{key}", optional=True) for key in ("min", "max"))
            if low is not None and high is not None and low > high:
                raise ModelError(f"min {low:g} is above max {high:g}", where=WHERE, field=name)
            parameter = Parameter(name, _number(entry["default"], f"{name}.default"), low, high)
        else:
            parameter = Parameter(name, _number(entry, name))
        parameter.check(parameter.default, "the default")
        result[name] = parameter
    return result


def values(parameters: Mapping[str, Parameter], given: Mapping[str, float] | None = None) -> dict[str, float]:
    """The defaults with ``given`` values set; an unknown name or a value out of bounds is a ModelError.

    >>> values({"crank": Parameter("crank", 3.0)}, {"crank": 2.5})
    {'crank': 2.5}
    >>> values({"crank": Parameter("crank", 3.0)}, {"crnk": 2.5})
    Traceback (most recent call last):
    ...
    cspace.model.errors.ModelError: parameters: crnk: unknown parameter 'crnk' (did you mean 'crank'?)
    """
    result = {name: parameter.default for name, parameter in parameters.items()}
    for name, value in (given or {}).items():
        if name not in parameters:
            close = difflib.get_close_matches(name, list(parameters), n=1)
            hint = (f" (did you mean {close[0]!r}?)" if close else
                    f"; the parameters are {', '.join(parameters)}" if parameters else
                    "; the file declares no [parameters]")
            raise ModelError(f"unknown parameter {name!r}{hint}", where=WHERE, field=name)
        result[name] = parameters[name].check(float(value), "set")
    return result


def of_text(text: str, source: str = "<string>") -> dict[str, Parameter]:
    """The parameters a mechanism file's text declares (the file is not otherwise read)."""
    try:
        return declared(tomllib.loads(text.removeprefix("\ufeff")))
    except tomllib.TOMLDecodeError as error:
        raise ModelError(f"invalid TOML: {error}", file=source) from None
    except ModelError as error:
        raise error.located(file=source) from None


def _number(value: Any, field: str, optional: bool = False) -> float | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ModelError(f"expected a number, got {value!r}", where=WHERE, field=field)
    return float(value)
