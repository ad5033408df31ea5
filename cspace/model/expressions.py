"""Arithmetic expressions of a mechanism's parameters, evaluated safely.

A number in a mechanism file may be written as an expression string of the file's
``[parameters]``: ``"2 * crank + 1"``, ``"sqrt(link^2 - 1)"``, ``"atan2(h, w)"``. The text is
parsed with :mod:`ast` and only numbers, parameter names, the constants ``pi``, ``tau`` and ``e``,
``+ - * / ^ **``, unary minus and plus, parentheses and calls of the functions in
:data:`FUNCTIONS` are accepted; nothing is ever passed to ``eval``. Every value is a float
(so ``10 ** 10 ** 10`` overflows at once rather than computing a huge integer).

>>> evaluate("sqrt(link^2 - 1)", {"link": 2.0})
1.7320508075688772
>>> evaluate("2 * crank + 1", {"crank": 3})
7.0
"""

from __future__ import annotations

import ast
import difflib
import math
from collections.abc import Callable, Mapping

FUNCTIONS: dict[str, Callable[..., float]] = {
    "sqrt": math.sqrt, "sin": math.sin, "cos": math.cos, "tan": math.tan, "asin": math.asin,
    "acos": math.acos, "atan": math.atan, "atan2": math.atan2, "hypot": math.hypot, "exp": math.exp,
    "log": math.log, "abs": abs, "min": min, "max": max, "radians": math.radians, "degrees": math.degrees,
    "floor": math.floor, "ceil": math.ceil,
}
CONSTANTS: dict[str, float] = {"pi": math.pi, "tau": math.tau, "e": math.e}
MAX_LENGTH = 1000  # characters: an expression is a formula, not a program

_BINARY: dict[type, Callable[[float, float], float]] = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b, ast.Pow: lambda a, b: a ** b, ast.Mod: math.fmod,
}


class ExpressionError(ValueError):
    """An expression that does not parse, names an unknown parameter or cannot be evaluated;
    the message says which, and the loader adds the file and field."""


def evaluate(text: str, names: Mapping[str, float]) -> float:
    """The value of ``text`` with ``names`` (parameter values) and :data:`CONSTANTS` bound.

    >>> evaluate("pi / 2", {})
    1.5707963267948966
    >>> evaluate("crnk + 1", {"crank": 1})
    Traceback (most recent call last):
    ...
    cspace.model.expressions.ExpressionError: unknown name 'crnk' (did you mean 'crank'?)
    """
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"longer than {MAX_LENGTH} characters")
    try:
        tree = ast.parse(text.replace("^", "**").strip(), mode="eval")
    except SyntaxError:
        raise ExpressionError("not an arithmetic expression") from None
    except (RecursionError, MemoryError):
        raise ExpressionError("nested too deeply") from None
    try:
        value = _value(tree.body, names)
    except ZeroDivisionError:
        raise ExpressionError("division by zero") from None
    except OverflowError:
        raise ExpressionError("the value is out of range") from None
    except RecursionError:
        raise ExpressionError("nested too deeply") from None
    except (ValueError, TypeError) as error:
        if isinstance(error, ExpressionError):
            raise
        raise ExpressionError(f"cannot be evaluated: {error}") from None
    if isinstance(value, complex) or not math.isfinite(value):
        raise ExpressionError(f"the value is not a finite real number ({value})")
    return float(value)


def _value(node: ast.AST, names: Mapping[str, float]) -> float:
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise ExpressionError(f"{node.value!r} is not a number")
        return float(node.value)
    if isinstance(node, ast.Name):
        return _name(node.id, names)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = _value(node.operand, names)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_value(node.left, names), _value(node.right, names))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        function = FUNCTIONS.get(node.func.id)
        if function is None:
            raise ExpressionError(f"unknown function {node.func.id!r}{_hint(node.func.id, FUNCTIONS)}; "
                                  f"the functions are {', '.join(FUNCTIONS)}")
        return float(function(*(_value(argument, names) for argument in node.args)))
    raise ExpressionError(f"{ast.unparse(node)!r} is not allowed: only numbers, parameters, + - * / ^ "
                          "and calls of the listed functions")


def _name(name: str, names: Mapping[str, float]) -> float:
    if name in names:
        return float(names[name])
    if name in CONSTANTS:
        return CONSTANTS[name]
    if name in FUNCTIONS:
        raise ExpressionError(f"{name!r} is a function: call it, e.g. {name}(x)")
    raise ExpressionError(f"unknown name {name!r}{_hint(name, [*names, *CONSTANTS])}")


def _hint(name: str, known) -> str:
    close = difflib.get_close_matches(name, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""
