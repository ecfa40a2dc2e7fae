"""What runs inside the sandbox: the standard library and the runtime plug only (an import contract).

The verifier splits along its trust boundary. The harness (`errorkb/verify/`: plan, judge, stream,
cache, report, engine) decides; `run.py`, `pool.py` and `sandbox.py` start and manage processes
from the harness; this package runs inside the sandbox, where pydantic, the entry model and the
harness's state are never imported:

- the processes that fork checks: `zygote` (a warm interpreter per target), `stem` (zygotes for
  many release environments), `jail` (one check's namespaces, its seccomp filter and limits, and
  the launcher of a fresh interpreter);
- the check's own process: `child` (prepare, observe, execute), `observer` (what happens, streamed
  and authenticated), `identity` (facts only objects can establish), `library` (what the target is),
  `seccomp` (the filter that keeps the stream's descriptor where it is).

`spec` holds the typed data that crosses into here (`CheckSpec`, `ZygoteConfig`).
"""
