"""The CI workflow is safe to run in public: its self-hosted GPU job runs a pull request's code
only when a maintainer labels it `run-gpu`, and then only the labelled commit; everything else
a stranger's pull request starts runs on GitHub's hosted runners."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml

WORKFLOW = Path(__file__).resolve().parent.parent / ".github" / "workflows" / "verify.yml"


def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def runs(condition: str | None, context: dict) -> bool:
    """A job's `if:` under `context`: GitHub's expression syntax for the little these use
    (&&, ||, ==, !=, parentheses, strings, context names, !cancelled()), read with `ast`."""
    if condition is None:
        return True
    expression = condition.strip().removeprefix("${{").removesuffix("}}").strip()
    expression = expression.replace("!cancelled()", "True")
    expression = re.sub(r"\b(?:vars|github)(?:\.[A-Za-z_]+)+", lambda m: repr(context.get(m.group(), "")), expression)
    expression = expression.replace("&&", " and ").replace("||", " or ")
    return bool(_evaluate(ast.parse(expression, mode="eval").body))


def _evaluate(node: ast.AST) -> object:
    if isinstance(node, ast.BoolOp):
        values = [_evaluate(value) for value in node.values]
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
        equal = _evaluate(node.left) == _evaluate(node.comparators[0])
        return equal if isinstance(node.ops[0], ast.Eq) else not equal
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name) and node.id == "True":
        return True
    raise ValueError(f"unexpected in a workflow condition: {ast.dump(node)}")


def event(name: str, action: str = "", label: str = "", ref: str = "refs/heads/main") -> dict:
    return {"github.event_name": name, "github.event.action": action, "github.event.label.name": label,
            "github.ref": ref, "vars.ERRORKB_CUDA": ""}


EVENTS = {
    "push to main": event("push"),
    "schedule": event("schedule"),
    "workflow_dispatch": event("workflow_dispatch"),
    "pull request opened": event("pull_request", "opened", ref="refs/pull/7/merge"),
    "pull request synchronize": event("pull_request", "synchronize", ref="refs/pull/7/merge"),
    "pull request reopened": event("pull_request", "reopened", ref="refs/pull/7/merge"),
    "pull request labelled run-gpu": event("pull_request", "labeled", "run-gpu", ref="refs/pull/7/merge"),
    "pull request labelled other": event("pull_request", "labeled", "docs", ref="refs/pull/7/merge"),
}
GPU_RUNS_ON = {"push to main", "schedule", "pull request labelled run-gpu"}


@pytest.mark.parametrize("name", list(EVENTS))
def test_the_gpu_job_runs_only_on_main_the_schedule_and_a_maintainers_label(name):
    jobs = workflow()["jobs"]
    assert runs(jobs["cuda"].get("if"), EVENTS[name]) == (name in GPU_RUNS_ON)
    assert runs(jobs["cuda"].get("if"), {**EVENTS[name], "vars.ERRORKB_CUDA": "off"}) is False


def test_only_the_gpu_job_uses_a_self_hosted_runner():
    for name, job in workflow()["jobs"].items():
        labels = job["runs-on"] if isinstance(job["runs-on"], list) else [job["runs-on"]]
        assert ("self-hosted" in labels) == (name == "cuda"), name


def test_no_trigger_hands_a_pull_request_secrets_or_a_write_token():
    data = workflow()
    assert "pull_request_target" not in data[True] and "workflow_run" not in data[True]
    assert data["permissions"] == {"contents": "read"}


def test_the_gpu_job_checks_out_the_labelled_commit_without_credentials():
    steps = workflow()["jobs"]["cuda"]["steps"]
    checkout = next(step for step in steps if step.get("uses", "").startswith("actions/checkout"))
    assert checkout["with"]["persist-credentials"] is False
    assert checkout["with"]["ref"] == ("${{ github.event_name == 'pull_request' && "
                                       "github.event.pull_request.head.sha || github.sha }}")
    assert any(step.get("run") == "bash scripts/gpu-check.sh" for step in steps)


def test_a_label_does_not_rerun_the_cpu_jobs():
    jobs = workflow()["jobs"]
    assert not runs(jobs["cpu"].get("if"), EVENTS["pull request labelled run-gpu"])
    assert runs(jobs["cpu"].get("if"), EVENTS["pull request synchronize"])
    assert not runs(jobs["site"].get("if"), EVENTS["pull request labelled other"])
    assert runs(jobs["site"].get("if"), EVENTS["pull request labelled run-gpu"])


def test_a_pull_request_s_run_neither_restores_nor_trusts_the_verdict_cache():
    """A pull request's earlier push could have written any verdict into the cache its later runs
    restore: there the cache step is skipped and verify runs every check (`--cache untrusted`)."""
    steps = workflow()["jobs"]["cpu"]["steps"]
    cache = next(step for step in steps if step.get("uses", "").startswith("actions/cache"))
    verify = next(step for step in steps if "errorkb verify" in step.get("run", ""))
    flag = re.search(r"--cache \$\{\{(.*?)\}\}", verify["run"]).group(1)
    for name, context in EVENTS.items():
        pull_request = context["github.event_name"] == "pull_request"
        assert runs(cache.get("if"), context) is not pull_request, name
        chosen = "untrusted" if context["github.event_name"] == "pull_request" else "trusted"
        assert _choice(flag, context) == chosen, name


def _choice(expression: str, context: dict) -> str:
    """`a == 'b' && 'x' || 'y'` under `context`, as GitHub evaluates it."""
    found = re.fullmatch(r"\s*(github\.event_name) == '(\w+)' && '(\w+)' \|\| '(\w+)'\s*", expression)
    assert found, expression
    name, value, then, otherwise = found.groups()
    return then if context.get(name) == value else otherwise
