"""What the hook (and the pytest hint) prints after a traceback: the documented entry the error
is, or the entries it may be, graded by the same matcher as `errorkb lookup` and the page.
Imported only once an exception has happened.

Stages: `text_of` formats the exception as Python printed it (its chain, its frames, the source
lines under them: what a reader would paste); `answer_for` matches that text against each
installed knowledge base's index (`errorkb.lookup.load_indexes`) with the installed release of
its library, so an entry whose wording this release never prints is ruled out and entries
sharing a wording are told apart; `block` writes the few lines (a confirmed entry, or candidates labelled as such,
each with what would confirm it). Silent when nothing matches; never raises (the caller
swallows anything), and nothing here imports the runtime, the library or pydantic.

Each installed knowledge base ships its index in its own package, found through the
`errorkb.indexes` entry point, rather than fetched: the hook must work offline, on the first
error, in an environment that never ran errorkb. Every index answers for its own library; a
confirmed answer of any of them is printed, else the first index's candidates.
"""

from __future__ import annotations

import opcode
import os
import re
import sys
import traceback as tb
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from errorkb.hook import guard
from errorkb.lookup import (
    INSTALLED,
    Answer,
    Grade,
    Index,
    Match,
    hint_words,
    installed_path,
    load_index,
    load_indexes,
    normalize,
    rules,
    same_words,
)

MAX_CANDIDATES = 3
MAX_CHAIN = 1000  # exceptions of a chain read for forged frames (Python prints at most its own limit)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_LOADED: dict[str, list[Index]] = {}
_HERE = os.path.dirname(os.path.abspath(__file__))  # errorkb/hook


DEADLINE_S = guard.DEADLINE_S  # the most the reading of the error may add to an exit: it runs the user's code


def explain(kind: type[BaseException], value: BaseException, traceback: object, stream: IO[str] | None = None,
            index_path: Path | None = None, deadline: float = DEADLINE_S) -> None:
    """Print the block for `value` when it matches an entry, within `deadline` seconds; otherwise print nothing.
    Whatever it imports is imported inside the guard (`errorkb.hook.guard`): never a file of the program's folder."""
    _EXPLAINED[:] = [value, *_EXPLAINED[:MAX_EXPLAINED - 1]]
    with guard.inside():
        text = describe_within(value, index_path, deadline)
        if text is not None:
            write(stream or sys.stderr, text)


MAX_EXPLAINED = 8
_EXPLAINED: list[BaseException] = []  # the last errors `explain` was called for: the `.pth`'s exit check skips them


def explained(value: BaseException) -> bool:
    """Whether `explain` was called for `value` (this very object) already: a hook of the program's that calls the one
    it replaced, errorkb's, had the block printed after its own report; the exit check must not print it again."""
    return any(one is value for one in _EXPLAINED)


def write(out: IO[str], text: str) -> None:
    """Write the block to `out` as the stream can take it: characters its encoding cannot write escaped (`\\u2014`),
    as Python's own stderr writes them (a stream the program set may be strict); nothing where the reader of a pipe
    went away, and SIGPIPE held back meanwhile: a program that set it to its default would die of the block (status
    -13 instead of Python's 1). Round thirteen: a pipe nobody reads until the program exits (a parent's
    `Popen(stderr=PIPE)`, then `wait()`), which held Python's output but had no room left for the block, held the exit
    up for ever; so the block goes in pieces the stream takes whole (`_pieces`), each once it has room for it
    (`_room`), and the rest is dropped where it has none within `WRITE_WAIT_S`."""
    encoding = getattr(out, "encoding", None)
    if isinstance(encoding, str):
        try:
            text = text.encode(encoding, "backslashreplace").decode(encoding)
        except (LookupError, UnicodeError):
            pass
    if _reader_gone(out):
        return
    import time

    ends = time.monotonic() + WRITE_WAIT_S
    with _sigpipe_held():
        for piece in _pieces(text):
            if not _room(out, ends - time.monotonic()):
                return
            out.write(piece)
            out.flush()


WRITE_WAIT_S = 1.0  # the most the block's write waits for room in the stream (a pipe nobody reads yet): then dropped
_PIECE = 2048  # bytes of the block (as UTF-8) written at once: under any pipe's atomic write (PIPE_BUF, 4096 on Linux)


