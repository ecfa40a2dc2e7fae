"""What does the hook add to the exit of a program run under `-X tracemalloc` (round fourteen)?

Under tracemalloc every allocation records its traceback (`-X tracemalloc=25`: 25 frames), and the hook's first work
at an error, importing the explainer (the lookup, its index), allocates a great deal: main imported it in the hook's
own thread, bounded by nothing (the deadline, `errorkb.hook.guard.DEADLINE_S`, bounded the reading of the error
alone), so the exit took what the import took. Now the import runs in a thread of its own, given up past its deadline. Side by side, in rounds interleaved: the same program (the
documented error, raised from a stand-in library) run by a plain interpreter, by one with `--rev`'s hook and by one
with this checkout's, with no tracing, `-X tracemalloc` and `-X tracemalloc=25`: seconds to exit (median), the ratio
to the plain interpreter's, and whether the block was printed.

    .venv/bin/python benchmarks/hook_tracemalloc.py [--rev main] [--rounds 2]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.hook_startup import make_env  # noqa: E402

HEAD_DIM = "`head_dim` was provided as a list of length 12, but the Cache currently has 12 layers"
MODES = {"no tracing": [], "-X tracemalloc": ["-X", "tracemalloc"], "-X tracemalloc=25": ["-X", "tracemalloc=25"]}


def tree_at(rev: str, folder: Path) -> Path:
    """`errorkb/` as it is at `rev`, exported into `folder` (read, never checked out)."""
    archive = subprocess.run(["git", "archive", rev, "errorkb"], cwd=ROOT, capture_output=True, check=True,
                             timeout=120).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def hooked_at(tree: Path, folder: Path) -> Path:
    """An interpreter (`make_env`) whose `errorkb` is `tree`'s, with the hook `tree`'s `errorkb hook install` writes."""
    python = make_env(folder, hook=False)
    paths = next(folder.glob("lib/python*/site-packages/errorkb-paths.pth"))
    paths.write_text(paths.read_text(encoding="utf-8").replace(f"{ROOT}\n", f"{tree}\n", 1), encoding="utf-8")
    subprocess.run([str(python), "-m", "errorkb.cli", "hook", "install"], check=True, capture_output=True, timeout=120,
                   cwd=folder)
    return python


def program(folder: Path) -> Path:
    library = folder / "site-packages" / "transformers"
    library.mkdir(parents=True)
    (library / "__init__.py").write_text("", encoding="utf-8")
    (library / "cache_utils.py").write_text(f"def early_initialization():\n    raise ValueError({HEAD_DIM!r})\n",
                                            encoding="utf-8")
    script = folder / "script.py"
    script.write_text(f"import sys\nsys.path.insert(0, {str(folder / 'site-packages')!r})\n"
                      "from transformers.cache_utils import early_initialization\nearly_initialization()\n",
                      encoding="utf-8")
    return script


def run(python: Path, options: list[str], script: Path) -> tuple[float, bool]:
    started = time.perf_counter()
    result = subprocess.run([str(python), *options, str(script)], capture_output=True, text=True, timeout=600,
                            cwd=script.parent)
    return time.perf_counter() - started, "errorkb: a documented error" in result.stderr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default="main")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        pythons = {"without the hook": make_env(folder / "plain", hook=False),
                   f"{args.rev}'s hook": hooked_at(tree_at(args.rev, folder / "rev"), folder / "rev-env"),
                   "this checkout's hook": make_env(folder / "this", hook=True)}
        script = program(folder / "program")
        times: dict[tuple[str, str], list[float]] = {}
        blocks: dict[tuple[str, str], set[bool]] = {}
        for _ in range(args.rounds):
            for mode, options in MODES.items():
                for name, python in pythons.items():
                    took, block = run(python, options, script)
                    times.setdefault((mode, name), []).append(took)
                    blocks.setdefault((mode, name), set()).add(block)
    print(f"{'mode':<20}{'interpreter':<24}{'exit s':>8}{'ratio':>8}  block")
    for mode in MODES:
        plain = statistics.median(times[(mode, "without the hook")])
        for name in pythons:
            took = statistics.median(times[(mode, name)])
            shown = "/".join(sorted("yes" if one else "no" for one in blocks[(mode, name)]))
            print(f"{mode:<20}{name:<24}{took:>8.2f}{took / plain:>8.1f}  {shown}")


if __name__ == "__main__":
    main()
