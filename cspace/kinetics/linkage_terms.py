"""A linkage's share of the equations of motion, as smooth functions of its input, tabulated
once and evaluated spectrally.

The parts a one-degree-of-freedom linkage moves (its members and its output's part) put into the
equations only functions of the input ``x``: their reduced mass ``m(x) = sum m |c'|^2 + I phi'^2``
and its derivative, the generalized force of gravity on them and its potential, and the output
``y(x)`` with two derivatives. They are sampled where the joints are solved exactly
(:class:`~cspace.kinetics.linkage_motion.LinkageMotion`) and interpolated: by a Fourier series
over a turn of a freely turning input, by Chebyshev polynomials over a bounded input's range.
Both converge geometrically for the analytic functions a linkage away from its dead points
makes; the table is doubled until its series' tail is below ``TAIL`` of the functions' size,
so the derivatives are as smooth as the functions (a linear table made M' jump at every node).
"""

from __future__ import annotations

import math

import numpy as np

from ..model.mechanism import Mechanism
from .linkage_motion import LinkageMotion

FIRST = 64  # samples of the first table
MOST = 4096  # samples at most: a linkage needing more is followed exactly
FIRST_STEP = 2 * MOST  # the Fourier nodes are multiples of a turn over this: exact doubling
TAIL = 1e-14  # the last quarter of the series below this, relative to the functions' size: converged
NAMES = ("mass", "dmass", "force", "potential", "output", "doutput", "ddoutput")


class LinkageTerms:
    """The tabulated terms of one linkage.

    >>> from cspace import load
    >>> mechanism = load("fixtures/kramer-four-bar.toml")
    >>> terms = LinkageTerms.of(mechanism, mechanism.linkages[0])
    >>> terms
    LinkageTerms('four-bar', fourier, samples=128)
    >>> exact = terms.exact(0.7)
    >>> float(np.abs(terms.at(0.7) - exact).max() / np.abs(exact).max()) < 1e-12
    True
    """

    def __init__(self, mechanism: Mechanism, motion: LinkageMotion, samples: int, coefficients: np.ndarray,
                 kind: str, span: tuple[float, float], winding: float) -> None:
        self.mechanism = mechanism
        self.motion = motion
        self.samples = samples
        self.coefficients = coefficients
        self.kind = kind
        self.span = span
        self.winding = winding  # the output's whole-turn growth per unit input (a periodic input)
        self._k = np.arange(coefficients.shape[1] // 2 + 1) if kind == "fourier" else None
        self._last: tuple[float, np.ndarray] | None = None  # the equations ask several times at one input
        self._solved: dict[float, np.ndarray] = {}  # exact samples, kept while the table doubles

    @classmethod
    def of(cls, mechanism: Mechanism, linkage) -> LinkageTerms | None:
        """The linkage's table, or None when its functions need more than ``MOST`` samples."""
        motion = LinkageMotion(mechanism, linkage)
        driver = mechanism.coordinate(linkage.input)
        periodic = driver.periodic
        span = (driver.initial - math.pi, driver.initial + math.pi) if periodic else driver.limits
        winding = 0.0
        if periodic:
            winding = (motion.jet(span[0] + 2 * math.pi).output[0] - motion.jet(span[0]).output[0]) / (2 * math.pi)
        samples = FIRST
        probe = cls(mechanism, motion, 0, np.zeros((len(NAMES), 1)), "fourier" if periodic else "chebyshev", span,
                    winding)
        while samples <= MOST:
            coefficients = probe._fit(samples)
            scale = np.abs(coefficients).max(axis=1, keepdims=True)
            scale[scale == 0] = 1.0
            tail = np.abs(coefficients[:, -max(2, coefficients.shape[1] // 4):]) / scale
            if tail.max() <= TAIL:
                table = cls(mechanism, motion, samples, coefficients, probe.kind, span, winding)
                table._solved = probe._solved
                return table
            samples *= 2
        return None

    def exact(self, x: float) -> np.ndarray:
        """The terms at ``x`` from the exact joint solution (what the table interpolates)."""
        if x not in self._solved:
            self._solved[x] = self._exact(x)
        return self._solved[x]

    def _exact(self, x: float) -> np.ndarray:
        jet = self.motion.jet(x)
        mass = dmass = force = potential = 0.0
        gravity = np.asarray(self.mechanism.dynamics.gravity, float)
        for name in self.motion.parts:
            part = self.mechanism.part(name)
            if part.mass is None or name == self.mechanism.coordinate(self.motion.linkage.input).part:
                continue
            c, dc, ddc = (np.reshape(v, 2) for v in self.motion.point_jet(name, part.mass.centre, x))
            _, da, dda = self.motion.angle_jet(name, x)
            m, inertia = part.mass.mass, part.mass.inertia
            mass += m * float(dc @ dc) + inertia * da * da
            dmass += 2 * (m * float(dc @ ddc) + inertia * da * dda)
            force += m * float(gravity @ dc)
            potential -= m * float(gravity @ c)
        y, dy, ddy = jet.output
        return np.array([mass, dmass, force, potential, y - self.winding * x, dy, ddy])

    def at(self, x: float) -> np.ndarray:
        """The terms at ``x``: reduced mass, its derivative, gravity's generalized force, its
        potential, and the output with its two derivatives (a read-only array)."""
        if self._last is not None and self._last[0] == x:
            return self._last[1]
        if self.kind == "fourier":
            phase = (x - self.span[0]) * self._k
            basis = np.concatenate([np.cos(phase), np.sin(phase[1:-1])])
        else:
            lo, hi = self.span
            basis = np.polynomial.chebyshev.chebvander(np.array([(2 * x - lo - hi) / (hi - lo)]),
                                                       self.coefficients.shape[1] - 1)[0]
        values = self.coefficients @ basis
        values[4] += self.winding * x
        values.flags.writeable = False
        self._last = (x, values)
        return values

    def _fit(self, samples: int) -> np.ndarray:
        lo, hi = self.span
        if self.kind == "fourier":  # the nodes of a table double those of the half one: solved once
            xs = lo + (hi - lo) * (np.arange(samples) * (FIRST_STEP // samples)) / FIRST_STEP
            values = np.array([self.exact(x) for x in xs])
            spectrum = np.fft.rfft(values, axis=0) / samples
            cosines = 2 * spectrum.real
            cosines[0] /= 2
            cosines[-1] /= 2
            sines = -2 * spectrum.imag[1:-1]
            return np.concatenate([cosines, sines]).T
        nodes = np.cos(np.pi * (np.arange(samples) + 0.5) / samples)
        values = np.array([self.exact((lo + hi) / 2 + (hi - lo) / 2 * t) for t in nodes])
        return np.polynomial.chebyshev.chebfit(nodes, values, samples - 1).T

    def __repr__(self) -> str:
        return f"LinkageTerms({self.motion.linkage.name!r}, {self.kind}, samples={self.samples})"