def _pieces(text: str) -> list[str]:
    """`text` in pieces of at most `_PIECE` bytes, cut after a line where one ends: a write of at most PIPE_BUF bytes
    to a pipe is written whole or not at all, so one the pipe has room for (a free page: `_room`) never waits."""
    pieces: list[str] = []
    current = ""
    for line in text.splitlines(keepends=True):
        while len(line.encode("utf-8", "surrogatepass")) > _PIECE:
            cut = _PIECE // 4  # characters of at most four bytes each
            line, pieces = line[cut:], [*pieces, *([current] if current else []), line[:cut]]
            current = ""
        if len((current + line).encode("utf-8", "surrogatepass")) > _PIECE:
            pieces.append(current)
            current = ""
        current += line
    return [*pieces, current] if current else pieces


def _room(out: IO[str], wait: float) -> bool:
    """Whether `out` can take a piece without waiting, within `wait` seconds: its descriptor polled for writing (a pipe
    says so once a page of it is free). A stream with no descriptor (a `StringIO`, the program's own writer) or no
    poll (Windows) is written as ever. Round fourteen: a Ctrl-C while it waits (or an exception a signal handler of
    the program's raises then: `sys.exit` on SIGTERM) is the program's, never the hook's failure: it propagates (main
    swallowed it with the hook's own errors, and a program its report ran in, asyncio's loop, went on running)."""
    try:
        import select

        poll = select.poll()
        poll.register(out.fileno(), select.POLLOUT)
    except Exception:
        return True
    try:
        return any(events & select.POLLOUT for _, events in poll.poll(max(0, int(wait * 1000))))
    except Exception:
        return False


def _reader_gone(out: IO[str]) -> bool:
    """Whether `out` is a pipe (or socket) whose reading end is closed: poll reports an error on it, no write needed."""
    try:
        import select

        poll = select.poll()
        poll.register(out.fileno(), select.POLLOUT)
        return any(events & (select.POLLERR | select.POLLHUP) for _, events in poll.poll(0))
    except Exception:  # no descriptor (a StringIO), no poll (Windows)
        return False


class _sigpipe_held:
    """SIGPIPE blocked for this thread while the block is written, and one it raised meanwhile taken off, so that a
    reader going away in the middle costs a BrokenPipeError (swallowed) rather than the process."""

    def __enter__(self) -> None:
        self.saved: set[Any] | None = None
        try:
            import signal

            self.saved = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGPIPE})
        except Exception:  # no such signal or call (Windows)
            pass

    def __exit__(self, *exc: object) -> None:
        if self.saved is None:
            return
        import signal

        try:
            if signal.SIGPIPE in signal.sigpending():
                signal.sigtimedwait({signal.SIGPIPE}, 0)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, self.saved)


def describe_within(value: BaseException, index_path: Path | None = None, deadline: float = DEADLINE_S) -> str | None:
    """`describe`, given up after `deadline` seconds (None), for the hook, the IPython extension and pytest's hint.

    Reading the exception runs code of the user's (its `__str__`, a property, a loader's `get_source`), which
    may never return, where Python's own printing read it fine: a hook that hangs the exit is the worst it can
    do. So the block is made in a thread of its own, and handed back only if it is ready in time; otherwise it is
    dropped, for ever, and the thread stopped where it runs Python code (an exception sent to it), or left to
    the interpreter's exit. The thread is `_thread`'s, not `threading`'s: a `threading.Thread` runs the trace and
    profile functions the program set with `threading.settrace` / `setprofile` (its tracer, printing, on every call
    the explainer makes: round seven) and is listed by `threading.enumerate()`; a `_thread` thread is neither, and,
    like a daemon thread, never holds the exit up. Nothing at all where the process could not afford it
    (`_cpu_room`), nor where a module the explainer imports is the program's folder's (`guard.foreign`: its `json.py`,
    imported by the program or a test; round eight)."""
    if deadline <= 0 or not _cpu_room(deadline) or guard.foreign():
        return None
    if sys.is_finalizing():
        return _describe_finalizing(value, index_path, deadline)
    import _thread

    if _thread.get_ident() in _EXPLAINING:
        return None  # an error reported while the explainer runs: Python's to print alone
    made: list[str | None] = []
    ready = _thread.allocate_lock()
    ready.acquire()

    def make() -> None:
        _EXPLAINING.add(_thread.get_ident())
        try:
            with guard.inside():
                made.append(describe(value, index_path))
        except:  # noqa: E722 (no name to look up: a program may have replaced `builtins.BaseException`, round five)
            made.append(None)
        finally:
            _EXPLAINING.discard(_thread.get_ident())
            ready.release()

    worker = _thread.start_new_thread(make, ())
    try:
        finished = ready.acquire(timeout=deadline)
    except BaseException:  # a Ctrl-C while it waits: the caller's; the block is dropped, as past the deadline
        _stop(worker)
        raise
    if not finished or not made:
        _stop(worker)
        return None
    return made[0]


_EXPLAINING: set[int] = set()  # the explainer's threads (their idents) while they run


