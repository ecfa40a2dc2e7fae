"""The entry model: one YAML file per error, one source of truth.

The JSON Schema that authors' editors use (`errorkb schema`) is generated from these
classes, and the loader validates every entry against them, so a field documented here is
a field that is checked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    StringConstraints,
    field_validator,
    model_validator,
)

from errorkb.core.lint import PRIMITIVES
from errorkb.core.message import MessageTemplate, TemplateSyntaxError, is_degenerate
from errorkb.core.prose import unprintable
from errorkb.core.releases import ReleaseRange, contains
from errorkb.core.snippets import AFTER, BEFORE, Role
from errorkb.core.tags import tag_of

# The most lines a source file may have: an integer past 2**53 reaches a JavaScript reader of the
# JSON API as another number than the page shows, and no real file comes near this one.
MAX_LINE = 10_000_000
Slug = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")]
BLANKS = "\u2800"  # shows as a blank though Unicode does not call it a space (Braille's empty pattern)


def _shows_something(value: str) -> str:
    """Text a reader must see holds a character that shows: a title of spaces was a blank `<title>`,
    a blank nav item and an empty link on every list; a section of spaces a heading over nothing."""
    if all(char.isspace() or char in BLANKS for char in value):
        raise ValueError("shows nothing (only spaces or line breaks); write the text a reader should see")
    return value


Markdown = Annotated[str, StringConstraints(min_length=1), AfterValidator(_shows_something)]
SnippetFile = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_][A-Za-z0-9_.-]*\.py$")]
ExceptionName = Annotated[
    str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
]


def _known_primitive(value: str) -> str:
    if value not in PRIMITIVES:
        raise ValueError(f"unknown primitive {value!r}; known: {', '.join(sorted(PRIMITIVES))}")
    return value


PrimitiveName = Annotated[str, AfterValidator(_known_primitive)]
# A nested function's part is `<locals>`, as Python's `__qualname__` writes it (`f.<locals>.g`).
QualifiedName = Annotated[str, StringConstraints(
    pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.([A-Za-z_][A-Za-z0-9_<>]*|<locals>\.[A-Za-z_][A-Za-z0-9_]*))*$")]
ModuleName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")]
# A file of the upstream repository: plain names joined by '/', ending in .py. The site reads that
# file from the installed release and links to it, so no absolute path, no '.'/'..' part, and no
# character that could end a Markdown link or an HTML attribute.
_REPO_PATH = re.compile(r"(?:[A-Za-z0-9_][A-Za-z0-9_.-]*/)*[A-Za-z0-9_][A-Za-z0-9_.-]*\.py")
# `owner/repository`; neither part only dots, so `library_folder` never names `.` or `..` and no
# entry's page can land outside its library's folder (`library: x/..` would write over docs/).
_NAME = r"[A-Za-z0-9_.-]*[A-Za-z0-9_-][A-Za-z0-9_.-]*"  # not only dots
_LIBRARY = rf"^{_NAME}/{_NAME}$"


def _one_line_title(value: str) -> str:
    """A title is printed in `<title>`, headings, the tags page, search and the paste box: one
    line of plain characters (`errorkb.core.prose`)."""
    if wrong := unprintable(value, one_line=True):
        raise ValueError(wrong)
    return value


Title = Annotated[str, StringConstraints(min_length=1), AfterValidator(_one_line_title),
                  AfterValidator(_shows_something)]
# Letters and digits a message template must have outside its placeholders (the real entries'
# fewest: 14, "len() of a 0-d tensor").
MIN_FIXED_LETTERS = 8


class Strict(BaseModel):
    """Base for every section: unknown keys are errors, never silently dropped."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


