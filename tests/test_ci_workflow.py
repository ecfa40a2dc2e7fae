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


# -- the jobs that check the tool (issue 22) -------------------------------------------------------

ROOT = WORKFLOW.parent.parent.parent


def step_runs(job: str) -> list[str]:
    return [step["run"] for step in workflow()["jobs"][job]["steps"] if "run" in step]


@pytest.mark.parametrize("job", ["lint", "quick", "full"])
def test_the_tool_is_checked_on_every_pull_request_and_push_but_not_again_on_a_label(job):
    jobs = workflow()["jobs"]
    for name in ("push to main", "pull request opened", "pull request synchronize", "schedule", "workflow_dispatch"):
        assert runs(jobs[job].get("if"), EVENTS[name]), (job, name)
    assert not runs(jobs[job].get("if"), EVENTS["pull request labelled run-gpu"]), job


def lint_steps() -> list[str]:
    """The steps scripts/lint.sh runs when given none, and the command of each."""
    text = (ROOT / "scripts" / "lint.sh").read_text(encoding="utf-8")
    default = re.search(r"steps=\((?P<names>[a-z -]+)\)\n", text.split("[ ${#steps[@]} -gt 0 ] ||")[1])
    return default.group("names").split()


def test_the_lint_job_runs_every_fast_check():
    """ruff, mypy (strict), the import contracts, `errorkb check` and the hook index's check."""
    assert step_runs("lint")[-1] == "bash scripts/lint.sh"
    text = (ROOT / "scripts" / "lint.sh").read_text(encoding="utf-8")
    commands = dict(re.findall(r"^    ([a-z-]+)\) (\.venv/bin/[^;]+) ;;$", text, re.M))
    assert lint_steps() == list(commands) == ["ruff", "mypy", "imports", "entries", "hook-index"]
    assert commands == {"ruff": ".venv/bin/ruff check .", "mypy": ".venv/bin/mypy",
                        "imports": ".venv/bin/lint-imports --config pyproject.toml",
                        "entries": ".venv/bin/errorkb check", "hook-index": ".venv/bin/errorkb hook index --check"}
    mypy = ROOT / "pyproject.toml"
    assert 'strict = true' in mypy.read_text(encoding="utf-8")


def test_pre_commit_runs_the_same_fast_checks_as_the_lint_job():
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    hooks = [hook for repo in config["repos"] for hook in repo["hooks"]]
    commit = [hook["entry"] for hook in hooks if "pre-push" not in hook.get("stages", ["pre-commit"])]
    assert commit == [f"bash scripts/lint.sh {step}" for step in lint_steps()]
    assert all(hook["pass_filenames"] is False and hook["language"] == "system" for hook in hooks)
    push = [hook["entry"] for hook in hooks if "pre-push" in hook.get("stages", [])]
    assert push == ["bash scripts/test.sh --quick -q -x"]