def _cpu_room(deadline: float) -> bool:
    """Whether the CPU time left to the process (`guard.cpu_left`) covers the explainer, which takes at most `deadline`
    seconds of the clock and one thread's CPU at a time, and the margin the hook always leaves."""
    return guard.cpu_left() > deadline + guard.CPU_MARGIN_S


class _Refused(BaseException):
    """Raised into the explainer at interpreter exit (`_describe_finalizing`); no `except Exception` stops it."""


_FINALIZING: list[bool] = []  # the explainer runs inline at exit: an error reported from within it is Python's alone


def _describe_finalizing(value: BaseException, index_path: Path | None, deadline: float) -> str | None:
    """`describe` while the interpreter exits (after `atexit`: garbage with a `__del__` that raises, collected at
    the end). No other thread runs then: one started never starts, and `Thread.start` waits for it for ever (Python
    3.11; 3.12 refuses to start it). So the block is made in this thread, bounded another way: the indexes are read
    first, then the exception under a trace function that refuses to run the user's own code (a `__str__`, a
    property, a loader of their script: one stuck in C, a sleep, could not be stopped here), and stops any Python
    code at `deadline`. Code of an installed package runs, as the matcher's own dependencies do."""
    if _FINALIZING:
        return None
    import time

    try:
        for index in _indexes(index_path):  # what reads no object of the user's, unguarded: files, imports
            index.lookup()
            installed_release(index.distribution or index.library)
    except BaseException:
        return None
    ours = tuple(os.path.join(folder, "") for folder in (os.path.dirname(os.__file__), os.path.dirname(_HERE)))
    ends = time.monotonic() + deadline

    def allowed(frame: Any) -> bool:
        """Code of the standard library (frozen or not), errorkb and installed packages (what the matcher uses:
        `packaging`), never of the user's files; compiled from a string, code that runs in such a module's globals
        (a dataclass's `__init__`, a namedtuple's `__new__`), never `__main__`'s."""
        name = _plain(frame.f_code.co_filename)
        if name.startswith("<frozen "):
            return True
        if name.startswith("<"):
            file = frame.f_globals.get("__file__")
            if file is None:
                return bool(frame.f_globals.get("__name__") != "__main__")
            name = _plain(file)
        return name.startswith(ours) or installed_path(name)

    def refuse(frame: Any, event: str, arg: object) -> Any:
        if time.monotonic() > ends or event == "call" and not allowed(frame):
            raise _Refused
        return refuse

    previous = sys.gettrace()
    _FINALIZING.append(True)
    try:
        sys.settrace(refuse)
        return describe(value, index_path)
    except (Exception, _Refused):
        return None
    finally:
        sys.settrace(previous)
        _FINALIZING.clear()


def _stop(worker: int) -> None:
    """Send the thread `worker` (its ident) an exception (CPython's `PyThreadState_SetAsyncExc`): raised at its next
    Python instruction, it ends a loop in the user's Python code; code in C (a sleep) is left to the exit."""
    try:
        import ctypes

        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(worker), ctypes.py_object(TimeoutError))
    except Exception:
        pass


def logs_to_stderr(name: str) -> bool:
    """Whether an ERROR record of logger `name` reaches `sys.stderr`, as asyncio's report of an error does: through a
    handler streaming there, or, with no handler on its way at all, logging's last resort (which writes there).
    Where the report went elsewhere (a file), a block on stderr would follow nothing."""
    import logging

    logger: logging.Logger | None = logging.getLogger(name)
    if logger is None or not logger.isEnabledFor(logging.ERROR):
        return False
    handled = False
    while logger is not None:
        for handler in logger.handlers:
            handled = True
            if isinstance(handler, logging.StreamHandler) and handler.stream is sys.stderr \
                    and handler.level <= logging.ERROR:
                return True
        logger = logger.parent if logger.propagate else None
    return not handled and logging.lastResort is not None


def describe(value: BaseException, index_path: Path | None = None) -> str | None:
    """The block for `value`, or None when no entry matches (the pytest hint prints it too)."""
    if not isinstance(value, Exception):  # KeyboardInterrupt, SystemExit: never an entry's error
        return None
    read = _read(value)  # once: it runs the user's `__str__`
    if _NAMED.search(read[0]):
        return None
    answers = [(_answer_in(value, index, read), index) for index in _indexes(index_path)]
    shown = [(answer, index) for answer, index in answers if answer.confirmed] \
        or [(answer, index) for answer, index in answers if answer.matches][:1]
    return "".join(dict.fromkeys(block(answer, index) for answer, index in shown)) or None  # a copy's block once


