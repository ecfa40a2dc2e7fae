"""The entry model: one YAML file per error, one source of truth.

The JSON Schema that authors' editors use (`errorkb schema`) is generated from these
classes, and the loader validates every entry against them, so a field documented here is
a field that is checked.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

from errorkb.core.lint import PRIMITIVES
from errorkb.core.message import MessageTemplate, TemplateSyntaxError

Slug = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")]
Markdown = Annotated[str, StringConstraints(min_length=1)]
SnippetFile = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_][A-Za-z0-9_.-]*\.py$")]
ExceptionName = Annotated[
    str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
]


PrimitiveName = Literal[tuple(PRIMITIVES)]  # type: ignore[valid-type]
QualifiedName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_<>]*)*$")]


class Strict(BaseModel):
    """Base for every section: unknown keys are errors, never silently dropped."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Source(Strict):
    """Where the error is raised, pinned to one upstream commit."""

    commit: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{40}$")] = Field(
        description="Full 40-hex commit of the upstream repository the line refers to."
    )
    path: str = Field(description="File inside the upstream repository, e.g. src/transformers/cache_utils.py.")
    line: int = Field(gt=0, description="Line of the `raise` statement (or of the failing call).")
    function: QualifiedName = Field(
        description="Qualified name of the function that raises, e.g. Cache.early_initialization."
    )
    release: Annotated[str, StringConstraints(pattern=r"^\d+(\.\d+)*([a-z]+\d*)?$")] | None = Field(
        default=None,
        description="A PyPI release whose file is identical to the pinned commit's, e.g. 5.15.1; "
        "the site reads the source excerpt from it when it is installed.",
    )
    implicit: bool = Field(
        default=False,
        description="True when Python or torch raises the error inside a call on `line`, with no "
        "raise statement of its own; drift checks then only require `line` to lie in `function`.",
    )
    module: str = Field(
        default="transformers.cache_utils",
        description="Import path of the module that defines `function` on every target.",
    )


class BeforeExpectation(Strict):
    """Extra pins for the before snippet beyond the entry's exception and message."""

    placeholders: dict[str, str] = Field(
        default_factory=dict,
        description="Values the message placeholders must take, keyed by placeholder text "
        "without braces, e.g. {'len(num_heads)': '12'}.",
    )


class GuardExpectation(Strict):
    """What a defensive pattern must do: run clean, or stop early with its own error."""

    outcome: Literal["passes", "raises"]
    exception: ExceptionName | None = Field(
        default=None, description="For outcome 'raises': the guard's own exception class."
    )
    message: str | None = Field(
        default=None,
        description="For outcome 'raises': template of the guard's own message ({...} matches anything).",
    )

    @field_validator("message")
    @classmethod
    def _message_parses(cls, value: str | None) -> str | None:
        if value is not None:
            MessageTemplate.parse(value)
        return value

    @model_validator(mode="after")
    def _fields_fit_outcome(self) -> GuardExpectation:
        if self.outcome == "raises" and self.exception is None:
            raise ValueError("a guard expected to raise must name its 'exception'")
        if self.outcome == "passes" and (self.exception or self.message):
            raise ValueError("a guard expected to pass takes no 'exception' or 'message'")
        return self


def _check_requirements(values: list[str]) -> list[str]:
    from packaging.requirements import InvalidRequirement, Requirement

    for value in values:
        try:
            Requirement(value)
        except InvalidRequirement as error:
            raise ValueError(f"{value!r} is not a requirement string like 'hqq>=0.2': {error}") from None
    return values


Requirements = Annotated[list[str], AfterValidator(_check_requirements)]


class Needs(Strict):
    """What snippets need present, absent or built a certain way; unmet, their checks are 'not run'.

    Set on an entry, it applies to every snippet; a snippet's own needs add to the entry's.
    """

    requires: Requirements = Field(
        default_factory=list,
        description="Distributions needed besides the target, as requirement strings (e.g. "
        "'optimum-quanto>0.2.5'); where one is missing, the checks are recorded as not run.",
    )
    without: Requirements = Field(
        default_factory=list,
        description="Distributions that must be absent (e.g. for an error about a missing optional "
        "backend); where one is installed, the checks are recorded as not run.",
    )
    torch_build: Literal["cpu", "cuda"] | None = Field(
        default=None,
        description="The torch build the error needs: 'cpu' for errors only a CPU-only build raises "
        "(a CUDA build raises something else even with no GPU visible); elsewhere, not run.",
    )


class Allowance(Strict):
    """A deception primitive that `errorkb check` would flag in a snippet, allowed, and why.

    The reason is for the reviewer of the pull request: it says why this snippet has to do what
    a snippet written to fool its verifier would do (docs/threat-model.md).
    """

    primitive: PrimitiveName = Field(description="The primitive `errorkb check` names, e.g. 'settrace' or 'signal'.")
    reason: Annotated[str, StringConstraints(pattern=r"\S")] = Field(
        description="Why the snippet needs it, for a reviewer; an allowance without one is refused.")


