"""Plain CPython: one device kind, `cpu`, nothing to import and no device evidence."""

from __future__ import annotations

import os
import platform
from typing import Any

from errorkb.plugs import DeviceProbe, HeldState, cpu_name


class PythonRuntime:
    name = "python"
    devices = ("cpu",)
    generic_messages: tuple[str, ...] = ()
    packages: tuple[str, ...] = ()
    env_prefixes: tuple[str, ...] = ()
    repository = "python/cpython"
    tag = "v{release}"

    def version(self) -> str:
        return platform.python_version()

    def build(self) -> str:
        return "cpu"

    def device_present(self, device: str) -> bool:
        return device == "cpu"

    def child_env(self, device: str) -> dict[str, str]:
        return dict(os.environ)

    def device_env(self, device: str) -> dict[str, str]:
        return {}

    def device_files(self, device: str) -> tuple[list[str], list[str]]:
        return [], []

    def needs_proc(self, device: str) -> bool:
        return False

    def load(self) -> Any:
        return None

    def device_available(self, module: Any, device: str) -> bool:
        return device == "cpu"

    def environment(self, module: Any) -> dict[str, Any]:
        return {"runtime": self.name, "runtime_version": self.version(), "device_name": cpu_name()}

    def preload_names(self, source_text: str) -> list[str]:
        return []

    def device_touched(self) -> bool:
        return False

    def evidence(self, module: Any, device: str) -> dict[str, Any] | None:
        return None

    def device_probe(self, module: Any, device: str) -> DeviceProbe | None:
        return None

    def held_state(self, module: Any) -> HeldState | None:
        return None

    def device_used(self, device: str, evidence: dict[str, Any] | None) -> bool:
        return device == "cpu"

    def object_device_used(self, device: str, evidence: dict[str, Any] | None) -> bool:
        return False

    def device_name(self, evidence: dict[str, Any] | None) -> str | None:
        return None


RUNTIME = PythonRuntime()
