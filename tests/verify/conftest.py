"""Fixtures for the verifier tests live in verifykb.py, importable by a unique name."""

from adversarial import adversarial_run  # noqa: F401
from verifykb import *  # noqa: F403