def test_the_quick_job_runs_the_quick_tier_and_the_full_jobs_the_readme_s_command():
    assert any(run.startswith("bash scripts/test.sh --quick") for run in step_runs("quick"))
    full = [run for run in step_runs("full") if run.startswith("bash scripts/test.sh")]
    assert full == ["bash scripts/test.sh ${{ matrix.paths }} -q --junitxml=test-artifacts/junit-full.xml"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert readme[2].startswith("bash scripts/test.sh ") and "bash scripts/test.sh" in (ROOT / ".ci" / "run").read_text()


def selected(arguments: str, module: str) -> bool:
    """Whether pytest given `arguments` (paths and --ignore=PATH) collects the test module `module`."""
    words = arguments.split()
    ignored = [word.removeprefix("--ignore=") for word in words if word.startswith("--ignore=")]
    paths = [word for word in words if not word.startswith("-")]
    inside = lambda folder: module == folder or module.startswith(folder.rstrip("/") + "/")  # noqa: E731
    return any(inside(path) for path in paths) and not any(inside(path) for path in ignored)


def test_the_full_tier_s_groups_hold_every_test_module_exactly_once():
    groups = workflow()["jobs"]["full"]["strategy"]["matrix"]["include"]
    assert len(groups) >= 2 and len({group["group"] for group in groups}) == len(groups)
    modules = sorted(path.relative_to(ROOT).as_posix() for path in (ROOT / "tests").rglob("test_*.py")
                     if "fixtures" not in path.parts)
    assert len(modules) > 50
    for module in modules:
        holding = [group["group"] for group in groups if selected(group["paths"], module)]
        assert len(holding) == 1, (module, holding)


def test_the_full_tier_has_the_sandbox_and_a_browser_and_never_saves_a_pull_request_s_environments():
    job = workflow()["jobs"]["full"]
    runs_text = "\n".join(step_runs("full"))
    assert "apt-get install -y -qq bubblewrap" in runs_text and "/usr/bin/chromium" in runs_text
    saves = [step for step in job["steps"] if step.get("uses", "").startswith("actions/cache")]
    assert {step["uses"] for step in saves} == {"actions/cache/restore@v4", "actions/cache/save@v4"}
    for step in saves:
        if step["uses"].startswith("actions/cache/save"):
            for name, context in EVENTS.items():
                assert runs(step.get("if"), context) is (name == "push to main"), name
    test_sh = (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8")
    assert "export ERRORKB_TEST_TIER=full ERRORKB_SANDBOX=require" in test_sh


def test_the_version_matrix_runs_as_a_job_matrix_on_the_schedule_and_on_demand_and_is_merged():
    data = workflow()
    assert "schedule" in data[True] and "workflow_dispatch" in data[True]
    jobs = data["jobs"]
    for job in ("matrix", "matrix-merge"):
        for name, context in EVENTS.items():
            assert runs(jobs[job].get("if"), context) is (name in {"schedule", "workflow_dispatch"}), (job, name)
    shards = jobs["matrix"]["strategy"]["matrix"]["shard"]
    assert shards == list(range(1, len(shards) + 1)) and len(shards) >= 2
    (command,) = [run for run in step_runs("matrix") if "errorkb matrix" in run]
    assert command == f".venv/bin/errorkb matrix --shard ${{{{ matrix.shard }}}}/{len(shards)} --cache trusted"
    assert any("probe()" in run for run in step_runs("matrix"))  # refuses to run without the sandbox
    upload = next(step for step in jobs["matrix"]["steps"] if step.get("uses", "").startswith("actions/upload"))
    assert upload["with"]["name"] == "matrix-${{ matrix.shard }}" and upload["with"]["path"] == "reports/matrix/"
    assert jobs["matrix-merge"]["needs"] == "matrix"
    download = next(step for step in jobs["matrix-merge"]["steps"] if step.get("uses", "").startswith("actions/download"))
    assert download["with"] == {"pattern": "matrix-*", "path": "shards"}
    merge = next(run for run in step_runs("matrix-merge") if "report merge" in run)
    assert ".venv/bin/errorkb report merge --complete reports/matrix/transformers.json shards/*/transformers.json" in merge  # a missing shard is refused


def test_docs_ci_describes_the_matrix_jobs_as_the_workflow_runs_them():
    docs = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    block = docs.split("The workflow's `matrix` and `matrix-merge` jobs")[1].split("```yaml")[1].split("```")[0]
    for line in re.findall(r"- run: (.*)", block):
        assert any(line in run for job in ("matrix", "matrix-merge") for run in step_runs(job)), line
    for job in workflow()["jobs"]:
        assert f"| `{job}`" in docs, job


def test_every_test_of_an_expensive_group_may_set_up_its_session_fixture(request):
    """The first test of an expensive group pays for its session fixture (the knowledge base's
    verification, an adversarial run, a site build): pytest-timeout's default limit must not cut it."""
    from tests.conftest import EXPENSIVE_GROUPS, SETUP_TIMEOUT, _group_order, xdist_group

    expensive = [item for item in request.session.items if _group_order(xdist_group(item)) < len(EXPENSIVE_GROUPS)]
    if not expensive:
        pytest.skip("no test of an expensive group is collected in this run")
    short = [item.nodeid for item in expensive
             if (marker := item.get_closest_marker("timeout")) is None or marker.args[0] < SETUP_TIMEOUT]
    assert short == []


PUBLISH = WORKFLOW.parent.parent.parent / "mkdocs-publish.yml"


@pytest.mark.parametrize("name", list(EVENTS))
def test_only_main_s_own_runs_publish_the_site_and_only_that_job_may_write(name):
    """The Pages job holds the workflow's only write token (pages, id-token): a pull request's run,
    labelled or not, never reaches it."""
    jobs = workflow()["jobs"]
    assert runs(jobs["pages"].get("if"), EVENTS[name]) == (not name.startswith("pull request"))
    assert jobs["pages"]["needs"] == ["site"]
    assert jobs["pages"]["permissions"] == {"pages": "write", "id-token": "write"}
    assert [job for job, spec in jobs.items() if "permissions" in spec] == ["pages"]
    assert any(step.get("uses", "").startswith("actions/deploy-pages@") for step in jobs["pages"]["steps"])


def test_the_published_site_is_built_at_the_address_the_cli_and_the_hook_link_to():
    """One address: mkdocs-publish.yml's site_url (the published pages' canonical links and sitemap) is the
    profile's [tool.errorkb] site_url (the CLI's and the hook's links, the shipped hook index's `site`)."""
    from errorkb.core.project import load_project, mkdocs_site_url

    build = [step["run"] for step in workflow()["jobs"]["site"]["steps"] if step.get("name") == "Build the site"]
    assert build == [".venv/bin/mkdocs build --strict -f mkdocs-publish.yml"]
    assert yaml.safe_load(PUBLISH.read_text(encoding="utf-8"))["INHERIT"] == "mkdocs.yml"
    published = mkdocs_site_url(PUBLISH)
    assert published is not None and published.startswith("https://")
    assert load_project(PUBLISH.parent).site_url == published
    import json

    index = json.loads((PUBLISH.parent / "transformers_errorkb" / "index.json").read_text(encoding="utf-8"))
    assert index["site"] == published