# A report that quotes errorkb's block already: another interpreter's report relayed as text (a launcher's error
# carrying its child's stderr), whose hook named the entry after the child's traceback. A second block would name it
# twice on one screen (round nine). Escaped as an ASCII stream writes it, or not.
_NAMED = re.compile(r"errorkb: (?:a documented error (?:—|\\u2014) |possibly a documented error, not confirmed)")


MAX_MEMBERS = 100  # members of an exception group read one by one (Python prints at most its own limit of them)


def _answer_in(value: BaseException, index: Index, read: tuple[str, tb.TracebackException | None]) -> Answer:
    """`answer_for` the error; for an exception group it does not confirm as a whole, the first member that is
    confirmed, read alone as Python printed it in its box. The printed group read as a paste has "the error it ended
    with" in its last box only, while every member of a group is an error the program ended with, and the live group
    says which they are: a member the library raised confirms wherever it stands (`except*`, a TaskGroup). Then each
    error of the chain whose words the program's error relays (`_relayed`), read alone: one Python printed confirms;
    one `from None` hid is only possible (`_possible`), where nothing else matched."""
    answer = answer_for(value, index, read)
    if answer.confirmed:
        return answer
    for member in _members(value):
        found = answer_for(member, index)
        if found.confirmed:
            return found
    hidden_answer = None
    for one, hidden in _relayed(value, read[1]):
        found = answer_for(one, index)
        if found.confirmed and not hidden:
            return found
        if found.confirmed and hidden_answer is None and not answer.matches:
            hidden_answer = _possible(found, index.library)
    return hidden_answer or answer


def _members(group: BaseException) -> Iterator[Exception]:
    """The errors of an exception group (those of its groups, depth first, in Python's printing order), each once:
    at most MAX_MEMBERS. Nothing for an exception that is no group."""
    seen: set[int] = set()
    todo: list[object] = [group]
    while todo and len(seen) < MAX_MEMBERS:
        one = todo.pop()
        if id(one) in seen:
            continue
        seen.add(id(one))
        members = getattr(one, "exceptions", None) if isinstance(one, BaseExceptionGroup) else None
        if isinstance(members, tuple | list):
            todo += reversed(members)
        elif one is not group and isinstance(one, Exception):
            yield one


def _relayed(value: BaseException, printed: tb.TracebackException | None) -> Iterator[tuple[BaseException, bool]]:
    """The errors of `value`'s chain whose words the error after each repeats (`raise ValueError(str(error))` in a
    handler, `... from None`), with whether Python hid it (`from None`, a cause set beside it): the live exception and
    the printer's copy walked alike, at most MAX_CHAIN, each once. Round twelve: a program that relays the library's
    error in its own `raise` with the same words got no block, though Python printed them; the chain read as one
    paste ends with the program's raise of the words, whose complete traceback shows no frame of the library
    ("another caller's"), while the live chain says whose words they are. "The same words" is the lookup's rule
    (`same_words`, on the exception lines as it reads them in a paste: `_line`), never a second one (round thirteen:
    the hook's own, whole messages equal character by character, missed a relay that adds a blank or a line); and at
    most the lookup's `rules.RELAYS` of them, from the last, as the lookup reads a printed chain's (each is read
    alone again: a chain of 1,000 errors relaying the same 8 KB words took the explainer's whole deadline)."""
    if printed is None:
        return
    seen: set[int] = {id(value)}
    todo = [(value, printed)]
    relays = 0
    while todo and len(seen) < MAX_CHAIN and relays < rules.RELAYS:
        live, copy = todo.pop()
        words = _line(copy)
        pairs = [(live.__cause__, copy.__cause__, False),
                 (live.__context__, copy.__context__, copy.__suppress_context__ or copy.__cause__ is not None)]
        for one, other, hidden in pairs:
            if not isinstance(one, BaseException) or other is None or id(one) in seen \
                    or not same_words(_line(other), words):
                continue
            seen.add(id(one))
            todo.append((one, other))
            if isinstance(one, Exception):
                relays += 1
                yield one, hidden


def _line(copy: tb.TracebackException) -> str:
    """The exception line Python printed for `copy` (`Name: message`, a syntax error's place before it skipped, its
    notes after it), its message's first line, as the lookup reads it in a paste (`normalize`)."""
    for part in copy.format_exception_only():
        if not part.startswith((" ", "\t")):
            return normalize(part).partition("\n")[0]
    return ""


