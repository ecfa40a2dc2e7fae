"""The hook under attack (issue 19, round fifteen), in real interpreters with the hook on: what the user's
own code writes or forges is never confirmed as a documented error, and Python's own output and exit status
stay as they are.

- The user's script raising an entry's words itself (`raise AttributeError("'DynamicCache' object has no
  attribute 'key_cache'")`) names nothing: the raising frame is a `raise` in the user's own file.
- Code compiled under the installed library's file name (`compile(source, <library file>, "exec")`, `exec`) prints
  frames that read as the library's: the hook, which holds the live frames, reads such a frame as `<string>`
  (its code runs in globals whose `__file__` is another file), so it ties nothing to the entry.
"""

from __future__ import annotations

import pytest

from errorkb.hook.explain import describe, text_of
from tests.test_hook import HEAD_DIM, TITLE, envs, library_raise, run  # noqa: F401 (a fixture)

OWN_RAISE = "raise AttributeError(\"'DynamicCache' object has no attribute 'key_cache'\")\n"
FORGED = f"""\
import transformers.cache_utils as library
source = "def early_initialization():\\n    raise ValueError({HEAD_DIM!r})\\nearly_initialization()\\n"
exec(compile(source, library.__file__, "exec"))
"""


@pytest.mark.parametrize("code", [OWN_RAISE, FORGED], ids=["own-raise", "forged-frame"])
def test_the_users_own_words_or_forged_frames_confirm_nothing(envs, tmp_path, code):  # noqa: F811
    plain, hooked = envs
    with_hook, without = run(hooked, code, tmp_path), run(plain, code, tmp_path)
    assert with_hook.returncode == without.returncode == 1
    assert "errorkb: a documented error" not in with_hook.stderr, with_hook.stderr
    assert with_hook.stderr.startswith(without.stderr)


def test_a_forged_frame_reads_as_a_string_and_a_real_one_as_its_file(tmp_path):
    import transformers.cache_utils as library

    found: dict = {}
    source = f"def early_initialization():\n    raise ValueError({HEAD_DIM!r})\nearly_initialization()\n"
    with pytest.raises(ValueError) as forged:
        exec(compile(source, library.__file__, "exec"), found)
    assert f'File "{library.__file__}"' not in text_of(forged.value)
    assert 'File "<string>", line 2, in early_initialization' in text_of(forged.value)
    assert describe(forged.value) is None or TITLE not in describe(forged.value)
    exec(library_raise(tmp_path), found)  # a real module's file: its frame is its own
    with pytest.raises(ValueError) as real:
        found["early_initialization"]()
    assert TITLE in (describe(real.value) or "")