@dataclass(frozen=True)
class SourceLinks:
    """How the documented library's repository names a release's tag and a line of a file: the
    profile's `tag` and `source_url` (core.project); the loader gives every entry its library's."""

    url: str = "https://github.com/{repository}/blob/{revision}/{path}#L{line}"
    tag: str = "v{release}"

    def revision(self, commit: str | None, release: str | None) -> str:
        """The commit, else the release's tag (core.tags forms it from the profile's format)."""
        return commit or tag_of(self.tag, str(release))

    def link(self, repository: str, revision: str, path: str, line: int) -> str:
        return self.url.format(repository=repository, revision=revision, path=path, line=line)

    @property
    def host(self) -> str:
        """The repository host's name, for a link's text: 'github.com'."""
        return urlsplit(self.url).hostname or "the repository"


class Source(Strict):
    """Where the error is raised, pinned to one upstream commit or release."""

    commit: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{40}$")] | None = Field(
        default=None,
        description="Full 40-hex commit of the upstream repository the line refers to (default: the release's "
        "tag, `v<release>`).",
    )
    path: str = Field(description="File inside the upstream repository, e.g. src/<package>/cache_utils.py.")
    line: int = Field(gt=0, le=MAX_LINE, description="Line of the `raise` statement (or of the failing call).")
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
        description="True when Python or the runtime raises the error inside a call on `line`, with no "
        "raise statement of its own; drift checks then only require `line` to lie in `function`.",
    )
    user_code: bool = Field(
        default=False,
        description="With `implicit`: Python raises the error in the user's own code that `function` calls "
        "(a remote-code model's method), not in the library's; the before then passes when Python, not a raise "
        "statement, raises it in the snippet's code and it unwinds through `function`.",
    )
    module: ModuleName | None = Field(
        default=None,
        description="Import path of the module that defines `function` on every target "
        "(default: the module of `path`, by the library profile's source root); a module of the library's "
        "own package, since the verifier imports it.",
    )

    runtime: bool = Field(
        default=False,
        description="True when the raise site lies in the runtime's package (the profile's `runtime`), "
        "not the library's: the library's object reaches the runtime, which raises (an export "
        "of a model that returns a cache). `path` is then relative to the runtime's repository, `release` is the "
        "installed runtime release, `module` (required) a module of the runtime's package, and the entry is "
        "verified upstream only (`targets: [upstream]`); `releases.raises` ranges over the library's releases.",
    )

    @model_validator(mode="after")
    def _runtime_is_pinned(self) -> Source:
        if self.runtime and (self.module is None or self.release is None or self.commit is not None):
            raise ValueError("runtime: true needs `module` (a module of the runtime's package) and `release` (the "
                             "runtime release whose file it is), and no `commit`")
        if self.runtime and self.user_code:
            raise ValueError("runtime: true and user_code: true exclude each other")
        return self

    @model_validator(mode="after")
    def _user_code_is_implicit(self) -> Source:
        if self.user_code and not self.implicit:
            raise ValueError("user_code: true needs implicit: true (Python raises it, in the code `function` calls)")
        return self

    @model_validator(mode="after")
    def _pinned(self) -> Source:
        if self.commit is None and self.release is None:
            raise ValueError("pin the source to a `release` (or a `commit`)")
        return self

    _links: SourceLinks = PrivateAttr(default_factory=SourceLinks)
    _repository: str | None = PrivateAttr(default=None)  # the runtime's, for `runtime: true` (the loader sets it)
    _owner: str | None = PrivateAttr(default=None)  # the runtime's name, for `runtime: true`

    @property
    def revision(self) -> str:
        """What the pin names in the repository: the commit, else the release's tag (the profile's format)."""
        return self._links.revision(self.commit, self.release)

    @field_validator("path")
    @classmethod
    def _path_is_relative_and_plain(cls, value: str) -> str:
        if not _REPO_PATH.fullmatch(value):
            raise ValueError("must be a relative path of a .py file in the upstream repository, such as "
                             "src/<package>/cache_utils.py: names of letters, digits, '_', '-' and '.' "
                             "joined by '/', with no leading '/' and no '.' or '..' part")
        return value


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
    without_calling: Annotated[str, StringConstraints(pattern=r"\S")] | None = Field(
        default=None,
        description="For outcome 'raises': why this guard cannot call the library's function where it raises (the "
        "backend it needs is missing there, say). A guard that raises must otherwise show the library working: "
        "call the function, every call returning, before it stops the bad call. Shown to the reviewer.",
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
        if self.outcome == "passes" and (self.exception or self.message or self.without_calling):
            raise ValueError("a guard expected to pass takes no 'exception', 'message' or 'without_calling'")
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
    build: Slug | None = Field(
        default=None,
        description="The runtime build the error needs, e.g. 'cpu' for errors only a CPU-only build of "
        "the runtime raises (a GPU build raises something else even with no GPU visible); elsewhere, not run.",
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
    title: Title
    strategy: Literal["validation", "normalization", "construction", "fallback", "isolation"] = Field(
        description="What kind of defence this is; shown as a label on the page."
    )
    file: SnippetFile
    description: Markdown | None = None
    expect: GuardExpectation


class Solution(Strict):
    title: Title
    body: Markdown | None = None


Release = Annotated[str, StringConstraints(pattern=r"^\d+(\.\d+)*([a-z]+\d*)?$")]


class Releases(Strict):
    """Where the error happens across releases, and, for a removed or renamed API, what replaced it.

    The version matrix measures every statement here; the site shows what it measured beside it.
    """

    raises: ReleaseRange | None = Field(
        default=None, description="Releases in which the before raises, as a range: '>=4.49,<5.0', or parts "
                                  "joined by '||' ('>=4.36,<4.54 || >=4.56,<5.0').")
    last_good: Release | None = Field(
        default=None, description="A removed or renamed API: the last release in which the old code ran clean.")
    replacement: str | None = Field(
        default=None, min_length=1, description="What replaces the removed or renamed API (Markdown, one line), "
                                                "e.g. '`cache.get_max_cache_shape()`'.")
    replacement_since: Release | None = Field(
        default=None, description="The first release in which the replacement exists.")


class Api(Strict):
    """The name a removed or renamed API error is about: `owner.name` as the user's code spells it."""

    owner: QualifiedName = Field(description="Import path of the class or module that no longer has the name, "
                                             "e.g. '<package>.SomeCache' or '<package>' for an import.")
    name: Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")] = Field(
        description="The removed attribute or imported name; for kind 'signature', the function or method "
                    "whose call no longer binds (its parameters are in the message).")


class Wording(Strict):
    """Another wording of the same error: an older release's message, or another device's."""

    message: str = Field(min_length=1, description="The template, as the entry's `message`.")
    exception: ExceptionName | None = Field(default=None, description="Its exception, when not the entry's.")
    releases: ReleaseRange | None = Field(default=None, description="Releases that word it so (default: any).")
    device: Slug | None = Field(default=None, description="The device on which it is worded so (default: any).")
    function: QualifiedName | None = Field(
        default=None, description="The library function that raises it so, when it is a raise of the library's "
        "own (default: raised by the interpreter at the user's use of the library, as for the entry's kind).")
    note: Markdown | None = Field(default=None, description="Where it comes from, for the reader.")

    @field_validator("message")
    @classmethod
    def _message_parses(cls, value: str) -> str:
        if reason := is_degenerate(MessageTemplate.parse(value)):
            raise ValueError(f"message too generic to tell this error from others: {reason}")
        return value

    @property
    def template(self) -> MessageTemplate:
        return MessageTemplate.parse(self.message)


# -- diagnosis: what tells this error from others worded alike (errorkb.lookup reads it) ----------

PlaceholderType = Literal["any", "int", "name", "class", "user", "library-class", "library"]
# A relation compares integer values: a placeholder's (`{len(caches)}`) with another's or with an integer
# literal (`{len(caches)} != 2`: the raise condition excludes the value); at least one side is a placeholder.
_OPERAND = r"(?:\{([^{}]+)\}|(-?[0-9]+))"
_RELATION = re.compile(r"^" + _OPERAND + r"\s*(<=|>=|==|!=|<|>)\s*" + _OPERAND + r"$")
RelationSide = str | int  # a placeholder's text without braces, or an integer constant


def _relation(value: str) -> str:
    found = _RELATION.match(value.strip())
    if not found:
        raise ValueError(f"{value!r} is not a relation like '{{a}} > {{b}}' or '{{a}} != 2' (placeholders or "
                         "integers compared with < <= > >= == !=)")
    if found.group(1) is None and found.group(4) is None:
        raise ValueError(f"{value!r} compares two constants: a relation names at least one placeholder")
    return value


def _relation_parts(value: str) -> tuple[RelationSide, str, RelationSide]:
    found = _RELATION.match(value.strip())
    assert found is not None  # validated by `_relation` when the entry was read
    left = found.group(1).strip() if found.group(1) is not None else int(found.group(2))
    right = found.group(4).strip() if found.group(4) is not None else int(found.group(5))
    return left, found.group(3), right
# A file as installed (`<package>/cache_utils.py`): plain names joined by '/', `*` for any characters
# but '/', a trailing '/' for any file below a folder.
_INSTALLED_FILE = re.compile(r"^(?:[A-Za-z0-9_*][A-Za-z0-9_.*-]*/)*(?:[A-Za-z0-9_*][A-Za-z0-9_.*-]*\.py)?$")


class FrameDeclaration(Strict):
    """A traceback frame: the file as installed and, optionally, the function."""

    file: str = Field(description="The file as a traceback names it below site-packages, e.g. "
                                  "'<package>/cache_utils.py'; `*` stands for any characters but '/' "
                                  "('<package>/models/*/modeling_*.py'); a trailing '/' means any file in that folder.")
    function: QualifiedName | None = Field(
        default=None, description="The function's name (its last part is compared: 'Cache.update' matches a frame "
                                  "'in update'); default: any function of the file.")

    @field_validator("file")
    @classmethod
    def _installed_file(cls, value: str) -> str:
        if not value or not _INSTALLED_FILE.fullmatch(value):
            raise ValueError("must be a file as installed, such as '<package>/cache_utils.py' or "
                             "'<package>/models/*/modeling_*.py', or a folder ending in '/'")
        return value


# A glob of names: the characters of a (dotted) name, `*` for any run of them.
NameGlob = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_.<>*]+$", max_length=200)]


