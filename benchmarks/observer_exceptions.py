"""What the observer pays for each exception a watched function raises (`_p_exception`'s handed-error search), the way
it was and the way it is, side by side in one run (issue 22, speed8).

    .venv/bin/python benchmarks/observer_exceptions.py [--n 5] [--raises 200]

The scenario is the knowledge base's costliest check in miniature (remote-model-without-generation-mixin: 95% of its
CPU was this search): the observer watches torch's `Module.__getattr__`, and the snippet asks `hasattr` of a module
for names it lacks, RAISES times; each is an `AttributeError` the function makes and raises, caught by Python. Each way
runs as tests/verify/test_observer.py runs a scenario (forked from the lean parent that preloaded torch, as a zygote
has), N times; the line is the snippet's own CPU (`time.process_time` in the check's process, the observer's work
included), median of N, and its ratio. The ways:

- as before: every search walks what the snippet handed the call, and reads each copied namespace's version by one
  audited `from_address` each, comparing every written namespace whole (the code this change replaced, put back in
  the fork before the observer is installed: no measurement of the reference count, no view of memory, no cache);
- now: an exception nothing holds is answered by its reference count (`_p_unreferenced`), the versions are read in
  one C call (`_version_reader`), and a namespace is compared again only after a write (`_p_differing`).

Both ways must see the same thing (raises, tampering: said beside), or the figure means nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the lean parent finds this module as benchmarks.*

BODY = """
import time
import torch

layer = torch.nn.Sequential(torch.nn.Linear(4, 4))
started = time.process_time()
for index in range({raises}):
    hasattr(layer, "missing" + str(index))
raise RuntimeError(str(time.process_time() - started))
"""


def _uncached(subject, was, version, is_class):  # as before: every written namespace compared whole, each time
    pairs = []
    if is_class:
        for key, now in _c_list_iter(list(_c_proxy_items(_c_type_dict(subject)))):  # noqa: F821  # private names
            if now is not _c_dict_get(was, key, _c_MISSING) and type(key) is str:  # noqa: F821
                pairs.append((key, now))
    else:
        for key, value in _c_list_iter(list(_c_dict_items(was))):  # noqa: F821
            now = _c_dict_get(subject, key, _c_MISSING)  # noqa: F821
            if now is not value and now is not _c_MISSING and type(key) is str:  # noqa: F821
                pairs.append((key, now))
    return pairs


# What "as before" puts back in the observer (tests/test_benchmarks.py: each still exists, as called here).
AS_BEFORE = {"_raised_references": lambda: None, "_memory": lambda: None, "_p_differing": _uncached}


def _configure(way: str):
    def configure(config: dict) -> None:
        import dis

        import torch

        from errorkb.verify.inside import observer
        from tests.verify.test_observer import _torch_beneath

        function = torch.nn.Module.__getattr__
        code = function.__code__
        config["slots"][0].update(
            label="Module.__getattr__", code=code, function=function, function_code=code, name="__getattr__",
            raw=function, reads=[], globals=function.__globals__, owner=torch.nn.Module,
            normal=[i.offset for i in dis.get_instructions(code) if i.opname == "RETURN_VALUE"],
            defaults=function.__defaults__, kwdefaults=function.__kwdefaults__)
        config["owners"] = [("Module.__getattr__", torch.nn.Module, "__getattr__", function)]
        _torch_beneath(config)
        if way == "as before":  # the fork's own copy of the module: the other way's forks never see this
            for name, replacement in AS_BEFORE.items():
                setattr(observer, name, replacement)

    return configure


def _once(way: str, raises: int) -> tuple[float, tuple]:
    from benchmarks.observer_exceptions import _configure as this_configure
    from errorkb.verify.inside.seal import read_key
    from errorkb.verify.stream import parse
    from tests.verify import lean_parent
    from tests.verify.test_observer import run_scenario

    with tempfile.TemporaryDirectory() as folder:
        scenario = lean_parent.call(run_scenario, Path(folder), BODY.format(raises=raises), False, False, None, None,
                                    this_configure(way), preload=("torch",))
    stream = parse(scenario.data, read_key(scenario.key or b""))
    if stream.end is None or stream.end.described is None:
        raise RuntimeError(f"the scenario ({way}) did not end as measured: {stream}")
    cpu = float(stream.end.described["exception"]["message"])
    seen = (str(stream.end.counts), len(stream.raised), tuple(event.what for event in stream.tampered))
    return cpu, seen


def main() -> None:
    from benchmarks import observer_exceptions as this  # by its importable name: the lean parent imports the callable

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5)
    parser.add_argument("--raises", type=int, default=200)
    arguments = parser.parse_args()
    ways = ("as before", "now")
    cpu: dict[str, list[float]] = {way: [] for way in ways}
    seen: dict[str, set] = {way: set() for way in ways}
    for _ in range(arguments.n):  # alternating: a busy moment weighs on both ways alike
        for way in ways:
            spent, observed = this._once(way, arguments.raises)
            cpu[way].append(spent)
            seen[way].add(observed)
    print(f"{arguments.raises} AttributeErrors raised by a watched Module.__getattr__ (hasattr), CPU seconds of the "
          f"snippet with its observer, median of {arguments.n}")
    before = statistics.median(cpu["as before"])
    for way in ways:
        median = statistics.median(cpu[way])
        print(f"  {way:10} {median:8.3f} s  {median / arguments.raises * 1000:7.2f} ms per exception  "
              f"{before / median:6.1f}x")
    same = seen["as before"] == seen["now"] and len(seen["now"]) == 1
    print(f"  both ways saw the same calls, raises and tampering in every run: {same}")


if __name__ == "__main__":
    main()
