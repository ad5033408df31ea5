"""Packaging (issue 27): the version."""

from __future__ import annotations

import configparser
import importlib.metadata

import pytest

import cspace
from cspace.cli import main

from .common import ROOT

SETUP = configparser.ConfigParser()
SETUP.read(ROOT / "setup.cfg")


def test_the_version_is_the_metadatas_everywhere(capsys):
    """setup.cfg is where the version is written; the installed metadata, cspace.__version__
    and cspace --version all say it."""
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    out = capsys.readouterr()
    assert (done.value.code, out.err) == (0, "")
    assert out.out == f"cspace {cspace.__version__}\n"
    assert cspace.__version__ == importlib.metadata.version("cspace") == SETUP["metadata"]["version"]