class WithheldValues(Strict):
    """Values of a placeholder that print the entry's words for another cause: a match whose value is one
    of them is only a candidate, whatever else ties it, and the reader is told why."""

    names: list[NameGlob] = Field(min_length=1, description="Globs of the values (`*` any run of characters), "
                                                            "e.g. ['*Model'].")
    unless: list[NameGlob] = Field(default_factory=list, description="Globs of values among those that keep the "
                                                                     "entry's evidence, e.g. ['*LMHeadModel'].")
    library: bool = Field(default=False, description="Only classes the library defines (a vendored copy of the "
                                                     "same name shape is not held).")
    because: Markdown = Field(description="The other cause, in a clause that follows the value (\"is a base "
                                          "model: ...\"): shown to a reader whose paste names one.")


class TiedValues(Strict):
    """Values of a placeholder that tie the entry's words to its cause: only this cause prints the words
    with such a value, so a match naming one is confirmed on it unless something rules it out or withholds it.
    `errorkb check` reports a declaration the entry's own verified before does not satisfy."""

    names: list[NameGlob] = Field(min_length=1, description="Globs of the values (`*` any run of characters), "
                                                            "e.g. ['*ForCausalLM'].")
    unless: list[NameGlob] = Field(default_factory=list, description="Globs of values among those that tie "
                                                                     "nothing, e.g. ['TF*'].")
    foreign: bool = Field(default=False, description="Only classes the library does not define (a remote or "
                                                     "vendored class; where the index has no class list, none).")
    because: Markdown = Field(description="Why, in a clause that follows the value (\"names a generating model "
                                          "the library does not define: ...\"): the confirmation's evidence.")

    @field_validator("names")
    @classmethod
    def _literal(cls, value: list[str]) -> list[str]:
        broad = [glob for glob in value if not glob.replace("*", "")]
        if broad:
            raise ValueError(f"{broad[0]!r} has no literal part: every value fits it, so it would confirm the entry "
                             "on any name the message gives; write the shape only this cause's values have, "
                             "e.g. '*ForCausalLM'")
        return value


