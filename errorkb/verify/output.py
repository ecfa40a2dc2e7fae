"""What people and machines read after a run: failure views, the summary, JUnit XML.

A failure view points at the snippet file and line (an editor's `path:line` jump), quotes
that line, and puts the expected and the actual outcome one above the other. The summary
names the checks whose outcome changed since the previous report, in plain words: those now
failing (passed before: look at their failure above) and those now passing (failed before: a
snippet or entry fixed, a draft finished; nothing to do). "Unexpected passes" read as an alarm
to a newcomer whose draft had just started to pass.
"""

from __future__ import annotations

from pathlib import Path

from errorkb.core.logsafe import log_safe
from errorkb.core.message import MessageTemplate, TemplateSyntaxError, first_difference
from errorkb.results.records import CheckRecord, Code, Outcome
from errorkb.results.report import Report


def location(record: CheckRecord) -> str:
    return f"{record.snippet}:{record.snippet_line}" if record.snippet_line else record.snippet


def failure_view(record: CheckRecord, root: Path) -> str:
    """Plain text (no markup) explaining one failed check; what the snippet printed and raised
    is inert in a terminal and a CI log (`log_safe`)."""
    lines = [f"FAIL {record.id}", f"  {location(record)}"]
    quoted = _source_line(root / record.snippet, record.snippet_line)
    if quoted:
        lines.append(f"    {record.snippet_line:>4} | {quoted}")
    reason = marked_difference(record.reason.splitlines()) if record.code is Code.MESSAGE_DIFFERS \
        else record.reason.splitlines()
    lines.append(f"  why:      {reason[0]}")
    lines += [f"  {more.strip()}" if not more.startswith("  ") else f"  {more}" for more in reason[1:]]
    if "\n" not in record.reason:  # a multi-line reason already shows both sides
        lines.append(f"  expected: {record.expected}")
        lines.append(f"  actual:   {record.actual or '?'}")
    if unread_message(record):
        lines.append(f"  note:     {UNREAD}")
    output = (record.output or "").strip()
    if output and not record.exception:
        tail = output.splitlines()[-6:]
        lines.append("  output (last lines):")
        lines += [f"    {line[:200]}" for line in tail]
    return log_safe("\n".join(lines))


EXPECTED, ACTUAL = "  expected: ", "  actual:   "
UNREAD = ("the verifier's limit, not the snippet's: the exception's text is made by code the check does not run "
          "(a compiled `__str__`, or one over objects the snippet could choose), so its words were never observed and "
          "no edit of the entry makes this pass (docs/own-library.md, \"Errors raised from compiled code\")")


def unread_message(record: CheckRecord) -> bool:
    """A message the judge could not read, as against one it read and found different: the judge gives the
    latter with both sides (expected, actual) on lines of their own, the former on one line."""
    return record.code is Code.MESSAGE_DIFFERS and "\n" not in record.reason


def marked_difference(reason: list[str]) -> list[str]:
    """A "message differs" reason (its `expected:` template and `actual:` message lines, as the
    judge writes them) with a caret line under the first character of the actual message that
    stops fitting the template; a difference past the actual's first line is named by line and
    column instead. Anything else comes back as it was."""
    start = next((i for i, line in enumerate(reason) if line.startswith(EXPECTED)), None)
    at = next((i for i, line in enumerate(reason) if line.startswith(ACTUAL)), None)
    if start is None or at is None or at < start:
        return reason
    expected = "\n".join([reason[start][len(EXPECTED):], *reason[start + 1:at]])
    message = "\n".join([reason[at][len(ACTUAL):], *reason[at + 1:]])
    try:
        index = first_difference(MessageTemplate.parse(expected), message)
    except TemplateSyntaxError:
        return reason
    if index is None:
        return reason
    before = message[:index]
    line, column = before.count("\n"), len(before) - (before.rfind("\n") + 1)
    if line:
        note = f"  first difference: line {line + 1}, column {column + 1} of the actual message"
        return [*reason, note]
    shown = message.splitlines()[0] if message else ""
    found = repr(shown[index]) if index < len(shown) else "the end of the message"
    caret = " " * (len(ACTUAL) + len(before.expandtabs())) + f"^ first difference (character {index + 1}: {found})"
    return [*reason[:at + 1], caret, *reason[at + 1:], *_goes_on(expected, message, index)]


