"""The hook under attack, round six, in real interpreters with the hook on: exception groups and `except*`.
"""

from __future__ import annotations

import pytest

from tests.test_hook import HEAD_DIM, TITLE, envs, run, stub_library  # noqa: F401 (a fixture)
from tests.test_hook_round_five import BLOCK, LIBRARY, _compare

# An exception group that ends the program, the entry's error one of its members but not the last one Python prints:
# the lookup reads the printed group as a paste, whose last box is "the error it ended with", so main's block was a
# candidate ("found earlier in the paste, not in the error it ended with"). Each member of the group is an error the
# program ended with, and the live group says which: the member raised by the library confirms.
GROUPS = {
    "member-first": ("try:\n    early_initialization()\nexcept Exception as error:\n"
                     "    raise ExceptionGroup('several', [error, KeyError('unrelated')])\n"),
    "nested-first": ("try:\n    early_initialization()\nexcept Exception as error:\n"
                     "    raise ExceptionGroup('outer', [ExceptionGroup('inner', [error]), ValueError('x')])\n"),
    "except-star": ("try:\n    raise ExceptionGroup('g', [ValueError('a'), TypeError('b')])\n"
                    "except* TypeError:\n    early_initialization()\n"),
    "task-group": ("import asyncio\nasync def fails():\n    early_initialization()\nasync def other():\n"
                   "    raise KeyError('unrelated')\nasync def main():\n    async with asyncio.TaskGroup() as group:\n"
                   "        group.create_task(fails())\n        group.create_task(other())\nasyncio.run(main())\n"),
}


@pytest.mark.parametrize("case", list(GROUPS))
def test_an_exception_group_whose_member_is_the_entrys_error_is_named(envs, tmp_path, case):  # noqa: F811
    plain, hooked = envs
    code = stub_library(tmp_path) + LIBRARY + GROUPS[case]
    with_hook, without = run(hooked, code, tmp_path), run(plain, code, tmp_path)
    added = _compare(with_hook, without)
    assert added.startswith(BLOCK) and added.count("errorkb:") == 1 and TITLE in added, with_hook.stderr


def test_a_group_of_unrelated_errors_beside_a_message_alike_stays_unconfirmed(envs, tmp_path):  # noqa: F811
    """The members are read by the same matcher, one by one: a member that only repeats the entry's words, raised by
    the program itself (no frame of the library), confirms nothing, whichever box it stands in."""
    plain, hooked = envs
    code = stub_library(tmp_path) + (
        f"def own():\n    raise ValueError({HEAD_DIM!r})\ntry:\n    own()\nexcept Exception as error:\n"
        "    raise ExceptionGroup('several', [error, KeyError('unrelated')])\n")
    with_hook, without = run(hooked, code, tmp_path), run(plain, code, tmp_path)
    assert "errorkb: a documented error" not in _compare(with_hook, without), with_hook.stderr
