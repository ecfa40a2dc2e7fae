"""Fixtures and hooks for the site tests live in sitekb.py, importable by a unique name."""

from sitekb import *  # noqa: F403
