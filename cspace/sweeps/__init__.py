"""Design sweeps: one mechanism traced at many parameter values, one result row per variant.

* :mod:`.design` lays out the variants: a full grid or a Latin hypercube;
* :mod:`.source` is where a variant's mechanism comes from: a parametric file's text, or a
  Python function of the parameters returning a :class:`~cspace.model.mechanism.Mechanism`;
* :mod:`.variant` traces one variant and makes its row (a pure function of the source and values);
* :mod:`.measures` measures the least clearance between chosen parts on the real geometry;
* :mod:`.results` streams rows to disk as they finish and writes the table in the design's order;
* :mod:`.runner` runs a sweep, serially or on Dask (:func:`cspace.sweep`);
* :mod:`.plot` draws the design map.
"""
