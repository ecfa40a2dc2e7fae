"""The frame readers' walk (`observer._reader_modules`): taken once in a zygote, reused by a check only while the
module table is the one walked."""

from __future__ import annotations

import sys
import types

from errorkb.verify.inside import child, observer


def test_a_reader_loaded_after_the_walk_is_found_and_one_removed_is_gone():
    stdlib, _ = child.python_roots()
    first = observer._reader_modules(stdlib)
    assert observer._reader_modules(stdlib) == first  # the table unchanged: the same readers
    planted = types.ModuleType("errorkb_test_reader")
    planted.__file__ = stdlib[0] + "errorkb_test_reader/warnings.py"  # a frame reader's file, under the stdlib
    sys.modules["errorkb_test_reader"] = planted
    try:
        assert planted in observer._reader_modules(stdlib)  # the table was written since the walk: walked again
    finally:
        del sys.modules["errorkb_test_reader"]
    assert planted not in observer._reader_modules(stdlib)
    assert observer._reader_modules(stdlib) == first
