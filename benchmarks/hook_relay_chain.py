"""What does the explainer spend on a chain of errors that each relay the same words?

A program's handler that relays an error in its own `raise` with the same words (`raise ValueError(str(error)) from
None`), nested or looped, builds a chain whose every error repeats them. The explainer reads each relayed error alone
again (`explain._relayed`, round twelve), and each reading formats the chain below it: quadratic, and a chain of
1,000 such errors of 8 KB took 25 s of CPU, past the explainer's deadline (no block, the exit held up 5 s). Round
thirteen reads at most the lookup's `rules.RELAYS` of them, from the last, as the lookup reads a printed chain's.
Side by side, per chain length: `describe` with every relay read (the bound lifted, as before) and now, CPU seconds,
the fastest of a few runs each, and their ratio.

    .venv/bin/python benchmarks/hook_relay_chain.py [--lengths 50 200 400] [--size 8000] [--runs 3]
"""

from __future__ import annotations

import argparse
import time
import types
from collections.abc import Callable


def relay_chain(length: int, size: int) -> BaseException:
    error: BaseException | None = None
    for _ in range(length):
        try:
            try:
                raise error or ValueError("w" * size)
            except ValueError as caught:
                raise ValueError(str(caught)) from None
        except ValueError as relay:
            error = relay
    assert error is not None
    return error


def fastest(runs: int, read: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        started = time.process_time()
        read()
        times.append(time.process_time() - started)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[50, 200, 400])
    parser.add_argument("--size", type=int, default=8000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from errorkb.hook import explain

    explain.describe(ValueError("warm up: the indexes loaded"))
    bounded = explain.rules
    unbounded = types.SimpleNamespace(RELAYS=explain.MAX_CHAIN)
    print(f"describe of a chain of relays of {args.size} characters, fastest of {args.runs}; CPU s "
          f"(the explainer's deadline: {explain.DEADLINE_S:g} s of the clock)")
    print(f"  {'length':>7} {'every relay':>12} {'now':>8} {'ratio':>7}")
    for length in args.lengths:
        error = relay_chain(length, args.size)
        try:
            explain.rules = unbounded  # type: ignore[assignment]
            every = fastest(args.runs, lambda error=error: explain.describe(error))
        finally:
            explain.rules = bounded
        now = fastest(args.runs, lambda error=error: explain.describe(error))
        print(f"  {length:>7} {every:>12.3f} {now:>8.3f} {now / every:>7.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