def _possible(answer: Answer, library: str) -> Answer:
    """`answer`, for an error `from None` hid, its confirmed matches made candidates: the words Python printed are
    that error's, but its traceback is not on the screen (round sixteen: a relay that drops the chain is possible,
    never confirmed)."""
    reason = (f"relayed by a `raise ... from None` of your code, which hides the traceback of the error {library} "
              "raised with these words (raise it `from` the error to see it)")
    return replace(answer, matches=[replace(match, grade=Grade.CANDIDATE, missing=(reason, *match.missing))
                                    if match.confirmed else match for match in answer.matches])


def _indexes(path: Path | None) -> list[Index]:
    """The index at `path`, or (None) every installed knowledge base's: each answers for its library."""
    key = str(path or "")
    if key not in _LOADED:
        _LOADED[key] = [load_index(path)] if path is not None else load_indexes()
    return _LOADED[key]


def text_of(value: BaseException) -> str:
    """The exception as Python prints it, chain and source lines included (`_read`)."""
    return _read(value)[0]


def _read(value: BaseException) -> tuple[str, tb.TracebackException | None]:
    """The exception as Python prints it, chain and source lines included, and the printer's copy of it (None where
    the text is a worker's, `_worker_traceback`). A frame whose code was compiled under another file's name
    (`compile(source, <library file>, "exec")`, round fifteen) reads as `<string>`, as Python prints code compiled
    from a string: the live frame says it is not that file's code. A code object's file and function names may be of
    a `str` subclass whose methods say anything (a `__format__` naming the library's file): they are read as the
    characters Python's own printer shows (`_plain`), and the source lines under those names."""
    printed = tb.TracebackException(type(value), value, value.__traceback__, lookup_lines=False)
    worker = _worker_traceback(value)
    if worker is not None and worker.endswith("".join(printed.format_exception_only())):
        return worker, None
    if _children_named():
        _cut_relays(printed)
    _shorten(printed)
    forged = _forged_frames(value)
    for stack in _stacks(printed):
        for summary in stack:
            summary.filename, summary.name = _plain(summary.filename), _plain(summary.name)
            if (summary.filename, summary.lineno, summary.name) in forged:
                summary.line  # noqa: B018 (read the source line before the name it is read under goes)
                summary.filename = "<string>"
        _fold(stack)
    return "".join(printed.format()), printed


_QUOTE = "Traceback (most recent call last):"  # how Python's printer starts a traceback, quoted in a relay's message
_CHILDREN: list[bool] = []  # `_children_named()`, once per process


def _children_named() -> bool:
    """Whether the hook's `.pth` is installed in this environment: an interpreter the program starts with
    `sys.executable` (a launcher's child) runs it too, and names its own error after its own traceback."""
    if not _CHILDREN:
        try:
            from errorkb.hook import pth

            _CHILDREN.append(pth.is_ours(pth.pth_path()))
        except Exception:
            _CHILDREN.append(False)
    return _CHILDREN[0]


def _cut_relays(printed: tb.TracebackException) -> None:
    """Round ten: an exception whose message quotes another process's traceback (a launcher's `ChildFailedError`,
    read from the error file its child wrote) relays an error this process never held: where the child ran the hook
    (`_children_named`), it named the entry after its own traceback, where the error was; a second block here would
    name it again from quoted text. So each such message is read up to the quote. A process pool's transfer of a
    worker's traceback (`_POOLS`: the worker printed nothing) is read as ever. The price: a program that quotes a
    traceback of its own in a message it raises `from None` (nothing live left of the error) gets no block."""
    pools = tuple(kind for kind in (getattr(sys.modules.get(holder), name, None) for _, holder, name in _POOLS)
                  if isinstance(kind, type))
    for copy in _linked(printed, tb.TracebackException):
        text = getattr(copy, "_str", None)
        kind = getattr(copy, "exc_type", None)
        if isinstance(text, str) and _QUOTE in text and not (isinstance(kind, type) and issubclass(kind, pools)):
            copy._str = text[:text.index(_QUOTE)]


MAX_MESSAGE = 8 * 1024  # characters of one exception's message read: its first and last halves


def _shorten(printed: tb.TracebackException) -> None:
    """Round ten: the matcher reads a paste's last `CAP` characters (a paste is bounded); one huge message (a tensor's
    repr, a quoted file: 100 KB) raised from the entry's error filled them, and the entry's error, printed before it,
    went unread. Each exception's message is read as its first and last `MAX_MESSAGE // 2` characters, the rest
    counted in between, so a chain of such errors still fits."""
    half = MAX_MESSAGE // 2
    for copy in _linked(printed, tb.TracebackException):
        text = getattr(copy, "_str", None)
        if isinstance(text, str) and len(text) > MAX_MESSAGE:
            copy._str = f"{text[:half]}\n[{len(text) - 2 * half} characters]\n{text[-half:]}"


