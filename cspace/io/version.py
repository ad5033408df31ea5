"""cspace's version: setup.cfg's metadata is the one place it is written; the package and the
command line read it from the installed distribution, when asked (start-up does not pay)."""

from __future__ import annotations

NOT_INSTALLED = "unknown (not installed: pip install .)"


def installed_version() -> str:
    """The installed distribution's version, or :data:`NOT_INSTALLED` in a checkout run without
    installing it (no metadata to read).

    >>> installed_version() != ""
    True
    """
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("cspace")
    except PackageNotFoundError:
        return NOT_INSTALLED