class PlaceholderDeclaration(Strict):
    """What a placeholder's value must be for the message to be this entry's."""

    type: PlaceholderType = Field(description="'int', 'name' (an identifier), 'class' (a class or function name, "
                                              "never one of Python's own types such as tuple, list, dict, str or "
                                              "NoneType), 'user' (a class of the user's code: a class the library "
                                              "defines withholds the message's words as evidence), "
                                              "'library-class' (a class the library defines: a class it does not "
                                              "define, the user's own, withholds the words), 'library' (a "
                                              "module of the documented library) or 'any'.")
    allow: list[Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_-]*$")]] = Field(
        default_factory=list,
        description="For 'class' and 'library-class': Python's own types it may nevertheless name, e.g. [tuple].")
    withhold: list[WithheldValues] = Field(
        default_factory=list,
        description="Values that print these words for another cause: a match naming one is only a candidate.")
    ties: list[TiedValues] = Field(
        default_factory=list,
        description="Values that tie these words to the entry's cause: a match naming one is confirmed on it.")


def _placeholder_declaration(value: object) -> object:
    return {"type": value} if isinstance(value, str) else value


class OtherCause(Strict):
    """Another cause known to print the entry's exact words, on other releases: its words alone then
    no longer confirm the entry; the release (outside every other cause's range) or the traceback does."""

    releases: ReleaseRange = Field(description="The releases on which the other cause prints the same words, e.g. "
                                               "'<4.56'; it must not hold the release the entry's before was "
                                               "verified on (`errorkb check`).")
    note: Markdown = Field(description="What else prints these words there, and where that is reported (a thread), "
                                       "in a sentence: shown to a reader whose paste it may be.")
    message: str | None = Field(
        default=None, min_length=1,
        description="The wording it concerns: the entry's message, one of its `also_seen_as`, or a text one of "
                    "them fits (\"'DynamicCache' object ...\" for \"'{cls}' object ...\"); default: every wording.")
    same_frames: bool = Field(
        default=False, description="The other cause raises through the same frames and failing line that tie a "
                                   "traceback to this entry (`diagnosis.frames`, `code`): a traceback does not tell "
                                   "them apart, only the release does.")


