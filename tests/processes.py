"""Starting programs from the suite as a user at a terminal would: the one owner of a child's SIGINT disposition, which
the hook's rounds (tests/hookrun.py, tests/test_hook.py) and the adversarial harness (tests/verify/adversarial.py) share.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys

# SIGINT as a program at a terminal has it: Python makes it a KeyboardInterrupt only where the process did not inherit
# it ignored, and a shell without job control starts a job it puts in the background (`bash .ci/run > log &`, `nohup
# ... &`) with SIGINT ignored, which pytest, its workers and each program they start inherit. Session 60: round
# fourteen's asyncio test failed in CI alone ("went on": the block written, the SIGINT it raised ignored), read as
# load. So the hook's runners (tests/hookrun.py, `tests.test_hook.run`) and the adversarial harness's CLI start each
# program with SIGINT's default where this process ignores it (`sigint_parent`), and `sigint_ignored=True` starts one
# that inherits it ignored.
_EXEC_WITH_SIGINT = ("import os, signal, sys\nsignal.signal(signal.SIGINT, signal.{})\n"
                     "os.execv(sys.argv[1], sys.argv[1:])\n")  # exec keeps an ignored or default signal so (POSIX)


def sigint_parent(sigint_ignored: bool) -> list[str]:
    """The command that starts a program through a parent setting SIGINT's disposition, or none where this process's
    is what the program is to inherit (a suite at a terminal pays nothing). GNU env (coreutils 8.31 on: `_ENV`) where
    it can, else an interpreter: `python -c pass` started 30 times each way, alternated (session 61), took 33 ms,
    through env no more (0.93 times), through an interpreter 1.41 times."""
    if sigint_ignored == (signal.getsignal(signal.SIGINT) is signal.SIG_IGN):
        return []
    if _ENV is not None:
        return [_ENV, "--ignore-signal=INT" if sigint_ignored else "--default-signal=INT"]
    return [sys.executable, "-I", "-S", "-c", _EXEC_WITH_SIGINT.format("SIG_IGN" if sigint_ignored else "SIG_DFL")]


def _env() -> str | None:
    """GNU env's path where it sets a signal's disposition (`--default-signal`), else None."""
    env = shutil.which("env")
    if env is None:
        return None
    done = subprocess.run([env, "--default-signal=INT", "--ignore-signal=INT", "true"], capture_output=True)
    return env if done.returncode == 0 else None


_ENV = _env()
