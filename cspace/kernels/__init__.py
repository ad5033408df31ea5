"""Numerical kernels: Minkowski sums, exact decompositions, contact curves, symmetry, linear
programs. Numbers and shapes in, numbers out: no mechanism.
"""