class Diagnosis(Strict):
    """What tells this error from others with the same words; the lookup, the hook and the paste
    box read it, and `errorkb check` holds it to the entry's own verified before."""

    names: list[QualifiedName] = Field(
        default_factory=list, description="Names of the library that, found whole in a wording's fixed text, tie "
        "a message to this entry on its words (beside a removed or changed API's name, always counted).")
    placeholders: dict[str, Annotated[PlaceholderDeclaration, BeforeValidator(_placeholder_declaration)]] = Field(
        default_factory=dict, description="Types of placeholder values, keyed by the placeholder's text without "
                                          "braces; `{cls}` is a 'class' and `{module}` a 'library' module unless "
                                          "declared otherwise.")
    relations: list[Annotated[str, AfterValidator(_relation)]] = Field(
        default_factory=list, description="Relations of integer placeholder values, to each other or to an "
        "integer: '{a} > {b}' (the mask longer than the cache), '{n} != 2' (the raise condition excludes 2).")
    frames: list[FrameDeclaration] | None = Field(
        default=None, description="Frames that tie a traceback to this entry (default: `source.function` in "
                                  "`source.path`, for kind 'raise').")
    require_frame: bool = Field(
        default=False, description="The error is raised in one of `frames`: a traceback whose raising frame (the "
                                   "last outside the runtime's packages) is elsewhere rules this entry out, and a "
                                   "message without its traceback is only a candidate.")
    exclude: list[FrameDeclaration] = Field(default_factory=list,
                                            description="Frames that rule this entry out: another error worded alike.")
    raised_in: Literal["user-code", "anywhere"] | None = Field(
        default=None, description="Where the raising frame lies: 'user-code' rules the entry out when the library's "
                                  "own code raised it (default for kinds 'removed' and 'signature': the user's code "
                                  "uses the old name; the library no longer does).")
    direction: Literal["older-code", "newer-code"] | None = Field(
        default=None, description="Which way the releases disagree: 'older-code' (code written for an older release "
                                  "than the installed one: fix the code or pin the last good release) or "
                                  "'newer-code' (code written for a newer release: upgrade the library).")
    other_causes: list[OtherCause] = Field(
        default_factory=list, description="Other causes known to print the same words on other releases "
                                          "(a thread shows them): the words alone then confirm this entry only "
                                          "on a release outside every other cause's range.")

    def relation_triples(self) -> list[tuple[RelationSide, str, RelationSide]]:
        """(left, operator, right): a side is a placeholder's text (str) or an integer constant (int)."""
        return [_relation_parts(value) for value in self.relations]