GOES_ON = ("note: the actual message goes on after the documented words, on lines of their own: the library's "
           "exception appends them (its `__str__`, e.g. a \"see also\" link); add them to `message`, each value "
           "that varies (a release, a code) a placeholder (docs/own-library.md, \"Lines the exception appends\")")


def _goes_on(expected: str, message: str, index: int) -> list[str]:
    """The note for a message that is the documented one, then more lines: the whole documented template fits
    the text before the first difference, and a line break follows it."""
    if not message[index:].startswith("\n") or MessageTemplate.parse(expected).match(message[:index]) is None:
        return []
    return [f"  {GOES_ON}"]


def _source_line(path: Path, line: int | None) -> str | None:
    if not line:
        return None
    try:
        return path.read_text(encoding="utf-8").splitlines()[line - 1].rstrip()
    except (OSError, IndexError, UnicodeDecodeError):
        return None


def changes(previous: Report | None, fresh: Report) -> tuple[list[str], list[str]]:
    """(now failing, now passing): outcomes that flipped since `previous`."""
    if previous is None:
        return [], []
    before = {record.id: record.outcome for record in previous.checks}
    failures = [r.id for r in fresh.checks if r.outcome is Outcome.FAIL and before.get(r.id) is Outcome.PASS]
    passes = [r.id for r in fresh.checks if r.outcome is Outcome.PASS and before.get(r.id) is Outcome.FAIL]
    return sorted(failures), sorted(passes)


def summary_lines(fresh: Report, previous: Report | None, report_path: str) -> list[str]:
    counts = fresh.counts()
    not_run = sorted({record.reason for record in fresh.checks if record.outcome is Outcome.NOT_RUN})
    cached = sum(1 for record in fresh.checks if record.cached)
    applicable = counts[Outcome.NOT_APPLICABLE]
    head = (f"{counts['pass']} passed, {counts['fail']} failed, {counts['not-run']} not run"
            + (f" ({'; '.join(not_run)})" if not_run else "")
            + (f", {applicable} not applicable" if applicable else "")
            + (f"; {cached} from cache" if cached else "") + f" — report: {report_path}")
    lines = [head]
    new_failures, new_passes = changes(previous, fresh)
    if new_failures:
        lines.append(f"now failing (passed in the previous report; each failure is shown above): "
                     f"{', '.join(new_failures)}")
    if new_passes:
        lines.append(f"now passing (failed in the previous report; fixed since, nothing to do): "
                     f"{', '.join(new_passes)}")
    failing = sorted(record.id for record in fresh.checks if record.outcome is Outcome.FAIL)
    if failing and not new_failures:
        lines.append(f"failing: {', '.join(failing)}")
    return lines


def junit_xml(report: Report) -> bytes:
    """One <testsuite> per target-device, one <testcase> per check; not run → <skipped>."""
    import xml.etree.ElementTree as ET  # for --junit only: a plain run does not load the XML writer

    suites = ET.Element("testsuites", name="errorkb verify")
    by_suite: dict[str, list[CheckRecord]] = {}
    for record in report.checks:
        by_suite.setdefault(f"{record.target}-{record.device}", []).append(record)
    for name, records in sorted(by_suite.items()):
        suite = ET.SubElement(suites, "testsuite", name=f"errorkb[{name}]", tests=str(len(records)),
                              failures=str(sum(r.outcome is Outcome.FAIL for r in records)),
                              skipped=str(sum(not r.outcome.ran for r in records)),
                              errors="0", timestamp=report.created)
        for record in records:
            case = ET.SubElement(suite, "testcase", classname=record.entry,
                                 name=f"{record.role}[{name}]", file=record.snippet,
                                 time=f"{record.duration_s or 0:.3f}")
            if record.snippet_line:
                case.set("line", str(record.snippet_line))
            if record.outcome is Outcome.FAIL:
                failure = ET.SubElement(case, "failure", message=record.reason.splitlines()[0])
                failure.text = (f"{location(record)}\n{record.reason}\n"
                                f"expected: {record.expected}\nactual:   {record.actual or '?'}")
            elif not record.outcome.ran:
                ET.SubElement(case, "skipped", message=f"{record.outcome}: {record.reason}")
    ET.indent(suites)
    text: bytes = ET.tostring(suites, encoding="utf-8", xml_declaration=True)
    return text + b"\n"
