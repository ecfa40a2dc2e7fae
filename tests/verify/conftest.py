"""Fixtures for the verifier tests live in verifykb.py, importable by a unique name."""

from verifykb import *  # noqa: F403