class Entry(Needs, Reviewed):
    """One documented error; its `requires`, `without`, `build` and `allow` apply to every snippet."""

    id: Slug = Field(description="Stable kebab-case slug; the file name, URL and JSON API key.")
    title: Title
    library: Annotated[str, StringConstraints(pattern=_LIBRARY)] = Field(
        description="owner/repository of the library that raises the error."
    )
    exception: ExceptionName = Field(
        description="Exception class, e.g. ValueError, or a dotted name that pins its package."
    )
    message: str = Field(
        min_length=1,
        description="The message exactly as the source's f-string renders it, {placeholders} kept.",
    )
    tags: list[Slug] = Field(default_factory=list)
    kind: Literal["raise", "removed", "signature"] = Field(
        default="raise",
        description="'raise': the before raises from `source.function` (a raise statement, or Python or the "
        "runtime under it when `source.implicit`); 'removed': the user's code touches a name the library no "
        "longer has (`api`), and the after calls its replacement (`source.function`); 'signature': the user's "
        "code calls `api` with arguments it no longer accepts.")
    api: Api | None = Field(default=None, description="For kinds 'removed' and 'signature': the name concerned.")
    releases: Releases | None = None
    also_seen_as: list[Wording] = Field(default_factory=list, description="Other wordings of the same error.")
    recognised_by: list[Annotated[str, StringConstraints(min_length=8, max_length=200)]] = Field(
        default_factory=list, max_length=5,
        description="Text a traceback of this case shows (the failing line of code, a file name) that "
        "tells it apart from other errors with the same message; the lookup ranks an entry whose text "
        "the paste holds first. For a message several entries share, such as 'too many values to unpack'.")
    diagnosis: Diagnosis = Field(
        default_factory=Diagnosis, description="What tells this error from others worded alike: typed placeholders, "
        "relations, frames, the direction of a release mismatch (docs/contributing.md, 'Diagnosis').")
    source: Source
    targets: list[Literal["bundled", "upstream"]] | None = Field(
        default=None, min_length=1,
        description="The targets the entry's checks run on (default: every target a run asks for); on the "
        "others they are recorded as not applicable. An entry whose `source.runtime` is true is ['upstream'].",
    )

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
    devices: list[Slug] | None = Field(
        default=None, min_length=1,
        description="Device kinds on which the error can happen (default: every device of the runtime); "
        "checks on the others are not run.",
    )
    notes: Markdown | None = Field(default=None, description="Upstream history, version notes.")

    @field_validator("message")
    @classmethod
    def _message_parses(cls, value: str) -> str:
        if reason := is_degenerate(MessageTemplate.parse(value)):
            raise ValueError(f"message too generic to tell this error from others: {reason}")
        return value

    @model_validator(mode="after")
    def _kind_fits(self) -> Entry:
        if self.kind != "raise" and self.api is None:
            raise ValueError(f"an entry of kind '{self.kind}' must name its `api` (owner and name)")
        if self.kind == "raise" and self.api is not None:
            raise ValueError("`api` is only for kinds 'removed' and 'signature'")
        allowed = {"removed": ("AttributeError", "ImportError", "ModuleNotFoundError"), "signature": ("TypeError",)}
        if self.kind in allowed and self.exception not in allowed[self.kind]:
            raise ValueError(f"an entry of kind '{self.kind}' raises {' or '.join(allowed[self.kind])}, "
                             f"not {self.exception}")
        claim = self.releases.raises if self.releases else None
        if self.source.runtime:  # its release is the runtime's; the library's releases are the claim's
            if self.kind != "raise":
                raise ValueError("source.runtime: true is for entries of kind 'raise'")
            if claim is None:
                raise ValueError("source.runtime: true needs releases.raises, the library releases that raise it "
                                 "(source.release is the runtime's)")
            return self
        if claim and self.source.release and not contains(claim, self.source.release):
            raise ValueError(f"source.release {self.source.release} is outside releases.raises ({claim}); "
                             "pin the source to a release that raises")
        return self

    @model_validator(mode="after")
    def _diagnosis_fits(self) -> Entry:
        """Declared placeholders and relations name placeholders the entry's wordings have."""
        known = {name for wording in (self.message, *(w.message for w in self.also_seen_as))
                 for name in MessageTemplate.parse(wording).placeholders}
        named = [*self.diagnosis.placeholders,
                 *(name for triple in self.diagnosis.relation_triples() for name in (triple[0], triple[2])
                   if isinstance(name, str))]
        unknown = sorted({name for name in named if name not in known})
        if unknown:
            raise ValueError(f"diagnosis names placeholders no wording has: {', '.join(unknown)} "
                             f"(the wordings have: {', '.join(sorted(known)) or 'none'})")
        return self

    @property
    def template(self) -> MessageTemplate:
        return MessageTemplate.parse(self.message)

    @property
    def origin(self) -> tuple[str, str]:
        """(words, name): where the error comes from, as every list of entries tells a reader. A removed
        or renamed API is raised at the user's use of the old name; its `source.function` is the
        replacement the after calls, which is the one name a reader must not be sent to as the cause."""
        if self.api is None:
            return ("from", self.source.function)
        name = f"{self.api.owner}.{self.api.name}"
        return ("at a use of", name) if self.kind == "removed" else ("at a call of", name)

    def raises_at(self, release: str) -> bool | None:
        """Whether the entry says its before raises at `release` (None: it makes no claim)."""
        claim = self.releases.raises if self.releases else None
        return contains(claim, release) if claim else None

    def wordings(self, release: str | None, device: str) -> list[tuple[int, Wording]]:
        """(index, wording) of the wordings that apply at `release` on `device`: 0 is the entry's own
        (as a `Wording`, with the source function for a raise), i the i-th of `also_seen_as`."""
        own = Wording(message=self.message, exception=self.exception,
                      function=self.source.function if self.kind == "raise" else None)
        found = [(0, own)]
        for index, wording in enumerate(self.also_seen_as, 1):
            if wording.releases and (release is None or not contains(wording.releases, release)):
                continue
            if wording.device and wording.device != device:
                continue
            found.append((index, wording))
        return found

    def with_links(self, links: SourceLinks, runtime: tuple[str, str, str] | None = None) -> Entry:
        """This entry, its source links made as its library's repository makes them (the loader calls it);
        for a source with `runtime: true`, as the runtime's (`runtime`: its name, repository and tag format)."""
        self.source._links = links
        if self.source.runtime and runtime is not None:
            name, repository, tag = runtime
            self.source._links = SourceLinks(url=links.url, tag=tag)
            self.source._repository, self.source._owner = repository, name
        return self

    @property
    def source_owner(self) -> str | None:
        """The runtime's name when the raise site lies in the runtime (`source.runtime`), else None."""
        return self.source._owner

    @property
    def source_url(self) -> str:
        """Link to the raise line at the pinned commit, else at the release's tag."""
        repository = self.source._repository or self.library
        return self.source._links.link(repository, self.source.revision, self.source.path, self.source.line)

    @property
    def source_host(self) -> str:
        return self.source._links.host

    def line_url(self, release: str, line: int) -> str:
        """Link to `line` of the source file at `release`'s tag (the version matrix's raise lines)."""
        if self.source.runtime:  # the runtime's file, the same in every release's environment
            return self.source_url
        links = self.source._links
        return links.link(self.library, links.revision(None, release), self.source.path, line)

    def module_problems(self, library: str,
                        runtime_packages: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], str]]:
        """(where, what is wrong) for each module the entry names outside the package `library`.

        The verifier imports what `source.module` and `api.owner` name, in the process that forks
        every check: only the library's own modules may be named, or an entry could have code of its
        own (a module in its snippet folder) run outside its check's jail. The zygote and the check
        refuse such a module again (`errorkb/verify/inside/library.py`), whoever hands it over. A source
        with `runtime: true` names a module of the runtime's packages (`runtime_packages`) instead.
        """
        named = [(("source", "module"), self.source.module)] if self.source.module and not self.source.runtime else []
        named += [(("api", "owner"), self.api.owner)] if self.api else []
        problems: list[tuple[tuple[str, ...], str]] = [
            (loc, f"{'.'.join(loc)}: '{module}' is not a module of {library}: an entry may only name the "
                  f"library's own modules ({library} or {library}.*), which the verifier imports")
            for loc, module in named if not _inside(module, (library,))]
        if self.source.runtime and self.source.module and not _inside(self.source.module, runtime_packages):
            problems.append((("source", "module"), f"source.module: '{self.source.module}' is not a module of the "
                             f"runtime's package ({', '.join(runtime_packages) or 'none'}): a source with "
                             "runtime: true names a module of the runtime, which the verifier imports"))
        return problems

    def snippet_files(self) -> list[tuple[Role, str]]:
        """(role, file name) of every snippet, in page order."""
        return [(role, snippet.file) for role, snippet in self.snippets()]

    def snippets(self) -> list[tuple[Role, SnippetRef | Guard]]:
        """(role, snippet) in page order: before, after, then each guard."""
        return [(BEFORE, self.before), (AFTER, self.after), *((Role.guard(guard.file), guard) for guard in self.guards)]

    def guard(self, role: Role) -> GuardExpectation | None:
        """The expectation of the guard that plays `role`; None for before/after."""
        return next((guard.expect for guard in self.guards if Role.guard(guard.file) == role), None)

    def allowances(self, role: Role) -> list[Allowance]:
        """The primitives one snippet may use, each with its reason: the entry's, then the snippet's own.
        `errorkb verify` fails a snippet that uses any other; the page shows these beside its badge."""
        own = dict(self.snippets())[role]
        return [*self.allow, *own.allow]

    def needs(self, role: Role) -> tuple[list[str], list[str], str | None]:
        """(requires, without, runtime build) of one snippet: the entry's, then the snippet's own."""
        own = dict(self.snippets())[role]
        return [*self.requires, *own.requires], [*self.without, *own.without], own.build or self.build


def _inside(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == package or module.startswith(package + ".") for package in packages)


def library_folder(library: str) -> str:
    """`owner/name` entries live in docs/errors/name/; ValueError for a name that is not a plain
    folder name (the model refuses such a library: this keeps every other caller honest)."""
    folder = re.sub(r"[^a-z0-9_.-]", "-", library.split("/")[-1].lower())
    if not folder.strip("."):
        raise ValueError(f"library {library!r} names no folder")
    return folder


__all__ = ["Allowance", "Entry", "Guard", "GuardExpectation", "Solution", "Source", "SourceLinks",
           "TemplateSyntaxError",
           "library_folder"]
