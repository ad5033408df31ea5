"""Contacts as complementarity problems over the tight rows of a region.

A tight row ``r`` of the region the mechanism is in has slack ``s_r = h_r - G_r q``, and its
gradient in the free coordinates is ``n_r = -G_r dq``. Pressing on it, a contact pushes along
``n_r`` with a multiplier ``lambda_r >= 0`` that only acts while the slack stays at zero. With
``A = N M^-1 N^T`` (symmetric, semidefinite) both an impact and resting contact are the linear
complementarity problem ``w = A x + b >= 0, x >= 0, x . w = 0``:

* an impact (Newton's restitution ``e``): ``x`` the impulses, ``w`` the rows' rates after it
  plus ``e`` times their approach rates before;
* resting contact: ``x`` the contact forces, ``w`` the rows' slack accelerations.

It is the quadratic program ``min 1/2 x^T A x + b^T x, x >= 0``, solved exactly as a
non-negative least-squares problem (:func:`scipy.optimize.nnls`) on a square root of ``A``.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.optimize import nnls

from ..model.errors import TraceError

ENUMERATED = 8  # rows up to which the complementarity problem is solved by its active sets


class Blocked(TraceError):
    """No contact force can keep the rows: a driven coordinate pushes into a contact that only
    it could move out of (an input blocked)."""


def complementarity(A: np.ndarray, b: np.ndarray, tolerance: float) -> np.ndarray:
    """The ``x >= 0`` with ``w = A x + b >= 0`` and ``x . w = 0`` (``A`` symmetric semidefinite),
    ``w`` to within ``tolerance`` (rows alike but for their rounding, two flattened facets of one
    curve, ask for rates a little apart), or :class:`Blocked` when there is none.

    A few rows (every contact of an impact, of a resting stretch) are solved exactly by their
    active sets, smallest first: the rows pressed solve ``A_SS x_S = -b_S`` (least squares, so
    alike rows share nothing wrongly) and the others must come out apart. Many rows go to NNLS
    on a square root of ``A``.

    >>> complementarity(np.array([[2.0]]), np.array([-4.0]), 1.0)
    array([2.])
    >>> complementarity(np.array([[2.0]]), np.array([3.0]), 1.0)
    array([0.])
    >>> N = np.array([[0.99992234], [0.99978451]])  # two facets of one curve, one coordinate
    >>> complementarity(N @ N.T / 0.5, np.array([-1.49010472e-08, -9.95825089e-02]), 1e-8).round(4)
    array([0.    , 0.0498])
    """
    count = len(b)
    if not count:
        return np.zeros(0)
    if count <= ENUMERATED:
        for size in range(count + 1):
            for chosen in itertools.combinations(range(count), size):
                x = np.zeros(count)
                if chosen:
                    rows = list(chosen)
                    x[rows] = np.linalg.lstsq(A[np.ix_(rows, rows)], -b[rows], rcond=None)[0]
                w = A @ x + b
                if (x >= -tolerance).all() and (w >= -tolerance).all():
                    return np.maximum(x, 0.0)
        raise Blocked("the contacts cannot hold: a driven coordinate presses into a contact")
    values, vectors = np.linalg.eigh((A + A.T) / 2)
    floor = max(values.max(initial=0.0), 1.0) * 1e-13
    keep = values > floor
    root = np.sqrt(values[keep])[:, None] * vectors[:, keep].T  # A = root^T root
    d = -(vectors[:, keep].T @ b) / np.sqrt(values[keep])  # root^T d = -b, where b is in A's range
    x, _ = nnls(root, d) if len(d) else (np.zeros(len(b)), 0.0)
    if (A @ x + b < -tolerance).any():
        raise Blocked("the contacts cannot hold: a driven coordinate presses into a contact")
    return x
