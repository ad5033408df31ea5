"""Full dynamics: a second engine that integrates the equations of motion inside the configuration-space regions."""

from .result import DynamicTrace, Stretch
from .simulate import simulate

__all__ = ["DynamicTrace", "Stretch", "simulate"]