class _Folded(tb.StackSummary):
    """A stack whose frames Python's printer folds are not formatted: `StackSummary.format` formats every frame (its
    source line, its carets: some 80 µs each) before it drops those of a run of one frame repeated past its cutoff
    ("[Previous line repeated N more times]"): seconds for a recursion 50,000 deep, all of the explainer's deadline.
    Those get a placeholder, which `format` drops as it drops their text: the same lines, formatted once each."""

    folded: set[int]

    def format_frame_summary(self, frame_summary: tb.FrameSummary, *args: Any, **kwargs: Any) -> Any:
        if id(frame_summary) in self.folded:
            return ""
        return super().format_frame_summary(frame_summary, *args, **kwargs)


def _fold(stack: tb.StackSummary) -> None:
    """Mark the frames `StackSummary.format` will fold (its own test: file, line and function as the previous frame's,
    none of those None, past `_RECURSIVE_CUTOFF` in a row); a stack of another class, or no cutoff known, as it is."""
    cutoff = getattr(tb, "_RECURSIVE_CUTOFF", None)
    if type(stack) is not tb.StackSummary or not isinstance(cutoff, int):
        return
    folded: set[int] = set()
    last: tuple[object, ...] | None = None
    count = 0
    for summary in stack:
        key = (summary.filename, summary.lineno, summary.name)
        if last is None or None in last or key != last:
            last, count = key, 0
        count += 1
        if count > cutoff:
            folded.add(id(summary))
    if folded:
        stack.__class__ = _Folded
        stack.folded = folded  # type: ignore[attr-defined]


# Where a process pool re-raises the error a worker sent back: (the module whose code re-raises it, the module and
# class of the exception's cause, which holds the worker's traceback as the worker's Python printed it).
_POOLS = (("concurrent.futures._base", "concurrent.futures.process", "_RemoteTraceback"),
          ("multiprocessing.pool", "multiprocessing.pool", "RemoteTraceback"))
_QUOTED = ('\n"""\n', '"""')  # how the standard library quotes a worker's traceback in that cause


def _worker_traceback(value: BaseException) -> str | None:
    """The worker's traceback of an error a process pool raised in a worker and re-raised here, or None. The frames
    Python prints last are the pool's re-raise (`raise self._exception`), none of them where the error was raised;
    the worker's traceback is, read as a paste is (its frames are text). Only where the pool's own code re-raised it
    (the last frame runs in that module's globals, by identity) and its cause is of the pool's class."""
    last = None
    for frame, _ in tb.walk_tb(value.__traceback__):
        last = frame
    for relay, holder, name in _POOLS:
        module, kind = sys.modules.get(relay), getattr(sys.modules.get(holder), name, None)
        if last is None or module is None or last.f_globals is not module.__dict__ or not isinstance(kind, type) \
                or type(value.__cause__) is not kind:
            continue
        text = vars(value.__cause__).get("tb")
        if isinstance(text, str) and text.startswith(_QUOTED[0]) and text.endswith(_QUOTED[1]):
            return text[len(_QUOTED[0]):-len(_QUOTED[1])]
    return None


def _plain(text: object) -> str:
    """`text`'s characters as a plain `str`, none of a subclass's methods run (`str.__str__` copies them)."""
    return str.__str__(text) if issubclass(type(text), str) else "<unknown>"


def _linked(start: Any, kind: type) -> Iterator[Any]:
    """`start`, its causes, contexts and a group's members (those of `kind`), each once: a cycle ends, and at most
    MAX_CHAIN are read. One walk for the live exceptions and the traceback printer's copies of them."""
    seen: set[int] = set()
    todo = [start]
    while todo and len(seen) < MAX_CHAIN:
        one = todo.pop()
        if id(one) in seen:
            continue
        seen.add(id(one))
        yield one
        members = getattr(one, "exceptions", None)  # a group's (a user's class may set anything there)
        todo += [linked for linked in (one.__cause__, one.__context__,
                                       *(members if isinstance(members, tuple | list) else ()))
                 if isinstance(linked, kind)]


def _chain(value: BaseException) -> Iterator[BaseException]:
    return _linked(value, BaseException)


def _forged_frames(value: BaseException) -> set[tuple[str, int | None, str]]:
    """(file, line, function) of each frame of the chain whose code names a file that is not the file of the
    module it runs in (`__file__` of its globals), where that file stands where packages are installed: only
    such a frame could tie an error to a library. A module's own code always names its module's file."""
    forged: set[tuple[str, int | None, str]] = set()
    checked: dict[tuple[str, object], bool] = {}  # (file, module's file): forged (a recursion repeats one frame)
    for one in _chain(value):
        for frame, line in tb.walk_tb(one.__traceback__):
            name, module_file = _plain(frame.f_code.co_filename), frame.f_globals.get("__file__")
            key = (name, _plain(module_file) if isinstance(module_file, str) else None)
            if key not in checked:
                checked[key] = installed_path(name) and not _same_file(module_file, name)
            if checked[key]:
                forged.add((name, line, _plain(frame.f_code.co_name)))
    return forged


