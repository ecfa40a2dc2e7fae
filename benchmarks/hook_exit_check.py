"""What does round nine's exit check (a `sys.excepthook` the program set: the block at exit) cost, and what would the
road not taken (an audit hook) have cost?

1. The `.pth` line at start-up, main's line (`git show REV:errorkb/hook/__init__.py`) and this checkout's side by
   side, each timed in process as site.py runs it (`hook_startup.pth_cost_us`), interleaved: µs per start and the
   ratio. The new line imports `atexit` (built in) and registers one function.
2. That function at a program's exit without an error (`sys.last_value` unset): µs per exit.
3. An audit hook (`sys.addaudithook`), which would see the very moment Python calls `sys.excepthook`: every audited
   event of the process, for its whole life, calls a Python function (it can never be removed). The same work
   without and with a hook that does nothing but compare the event's name, side by side: ns and ratios.

    .venv/bin/python benchmarks/hook_exit_check.py [--rev main] [--rounds 3]
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.hook_startup import pth_cost_us  # noqa: E402
from errorkb.hook import EXCEPTHOOK, GUARD, HOME, PTH_LINE  # noqa: E402


def line_at(rev: str) -> str:
    """The `.pth` line `errorkb hook install` wrote at `rev` (its `EXCEPTHOOK`, read, never run)."""
    source = subprocess.run(["git", "show", f"{rev}:errorkb/hook/__init__.py"], cwd=ROOT, capture_output=True,
                            text=True, check=True, timeout=60).stdout
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(getattr(one, "id", "") == "EXCEPTHOOK" for one in node.targets):
            return (f"import sys; exec({ast.literal_eval(node.value)!r}, {{'sys': sys, '_errorkb_home': {HOME!r}, "
                    f"'_errorkb_guard': {GUARD!r}}})\n")  # the names older and newer lines read
    raise SystemExit(f"no EXCEPTHOOK in {rev}'s errorkb/hook/__init__.py")


_AT_EXIT = """
import sys, timeit
names = {"sys": sys, "_errorkb_home": sys.argv[2], "_errorkb_guard": sys.argv[3], "_errorkb_first": []}
exec(sys.argv[1], names)
print(min(timeit.repeat(names["_errorkb_exit"], number=20000, repeat=5)) / 20000 * 1e6)
"""

_AUDITED = """
import copy, sys, timeit
if sys.argv[1] == "hook":
    def hook(event, args):
        if event == "sys.excepthook":
            pass
    sys.addaudithook(hook)
data = [{"a": [1, 2, 3], "b": (4, 5)} for _ in range(1000)]
for stmt, number in (("id(data)", 200000), ("sys._getframe()", 200000), ("copy.deepcopy(data)", 20)):
    print(min(timeit.repeat(stmt, globals=globals(), number=number, repeat=5)) / number * 1e9)
"""
WORK = ["id(object)", "sys._getframe()", "copy.deepcopy(1,000 small dicts)"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default="main", help="the revision whose .pth line is the baseline")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    before = line_at(args.rev)
    costs: dict[str, list[float]] = {args.rev: [], "this checkout": []}
    for _ in range(args.rounds):  # interleaved: the machine's drift hits both alike
        costs[args.rev].append(pth_cost_us(before, repeat=500))
        costs["this checkout"].append(pth_cost_us(PTH_LINE, repeat=500))
    old, new = min(costs[args.rev]), min(costs["this checkout"])
    print(f"1. the .pth line at start-up (fastest of {args.rounds}): {args.rev} {old:.1f} µs, this checkout "
          f"{new:.1f} µs: ratio {new / old:.3f} ({new - old:+.1f} µs)")
    exit_us = float(subprocess.run([sys.executable, "-I", "-S", "-c", _AT_EXIT, EXCEPTHOOK, HOME, GUARD],
                                  capture_output=True,
                                   text=True, check=True, timeout=600).stdout)
    print(f"2. the exit check at a program's exit without an error: {exit_us:.2f} µs")
    runs = {label: [float(one) for one in subprocess.run([sys.executable, "-I", "-c", _AUDITED, label],
                                                         capture_output=True, text=True, check=True,
                                                         timeout=600).stdout.split()]
            for label in ("none", "hook")}
    print("3. with an audit hook (the road not taken), per operation:")
    for at, work in enumerate(WORK):
        plain, hooked = runs["none"][at], runs["hook"][at]
        print(f"   {work:34} without {plain:12,.0f} ns   with {hooked:12,.0f} ns   ratio {hooked / plain:6.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