class Reviewed(Strict):
    """The deception primitives a snippet (or every snippet of an entry) may use."""

    allow: list[Allowance] = Field(
        default_factory=list,
        description="Primitives flagged by `errorkb check` that these snippets may use, each with its reason; "
        "an allowance that matches nothing is itself a problem.",
    )


class SnippetRef(Needs, Reviewed):
    """A before/after snippet: a file name, or a mapping with the file and what it needs."""

    file: SnippetFile

    def __str__(self) -> str:
        return self.file


def _snippet_ref(value: object) -> object:
    return {"file": value} if isinstance(value, str) else value


class Guard(Needs, Reviewed):
    title: str = Field(min_length=1)
    strategy: Literal["validation", "normalization", "construction", "fallback", "isolation"] = Field(
        description="What kind of defence this is; shown as a label on the page."
    )
    file: SnippetFile
    description: Markdown | None = None
    expect: GuardExpectation


class Solution(Strict):
    title: str = Field(min_length=1)
    body: Markdown | None = None


class Entry(Needs, Reviewed):
    """One documented error; its `requires`, `without`, `torch_build` and `allow` apply to every snippet."""

    id: Slug = Field(description="Stable kebab-case slug; the file name, URL and JSON API key.")
    title: str = Field(min_length=1)
    library: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")] = Field(
        description="owner/repository of the library that raises the error."
    )
    exception: ExceptionName = Field(description="Exception class, e.g. ValueError or torch.OutOfMemoryError.")
    message: str = Field(
        min_length=1,
        description="The message exactly as the source's f-string renders it, {placeholders} kept.",
    )
    tags: list[Slug] = Field(default_factory=list)
    source: Source

    meaning: Markdown
    trigger: Markdown
    situations: list[Markdown] = Field(min_length=1)
    solutions: list[Solution] = Field(min_length=1)
    prevention: list[Markdown] = Field(min_length=1)

    before: Annotated[SnippetRef, BeforeValidator(_snippet_ref)] = SnippetRef(file="before.py")
    after: Annotated[SnippetRef, BeforeValidator(_snippet_ref)] = SnippetRef(file="after.py")
    expect: BeforeExpectation = Field(default_factory=BeforeExpectation)
    guards: list[Guard] = Field(min_length=1)

    related: list[Slug] = Field(default_factory=list)
    devices: list[Literal["cpu", "cuda"]] = Field(
        default_factory=lambda: ["cpu", "cuda"], min_length=1,
        description="Device kinds on which the error can happen; checks on the others are not run.",
    )
    notes: Markdown | None = Field(default=None, description="Upstream history, version notes.")

    @field_validator("message")
    @classmethod
    def _message_parses(cls, value: str) -> str:
        MessageTemplate.parse(value)
        return value

    @property
    def template(self) -> MessageTemplate:
        return MessageTemplate.parse(self.message)

    @property
    def source_url(self) -> str:
        """Permalink to the raise line at the pinned commit."""
        return (f"https://github.com/{self.library}/blob/{self.source.commit}/"
                f"{self.source.path}#L{self.source.line}")

    def expectation_digest(self) -> str:
        """Changes when what the before/after must do changes (exception, message, pin, expect):
        a version-matrix result made before such a change is stale."""
        import hashlib
        import json

        facts = {"exception": self.exception, "message": self.message,
                 "source": self.source.model_dump(mode="json"), "expect": self.expect.model_dump(mode="json")}
        return hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()

    def snippet_files(self) -> list[tuple[str, str]]:
        """(role, file name) of every snippet, in page order."""
        return [(role, snippet.file) for role, snippet in self.snippets()]

    def snippets(self) -> list[tuple[str, SnippetRef | Guard]]:
        """(role, snippet) in page order; roles are 'before', 'after' and 'guard:<file stem>'."""
        return [("before", self.before), ("after", self.after),
                *((f"guard:{guard.file.removesuffix('.py')}", guard) for guard in self.guards)]

    def needs(self, role: str) -> tuple[list[str], list[str], str | None]:
        """(requires, without, torch build) of one snippet: the entry's, then the snippet's own."""
        own = dict(self.snippets())[role]
        return [*self.requires, *own.requires], [*self.without, *own.without], own.torch_build or self.torch_build


def library_folder(library: str) -> str:
    """`huggingface/transformers` entries live in docs/errors/transformers/."""
    return re.sub(r"[^a-z0-9_.-]", "-", library.split("/")[-1].lower())


__all__ = ["Allowance", "Entry", "Guard", "GuardExpectation", "Solution", "Source", "TemplateSyntaxError",
           "library_folder"]