def _same_file(module_file: object, name: str) -> bool:
    return isinstance(module_file, str) and os.path.normcase(os.path.abspath(_plain(module_file))) == \
        os.path.normcase(os.path.abspath(name))


def _stacks(printed: tb.TracebackException) -> Iterator[tb.StackSummary]:
    return (one.stack for one in _linked(printed, tb.TracebackException))


def answer_for(value: BaseException, index: Index, read: tuple[str, tb.TracebackException | None] | None = None) \
        -> Answer:
    """The lookup's graded answer for a live exception (`read`: `_read(value)`, where already made), on the installed
    release. What only the live exception tells keeps a confirmed match possible: an object of a class of the user's
    own named like one of the library's (`_lookalike`); the words raised by the user's own `raise`, where Python
    printed no line for the lookup to read it in (`_unseen_raise`)."""
    text, printed = read or _read(value)
    installed = installed_release(index.distribution or index.library)
    answer = answer_text(text, index, installed)
    if not answer.confirmed:
        return answer
    said = _lookalike(value, index.library) or _other_interpreter(value)
    chain = _carriers(value, printed) if said is None else []

    def why(match: Match) -> str | None:
        if said is not None or not any(place for _, place in chain):
            return said
        carriers = [(line, place) for line, place in chain
                    if any(one.known.id == match.known.id for one in answer_text(line, index, installed).matches)]
        places = [place for _, place in carriers]
        if not carriers or any(place is None for place in places):
            return None
        where = places[-1]
        return (f"raised by a `raise` in your code ({where}), which Python prints without its line: your own words, or "
                f"relayed from an error {index.library} raised; the original error's whole traceback tells (run it "
                "from a file, or raise it `from` the error)")

    matches = []
    for match in answer.matches:
        reason = why(match) if match.confirmed else None
        matches.append(match if reason is None else replace(match, grade=Grade.CANDIDATE,
                                                            missing=(reason, *match.missing)))
    return replace(answer, matches=matches)


_RAISE_VARARGS = opcode.opmap["RAISE_VARARGS"]


def _carriers(value: BaseException, printed: tb.TracebackException | None) -> list[tuple[str, str | None]]:
    """Each exception of the chain Python printed: its exception line alone, and, where a `raise` of the user's own
    that Python printed without its line raised it (`_unseen_raise`), where ("<string>, line 1"), else None."""
    if printed is None:
        return []
    found = []
    todo = [(value, printed)]
    seen: set[int] = set()
    while todo and len(seen) < MAX_CHAIN:
        live, copy = todo.pop()
        if id(live) in seen:
            continue
        seen.add(id(live))
        found.append(("".join(copy.format_exception_only()), _unseen_raise(live, copy)))
        pairs = [(live.__cause__, copy.__cause__)]
        if not copy.__suppress_context__:
            pairs.append((live.__context__, copy.__context__))
        members = getattr(live, "exceptions", None)
        if isinstance(members, tuple | list) and copy.exceptions:
            pairs += list(zip(members, copy.exceptions, strict=False))  # a user's list may be longer
        todo += [(one, other) for one, other in pairs if isinstance(one, BaseException) and other is not None]
    return found


def _unseen_raise(live: BaseException, copy: tb.TracebackException) -> str | None:
    """Where the user's own `raise` raised `live` (its innermost frame runs a `raise` statement with an argument,
    outside any installed package), when Python printed no source line for it (code compiled from a string: `-c`,
    stdin, `exec`; a file changed since): "<file>, line <n>". Else None (a line the lookup reads itself, the
    interpreter's own error, a library's raise)."""
    last = live.__traceback__
    while last is not None and last.tb_next is not None:
        last = last.tb_next
    if last is None or not copy.stack or copy.stack[-1].line:
        return None
    code, at = last.tb_frame.f_code.co_code, last.tb_lasti
    name = _plain(last.tb_frame.f_code.co_filename)
    if not (0 <= at < len(code) - 1 and code[at] == _RAISE_VARARGS and code[at + 1] > 0) or installed_path(name):
        return None
    return f"{name}, line {last.tb_lineno}"


# Where another interpreter's error reaches this one as text alone: (module, class) of the exception it is raised as.
_INTERPRETERS = (("_xxsubinterpreters", "RunFailedError"), ("_interpreters", "RunFailedError"),
                 ("concurrent.interpreters", "ExecutionFailed"))


