"""kvcache test settings: how many generated cases the property suite runs.

Default (CI): a bounded run. ``HYPOTHESIS_PROFILE=slow`` (or ``--slow`` when the top-level
conftest defines that option) runs the long one; ``KVCACHE_EXAMPLES=N`` overrides the count.
"""

from __future__ import annotations

import os

from tests.kvcache import kvcache_support


def pytest_configure(config):
    slow = os.environ.get("HYPOTHESIS_PROFILE", "").lower() == "slow"
    try:
        slow = slow or bool(config.getoption("slow"))
    except ValueError:  # no --slow option registered at the top level
        pass
    kvcache_support.SLOW = slow
