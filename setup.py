"""The compiled kernels (Cython); everything else about the package is in setup.cfg.

``pip install .`` (or ``-e .``) compiles them: pyproject.toml asks for Cython and numpy to
build with, and a C compiler does the rest.
"""

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

KERNELS = [Extension(f"cspace.kernels.{name}", [f"cspace/kernels/{name}.pyx"],
                     include_dirs=[numpy.get_include()],
                     define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
                     # Each sum and product rounded as Python and numpy round it: never fused.
                     extra_compile_args=["-ffp-contract=off"])
           for name in ("arc_fractions", "placements", "polylines", "propagation", "ranges", "sectors", "slack",
                        "turning_roots", "turning_tangencies")]

setup(ext_modules=cythonize(KERNELS, compiler_directives={"language_level": 3}))