def _other_interpreter(value: BaseException) -> str | None:
    """Why an error of the chain raised in another interpreter (a subinterpreter's `run_string`) confirms nothing: that
    interpreter hands this one the error's type and words as text, its frames lost, so the words may be the program's
    own raise there as well as the library's. By identity of the class the standard library raises it as."""
    kinds = tuple(kind for kind in (getattr(sys.modules.get(module), name, None) for module, name in _INTERPRETERS)
                  if isinstance(kind, type))
    if not kinds or not any(isinstance(one, kinds) for one in _chain(value)):
        return None
    return ("raised in another interpreter (a subinterpreter), which hands this one the error as text, its frames "
            "lost: the whole traceback there tells whether the library raised it")


_ON_OBJECT = re.compile(r"(?:type object )?'([A-Za-z_]\w*)'(?: object)? has no attribute ")


def _lookalike(value: BaseException, library: str) -> str | None:
    """Why the live object an attribute was missing from is not the library's class its message names, or None.
    The printed message names a class by its bare name only, which a user's own class may share (`class
    DynamicCache: ...`); the live `AttributeError.obj` tells, by identity: a class of that name that a loaded module
    of the library holds, which the object's class neither is nor derives from. Unknown (the library's modules not
    loaded, no such class in them, no object kept): None, and the text alone decides."""
    held = getattr(value, "obj", None) if isinstance(value, AttributeError) else None
    message = value.args[0] if value.args and isinstance(value.args[0], str) else ""
    found = _ON_OBJECT.match(message[:500])
    if held is None or found is None:
        return None
    kind = held if isinstance(held, type) else type(held)
    name = found.group(1)
    if getattr(kind, "__name__", None) != name:
        return None
    spaces = [getattr(module, "__dict__", None) for loaded, module in list(sys.modules.items())
              if loaded == library or loaded.startswith(library + ".")]
    theirs = [space.get(name) for space in spaces if isinstance(space, dict)]
    classes = [one for one in theirs if isinstance(one, type)]
    if not classes or any(issubclass(kind, one) for one in classes):
        return None
    return (f"the object is of {kind.__module__}.{kind.__qualname__}, a class named like {library}'s {name} "
            "but not it (nor derived from it): is the error about your own class?")


def answer_text(text: str, index: Index, installed: str | None) -> Answer:
    """The hook's answer for an exception as Python printed it, on the `installed` release."""
    return index.lookup().answer(text, installed, INSTALLED)


def installed_release(distribution: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except (PackageNotFoundError, ValueError):
        return None


def _release_line(match: Match, index: Index) -> str:
    """Whether the installed release raises the matched wording, as the entry states its range (or,
    without one, the release the entry documents: the shipped index holds no verification record, so
    the line claims none; the page says where and when it was verified)."""
    library, said = index.library, match.release
    if said is None:
        return f"{library} is not installed here"
    where = f"{library} {said.releases[0]} ({said.source})"
    if said.raises:
        return f"{where} raises it: this wording comes from {said.range}"
    show = index.items.get(match.known.id, {}).get("show") or {}
    pinned = show.get("pinned") if isinstance(show, dict) else None
    if pinned and pinned == said.releases[0]:
        return f"{where} raises it: the release the entry documents"
    return f"{where}; the entry documents {pinned}" if pinned else where


def block(answer: Answer, index: Index) -> str:
    """The lines printed after the traceback (control characters removed: entry text comes from
    strangers' pull requests)."""
    lines: list[str] = []
    confirmed = answer.confirmed
    if confirmed:
        match = confirmed[0]
        item = index.items.get(match.known.id, {})
        lines += [f"errorkb: a documented error — {match.known.title}",
                  f"  fix:  {item.get('fix', '')}",
                  f"  {_release_line(match, index)}",
                  f"  why:  {'; '.join(one.detail for one in match.evidence)}",
                  f"  page: {index.page(match.known.id)}  (offline: errorkb show {match.known.id})"]
    else:
        lines.append("errorkb: possibly a documented error, not confirmed (the message is printed by other "
                     "errors too):")
        for match in answer.candidates[:MAX_CANDIDATES]:
            told = [words for hint in match.missing if (words := hint_words(hint, "hook"))]  # never "paste"
            lines += [f"  ? {match.known.title}",
                      *([f"    to tell: {'; '.join(told)}"] if told else []),
                      f"    page: {index.page(match.known.id)}  (offline: errorkb show {match.known.id})"]
    return "\n" + "\n".join(_CONTROL.sub("", line) for line in lines) + "\n"
