"""The observer inside a check's process: what the verifier learns while a snippet runs, kept out of its reach.

Code in the same interpreter as its observer can always lie to it; this module makes each lie
need a primitive that is itself observed, or one the reviewer's lint flags. How:

- **Nothing the verdict depends on is reachable from the snippet.** Every function that runs
  while the snippet does (the `_p_*` functions below) is re-created by `install` over a private
  namespace: a private copy of the builtins, the C functions and descriptors it calls (`_c_*`,
  captured when this module was imported, before any snippet), and the state `_S`. Nothing the
  snippet can reach refers to that namespace: the installed trace function is
  `types.MethodType(sys.audit, "errorkb.trace")`, an immutable C object that forwards every trace
  event to the audit hook, and an audit hook cannot be listed or removed. Reaching the namespace
  takes `gc` (audited, tampering), reading memory (`ctypes`, `/proc/self/mem`: audited, tampering)
  or a Python signal handler run inside it (deferred, see `_trampoline`).
- **The private code never runs snippet code.** It touches a snippet's objects only through C
  accessors and exact-type checks (`type(x) is str`, an exception's `args` read by its descriptor),
  never `str()`, `isinstance` or `==` on them. Whatever needs snippet code (an exception's text,
  its traceback) is computed by the harness in ordinary frames (`child.finish`) and handed over as
  plain data.
- **Events go out as they happen, over a pipe, sealed.** Each line is JSON with its sequence
  number and pid, sealed with an HMAC under a key the harness received on a channel closed
  before the snippet existed (`seal.py`); the sealer lives only in the private state. The
  snippet cannot move the stream's descriptor (the check's seccomp filter) nor see the pipe
  (no `/proc` in the check): it can write garbage, which the harness rejects, but not take back
  a line sent, nor seal one. The harness accepts an outcome only from the `end` line, written
  by the audit hook immediately before it ends the process itself (`os._exit`, holding the
  stream's lock), with every line before it present, in order. The end is asked for by the
  harness's ender called by the very code that ran the snippet (not by the snippet, nor by a C
  callable it planted where the harness calls it), and its outcome must be how the snippet's own
  top frame, which the observer follows, ended.
- **It fails closed.** Any fault of its own (an exception in the hook, a stack overflowing inside
  it) is counted and said in the `end` line, which the harness then rejects; the tracer lost in
  any thread is a `sys.settrace` event (CPython announces dropping it), and at the end, and at
  each thread's end, the tracer must still be the observer's. Code that runs *inside* the
  observer's own frames (a finalizer, a `gc` callback) is seen: any event it raises while the
  observer is busy, from a frame that is not the observer's, is tampering.
- **Identity, not strings.** Calls are counted per code object, the one of `source.function`
  resolved before the snippet ran. An exception counts as raised by the function only if the
  trace's 'exception' event in one of its frames shows it starting there (the traceback built so
  far is that frame alone: a `raise` in it, or C code it called); that object is kept, and the end
  reports whether the exception that reached the top *is* it. A frame that ends on anything but a
  return instruction (`f_lasti`) ended by an exception, whoever caught it afterwards.
- **Tampering is noticed when it matters.** At every call of the function: its globals, the
  builtins and the module attributes its code reads, compared with what they were. In every
  thread: `_thread.start_new_thread` (and `threading`'s copy) start threads through the hook,
  which installs the tracer first; any other `sys.settrace`/`setprofile` is tampering. A thread the runtime starts
  itself never has the tracer: what runs Python there (the plug's `runners`) is refused the snippet. Instances
  of the library's classes are followed from their `__init__`; a callable set on one, shadowing a
  method, and compiled outside the target is tampering, and so is an override of the function in
  a subclass that returns without ever calling it. At the end: the target's namespaces (a name
  replaced, or a new one compiled outside the target), and code compiled by (or for) the snippet under a
  file name the observer trusts (the target's, the verifier's, Python's, any installed package's;
  a name that climbs out of its root with `..` is under none). A frame object that reaches the
  snippet's code (its `f_trace` would run the snippet's code unseen) is tampering however it got
  there: taken by its own code, by a callable it handed to code it called (the code that asked
  never names what it read), or by Python's code other than the readers known to hand nothing out;
  a signal handler is handed none; handed to a function of the snippet's among its arguments or
  inside them (a list, a dict, an object's attribute); returned, yielded or left in its arguments
  by trusted code that took it (the library's, an installed package's), which is followed to its
  return for that.

`child.py` runs the snippet and builds the config; `stream.py` (in the harness) reads the lines.
"""

from __future__ import annotations

import _imp
import _thread
import array
import builtins
import collections
import contextvars
import copyreg
import ctypes
import functools
import gc
import importlib
import importlib.machinery
import itertools
import json.encoder
import operator
import os
import signal
import stat
import sys
import time
import types
import typing
import weakref
from collections.abc import Callable
from typing import Any

TRACE_EVENT = "errorkb.trace"
END_EVENT = "errorkb.end"
RESTORE_EVENT = "errorkb.restore"
MAX_RECORDS = 2000  # raise and unwind records streamed per check; more are counted, not sent
STATUSES = ("returned", "raised", "sys-exit", "os-exit")

# -- captured when imported (before any snippet): what the private code calls --------------------

_c_write = os.write
_c_getpid = os.getpid
_c_exit = os._exit
_c_SEPARATOR = b"\t"  # as seal.SEPARATOR
# Audit events the observer's own code raises (`sys._getframe`, reading `tb_frame`, opening a file to
# compare, compiling again a source trusted code compiled, starting a thread); from another frame they are
# tampering. (`id()` and reading `f_code` lead to no frame: `_p_hook` answers them first.)
_c_OWN_EVENTS = ("object.__getattr__", "sys._getframe", "open", "compile", "_thread.start_new_thread",
                 "signal.pthread_kill", "gc.get_referents", "gc.get_objects", "ctypes.cdata")
_c_getframe = sys._getframe
_c_gettrace = sys.gettrace
_c_audit = sys.audit
_c_get_ident = _thread.get_ident
_c_clock = time.perf_counter
_c_encode: Callable[[str], str] = getattr(json.encoder, "c_encode_basestring_ascii")  # noqa: B009  # the C one
assert _c_encode is not None, "the observer needs json's C encoder (_json)"
_c_weakref = weakref.ref
_c_ModuleSpec = importlib.machinery.ModuleSpec
_c_spec_dict = vars(importlib.machinery.ModuleSpec)["__dict__"].__get__
_c_SimpleNamespace = types.SimpleNamespace
_c_gc_isenabled = gc.isenabled
# What an object holds as its type's C traversal lists it (a C iterator's function, a defaultdict's factory, a slot's
# value, a suspended generator's locals): no method of the object's runs. Audited; the observer's own call is its own.
_c_get_referents = gc.get_referents
# Every object the collector tracks and has not frozen: in a forked check, what was made since the zygote froze its
# own (`_p_young_binders`). Audited; the observer's own call is its own.
_c_get_objects = gc.get_objects
_c_gc_enable = gc.enable
_c_gc_disable = gc.disable
_c_WeakrefType = weakref.ref
_c_partial = functools.partial
# C callables that bind data to what they call: a partial's arguments to its function, an `operator` getter's or
# caller's names, keys and arguments to the argument's own attribute, item or method. One the snippet made chose what
# fails; those that existed before it ran are recorded (`_record_binder`).
_c_BINDERS = (functools.partial, operator.methodcaller, operator.itemgetter, operator.attrgetter)
# C iterators that call a function they hold on items of iterables they hold, whoever iterates them: what a partial
# binds, `map(operator.getitem, [[]], [3])` carries to the same call. One the snippet made chose the call and its data,
# unless the function is its own Python code (followed); those that existed before it ran are recorded as binders.
_c_CALLING_ITERATORS = (map, filter, itertools.starmap, itertools.takewhile, itertools.dropwhile, itertools.filterfalse,
                        itertools.groupby, itertools.accumulate)
# A list's and a tuple's iterators, and how each says where it stands (its C `__reduce__`: the index it would read next,
# or nothing once exhausted): a calling iterator over such iterators still at their start has called nothing.
_c_EMPTY_SEQUENCES: tuple[Any, ...] = ([], ())
_c_SEQUENCE_ITERATORS: tuple[tuple[Any, Any], ...] = tuple((type(iter(empty)), type(iter(empty)).__reduce__)
                                                            for empty in _c_EMPTY_SEQUENCES)
_c_cached_property = functools.cached_property
# C callables that call what they hold with their own caller's arguments, as they are (a cache around a function): what
# they hold is called as if it were called directly, and binds nothing (`_p_calls_held`).
_c_PASS_THROUGH = (functools._lru_cache_wrapper,)
_c_LRU_CACHE = functools._lru_cache_wrapper
_c_deque = collections.deque
# What marks a table's copy as an object's (`_p_object_entry`): its `__dict__`, a copy of it, and its slots' values.
_c_OBJECT_ENTRY = "object"
_c_stat = os.stat
_c_stat_isreg = stat.S_ISREG
_c_str_startswith = str.startswith
_c_str_endswith = str.endswith
_c_str_replace = str.replace
_c_deque_iter = collections.deque.__iter__
# What a cache's C traversal lists after its cached keys and results (which it returns, never calls), in CPython's
# order: its cache dict, its function, its keyword mark (a plain `object()`), its link type, its `CacheInfo`, then its
# `__dict__` where it has one (`_p_cache_calls`). Checked on a cache made here: where it does not hold, all a cache
# holds is read as called.
_c_CACHE_TAILS = (6, 5)


def _cache_layout() -> bool:
    def function(key: object) -> list[object]:
        return [key]

    cache = functools.lru_cache(maxsize=2)(function)
    result = cache(1)
    held = gc.get_referents(cache)
    at = len(held) - _c_CACHE_TAILS[0]
    return at > 0 and held[at + 1] is function and type(held[at]) is dict and type(held[at + 2]) is object \
        and any(item is result for item in held[:at])


_c_CACHE_LAYOUT = _cache_layout()
# Tables of Python's own whose callables its C code looks up and calls (pickle's reducers, which `_pickle` holds from
# its start: a trusted dict, changed in place with no event), searched whole by the planted search (`_p_table_entries`).
_c_PYTHON_TABLES = (copyreg.dispatch_table,)
# The thread's current context, where `ContextVar.set` keeps a value and `ContextVar.get` (C) reads it: no object lists
# it (a variable's referents are its name and default), so it is read as a table (`_p_table_entries`), by C alone.
_c_copy_context = contextvars.copy_context
_c_context_items = contextvars.Context.items
_c_callable = callable
_c_FrameType = types.FrameType
_c_TracebackType = types.TracebackType
_c_FunctionType = types.FunctionType
_c_MethodType = types.MethodType
_c_BuiltinTypes = (types.BuiltinFunctionType, types.BuiltinMethodType, types.MethodWrapperType,
                   types.WrapperDescriptorType, types.MethodDescriptorType)
# C methods bound to an object (`[].__getitem__`, `iter(()).__next__`): what fails is the object's own C code, on the
# object it was bound to; made by the snippet, it chose both (`_p_bound_to_data`).
_c_BOUND_C = (types.BuiltinMethodType, types.MethodWrapperType)
_c_wrapper_self = types.MethodWrapperType.__dict__["__self__"].__get__
_c_BOUND_NAMES = tuple(kind.__dict__["__name__"].__get__ for kind in _c_BOUND_C)
_c_staticmethod = staticmethod
_c_classmethod = classmethod
_c_NoneType = type(None)
_c_type_name = type.__dict__["__name__"].__get__
_c_type_qualname = type.__dict__["__qualname__"].__get__
_c_func_name = types.FunctionType.__dict__["__name__"].__get__
_c_type_module = type.__dict__["__module__"].__get__
_c_mro = type.__dict__["__mro__"].__get__
_c_type_dict = type.__dict__["__dict__"].__get__
_c_module_dict: Callable[[Any], dict[str, Any]] = vars(types.ModuleType)["__dict__"].__get__
_c_exc_args = BaseException.__dict__["args"].__get__
_c_key_str = KeyError.__str__
# What an exception holds beside its `args` and `__dict__` (getter, setter): its cause, context, traceback, and
# whether its context is shown; hidden while the library's `__str__` is run over it (`_p_library_message`).
_c_exc_links = tuple((BaseException.__dict__[name].__get__, BaseException.__dict__[name].__set__)
                     for name in ("__cause__", "__context__", "__traceback__", "__suppress_context__"))
_c_member_get = types.MemberDescriptorType.__get__
_c_MemberDescriptorType = types.MemberDescriptorType
_c_LIBRARY_DATA_MAX = 2000  # objects an exception's data may hold for the library's `__str__` to be run over it
_c_LIBRARY_DATA_DEPTH = 12


def _base_like_str() -> tuple[Any, ...]:
    """The `__str__` of every builtin exception class that formats its arguments alone, as
    `BaseException.__str__` does (a class that defines its own C `__str__` has its own wrapper)."""
    found: list[Any] = []
    pending: list[type[BaseException]] = [BaseException]
    special = (OSError, SyntaxError, UnicodeError, ImportError, KeyError)
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls.__module__ != "builtins" or issubclass(cls, special):
            continue
        implementation = next(vars(k)["__str__"] for k in cls.__mro__ if "__str__" in vars(k))
        try:
            plain = implementation(cls("x")) == "x" and implementation(cls("a", "b")) == "('a', 'b')"
        except Exception:
            plain = False
        if plain and all(implementation is not other for other in found):
            found.append(implementation)
    return tuple(found)


# Python's own exception classes: `builtins.ValueError` is said of this very class alone (a class of the snippet's
# may be named so, and claim `__module__ = "builtins"`). A tuple: the module's globals are the snippet's to reach.
_c_BUILTIN_CLASSES = tuple(value for value in vars(builtins).values()
                           if isinstance(value, type) and issubclass(value, BaseException))
# Python's own C classes a class of the library's may derive from whose instances hold nothing but their `__dict__`
# (and an exception's `args`): SyntaxError's, UnicodeError's fields hold objects their C `__str__` formats (OSError's
# are read as data: `_c_OS_ERRORS`).
_c_ARGS_ONLY = (object, BaseException, Exception, ValueError, TypeError, RuntimeError, LookupError, KeyError,
                IndexError, ArithmeticError, OverflowError, ZeroDivisionError, NotImplementedError, AssertionError,
                Warning, UserWarning, DeprecationWarning, RuntimeWarning)
# OSError and Python's own subclasses of it: besides `args` and `__dict__`, C fields (errno, strerror, filename,
# filename2; winerror on Windows) that `OSError.__init__` fills from 2 to 5 arguments and its C `__str__` formats (a
# filename by its repr); such an instance is plain only where each field holds plain data (`_p_str_data` reads them
# with the member descriptors taken here). `characters_written` is a C integer, no object.
_c_OS_ERRORS = tuple(klass for klass in _c_BUILTIN_CLASSES if issubclass(klass, OSError))
_c_OS_FIELDS = tuple(value for value in vars(OSError).values() if type(value) is types.MemberDescriptorType)
_c_OSError = OSError
# The generic attribute readers of those classes (object's, BaseException's own slot wrapper): an instance read through
# one of them answers a name from its class's descriptors, then its own `__dict__`, with no Python code run.
_c_GENERIC_GETATTRS = tuple(vars(klass)["__getattribute__"] for klass in _c_ARGS_ONLY
                            if "__getattribute__" in vars(klass))
# How a `LOAD_ATTR`'s argument names its attribute: 3.12 shifts the index left by one, its low bit set for a method.
_c_LOAD_ATTR_SHIFT = 1 if sys.version_info >= (3, 12) else 0
_c_base_str = BaseException.__str__
_c_base_like_str = _base_like_str()
_c_import_msg = ImportError.__dict__["msg"].__get__
_c_func_code = types.FunctionType.__dict__["__code__"].__get__
_c_CodeType = types.CodeType
_c_COROUTINE_CODE = types.coroutine.__code__  # Python's own, taken before any snippet runs
_c_GetSetDescriptorType = types.GetSetDescriptorType
_c_type_call = type.__dict__["__call__"]
_c_cell_contents = types.CellType.__dict__["cell_contents"].__get__
_c_ModuleType = types.ModuleType
_c_import_name = ImportError.__dict__["name"].__get__
_c_attribute_obj = AttributeError.__dict__["obj"].__get__
_c_attribute_name = AttributeError.__dict__["name"].__get__
_c_func_defaults = types.FunctionType.__dict__["__defaults__"].__get__
_c_func_closure = types.FunctionType.__dict__["__closure__"].__get__
_c_func_globals = types.FunctionType.__dict__["__globals__"].__get__
_c_func_builtins = types.FunctionType.__dict__["__builtins__"].__get__
_c_CellType = types.CellType
_c_GENERATOR_TYPES = (types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType)
# Each generator type with its code's C getter (no event: only a frame's getter is audited), and the code flags of a
# generator's, a coroutine's and an async generator's function.
_c_GENERATOR_CODES = tuple((kind, kind.__dict__[prefix + "_code"].__get__)
                           for kind, prefix in zip(_c_GENERATOR_TYPES, ("gi", "cr", "ag"), strict=True))
_c_GENERATOR_FLAGS = 0x20 | 0x80 | 0x200
_c_DESCRIPTOR_WRAPPERS = (property, staticmethod, classmethod)
# How many values the snippet's frames return (or yield) into a watched call are kept for the planted search (what
# only the interpreter's value stack then holds); past it, the search fails closed.
_c_RETURNED_MAX = 10000
# How many objects a callable object planted on a class is searched for an error it would raise.
_c_HOLDS_BUDGET = 5000
_c_method_self = types.MethodType.__dict__["__self__"].__get__
_c_partial_parts = tuple(functools.partial.__dict__[name].__get__ for name in ("func", "args", "keywords"))
_c_func_kwdefaults = types.FunctionType.__dict__["__kwdefaults__"].__get__
_c_method_func = types.MethodType.__dict__["__func__"].__get__
_c_static_func = staticmethod.__dict__["__func__"].__get__
_c_class_func = classmethod.__dict__["__func__"].__get__
_c_dict_get = dict.get
_c_dict_items = dict.items
_c_dict_values = dict.values
_c_dict_copy = dict.copy
_c_dict_clear = dict.clear
_c_dict_update = dict.update
_c_proxy_get = type(type.__dict__).get
_c_proxy_items = type(type.__dict__).items
_c_str_encode = str.encode
_c_str_str = str.__str__
_c_str_rsplit = str.rsplit
_c_int_repr = int.__repr__
_c_float_repr = float.__repr__
_c_str_repr = str.__repr__
_c_MISSING = object()
_c_UNREADABLE = object()  # a weak reference's referent that cannot be read: `_p_walk` fails closed on it
_c_EXHAUSTED = object()  # `_p_walk` past its budget: it fails closed
# a dict on the way to the runtime's kernel tables written and put back as it was (`_p_kernel_tables_written`): what it
# held meanwhile the runtime's C++ may keep, out of every search's reach; `_p_walk` fails closed on it
_c_PUT_BACK = object()
_c_PUT_BACK_WORDS = "a runtime's operator put back as it was after something else stood there, which its C++ may " \
                    "keep where no search reaches"
_c_MAX_RECORDS = MAX_RECORDS
# How far a value is searched for a frame object (`_p_holds_frame`): containers and objects' attributes this
# deep, this many items in all; by C code alone (a container's own type's iterator, a C `__dict__` getter).
_c_FRAME_DEPTH = 4
_c_HANDOFF_DEPTH = 256  # frames between a watched call and the snippet's own hand-off searched for it
_c_FRAME_BUDGET = 512
# How many objects a watched function's frame holds are searched for C code the snippet planted
# (`_p_planted_under`: breadth first, each object once, at any depth); past it, the search fails closed.
_c_PLANT_BUDGET = 50000
# How many levels inside what the snippet holds a string is searched for, as the text trusted code compiles
# (`_p_snippet_chose`: an annotation of its class, an attribute of its object, an item of its argument); objects past
# `_c_PLANT_BUDGET` fail closed.
_c_CHOSEN_DEPTH = 3
_c_bytes_decode = bytes.decode
_c_tuple_iter = tuple.__iter__
_c_list_iter = list.__iter__
_c_set_iter = set.__iter__
_c_frozenset_iter = frozenset.__iter__
_c_getset_get = types.GetSetDescriptorType.__get__
_c_type_flags = type.__dict__["__flags__"].__get__
_c_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made at run time (by a class statement), not by C code
_c_builtin_self = types.BuiltinFunctionType.__dict__["__self__"].__get__
_c_prop_parts = tuple(property.__dict__[name].__get__ for name in ("fget", "fset", "fdel"))
_c_property = property
# C callables a class may hold as it is: the descriptors of C types' own methods, which raise only their own errors.
_c_C_DESCRIPTORS = (types.WrapperDescriptorType, types.MethodDescriptorType, types.ClassMethodDescriptorType,
                    types.GetSetDescriptorType, types.MemberDescriptorType)
# The class each of those belongs to (its `__objclass__`), read by the descriptor's own C member.
_c_DESCRIPTOR_OWNER = tuple(kind.__dict__["__objclass__"].__get__ for kind in _c_C_DESCRIPTORS)
# Python's own code that reads a frame and hands nothing out (file, and its functions that do; None: all of
# them). Any other of Python's code that takes a frame for the snippet hands it out (`inspect`, `traceback`'s
# walkers, `types.coroutine`'s wrapper, asyncio's `Task.get_stack`, `bdb`): the list is of what is known to be
# safe, so code a later Python adds is tampering until it is read and listed here (fails closed).
_c_FRAME_READERS = (
    ("/logging/__init__.py", None), ("/warnings.py", None), ("/enum.py", None),
    ("/collections/__init__.py", ("namedtuple",)), ("/typing.py", ("_caller",)),
    ("/traceback.py", ("print_stack", "format_stack", "extract_stack", "clear_frames")),
    ("/asyncio/events.py", ("__init__",)), ("/asyncio/futures.py", ("__init__",)),
    ("/asyncio/streams.py", ("__init__",)), ("/asyncio/format_helpers.py", ("extract_stack",)),
    ("/asyncio/coroutines.py", ("_format_coroutine",)), ("/dis.py", ("distb", "_disassemble_recursive", "disassemble")),
    ("/doctest.py", ("_normalize_module", "_find_lineno")), ("/unittest/result.py", ("_is_relevant_tb_level",)),
    ("/subprocess.py", ("_text_encoding",)),
)
# Of those, the modules other readers hand their frames to (asyncio's, to `format_helpers.extract_stack`, which hands
# them to `traceback`'s walker and `StackSummary.extract`): their namespaces, and their classes', must be as they were
# for any reader to hand nothing out.
_c_FRAME_SHARED = ("/traceback.py", "/asyncio/format_helpers.py")
# Python's own code that takes a frame only to return it (`logging.currentframe`, a lambda over `sys._getframe(1)`):
# the frame goes to its caller, whose own reading decides (logging's `findCaller` reads and hands nothing out).
_c_FRAME_RELAYS = (("/logging/__init__.py", "<lambda>"),)


# -- the public side: what the snippet may see; it holds nothing the verdict depends on ------------


def thread_bootstrap(settrace: Callable[..., Any], trace: object, audit: Callable[..., Any],
                     function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The first frame of every thread a snippet starts: the tracer is installed before its code."""
    settrace(trace)
    audit("errorkb.thread-ready")
    try:
        return function(*args, **kwargs)
    finally:
        audit("errorkb.thread-done")


def start_new_thread(function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any] | None = None) -> Any:
    """Stands in for `_thread.start_new_thread`: the observer starts the thread, traced."""
    box: list[tuple[Any, ...]] = []
    _c_audit("errorkb.thread-start", function, args, kwargs, box)
    return _unbox(box)


def signal_signal(signalnum: Any, handler: Any) -> Any:
    """Stands in for `_signal.signal`: a Python handler is installed behind `_trampoline`."""
    box: list[tuple[Any, ...]] = []
    _c_audit("errorkb.signal", signalnum, handler, box)
    return _unbox(box)


def signal_getsignal(signalnum: Any) -> Any:
    box: list[tuple[Any, ...]] = []
    _c_audit("errorkb.getsignal", signalnum, box)
    return _unbox(box)


def create_builtin(spec: Any) -> Any:
    """Stands in for `_imp.create_builtin`: a second instance of a builtin module whose functions the
    observer stands in for (`_signal`, `_thread`, `_imp` itself) would hold the real ones."""
    box: list[tuple[Any, ...]] = []
    _c_audit("errorkb.create-builtin", spec, box)
    return _unbox(box)


def registrar(*args: Any, **kwargs: Any) -> Any:
    """Stands in for a runtime's C method that hands its C++ a callable to keep and call later, listing only names
    afterwards (the plug's `registrars`: a dispatcher's kernel registration): the observer keeps what it is handed, for
    the planted search, and makes the call itself (the original is held in its private state alone). Stands in, too,
    for a runtime's C function that installs a callable it hands every frame (the plug's `frame_hooks`), where the
    observer refuses a callable, and for one that makes what runs Python in the runtime's own threads (the plug's
    `runners`), which the observer refuses the snippet."""
    box: list[tuple[Any, ...]] = []
    _c_audit("errorkb.register", args, kwargs, box)
    return _unbox(box)


def gc_enable() -> None:
    """Stands in for `gc.enable` (and `disable`, `isenabled`, below): while the observer runs, in any
    thread, automatic collection is off (a collection runs finalizers and gc callbacks, C ones
    included, in the frame that allocated: the observer's); the snippet's setting is applied when it
    is done."""
    box: list[tuple[Any, ...]] = []
    _c_audit("errorkb.gc", "enable", box)
    _unbox(box)


def gc_disable() -> None:
    box: list[tuple[Any, ...]] = []
    _c_audit("errorkb.gc", "disable", box)
    _unbox(box)


def gc_isenabled() -> bool:
    box: list[tuple[Any, ...]] = []
    _c_audit("errorkb.gc", "isenabled", box)
    return bool(_unbox(box))


def gc_freeze() -> None:
    """Stands in for `gc.freeze`: what it freezes the collector lists no more, where the finalizer watch finds what it
    arms (`_p_fin_arm`): the snippet's freeze is applied, and fails closed."""
    box: list[tuple[Any, ...]] = []
    _c_audit("errorkb.gc", "freeze", box)
    _unbox(box)


def gc_unfreeze() -> None:
    """Stands in for `gc.unfreeze`: applied, and the next arming of the finalizer watch walks all the collector lists
    (`_p_fin_young`), what was frozen now among it."""
    box: list[tuple[Any, ...]] = []
    _c_audit("errorkb.gc", "unfreeze", box)
    _unbox(box)


def _bury(graves: list[Any]) -> None:
    """Where what the observer lets go of dies (its last reference may be the observer's: an exception
    it kept, a followed instance's attributes): finalizers run here, in a frame of this module's,
    not in the private code's, whose globals are the private state."""
    graves.clear()


def _locals_of(frame: Any) -> Any:
    """`frame.f_locals`, read here: reading refreshes the dict a `locals()` call left on the frame, and a
    value the frame has since dropped dies then, its finalizer run in the reader's frame (this one, not
    the private code's)."""
    return frame.f_locals


def _unbox(box: list[tuple[Any, ...]]) -> Any:
    if not box:
        raise RuntimeError("the verifier's observer did not answer")
    answer = box[0]
    if answer[0] == "error":
        raise answer[1](answer[2])
    return answer[1]


def _trampoline(starting: Callable[[bytes], bool], handled: Callable[[Any], None], handler: Callable[..., Any],
                redeliver: Callable[[int], None], signum: int, frame: Any) -> Any:
    """The C-level handler of a signal the snippet handles in Python.

    A Python handler runs wherever the main thread is when it checks for signals, and receives
    that frame: inside the observer, its locals are the observer's. So the snippet's handler runs
    only when no frame of this file is on the stack; otherwise the signal is sent again a moment
    later (`redeliver`), by which time the observer has returned. Likewise in a frame that has not
    begun: CPython 3.11 takes pending signals at a function's first instruction (`RESUME`) before
    the tracer's 'call' event, so a handler run there would run, and raise, inside a call the
    observer never saw start (`starting` knows that instruction, by a C method: the snippet can
    rebind the builtins this function would look up).

    The handler runs below this frame, so its arguments are the snippet's to read
    (`sys._getframe(1).f_locals`): nothing here may be of use. `starting` belongs to a frozenset,
    and `redeliver` is the audit event that asks the private code to send the signal again (the
    real `_thread.start_new_thread` that does it would start an untraced thread).

    The handler is handed no frame: Python promises "None or a frame object", and a frame handed over
    (with no audit event) is one the handler could keep and give a trace function (`f_trace`) of the
    snippet's later, when nothing looks (`_p_frame_taken` says why that matters). `handled`, the audit
    event after it returns (or raises), still has the private code look at the frame the signal landed
    in and those above it for a trace function that is not the observer's.
    """
    defer = frame is not None and starting(frame.f_code.co_code[frame.f_lasti:frame.f_lasti + 1])
    marker = (lambda: None).__code__.co_filename
    probe = frame
    while probe is not None and not defer:
        defer = probe.f_code.co_filename == marker
        probe = probe.f_back
    if not defer:
        try:
            return handler(signum, None)
        finally:
            handled(frame)
    try:
        redeliver(signum)
    except BaseException:  # no thread to send it again: the signal is lost, as one sent twice is
        pass
    return None


def _redeliver(start: Callable[..., Any], kill: Callable[[int, int], None], main: int,
               sleep: Callable[[float], None], pending: set[int], signum: int) -> None:
    if signum in pending:  # one on its way already: signals of a kind do not queue anyway
        return
    pending.add(signum)
    start(_later, (kill, main, sleep, pending, signum))


def _later(kill: Callable[[int, int], None], main: int, sleep: Callable[[float], None], pending: set[int],
           signum: int) -> None:
    sleep(0.001)
    pending.discard(signum)
    kill(main, signum)


# -- installation: before the snippet, in the check's process ---------------------------------------


def _held_modules(named: list[tuple[str, Any]], target_roots: Any) -> list[tuple[str, Any]]:
    """The module table's entries the observer holds: those the harness names (the watched function's module, the
    library's package) and every module of the target's files in the table as the snippet starts. A lazy `import` in
    the library's code reads the table's entry at the call: one the snippet swapped between two calls (a namespace
    whose function is C code bound to its data) runs no frame of its own (attack round thirty-two). Read through
    the module's own `__dict__` (a lazily loading package's `__getattr__` would import)."""
    held = [(name, module) for name, module in named]
    seen = {name for name, _ in held}
    roots = tuple(root for root in target_roots if type(root) is str)
    for name, module in list(sys.modules.items()):
        if name in seen or not isinstance(module, types.ModuleType):
            continue
        path = module.__dict__.get("__file__")
        if type(path) is str and path.startswith(roots):
            held.append((name, module))
    return held


def install(config: dict[str, Any]) -> Callable[..., Any]:
    """Build the private namespace and state, send the `start` line, install the tracer in this
    thread, put the thread and signal stand-ins in place, and add the audit hook. Returns the
    trace object (for the harness's own threads, if any)."""
    namespace: dict[str, Any] = {"__builtins__": dict(vars(builtins)), "__name__": f"{__name__}:private"}
    for name, value in list(globals().items()):
        if name.startswith("_c_"):
            namespace[name] = value
        elif name.startswith("_p_") and type(value) is types.FunctionType:
            namespace[name] = types.FunctionType(value.__code__, namespace, value.__name__, value.__defaults__,
                                                 value.__closure__)
    trace = types.MethodType(sys.audit, TRACE_EVENT)
    state = _state(config, namespace, trace)
    # After the namespaces were copied: a stand-in differs from its copy, read as trusted code's (its file is this one).
    state["registrars"] = _stand_in_registrars(config.get("held"), state["copies_held"]["c_functions"])
    namespace["_S"] = state
    state["tables"] = _python_tables(namespace["_p_tables_module"], (state["stdlib_roots"], state["site_roots"],
                                                                     state["target_roots"]),
                                     state["copies_held"], state["trusted_roots"])
    state["kernel_tables"] = _kernel_tables(config.get("held"), state["copies_held"].get("kernel_tables"),
                                            state["memory"])
    namespace["_p_emit"]({"e": "start", "sha256": config["sha256"], "device": config.get("device"),
                          "slots": [[slot["label"], slot["kind"]] for slot in state["slots"]]}, True)
    sys.settrace(trace)
    hook = namespace["_p_hook"]
    starter = types.FunctionType(start_new_thread.__code__, dict(globals()), "start_new_thread",
                                 start_new_thread.__defaults__)
    _imp.create_builtin = types.FunctionType(create_builtin.__code__, dict(globals()), "create_builtin")
    for name, standin in (("enable", gc_enable), ("disable", gc_disable), ("isenabled", gc_isenabled),
                          ("freeze", gc_freeze), ("unfreeze", gc_unfreeze)):
        setattr(gc, name, types.FunctionType(standin.__code__, dict(globals()), name))
    _thread.start_new_thread = starter
    setattr(_thread, "start_new", starter)  # noqa: B010  # the old alias, missing from the stubs
    import threading

    threading._start_new_thread = starter  # type: ignore[attr-defined]
    _signal: Any = importlib.import_module("_signal")
    _signal.signal = signal_signal
    _signal.getsignal = signal_getsignal
    signal.getsignal = signal_getsignal  # signal.getsignal is _signal's, imported by name
    sys.addaudithook(hook)
    return trace


def _stand_in_registrars(held: Any, bound: dict[int, Any]) -> list[tuple[dict[str, Any], Any, str, str]]:
    """Put a `registrar` in the place of each of the plug's registrars, frame hooks and runners
    (`HeldState.registrars`, `.frame_hooks`, `.runners`), each over a namespace of its own by which the private code
    tells which it is; returns (that namespace, the original, its kind: "registrar", "frame" or "runner", its name). A
    module's function may be held by other modules under names of their own (`from ... import set_eval_frame`):
    replaced there too."""
    found: list[tuple[dict[str, Any], Any, str, str]] = []
    registrars = held[4] if held is not None and len(held) > 4 else ()
    hooks = held[5] if held is not None and len(held) > 5 else ()
    runners = held[8] if held is not None and len(held) > 8 else ()
    for owner, name, kind in [*((cls, name, "registrar") for cls, name in registrars),
                              *((module, name, "frame") for module, name in hooks),
                              *((owner, name, "runner") for owner, name in runners)]:
        original = vars(owner).get(name)
        if original is None:
            continue
        space = dict(globals())
        standin = types.FunctionType(registrar.__code__, space, name)
        setattr(owner, name, standin)
        if kind != "registrar" or isinstance(owner, types.ModuleType):  # a module's function, held elsewhere too
            _replace_everywhere(original, standin, bound)
        found.append((space, original, kind, name))
    return found


def _replace_everywhere(original: Any, standin: Any, bound: dict[int, Any]) -> None:
    """Bind `standin` wherever a module of a trusted file holds `original` (by identity), as `snapshot_trusted`
    indexed the copied namespaces (`bound`, its `c_functions`: once in the zygote, then what was loaded or written
    since, at install): no namespace is read again in the check, whose every read of a value writes its count, a
    page the zygote shares."""
    for value, space, key in bound.get(id(original), ()):
        if value is original and space.get(key) is original:
            space[key] = standin


def _state(config: dict[str, Any], namespace: dict[str, Any], trace: object) -> dict[str, Any]:
    """The private state, every snapshot copied (the config's own objects stay behind, reachable)."""
    _signal: Any = importlib.import_module("_signal")
    slots = [dict(slot, reads=list(slot["reads"]), normal=frozenset(slot["normal"])) for slot in config["slots"]]
    dispatch_names = {
        "sys.settrace": "_p_on_settrace", "sys.setprofile": "_p_on_setprofile",
        "sys._current_frames": "_p_on_frames", "gc.get_objects": "_p_on_gc", "gc.get_referrers": "_p_on_gc",
        "gc.get_referents": "_p_on_gc", "sys.addaudithook": "_p_on_addaudithook",
        "object.__setattr__": "_p_on_setattr", "code.__new__": "_p_on_code_new", "compile": "_p_on_compile",
        "marshal.loads": "_p_on_marshal", "open": "_p_on_open", "ctypes.cdata": "_p_on_memory",
        "ctypes.string_at": "_p_on_memory", "ctypes.wstring_at": "_p_on_memory",
        "ctypes.call_function": "_p_on_memory", "ctypes.dlsym": "_p_on_memory",
        "errorkb.thread-start": "_p_on_thread_start", "errorkb.thread-ready": "_p_on_thread_ready",
        "errorkb.thread-done": "_p_on_thread_done", "errorkb.signal": "_p_on_signal",
        "errorkb.getsignal": "_p_on_getsignal", "errorkb.redeliver": "_p_on_redeliver",
        "errorkb.handled": "_p_on_handled",
        "errorkb.create-builtin": "_p_on_create_builtin", "errorkb.register": "_p_on_register",
        "errorkb.gc": "_p_on_gc_setting", "errorkb.died": "_p_on_died", "sys._getframe": "_p_on_getframe",
        RESTORE_EVENT: "_p_on_restore", END_EVENT: "_p_on_end",
    }
    main = _thread.get_ident()
    api = config.get("api")
    readers = _reader_modules(config["stdlib_roots"])
    spaces = _trusted_spaces(tuple(config["trusted_roots"]))
    memory = _memory()
    resend = functools.partial(_redeliver, _thread.start_new_thread, signal.pthread_kill, main, time.sleep, set())
    return {
        "fd": int(config["fd"]), "sealer": config["sealer"], "n": 0, "faults": 0, "space": namespace,
        "nested": set(), "pid": os.getpid(), "lock": _thread.RLock(),
        "busy": set(), "trace": trace, "started": time.perf_counter(),
        "slots": slots, "by_code": {slot["code"]: index for index, slot in enumerate(slots)},
        "counts": [[0, 0] for _ in slots], "thread_counts": {}, "frames": {}, "held": [], "refs": {},
        "unwound": [[] for _ in slots], "records": 0,
        "builtins": vars(builtins), "init_codes": dict(config.get("init_codes", {})),
        "target_roots": tuple(config["target_roots"]), "trusted_roots": tuple(config["trusted_roots"]),
        "stdlib_roots": tuple(config["stdlib_roots"]), "site_roots": tuple(config.get("site_roots", ())),
        "protected_roots": tuple(config["protected_roots"]),
        # Code the snippet compiles may not bear the name of any file the observer trusts (a trusted name
        # is one whose frames are never followed, and whose requests are not the snippet's).
        "forge_roots": tuple(dict.fromkeys([*config["protected_roots"], *config["trusted_roots"]])),
        # The packages an error may start in under a watched function and still be its (the target, the runtime,
        # the profile's backends). Python's own library is `_p_in_stdlib`'s to say, never a root's: a standard
        # library's folder (a venv's `lib/python3.X/`) holds every installed package too.
        "beneath_roots": tuple(root for root in config.get("beneath_roots", ()) if root not in config["stdlib_roots"]),
        "untrusted": {}, "quiet": {}, "tracked": {}, "by_ref": {}, "overrides": {}, "readers": {},
        "active": {}, "callbacks": bool(config.get("callbacks")),
        "snippet_roots": tuple(config.get("snippet_roots", ())),
        "helpers": tuple(function.__code__ for function in (_trampoline, _redeliver, _later, thread_bootstrap,
                                                           start_new_thread, signal_signal, signal_getsignal, _unbox,
                                                           create_builtin, gc_enable, gc_disable, gc_isenabled,
                                                           _bury, _locals_of)),
        "trampoline_code": _trampoline.__code__,
        "threads": {main}, "expected": 0, "installers": frozenset([thread_bootstrap.__code__]),
        "bootstrap": thread_bootstrap, "settrace": sys.settrace, "audit": sys.audit,
        "start": _thread.start_new_thread, "signal": _signal.signal, "getsignal": _signal.getsignal,
        "handlers": {}, "resend": resend, "redeliver": types.MethodType(sys.audit, "errorkb.redeliver"),
        "trampoline": functools.partial(_trampoline,
                                        frozenset([bytes([list(config["opnames"]).index("RESUME")])]).__contains__,
                                        types.MethodType(sys.audit, "errorkb.handled")),
        "create_builtin": _imp.create_builtin, "guarded": ("_imp", "_signal", "_thread", "gc"),
        "collect": False, "graves": [], "bury": _bury, "locals_of": _locals_of,
        "spaces": [(label, space, dict(snapshot), bool(grows), frozenset(rebound)) for label, space, snapshot,
                   grows, rebound in config.get("spaces", [])],
        "owners": [(label, owner, name, raw) for label, owner, name, raw in config.get("owners", [])],
        "modules": _held_modules(config.get("sys_modules", []), config.get("target_roots", ())),
        "sys_modules": sys.modules, "modules_version": None,
        "restore": [(label, space, dict(snapshot)) for label, space, snapshot in config.get("restore", [])],
        "restored": False, "reported": set(), "dispatch": {event: namespace[name] for event, name in
                                                            dispatch_names.items()},
        "probe": (config["probe"][0], tuple(config["probe"][1])) if config.get("probe") else None,
        "held_state": _held_state(config.get("held")), "registered": [], "registrar_code": registrar.__code__,
        "device_bytes": 0, "device_calls": 0, "device_shared": 0, "device_planted": 0,
        # the library's device work per object of its own (`_p_object_call`), and the objects the function ran on
        "object_work": {}, "object_frames": {}, "methods": {}, "subjects": [],
        "thread_epoch": 0,
        "opnames": tuple(config["opnames"]), "died": types.MethodType(sys.audit, "errorkb.died"),
        "enders": frozenset(config.get("enders", [])), "end_callers": frozenset(config.get("end_callers", [])),
        "snippet_code": config.get("snippet_code"), "top": None, "top_end": None,
        "api": dict(api) if api else None,
        "getattr_codes": tuple(api["getattr_codes"]) if api else (),
        "reader_spaces": _reader_spaces(readers), "reader_shared": _reader_shared(readers),
        "as_was": spaces[0], "classes_as_were": spaces[1], "modules_as_were": spaces[2], "returned": {}, "c_made": {},
        "tables": [],  # `_python_tables`, once the private code can tell Python's own files
        "target_named": {},  # `_p_target_named`: module name -> whether it names a file of the target's
        "copies_held": spaces[3], "binders_as_were": spaces[3]["binders"],
        "memory": memory, "versions_now": _version_reader(memory, spaces[3]["addresses"]), "differing": {},
        "raised_refs": _raised_references(), "searched": {"handed": 0, "unreferenced": 0, "made": 0},
        # What may run planted code with no frame as it dies, armed as each outermost watched call starts
        # (`_p_fin_arm`): by address, [the observer's weak reference to it, words, when it was counted dead].
        "fin": {"armed": {}, "kinds": {}, "count": 0, "last": None,
                # the incremental walk (`_p_fin_young`): the collector's counts at the last one, whether an object's
                # class changed since, the classes whose `__del__` is read again (`_p_fin_changed`), the callbacks
                # read again (`_p_fin_watch`), the exceptions listed so far, how many walks were whole or young
                "seen": None, "dirty": False, "known": {}, "known_refs": [], "addresses": [], "versions": [],
                "reader": None, "stale": False, "watch": {}, "alive": {}, "full": 0, "young": 0,
                # the `weakref.finalize` objects trusted code made (`_p_fin_made`), by address, held until they ran
                "library": {},
                # per thread: the exceptions alive as its outermost watched call began (`_p_error_made_in_call`)
                "errors": {}},
        "gc_freeze": gc.freeze, "gc_unfreeze": gc.unfreeze,
        # Code trusted code compiled at run time: before the snippet ran (by identity), and, while it runs, the
        # sources compiled on the runtime's behalf (`_p_on_compile`), compiled again when code of that name first
        # runs (`_p_untrusted_code`).
        "made_codes": spaces[3]["made_codes"], "runtime_sources": {}, "runtime_codes": {},
        # The sources compiled while a watched call ran in the compiling thread (`_p_on_compile`): code the call made
        # for itself (the runtime evaluating a type's name in an operator's schema, inside a traced function), no
        # callback when it runs there (`_p_made_in_call`); compiled again when untrusted code of that name starts.
        "call_sources": {}, "call_codes": {},
        # The string constants of the snippet's code (`_p_snippet_texts`), by text: a source it could have chosen.
        "snippet_texts": {},
        # The sources compiled while a maker of the target's ran in the compiling thread (`_p_on_compile`): the type
        # expressions it evaluates (pydantic's own string annotations, `ForwardRef`), whose run, where the code makes
        # no call, is no code of the snippet's running inside the maker (`_p_maker_expression`).
        "maker_sources": {}, "maker_codes": {},
        # The runtime's code that rebinds trusted names while it runs (the plug's `rebinders`: file, name), its frames
        # followed, and what they bound (`_p_rebinder_return`); how many frames of the snippet's code have started.
        "rebinders": [(path, name) for path, name in (config["held"][6] if config.get("held") is not None
                                                      and len(config["held"]) > 6 else ())],
        "rebinding": {}, "bound_by_trusted": {}, "rebinder_made": {}, "snippet_calls": 0,
        # The target's own module globals its functions rebind (`global _global_data`, `child._spaces`' `rebound`):
        # (the module's file, its namespace, its copy, those names); a frame of that file's code naming one is
        # followed as a rebinder's (`_p_library_rebinder`), so what it binds is the library's by who bound it.
        "library_rebinders": _library_rebinders(config.get("spaces", [])),
        # Per thread: how many frames of the snippet's code started while a watched call ran there (callbacks,
        # declared or not); a watched frame's record keeps the count its call began with (`_p_callback_ran`).
        "callbacks_run": {},
        # The bodies of the held modules running now (`_p_follow_import`): one that puts another module in its own
        # entry, with no code of the snippet's run meanwhile, is the library's own import (`_p_import_return`).
        "importing": {},
        # `_p_follow_body`: a target module's body running (frame id -> [frame, snippet frames started]), and, once it
        # ended with no code of the snippet's run meanwhile, its namespace as its body left it (id -> (dict, copy))
        "bodies_running": {}, "bodies": {},
        # `_p_body_return`: the tables taken at the bodies' ends (as `tables`), and what was taken (id -> value)
        "body_tables": [], "body_tabled": {},
        # The frames of the target's metaclasses' `__new__` running now (`_p_follow_maker`), and, for each class one
        # returned with no code of the snippet's run meanwhile, what it put in the class that its namespace did not
        # hold as it began (`_p_maker_return`): the library's own choice (`_p_library_put`).
        "making": {}, "library_made": {}, "makers": {},
        # The binders such a maker made (not there as it began), over trusted code, while no code of the snippet's
        # ran (`_p_maker_binders`): the library's, as those made before the snippet ran are (`_p_made_before`).
        "library_binders": {}, "binder_kinds": {},
        # What such a maker left in the class it made that is C code's object, by name (`_p_maker_engines`).
        "library_engines": {},
        # The classes of the runtime's C functions' records (the plug's `records`): a C function bound to one is the
        # runtime's own (`_p_runtime_function`).
        "function_records": tuple(config["held"][7]) if config.get("held") is not None and len(config["held"]) > 7
        else (),
    }


def _library_rebinders(spaces: list[Any]) -> list[tuple[str, dict[str, Any], dict[str, Any], frozenset[str]]]:
    """For each module of the target's whose own functions rebind its globals: its file, namespace, copy and names."""
    found = []
    for _, space, snapshot, _, rebound in spaces:
        path = getattr(space, "__file__", None) if isinstance(space, types.ModuleType) else None
        if rebound and isinstance(path, str):
            found.append((path, vars(space), dict(snapshot), frozenset(rebound)))
    return found


def _python_tables(in_tables: Callable[[Any], bool], roots: tuple[tuple[str, ...], ...],
                   copies: dict[str, Any], trusted: tuple[str, ...]) -> list[tuple[Any, Any, int]]:
    """Each container (a dict, a list, a set) a module of Python's own library, or of the target, holds by name
    (`_p_tables_module`), with a copy of what it holds and, for a dict, its version (`_version`), before the snippet
    runs: Python's code reads them by its module's globals, or from C, and calls what it finds (`warnings.filters`'
    patterns, whose `match` the C `warnings.warn` calls; `re._cache`'s compiled patterns, which `re._compile`
    returns) with no frame holding them; so does the library's code (a registry of its module's, read by a function
    that returns what it found, which then only the value stack holds). The module table is searched as such
    already (`_p_table_entries`).

    Taken once in a zygote (`snapshot_tables`, for the same roots) and handed to each check with the namespaces'
    copies (`copies`): the check takes again only what may differ from it, so its copy is what the containers held
    when its snippet started, whatever the check's set-up did (each check is forked from the zygote, never from
    another check): a dict written since (its version), every list and set (they carry none), every container of a
    module whose namespace the check's copy (`snapshot_trusted`, under `trusted`) took anew or again (`renewed`: loaded,
    replaced or written since), and of every module with no file (`sys`, whose namespace no one copies). Without the
    zygote's copy, or where Python's library or the target is not under `trusted`, all are taken here, from the
    module table."""
    taken = copies.get("tables")
    if _VERSION_OFFSET is None or taken is None or taken[0] != roots \
            or not all(root.startswith(trusted) for root in (*roots[0], *roots[2])):
        seen: set[int] = {id(sys.modules)}
        return [entry for name, module in list(sys.modules.items()) for entry in _tables_of(name, module, in_tables,
                                                                                             seen, roots[2])]
    renewed, copied = copies["renewed"], copies["modules"]
    tables: list[tuple[Any, Any, int]] = []
    seen = {id(sys.modules)}
    for module_id, entries in taken[1]:
        if module_id in renewed:
            continue
        for entry in entries:
            value = entry[0]
            if id(value) not in seen:
                seen.add(id(value))
                tables.append(entry if _unwritten(entry) else _p_table(value, type(value), _version))
    for module_id in renewed:
        known = copied.get(module_id)
        if known is not None:
            tables.extend(_tables_of("", known[0], in_tables, seen, roots[2]))
    for name in sys.builtin_module_names:
        tables.extend(_tables_of(name, sys.modules.get(name), in_tables, seen, roots[2]))
    return tables


def _unwritten(entry: tuple[Any, Any, int]) -> bool:
    """A zygote's table still as it took it: a dict, or an object with no slots whose very `__dict__` it copied, whose
    version did not move since (a list, a set, a cache carry none: taken again)."""
    value, copy, version = entry
    if isinstance(value, dict):
        return _version(value) == version
    if type(copy) is tuple and not copy[3] and copy[1] is not None:
        space = _p_object_dict(value, type(value))
        return space is not None and space is copy[1] and _version(space) == version
    return False


def snapshot_tables(stdlib_roots: tuple[str, ...], site_roots: tuple[str, ...], target_roots: tuple[str, ...]) -> None:
    """In a zygote, right after its namespaces were copied (`snapshot_trusted`), before it forks a check: the containers
    of Python's own modules and the target's (`_python_tables`), taken once instead of in every check (5-20 ms each),
    per module (its id, its containers' entries), for the modules that hold any."""
    roots = (tuple(stdlib_roots), tuple(site_roots), tuple(target_roots))
    seen: set[int] = {id(sys.modules)}
    taken = []
    in_tables = functools.partial(_p_holds_tables, stdlib_roots=roots[0], site_roots=roots[1], target_roots=roots[2])
    for name, module in list(sys.modules.items()):
        entries = _tables_of(name, module, in_tables, seen, roots[2])
        if entries:
            taken.append((id(module), entries))
    _COPIES["tables"] = (roots, taken)


def _tables_of(name: Any, module: Any, in_tables: Callable[[Any], bool], seen: set[int],
               target_roots: tuple[str, ...] = ()) -> list[tuple[Any, Any, int]]:
    """The containers one module holds by name, if it is one of Python's own or the target's (`_python_tables`), each
    not `seen`; a module of the target's, also the registries it keeps inside objects it holds (`_p_object_tables`)."""
    if type(module) is not types.ModuleType:
        return []
    path = _c_module_dict(module).get("__file__")
    if not (in_tables(path) if type(path) is str else path is None and name in sys.builtin_module_names):
        return []
    depth = _c_OBJECT_DEPTH if type(path) is str and _p_in_roots(path, tuple(target_roots)) else 0
    tables: list[tuple[Any, Any, int]] = []
    for value in list(_c_module_dict(module).values()):
        _p_held_tables(value, depth, seen, tables, _version)
    return tables


# How far below a target module's names the registries it keeps inside objects are taken (`_p_object_tables`): an
# object's attributes (or a class's namespace), and the objects those hold, once more.
_c_OBJECT_DEPTH = 2
_c_NOT_REGISTRIES = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.CodeType,
                     types.FrameType, types.MethodType)


# The tables' one rule, run before the snippet (`_python_tables`, a zygote's `snapshot_tables`: `version` is
# `_version`) and, by the private code, where a target module's body ends while the snippet runs (`_p_body_return`:
# `_p_dict_version`). C accessors and exact types alone: no code of the objects' runs. A dict's copy is its pairs, in
# order (`_p_dict_written` compares them by place), never re-hashed.


def _p_held_tables(value: Any, depth: int, seen: set[int], tables: list[tuple[Any, Any, int]],
                   version: Callable[[Any], int]) -> None:
    """`value`'s table (`_p_table`), if it is a container (a dict, a list, a set; below a target module's names a dict
    subclass too, an `OrderedDict` registry, or a deque); else, while `depth` is above 0, the registries it keeps
    (`_p_object_tables`)."""
    kind = type(value)
    if kind is dict or kind is list or kind is set \
            or (depth > 0 and (_p_in(dict, _c_mro(kind)) or _p_in(_c_deque, _c_mro(kind)))):
        if id(value) not in seen:
            seen.add(id(value))
            tables.append(_p_table(value, kind, version))
        return
    if depth > 0:
        _p_object_tables(value, kind, depth, seen, tables, version)


def _p_object_tables(value: Any, kind: Any, depth: int, seen: set[int], tables: list[tuple[Any, Any, int]],
                     version: Callable[[Any], int]) -> None:
    """The registries an object a target module holds keeps (round thirty-three): the library's code reads them through
    the object (`REGISTRY.patterns[key]`, `Kinds.table[key]`, a `WeakValueDictionary`'s data, what a
    `functools.lru_cache` cached) and calls what it finds, often through a helper that returned it, which then only
    the value stack holds. Taken as tables: an instance's own `__dict__` (its attributes rebound), a class's
    namespace's containers (its names are compared as a class's already), a cache's held keys and results; and what
    those hold, while `depth` lasts."""
    if id(value) in seen:
        return
    mro = _c_mro(kind)
    for excluded in _c_tuple_iter(_c_NOT_REGISTRIES):
        if _p_in(excluded, mro):
            return
    seen.add(id(value))
    if kind is _c_LRU_CACHE:
        tables.append(_p_table(value, kind, version))
        return
    if _p_in(type, mro):
        if _c_type_flags(value) & _c_HEAPTYPE:  # a class a statement made: C classes hold none
            for pair in _c_list_iter(list(_c_proxy_items(_c_type_dict(value)))):
                _p_held_tables(pair[1], depth - 1, seen, tables, version)
        return
    entry = _p_object_entry(value, kind, version)
    _, space, was, slots = entry[1]
    if space is None and not slots:
        return
    tables.append(entry)
    for pair in _c_tuple_iter(slots):  # what its slots hold (a registry object with no `__dict__`)
        _p_held_tables(pair[1], depth - 1, seen, tables, version)
    if space is not None and id(space) not in seen:
        seen.add(id(space))
        for pair in _c_list_iter(was):
            _p_held_tables(pair[1], depth - 1, seen, tables, version)


def _p_object_entry(value: Any, kind: Any, version: Callable[[Any], int]) -> tuple[Any, Any, int]:
    """An object's table (`_p_object_tables`): the object, with its `__dict__`, a copy of it and each slot's value, and
    its `__dict__`'s version: a registry's dict swapped whole, or a slot rebound, is seen as a dict written is."""
    slots = []
    for klass in _c_tuple_iter(_c_mro(kind)):
        if _c_type_flags(klass) & _c_HEAPTYPE:
            for pair in _c_list_iter(list(_c_proxy_items(_c_type_dict(klass)))):
                if type(pair[1]) is _c_MemberDescriptorType:
                    try:
                        slots.append((pair[1], _c_member_get(pair[1], value, kind)))
                    except AttributeError:  # an empty slot
                        slots.append((pair[1], _c_MISSING))
    space = _p_object_dict(value, kind)
    stamp = version(space) if space is not None else 0
    copy = list(_c_dict_items(space)) if space is not None else None
    return value, (_c_OBJECT_ENTRY, space, copy, tuple(slots)), stamp


def _p_object_dict(value: Any, kind: Any) -> dict[str, Any] | None:
    """An object's own `__dict__` for its table (`_p_object_entry`): through its class's C getter (`_p_own_dict`), or
    the C member a C class keeps it in (`types.SimpleNamespace`, a registry object of Python's own)."""
    own = _p_own_dict(value, kind)
    if own is not None:
        return own
    member = _p_class_attr(kind, "__dict__")
    if type(member) is not _c_MemberDescriptorType:
        return None
    try:
        held = _c_member_get(member, value, kind)
    except BaseException:
        return None
    return held if type(held) is dict else None


def _p_cached_items(held: list[Any]) -> list[Any]:
    """What a cache holds (its C traversal, `held`), with the keys and values of the dicts among it: a bounded cache
    lists its keys and results itself, an unbounded one keeps them in its cache dict alone."""
    items = list(held)
    for each in _c_list_iter(held):
        if type(each) is dict:
            for pair in _c_list_iter(list(_c_dict_items(each))):
                items.extend(pair)
    return items


def _p_table(value: Any, kind: Any, version: Callable[[Any], int]) -> tuple[Any, Any, int]:
    """A container with a copy of what it holds (a dict's pairs, in order; a set's as id -> item; a cache's, what its
    C traversal lists, as a set's) and, for a dict (or a subclass), its version, read first."""
    mro = _c_mro(kind)
    if _p_in(dict, mro):
        stamp = version(value)
        return value, list(_c_dict_items(value)), stamp
    if kind is _c_LRU_CACHE:
        return value, {id(item): item for item in _c_list_iter(_p_cached_items(_c_get_referents(value)))}, 0
    if _p_in(_c_deque, mro):
        return value, {id(item): item for item in _c_deque_iter(value)}, 0
    if kind is list:
        return value, list(_c_list_iter(value)), 0
    if kind is set:
        return value, {id(item): item for item in _c_set_iter(value)}, 0
    return _p_object_entry(value, kind, version)


def _p_dict_version(space: Any) -> int:
    """A dict's version as `_version` reads it, through the private view of memory (`_p_version`): 0 where versions
    cannot be read."""
    return _p_version(id(space) + _c_VERSION_OFFSET) if _c_VERSIONED else 0


def snapshot_kernel_tables(held: Any) -> None:
    """In a zygote, before it forks a check: the runtime's kernel tables (the plug's `HeldState.tables`) and the
    namespaces that lead to them, taken once (`_take_kernel_tables`) instead of at every install."""
    tables = _kernel_table_roots(held)
    _COPIES["kernel_tables"] = (_kernel_tables_key(tables), _take_kernel_tables(tables)) if tables else None


def _kernel_table_roots(held: Any) -> tuple[Any, ...]:
    """The plug's kernel tables (`HeldState.tables`: root, levels, names), empty where it names none."""
    return tuple(held[9]) if held is not None and len(held) > 9 else ()


def _kernel_tables_key(tables: tuple[Any, ...]) -> tuple[Any, ...]:
    """What a zygote's take of the kernel tables was taken for: each root's identity, its depth and its names."""
    return tuple((id(root), levels, tuple(names)) for root, levels, names in tables)


def _take_kernel_tables(tables: tuple[Any, ...]) -> tuple[list[Any], Any, Any, Any]:
    """The dicts on the way to the runtime's kernel tables and the tables themselves, each `(dict, its copy, levels)`
    (levels: how far below it the tables' owners still are; 0 for an owner's own namespace, -1 for a table), with
    where each dict's version is read (`_version_offset`), their versions now (a tuple: compared whole with what the
    reader reads, in C), and one C call reading them all (`operator.itemgetter` over the words of memory,
    `_version_reader`'s). Identities and shallow copies alone: no
    object the tables hold is walked (thousands of operators hold tens of thousands of objects)."""
    nodes: list[tuple[dict[Any, Any], dict[Any, Any], int]] = []
    seen: set[int] = set()
    for root, levels, names in tables:
        _take_kernel_node(root, levels, names, nodes, seen)
    offset = _VERSION_OFFSET or 0
    addresses = array.array("Q", [id(node[0]) + offset for node in nodes])
    versions = tuple([_version(node[0]) for node in nodes]) if _VERSION_OFFSET is not None else None
    getter = operator.itemgetter(*[(address - 8) >> 3 for address in addresses]) \
        if _VERSION_OFFSET is not None and len(addresses) > 1 and all(address >= 8 and not address % 8
                                                                       for address in addresses) else None
    return nodes, addresses, versions, getter


def _take_kernel_node(value: Any, levels: int, names: tuple[str, ...], nodes: list[Any], seen: set[int]) -> None:
    """One object on the way (`_take_kernel_tables`): its namespace, the tables it holds under `names`, and, while
    `levels` is above 0, what its namespace holds, one level down."""
    space = value if type(value) is dict else _own_namespace(value)
    if space is None or id(space) in seen:
        return
    seen.add(id(space))
    nodes.append((space, dict(space), levels))
    for name in names:
        table = space.get(name)
        if type(table) is dict and id(table) not in seen:
            seen.add(id(table))
            nodes.append((table, dict(table), -1))
    if levels > 0:
        for child in list(space.values()):
            _take_kernel_node(child, levels - 1, names, nodes, seen)


def _own_namespace(value: Any) -> dict[str, Any] | None:
    """A module's namespace, or an instance's own `__dict__` (never a class's), read before any snippet ran."""
    if isinstance(value, types.ModuleType):
        return _c_module_dict(value)
    if isinstance(value, type):
        return None
    try:
        space = object.__getattribute__(value, "__dict__")
    except AttributeError:
        return None
    return space if type(space) is dict else None


def _kernel_tables(held: Any, taken: Any, memory: Any) -> tuple[list[Any], Any, Any, Any] | None:
    """The private state's kernel tables: the zygote's take (`snapshot_kernel_tables`) where it was taken for the same
    roots, else taken here, before the snippet runs; its reader of every version bound to the private view of memory
    (`_memory`). None where the plug names none."""
    tables = _kernel_table_roots(held)
    if not tables:
        return None
    nodes, addresses, versions, getter = taken[1] if taken is not None and taken[0] == _kernel_tables_key(tables) \
        else _take_kernel_tables(tables)
    reader = functools.partial(getter, memory) if getter is not None and memory is not None else None
    return nodes, addresses, versions, reader


def _held_state(held: Any) -> tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]:
    """The runtime plug's `HeldState` (its stacks, reads, containers and opaque classes), as plain tuples for the
    private state; all empty where the runtime keeps none (or the plug names none)."""
    if held is None:
        return (), (), (), ()
    return (tuple((length, at) for length, at in held[0]), tuple((read, tuple(args)) for read, args in held[1]),
            tuple(held[2]), tuple(held[3]))


# Copies of namespaces taken before any snippet ran (`snapshot_trusted`): once in a zygote, before it forks any check,
# then at `install` only what changed since (what the check's set-up did). Handed to the private state whole
# (`_trusted_spaces`), and replaced here by empty ones.
def _empty_copies() -> dict[str, Any]:
    """`modules` and `classes`: id -> (the module or class, a copy of its namespace); `names`: the module table as
    it was, for the copied modules; `at`: id -> (the namespace dict copied, its slot in the arrays); `addresses`,
    `versions`, `ids`: per slot, where the dict's version is read (`_VERSION_OFFSET`), its version when copied, and
    the id; `table`: the module table's version when `names` was made; `made_codes`: id -> code compiled at run time by
trusted code before the snippet ran (`_record_made_code`); `c_functions`: id -> [(a C function, a copied
    module's namespace, the name it is bound to there)], where a runtime's frame hook is bound (`_replace_everywhere`);
    `renewed`: the ids whose namespace the last copy took anew or again (loaded, or written since the copy before);
    `tables`: Python's own containers as a zygote took them (`snapshot_tables`: its roots, and per module its entries);
    `kernel_tables`: the runtime's kernel tables as a zygote took them (`snapshot_kernel_tables`);
    `walked_mark`: an object made right after `freeze_walked` froze every object, each walked for binders: while the
    collector lists it (not frozen), nobody froze anything since. Arrays of numbers, read in a check without writing a
    page the zygote shares (a forked check copies none for them)."""
    return {"modules": {}, "classes": {}, "names": {}, "at": {}, "addresses": array.array("Q"),
            "versions": array.array("Q"), "ids": array.array("Q"), "table": None, "every_class": False, "binders": {},
            "made_codes": {}, "c_functions": {}, "renewed": set(), "tables": None, "walked_mark": None,
            "kernel_tables": None}


_COPIES: dict[str, Any] = _empty_copies()


def _version_offset() -> int | None:
    """Where a dict's version is (CPython's `ma_version_tag`, PEP 509, changed by every write to the dict), from the
    dict's address; None where this interpreter's dicts are not laid out so (then every namespace is copied again
    at every install: slower, never stale). Checked on a dict written here before it is trusted."""
    if sys.implementation.name != "cpython" or not (3, 9) <= sys.version_info[:2] <= (3, 13) \
            or ctypes.sizeof(ctypes.c_void_p) != 8:
        return None
    offset = 3 * ctypes.sizeof(ctypes.c_void_p)  # after the object's header and `ma_used`
    probe: dict[str, Any] = {}
    seen = [ctypes.c_uint64.from_address(id(probe) + offset).value]
    for step in (lambda: probe.__setitem__("a", 1), lambda: probe.__setitem__("a", 2), lambda: probe.pop("a")):
        step()
        seen.append(ctypes.c_uint64.from_address(id(probe) + offset).value)
    return offset if all(seen[i] < seen[i + 1] for i in range(len(seen) - 1)) else None


_VERSION_OFFSET = _version_offset()
_c_VERSIONED = _VERSION_OFFSET is not None
_c_VERSION_OFFSET = _VERSION_OFFSET or 0
_c_from_address = ctypes.c_uint64.from_address  # a dict's version, read by the observer alone (audited: its own)
_c_compress = itertools.compress
_c_ne = operator.ne
_c_getrefcount = sys.getrefcount
_c_getweakrefcount = weakref.getweakrefcount


def _memory() -> Any:
    """A ctypes view of the whole address space in 8-byte words, where dicts' versions are read (`_p_version`): made
    at install, before the audit hook, so that a read through it is no audit event (one `from_address` per version read
    made as many events, each answered by the busy observer). Kept in the private state alone: it reaches any memory.
    None where versions cannot be read."""
    return None if _VERSION_OFFSET is None else (ctypes.c_uint64 * (1 << 59)).from_address(8)


def _version_reader(memory: Any, addresses: Any) -> Any:
    """One C call that reads every copied namespace's version at once (`_p_written`, at every search): an
    `operator.itemgetter` over `memory`. None where versions cannot be read, or not so (the slower loop then)."""
    if memory is None or len(addresses) < 2 or any(address % 8 or address < 8 for address in addresses):
        return None
    return functools.partial(operator.itemgetter(*[(address - 8) >> 3 for address in addresses]), memory)


def _raised_references() -> int | None:
    """How many references to an exception `sys.getrefcount` counts while the interpreter tells a trace function of
    it (its 'exception' event) when nothing else holds it: the interpreter's own (the fetched error, the event's
    tuple) and the count's argument. Measured on a fresh exception, in this interpreter, before the tracer is set
    (`_p_unreferenced` compares with it); None where the event was not seen."""
    seen: list[int] = []

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        if event == "exception" and frame.f_code is raiser.__code__:
            seen.append(sys.getrefcount(arg[1]))
        return tracer

    def raiser() -> None:
        raise LookupError("errorkb: counted")

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        raiser()
    except LookupError:
        pass
    finally:
        sys.settrace(previous)
    return seen[0] if len(seen) == 1 else None


def _referent_offset() -> int | None:
    """Where a weak reference holds its referent (CPython's `wr_object`, right after the object's header), for a
    proxy too, which no Python accessor gives (calling a `weakref.ref` would, but a proxy forwards every operation to
    its referent: `len(proxy)` runs the referent's `__len__`). Checked on a reference and proxies made here; None
    where it does not hold (then a live weak reference fails the planted search closed)."""
    if sys.implementation.name != "cpython" or ctypes.sizeof(ctypes.c_void_p) != 8:
        return None
    offset = 2 * ctypes.sizeof(ctypes.c_void_p)  # after `ob_refcnt` and `ob_type`

    class Plain:
        pass

    class Calling:
        def __call__(self) -> None:
            pass

    for held in (Plain(), Calling()):  # a proxy of each kind (`ProxyType`, `CallableProxyType`), and a reference
        for reference in (weakref.ref(held), weakref.proxy(held)):
            if ctypes.py_object.from_address(id(reference) + offset).value is not held:
                return None
    return offset


_c_REFERENT_OFFSET = _referent_offset()
_c_py_object_at = ctypes.py_object.from_address  # a weak reference's referent, read by the observer alone (audited)
_c_WEAK_TYPES = (weakref.ref, weakref.ProxyType, weakref.CallableProxyType)
# Finalizers (round twenty-eight): what the interpreter runs when an object dies, with no frame where it is C code (a
# `__del__` of a class of the snippet's that is a partial, a weak reference's callback): watched by a weak reference of
# the observer's own on each such object alive as a watched call starts (`_p_fin_arm`).
_c_is_finalized = gc.is_finalized
_c_ref_callback = vars(weakref.ref)["__callback__"].__get__
_c_PROXY_TYPES = (weakref.ProxyType, weakref.CallableProxyType)
_c_finalize = weakref.finalize
_c_finalize_registry: dict[Any, Any] = vars(weakref.finalize)["_registry"]
_c_finalize_parts = tuple(vars(vars(weakref.finalize)["_Info"])[name].__get__ for name in ("func", "args", "kwargs"))
_c_FIN_INIT = vars(weakref.finalize)["__init__"].__code__  # followed: who made each finalize (`_p_fin_made`)
_c_BuiltinFunctionType = types.BuiltinFunctionType
_c_FIN_REFERENCE = object()  # `_p_fin_kind`'s answer for a weak reference (or proxy) kind
_c_gc_get_stats = gc.get_stats
# The collector moves what survives a collection one generation older, the youngest holding what was made since
# (`_p_fin_young`): so from Python 3.8 to 3.12 (3.13 and later collect incrementally, their generations otherwise).
_c_GENERATIONS = (3, 8) <= sys.version_info[:2] <= (3, 12) and len(gc.get_stats()) == 3
_c_is = operator.is_
_c_repeat = itertools.repeat
_c_call_ref = weakref.ref.__call__
_c_dict_pop = dict.pop
_c_itemgetter = operator.itemgetter
_c_mod = operator.mod


def _version(space: dict[str, Any]) -> int:
    return 0 if _VERSION_OFFSET is None else int(ctypes.c_uint64.from_address(id(space) + _VERSION_OFFSET).value)


def _copy(subject: Any, space: dict[str, Any]) -> dict[str, Any]:
    """A copy of `space`, the namespace of `subject`, and its version, read first: a write while copying leaves the
    copy stale, never taken as fresh."""
    version = _version(space)
    copy = dict(space)
    known = _COPIES["at"].get(id(subject))
    if known is not None and known[0] is space:
        _COPIES["versions"][known[1]] = version
    else:
        _COPIES["at"][id(subject)] = (space, len(_COPIES["ids"]))
        _COPIES["addresses"].append(id(space) + (_VERSION_OFFSET or 0))
        _COPIES["versions"].append(version)
        _COPIES["ids"].append(id(subject))
    return copy


def _written_since() -> list[int]:
    """The ids of what was copied whose namespace was written since (or all, where versions cannot be read)."""
    ids = _COPIES["ids"]
    if _VERSION_OFFSET is None:
        return list(ids)
    read = ctypes.c_uint64.from_address
    pairs = zip(_COPIES["addresses"], _COPIES["versions"], strict=True)
    return [ids[index] for index, (address, version) in enumerate(pairs) if read(address).value != version]


def _copy_class(cls: Any) -> None:
    if not _c_type_flags(cls) & _c_HEAPTYPE:
        return
    known = _COPIES["classes"].get(id(cls))
    if known is not None and known[0] is cls:
        return
    space = gc.get_referents(_c_type_dict(cls))[0]  # what `__dict__`'s mapping proxy reads: its own for its life
    _COPIES["classes"][id(cls)] = (cls, _copy(cls, space))


def _every_class() -> list[type]:
    """Every class the interpreter has made so far, through each class's subclasses (a class C code made in an
    extension's submodule with no file too: a pybind11 class)."""
    found: dict[int, type] = {}
    level: list[type] = [object]
    while level:
        following = []
        for cls in level:
            subclasses: list[type] = type.__subclasses__(cls) if type in _c_mro(type(cls)) else []
            for sub in subclasses:
                if id(sub) not in found:
                    found[id(sub)] = sub
                    following.append(sub)
        level = following
    return list(found.values())


def _young_classes() -> tuple[list[type], bool]:
    """The classes made since the collector last froze what was made (a zygote freezes after preparing): those the
    check's set-up made, read where the collector tracks them (a class always is). The partials (and other
    binders) made since are recorded in the same pass (`_record_binder`). And whether the pass met the mark
    `freeze_walked` left (`walked_mark`): then every frozen object was walked for binders already."""
    found = []
    mark = _COPIES["walked_mark"]
    marked = False
    for value in gc.get_objects():
        kind = type(value)
        if value is mark:
            marked = mark is not None
        elif _p_in_binders(kind) or _p_bound_to_data(value, kind) is not _c_MISSING:
            _record_binder(value)
        elif kind is types.FunctionType:
            _record_made_code(value.__code__)
        elif kind is typing.ForwardRef:  # code it holds unrun, for `typing.get_type_hints` to evaluate later
            code = getattr(value, "__forward_code__", None)
            if type(code) is types.CodeType:
                _record_made_code(code)
        elif type in _c_mro(kind):
            found.append(value)
    return found, marked


def _p_in_binders(kind: Any) -> bool:
    """One of `_c_BINDERS`, exactly, or a calling iterator (`_p_calling_iterator`): a plain loop, read by the private
    code too."""
    for binder in _c_BINDERS:
        if kind is binder:
            return True
    return _p_calling_iterator(kind)


def _p_calling_iterator(kind: Any) -> bool:
    """One of `_c_CALLING_ITERATORS`, or a class derived from one (by its MRO, as C code reads it)."""
    try:
        mro = _c_mro(kind)
    except BaseException:
        return False
    for iterator in _c_CALLING_ITERATORS:  # noqa: SIM110
        if _p_in(iterator, mro):
            return True
    return False


def _p_bound_to_data(value: Any, kind: Any) -> Any:
    """The object a C method is bound to (`[]` of `[].__getitem__`, the iterator of `it.__next__`), or `_c_MISSING`
    for anything else: not a C method, or one of a module (`len`) or of a class (`object.__new__`), which raises its
    own errors on the arguments it is handed."""
    if kind is _c_BOUND_C[0]:
        bound = _c_builtin_self(value)
    elif kind is _c_BOUND_C[1]:
        bound = _c_wrapper_self(value)
    else:
        return _c_MISSING
    if bound is None or _p_is_module(bound) or _p_in(type, _c_mro(type(bound))):
        return _c_MISSING
    return bound


def _record_binder(value: Any) -> None:
    """A `functools.partial` (or an `operator` getter or caller, or a C method bound to an object) that existed before
    the snippet ran: trusted code made it (a runtime binds a class's `__eq__` to one at import), so what it binds is
    not the snippet's choice (`_p_made_before`)."""
    _COPIES["binders"][id(value)] = value


def _record_made_code(code: types.CodeType) -> None:
    """The code of a function that existed before the snippet ran, compiled at run time under a name that is no file
    (`<string>`: a named tuple's `__new__`, a dataclass's `__init__`), and the code it makes functions of: trusted code
    compiled it, whatever its name says (`_p_untrusted_code`). Code of a file is known by its file. So is the code a
    `typing.ForwardRef` made then holds unrun (a runtime's class annotating an attribute with a string), which
    `typing.get_type_hints` evaluates whenever the library asks: in subprocess isolation, a library class's
    `__init_subclass__` as its module first loads inside the snippet's call (round thirty-four; the real case is in
    docs/threat-model.md)."""
    if not code.co_filename.startswith("<") or code.co_filename.startswith("<frozen "):
        return
    made = _COPIES["made_codes"]
    if made.get(id(code)) is code:  # its nested code with it
        return
    for each in _p_code_tree(code):
        made[id(each)] = each


def _p_code_tree(code: Any) -> list[Any]:
    """A code object and every code object nested in its constants (its functions', classes', comprehensions'),
    breadth first: what compiling one source made. The one walker of nested code, by captured C accessors alone, so
    that the zygote (`_record_made_code`) and the private code (`_p_runtime_compiled`) both call it."""
    found = [code]
    level = [code]
    while level:
        following: list[Any] = []
        for each in _c_list_iter(level):
            following.extend([const for const in _c_tuple_iter(each.co_consts) if type(const) is _c_CodeType])
        found.extend(following)
        level = following
    return found


def _every_binder() -> None:
    """Every binder the collector tracks now (each always is), beside `_every_class`. Frozen objects included: a
    release's zygote is forked from a stem that froze what it loaded (the runtime), and `gc.get_objects` lists no
    frozen object, so the runtime's own binders (its pybind11 functions) were read as made by the snippet. A zygote
    freezes what it made right after (`zygote.py`); the permanent generation is frozen again here all the same."""
    frozen = gc.get_freeze_count() > 0
    if frozen:
        gc.unfreeze()
    try:
        _record_binders_among(gc.get_objects())
    finally:
        if frozen:
            gc.freeze()


def _record_binders_among(values: list[Any]) -> None:
    """The binders among `values` (and the code of their plain functions, as made before the snippet).

    Whether a class is a binder's (`_p_in_binders`: its MRO read) is asked once per class, not once per object (half
    a million objects of a few thousand classes: 0.37 s of CPU a walk, 0.05 s so; `values` holds each class alive, so
    its id names it throughout), and only a bound C method's is read for what it is bound to."""
    binding: dict[int, bool] = {}
    builtin, wrapper = _c_BOUND_C
    for value in values:
        kind = type(value)
        known = binding.get(id(kind))
        if known is None:
            known = binding[id(kind)] = _p_in_binders(kind)
        if known or (kind is builtin or kind is wrapper) and _p_bound_to_data(value, kind) is not _c_MISSING:
            _record_binder(value)
        elif kind is types.FunctionType:
            _record_made_code(value.__code__)
        elif kind is typing.ForwardRef:  # code it holds unrun, for `typing.get_type_hints` to evaluate later
            code = getattr(value, "__forward_code__", None)
            if type(code) is types.CodeType:
                _record_made_code(code)


def freeze_walked() -> None:
    """Freeze every object the collector tracks (a zygote, after its copies: a forked check's collector neither walks
    nor copies them), the binders among those not frozen yet recorded first, then leave a mark made after the freeze
    (`walked_mark`, a list: the collector tracks it from its making). A later copy in the zygote
    (`snapshot_trusted(binders=True)`, after a module it prepared) that still finds the mark among what is not frozen
    knows every frozen object walked, and walks only what was made since (`_young_classes`), not every object again
    (issue 22: `benchmarks/observer_binders.py`). A freeze by anyone else since froze the mark too: then all is walked
    again. (A binder missed would only be read as the snippet's: a false tamper, never a pass.)"""
    _record_binders_among(gc.get_objects())
    gc.freeze()
    _COPIES["walked_mark"] = []


def snapshot_trusted(roots: tuple[str, ...], binders: bool = False) -> None:
    """Copy, before any snippet runs, the namespace of every module of a trusted file loaded so far (and of
    `builtins`), and of every class the interpreter has made (Python's, the runtime's, an extension's: a
    class's namespace changes with no audit event). A zygote calls it before it forks (and after each module it
    prepares); `install` calls it again in the check, where it copies only what is new or was written since
    (`_written_since`). Read from the dicts alone (a lazy module's `__getattr__` never runs). What it copies is
    what the names were, and a class it copied existed before the snippet: none is the snippet's.

    `binders` (a zygote, after a module it prepared): record again every binder that exists (`_every_binder`), not
    only at the first copy. A release's zygote forked from a stem loads the library and more of the runtime after the
    stem's first copy: their C functions bound to data (a pybind11 function, bound to its function record) were
    read as the snippet's binding (a false tamper of an export entry's before on 53 releases of the matrix). Where
    every frozen object was walked already (`freeze_walked`), what was made since is all there is to walk."""
    modules, classes = _COPIES["modules"], _COPIES["classes"]
    fresh: list[dict[str, Any]] = []
    renewed = _COPIES["renewed"] = set(_written_since())  # copied anew or again here: its tables too
    for key in renewed:  # written since it was copied (the check's set-up): copied again
        space = _COPIES["at"][key][0]
        if key in modules:
            modules[key] = (modules[key][0], _copy(modules[key][0], space))
            fresh.append(modules[key][1])
            _index_c_functions(space, modules[key][1])
        else:
            classes[key] = (classes[key][0], _copy(classes[key][0], space))
    if id(builtins) not in modules:
        modules[id(builtins)] = (builtins, _copy(builtins, vars(builtins)))
    table = _version(sys.modules)
    if _VERSION_OFFSET is None or table != _COPIES["table"]:  # a module loaded, or replaced, since
        fresh.extend(_copy_modules(roots))
        _COPIES["table"] = table
    if not _COPIES["every_class"]:
        found = _every_class()
        _every_binder()
        _COPIES["every_class"] = True
    else:
        found, walked = _young_classes()  # the binders made since the last freeze too
        if binders and not walked:  # frozen by someone else since (or never by `freeze_walked`): walk all
            _every_binder()
    found.extend(value for copy in fresh for value in copy.values() if type in _c_mro(type(value)))
    for cls in found:
        _copy_class(cls)


def _copy_modules(roots: tuple[str, ...]) -> list[dict[str, Any]]:
    """Copy each module of a trusted file in the module table not copied yet, and make the table as it is now
    (`names`); the copies made."""
    modules = _COPIES["modules"]
    names: dict[str, types.ModuleType] = {"builtins": builtins}
    fresh = []
    for name, module in list(sys.modules.items()):
        if type(module) is not types.ModuleType or type(name) is not str:
            continue
        known = modules.get(id(module))
        if known is None or known[0] is not module:
            space = _c_module_dict(module)
            path = space.get("__file__")
            if type(path) is not str or not path.startswith(roots) or "/../" in path:
                continue
            modules[id(module)] = (module, _copy(module, space))
            _COPIES["renewed"].add(id(module))
            fresh.append(modules[id(module)][1])
            _index_c_functions(space, modules[id(module)][1])
        names.setdefault(name, module)
    _COPIES["names"] = names
    return fresh


def _index_c_functions(space: dict[str, Any], copy: dict[str, Any]) -> None:
    """Where each C function of a copied module's namespace is bound (`c_functions`), from its copy."""
    index = _COPIES["c_functions"]
    for key, value in copy.items():
        if type(value) is types.BuiltinFunctionType:
            index.setdefault(id(value), []).append((value, space, key))


def _trusted_spaces(roots: tuple[str, ...]) -> tuple[dict[int, Any], dict[int, Any], dict[str, Any], dict[str, Any]]:
    """The trusted namespaces as they were (`snapshot_trusted`), and the module table's entries for them, for the
    private state alone: the public holder is given new empty ones (the old ones handed over whole: neither copied
    nor emptied, which would write every page of them a forked check shares), so nothing the snippet reaches
    holds them. The whole holder comes last, for the private state to keep: freed, it would write them all."""
    snapshot_trusted(roots)
    held = dict(_COPIES)
    _COPIES.update(_empty_copies())
    return held["modules"], held["classes"], held["names"], held


def _reader_modules(stdlib_roots: Any) -> list[types.ModuleType]:
    """Python's frame readers loaded now. The walk over every module is taken once in a zygote, before it forks
    (`child.snapshot_python`), and a check reuses it while the module table is the very one walked (its version,
    `_VERSION_OFFSET`): walked again in every forked check, it wrote a reference count into each module's page, a
    third of the check's CPU (benchmarks/forked_check.py). A table written since, or no version to read: walked."""
    roots = tuple(stdlib_roots)
    version = _version(sys.modules) if _VERSION_OFFSET is not None else None
    taken = _READERS_TAKEN.get(roots)
    if version is not None and taken is not None and taken[0] == version:
        return list(taken[1])
    suffixes = tuple(suffix for suffix, _ in _c_FRAME_READERS)
    found = []
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if type(path) is str and path.startswith(roots) and path.endswith(suffixes):
            found.append(module)
    if version is not None:
        _READERS_TAKEN.clear()
        _READERS_TAKEN[roots] = (version, tuple(found))
    return found


_READERS_TAKEN: dict[tuple[str, ...], tuple[int, tuple[types.ModuleType, ...]]] = {}  # roots → (version, readers)


def _reader_spaces(modules: list[types.ModuleType]) -> dict[int, tuple[dict[str, Any], dict[str, Any]]]:
    """The namespaces of Python's frame readers loaded now (before the snippet), each with a copy: a reader
    hands nothing out only while the functions it calls with the frame are those it had (`_p_reads_only`)."""
    return {id(vars(module)): (vars(module), dict(vars(module))) for module in modules}


def _reader_shared(modules: list[types.ModuleType]) -> tuple[tuple[Any, dict[str, Any]], ...]:
    """The namespaces that every reader's frames may go through (`_c_FRAME_SHARED`: asyncio's readers hand theirs to
    `format_helpers.extract_stack`, which hands them to `traceback`), and the classes they define (`extract_stack`
    calls `StackSummary.extract`), each with a copy. (A class's attribute set raises no audit event.)"""
    found: list[tuple[Any, dict[str, Any]]] = []
    for module in modules:
        if module.__file__ and module.__file__.endswith(_c_FRAME_SHARED):
            found.append((vars(module), dict(vars(module))))
            found.extend((vars(value), dict(vars(value))) for value in vars(module).values()
                         if isinstance(value, type) and value.__module__ == module.__name__)
    return tuple(found)


# -- the private side: re-created over the private namespace by `install` ---------------------------
# Globals these functions may name: `_S`, `_p_*`, `_c_*` and the builtins (a private copy). The
# architecture test reads their bytecode to hold them to it.

_S: dict[str, Any] = {}


def _p_hook(event: Any, args: Any) -> None:
    if type(event) is not str or event == "builtins.id":  # the observer's own `id()`, all the time; an address
        return
    if event == "object.__getattr__" and type(args) is tuple and len(args) == 2 and type(args[1]) is str \
            and args[1] == "f_code":  # read constantly (by the observer too); a code object leads to no frame
        return
    ident = _c_get_ident()
    busy = _S["busy"]
    if ident in busy:  # an event raised while the observer handles another, in this thread
        if _p_nested(ident, event, args) is True:
            raise RuntimeError("refused by the verifier")
        return
    # Busy before anything here allocates: an allocation may start a collection, and a finalizer or a gc
    # callback run by it runs in this frame (C ones too: `_p_nested` is where they are seen).
    busy.add(ident)
    if _c_gc_isenabled():  # no collection while the observer runs (see `gc_enable`); on again when done
        _S["collect"] = True
        _c_gc_disable()
    refuse = False
    try:
        handler: Any = None
        if event == "errorkb.trace":
            handler = _p_trace
            if type(args) is tuple and len(args) == 3 and type(args[0]) is _c_FrameType:
                # The hot path: most calls are of code the observer has nothing to do with (the library's
                # and the runtime's, unwatched). `_p_trace` decided that once per code object.
                what = args[1]
                code = args[0].f_code  # the very code: code objects compare equal across files (`_p_untrusted_code`)
                if type(what) is str and what == "call" and _c_dict_get(_S["quiet"], code) is code:
                    handler = None
        elif event == "object.__getattr__":
            handler = _p_on_getattr
        else:
            handler = _c_dict_get(_S["dispatch"], event)
        if handler is not None:
            refuse = handler(ident, args) is True
    except BaseException as error:  # the observer must never fail into the snippet, and never silently
        _S["faults"] += 1
        _p_fault(error)
    finally:
        if _S["graves"]:
            try:
                _S["bury"](_S["graves"])
            except BaseException as error:  # a KeyboardInterrupt landing there: said, and the rest still done
                _S["faults"] += 1
                _p_fault(error)
        busy.discard(ident)
        if not busy and _S["collect"]:  # the last thread out (no switch between the test and the call)
            _S["collect"] = False
            _c_gc_enable()
    if refuse:
        raise RuntimeError("refused by the verifier")


def _p_nested(ident: int, event: str, args: Any) -> bool:
    """An event while the observer is busy in this thread. Its own code raises some (its frames traced,
    its reads of `f_code` and `tb_frame`, `sys._getframe`, opening a file to compare, the trampoline's
    request to send a signal again); anything else, or any event from a frame that is not the
    observer's, is code that ran inside the observer (a finalizer or a `gc` callback the snippet
    planted), where it could reach the observer's frames. Such code may be C alone (a `functools.partial`
    over `sys._getframe`: no frame, no trace event): a `sys._getframe` that would hand out a frame of
    the observer's is refused (True), whoever asks."""
    nested = _S["nested"]
    if ident in nested:  # raised by this very check (its own `_c_getframe`)
        return False
    nested.add(ident)
    refuse = False
    try:
        if event == "errorkb.trace":
            frame = args[0] if type(args) is tuple and len(args) == 3 else None
            foreign = type(frame) is not _c_FrameType or not _p_observers(frame)
        elif event == "errorkb.died":  # a followed instance died while the observer ran (in `_bury`)
            foreign = False
            _p_on_died(ident, args)
        elif event == "errorkb.redeliver":  # a signal that landed in the observer's frames, deferred
            caller = _c_getframe(2)
            foreign = caller is None or caller.f_code is not _S["trampoline_code"]
            if not foreign:
                _p_on_redeliver(ident, args)
        elif _p_one_of(event, _c_OWN_EVENTS):
            caller = _c_getframe(2)
            foreign = caller is None or not _p_observers(caller)
            if event == "sys._getframe" and type(args) is tuple and len(args) == 1 and _p_handed_out(args[0]):
                foreign = refuse = True
        else:
            foreign = True
        if foreign:
            _p_tamper("observer", "ran code inside the verifier's observer (" + event + ")")
    except BaseException as error:
        _S["faults"] += 1
        _p_fault(error)
    finally:
        nested.discard(ident)
    return refuse


def _p_handed_out(frame: Any) -> bool:
    """A frame `sys._getframe` returns while the observer is busy that nobody outside it may have: one
    of its private code's, or of its helpers' but the thread bootstrap's (whose frame the observer
    reads itself, and whose locals are the snippet's own). The observer's own calls never ask for one."""
    if type(frame) is not _c_FrameType:
        return False
    if frame.f_globals is _S["space"]:
        return True
    return _p_in(frame.f_code, _S["helpers"]) and not _p_in(frame.f_code, _S["installers"])


def _p_observers(frame: Any) -> bool:
    """A frame of the observer's private code, or of its public helpers that run in the snippet's threads
    (the signal trampoline that defers a handler while the observer is busy, the thread bootstrap)."""
    return frame.f_globals is _S["space"] or _p_in(frame.f_code, _S["helpers"])


def _p_on_getattr(ident: int, args: Any) -> bool | None:
    """`traceback.tb_frame` that is a frame of the observer's (an exception raised in its hook, a refusal):
    the way into its private namespace. Refused, and tampering. Any frame the snippet's own code takes
    (a traceback's, a generator's or coroutine's) is tampering too (`_p_frame_taken`)."""
    if type(args) is not tuple or len(args) != 2 or \
            not _p_one_of(args[1], ("tb_frame", "gi_frame", "cr_frame", "ag_frame")):
        return None
    _p_frame_taken(ident, args[1])
    if not _p_one_of(args[1], ("tb_frame",)):
        return None
    tb = args[0]
    if type(tb) is _c_TracebackType and tb.tb_frame.f_globals is _S["space"]:
        _p_tamper("observer", "reached into the verifier's observer through a traceback")
        return True
    return None


def _p_fault(error: BaseException) -> None:
    try:
        tb = error.__traceback__
        where = ""
        while tb is not None:
            where = tb.tb_frame.f_code.co_name + ":" + _c_int_repr(tb.tb_lineno)
            tb = tb.tb_next
        _p_emit({"e": "fault", "what": _p_name(type(error)) + ": " + (_p_message(error) or "") + " (" + where + ")"},
                True)
    except BaseException:
        pass


# -- the stream -------------------------------------------------------------------------------------


def _p_emit(record: dict[str, Any], now: bool = False) -> None:
    """One line: the record, its sequence number and the writing process, sealed (`seal.py`'s format)."""
    lock = _S["lock"]
    lock.acquire()
    try:
        record["n"] = _S["n"]
        _S["n"] += 1
        record["p"] = _c_getpid()
        body = _c_str_encode(_p_encode(record, 0), "ascii")
        mac = _S["sealer"].copy()
        mac.update(body)
        _p_write(body + _c_SEPARATOR + _c_str_encode(mac.hexdigest(), "ascii") + b"\n")
    finally:
        lock.release()


def _p_write(data: bytes) -> None:
    fd = _S["fd"]
    view = memoryview(data)
    while len(view):
        written = _c_write(fd, view)
        view = view[written:]


def _p_encode(value: Any, depth: int) -> str:
    """JSON of plain data, by type (a subclass of str, int or float is read by the base type's own C
    code); anything else is null. No method of the value ever runs."""
    kind = type(value)
    if value is None or depth > 8:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is str or kind is int or kind is float or kind is list or kind is tuple or kind is dict:
        mro = (kind,)
    else:
        mro = _c_mro(kind)
    if _p_in(str, mro):
        text: str = _c_str_str(value)
        return _c_encode(text if len(text) <= 20000 else text[:20000] + "...")
    if _p_in(int, mro):
        return str(_c_int_repr(value))
    if _p_in(float, mro):
        number = _c_float_repr(value)
        return number if _p_one_of(number[-3:], ("inf", "nan")) is False else "null"
    if kind is list or kind is tuple:
        return "[" + ",".join([_p_encode(item, depth + 1) for item in value[:1000]]) + "]"
    if kind is dict:
        parts = []
        for key, item in _c_dict_items(value):
            if type(key) is str:
                parts.append(_c_encode(key) + ":" + _p_encode(item, depth + 1))
        return "{" + ",".join(parts) + "}"
    return "null"


# -- safe reading of what the snippet may control -----------------------------------------------------


def _p_name(kind: Any) -> str:
    try:
        name = _c_type_name(kind)
    except BaseException:
        return "?"
    return name if type(name) is str else "?"


def _p_qualified(kind: Any) -> str:
    """`module.qualname` only for a class that module defines, by identity: `builtins.X` for Python's own class X
    alone, any other module's name only where a trusted module holds this very class under it
    (`_p_trusted_class`); else `?.qualname`. A class's `__module__` is the snippet's to claim, so the judge reads
    "raises ValueError" or "raises pkg.Error" by this name, never by one a class says of itself."""
    try:
        module, qualname = _c_type_module(kind), _c_type_qualname(kind)
    except BaseException:
        return "?"
    if type(module) is not str or type(qualname) is not str:
        return "?"
    if module == "builtins":
        return ("builtins." if _p_in(kind, _c_BUILTIN_CLASSES) else "?.") + qualname
    return (module + "." if _p_trusted_class(kind) else "?.") + qualname


def _p_message(error: Any) -> str | None:
    """The exception's text as `str()` would give it, read only where C code alone makes it: plain
    arguments and a builtin `__str__`. None: it cannot be read without running its own code."""
    try:
        args = _c_exc_args(error)
    except BaseException:
        return None
    if type(args) is not tuple:
        return None
    for arg in args:
        if type(arg) not in (str, int, float, bool, _c_NoneType):
            return None
    implementation = _p_class_attr(type(error), "__str__")
    if _p_in(implementation, _c_base_like_str):
        if len(args) == 0:
            return ""
        if len(args) == 1:
            return args[0] if type(args[0]) is str else _p_plain_repr(args[0])
        return "(" + ", ".join([_p_plain_repr(arg) for arg in args]) + ")"
    if implementation is _c_key_str:
        return _p_plain_repr(args[0]) if len(args) == 1 else _c_base_str(error)
    if _p_in(ImportError, _c_mro(type(error))):
        message = _c_import_msg(error)
        if type(message) is str:
            return message
    return None


def _p_plain_repr(value: Any) -> str:
    kind = type(value)
    if kind is str:
        return _c_str_repr(value)
    if kind is int or kind is bool:
        return _c_int_repr(value) if kind is int else ("True" if value else "False")
    if kind is float:
        return _c_float_repr(value)
    return "None"


def _p_read_message(error: Any) -> str | None:
    """The exception's text: `_p_message`'s where C code alone makes it, else the library's own `__str__`'s
    (`_p_library_message`). None: it cannot be read without running code the snippet chose."""
    message = _p_message(error)
    return message if message is not None else _p_library_message(error)


def _p_library_message(error: Any) -> str | None:
    """The text of an exception whose `__str__` is the library's own Python code (PyYAML's `MarkedYAMLError` joins its
    problem with `str(problem_mark)`, a `Mark` whose `__str__` is the library's too), made by running that code, where
    what it runs over is the library's alone: the function the exception's class resolves `__str__` to was compiled
    from the target's files (`_p_library_code`); every class of the exception's, and of every object it holds, is the
    library's as it was when the snippet started, or one of Python's holding nothing but its `__dict__` and `args`
    (or OSError's fields, read as data) (`_p_str_class`: a subclass of the snippet's, overriding `__str__` or
    anything that `__str__` reads, is not);
    everything the exception holds is plain data (an exact `str`, number, bytes, None; a tuple, list or dict of such)
    or such objects holding the same (`_p_str_data`: an object of the snippet's, whose own `__str__`, `__repr__` or
    `__format__` would choose the words when the library's formats it, is not); no name of the target's modules was
    bound anew since (`_p_library_rebound`). Its cause, context and traceback (which the interpreter, not the library,
    may have set to the snippet's) are hidden while it runs, then put back. It runs untraced (in the tracer): the
    library's own code only, over data no code of the snippet's answers for. Anything else: None, as before."""
    implementation = _p_class_attr(type(error), "__str__")
    if type(implementation) is not _c_FunctionType or not _p_library_code(_c_func_code(implementation)):
        return None
    attribute = _p_attribute_message(error, implementation)
    if attribute is not None:
        return attribute
    if not _p_str_data(error, [_c_LIBRARY_DATA_MAX], _c_LIBRARY_DATA_DEPTH) or _p_library_rebound():
        return None
    links = [pair[0](error) for pair in _c_exc_links]
    try:
        for pair in _c_exc_links[:3]:
            pair[1](error, None)
        text = implementation(error)
    except BaseException:
        text = None
    finally:
        for index in range(4):
            _c_exc_links[index][1](error, links[index])
    return text if type(text) is str else None


def _p_attribute_message(error: Any, implementation: Any) -> str | None:
    """The text of an exception whose library `__str__` returns one attribute of it and does nothing else (click's
    `ClickException.__str__`, `return self.message`; its bytecode says so, Python's own `dis` names): that attribute's
    exact `str` in the exception's own `__dict__`, read with no code run, where every class of the exception's is the
    library's as it was (`_p_str_class`), reads attributes with Python's generic reader alone, and holds no such name
    (a property of that name would answer instead). What else it holds (click's `ctx`: the Context of the snippet's
    command) that `__str__` never reads is not the text's; anything else: None (`_p_library_message` goes on)."""
    kind = type(error)
    code = _c_func_code(implementation)
    if code.co_argcount != 1 or code.co_kwonlyargcount or code.co_freevars or code.co_cellvars:
        return None
    names = _S["opnames"]
    ops = code.co_code
    steps = []
    for at in range(0, len(ops), 2):
        if ops[at] >= len(names):
            return None
        if not _p_one_of(names[ops[at]], ("CACHE",)):
            steps.append((names[ops[at]], ops[at + 1]))
    if len(steps) != 4 or not _p_one_of(steps[0][0], ("RESUME",)) or not _p_one_of(steps[1][0], ("LOAD_FAST",)) \
            or steps[1][1] != 0 or not _p_one_of(steps[2][0], ("LOAD_ATTR",)) \
            or not _p_one_of(steps[3][0], ("RETURN_VALUE",)) or steps[2][1] & _c_LOAD_ATTR_SHIFT:
        return None
    index = steps[2][1] >> _c_LOAD_ATTR_SHIFT
    if index >= len(code.co_names) or not _p_str_class(kind, 2) \
            or not _p_in(_p_class_attr(kind, "__getattribute__"), _c_GENERIC_GETATTRS):
        return None
    name = code.co_names[index]
    if _p_class_attr(kind, name) is not _c_MISSING:
        return None
    own = _p_own_dict(error, kind)
    text = None
    for pair in _c_list_iter(list(_c_dict_items(own)) if own is not None else []):
        if type(pair[0]) is not str:  # compared by value in C alone: a key of the snippet's would answer `__eq__`
            return None
        if _p_one_of(pair[0], (name,)):
            text = pair[1]
    return text if type(text) is str else None


def _p_library_code(code: Any) -> bool:
    """Code compiled from one of the target's files (by the import system, not by the snippet under that name)."""
    return _p_in_roots(code.co_filename, _S["target_roots"]) and not _p_untrusted_code(code)


def _p_str_data(value: Any, budget: list[int], depth: int) -> bool:
    """Plain data, or an object of the library's holding plain data and such objects (`_p_library_message`): exact
    types alone (a subclass of `str` of the snippet's answers `__format__`, `__eq__`, `__hash__` in its own code),
    string or integer keys, every slot and `__dict__` entry, an exception's `args`, an OSError's C fields (a filename
    set apart from `args`, formatted by its `repr`). Bounded: past `budget` objects or
    `depth` levels, False."""
    kind = type(value)
    if value is None or kind is str or kind is int or kind is float or kind is bool or kind is bytes:
        return True
    budget[0] -= 1
    if budget[0] < 0 or depth <= 0:
        return False
    if kind is tuple or kind is list:
        for item in _c_list_iter(list(value)):  # noqa: SIM110  # a plain loop: no generator in the private namespace
            if not _p_str_data(item, budget, depth - 1):
                return False
        return True
    if kind is dict:
        for pair in _c_list_iter(list(_c_dict_items(value))):
            if not (type(pair[0]) is str or type(pair[0]) is int) or not _p_str_data(pair[1], budget, depth - 1):
                return False
        return True
    if not _p_str_class(kind, 2):
        return False
    own = _p_own_dict(value, kind)
    if own is not None and not _p_str_data(own, budget, depth - 1):
        return False
    for klass in _c_tuple_iter(_c_mro(kind)):
        if not _c_type_flags(klass) & _c_HEAPTYPE:
            continue
        for pair in _c_list_iter(list(_c_proxy_items(_c_type_dict(klass)))):
            if type(pair[1]) is _c_MemberDescriptorType:  # a slot: what it holds
                try:
                    held = _c_member_get(pair[1], value, kind)
                except AttributeError:
                    continue
                if not _p_str_data(held, budget, depth - 1):
                    return False
    if _p_in(_c_OSError, _c_mro(kind)):  # its C fields: the snippet may have set any of them to an object of its own
        for field in _c_tuple_iter(_c_OS_FIELDS):
            if not _p_str_data(_c_member_get(field, value, kind), budget, depth - 1):
                return False
    if _p_in(BaseException, _c_mro(kind)):
        return _p_str_data(_c_exc_args(value), budget, depth - 1)
    return True


def _p_str_class(kind: Any, depth: int) -> bool:
    """A class each of whose classes (its MRO) is a trusted class (`_p_trusted_class`) as it was when the snippet
    started (`_p_class_as_was`), or one of `_c_ARGS_ONLY` or `_c_OS_ERRORS` (whose C fields `_p_str_data` reads),
    under `type` or a metaclass that is such a class."""
    try:
        mro = _c_mro(kind)
    except BaseException:
        return False
    meta = type(kind)
    if meta is not type and (depth <= 0 or not _p_str_class(meta, depth - 1)):
        return False
    for klass in _c_tuple_iter(mro):
        if not _c_type_flags(klass) & _c_HEAPTYPE:
            if not _p_in(klass, _c_ARGS_ONLY) and not _p_in(klass, _c_OS_ERRORS) \
                    and not (klass is type and depth < 2):
                return False
        elif not _p_trusted_class(klass) or not _p_class_as_was(klass):
            return False
    return True


def _p_class_as_was(klass: Any) -> bool:
    """A class whose namespace holds what its copy did before the snippet ran, name for name (none added, rebound or
    deleted: a class's namespace changes with no audit event); a class made since (by a module of the target's, or
    Python's, that the snippet's import loaded) holds, besides plain data and what making a class puts there, only
    functions of the target's files under their own names (`_p_library_code`), as a class statement's would."""
    items = list(_c_proxy_items(_c_type_dict(klass)))
    copied = _c_dict_get(_S["classes_as_were"], id(klass))
    if copied is not None and copied[0] is klass:
        was = copied[1]
        if len(items) != len(was):
            return False
        for pair in _c_list_iter(items):  # noqa: SIM110  # a plain loop: no generator in the private namespace
            if pair[1] is not _c_dict_get(was, pair[0], _c_MISSING):
                return False
        return True
    for pair in _c_list_iter(items):
        key, value = pair
        kind = type(value)
        if value is None or kind is str or kind is int or kind is bool or kind is _c_MemberDescriptorType \
                or kind is _c_GetSetDescriptorType:
            continue
        if kind is tuple:
            for item in _c_tuple_iter(value):
                if type(item) is not str:
                    return False
            continue
        for function in _c_tuple_iter(_p_functions_in(value)):
            if function is None:
                continue
            if type(function) is not _c_FunctionType or not _p_library_code(_c_func_code(function)) \
                    or _c_func_code(function).co_name != key and type(value) is not _c_property:
                return False
    return True


def _p_library_rebound() -> bool:
    """Whether a module of the target's copied before the snippet ran has a name bound since to anything but what its
    copy holds (added, rebound or deleted): the library's `__str__` reads its module's names (a function it calls, a
    class, a separator). `__warningregistry__`, which Python's `warnings` adds to the module that warned, is not read
    so. Only the namespaces written since install are compared (`_p_written`)."""
    modules, _ = _p_written()
    for _, entry in _c_list_iter(modules):
        module, was = entry
        if not _p_in_roots(_c_dict_get(was, "__file__"), _S["target_roots"]):
            continue
        current = _c_module_dict(module)
        for pair in _c_list_iter(list(_c_dict_items(current))):
            before = _c_dict_get(was, pair[0], _c_MISSING)
            if pair[1] is not before and not _p_one_of(pair[0], ("__warningregistry__",)) \
                    and not (before is _c_MISSING and _p_lazy_export(_c_dict_get(was, "__name__"), pair[0], pair[1])):
                return True
        for key in _c_list_iter(list(was)):
            if _c_dict_get(current, key, _c_MISSING) is _c_MISSING:
                return True
    return False


def _p_lazy_export(module: Any, key: Any, value: Any) -> bool:
    """A name added to the target's module `module`, bound to a function or class the target defines under that very
    name: what a lazily loading package's `__getattr__` binds as the snippet imports it (`from pydantic import
    BaseModel` puts `pydantic.main`'s names in `pydantic`'s namespace); or to its submodule of that name, a file of the
    target's that the module table holds under it, which the import system binds on its package. Nothing a library's
    `__str__` reads there answers otherwise than the library's own object would. A name rebound, removed, or bound to
    anything else still counts."""
    if type(key) is not str or type(module) is not str:
        return False
    if _p_is_module(value):
        space = _c_module_dict(value)
        return _c_dict_get(_S["sys_modules"], module + "." + key) is value \
            and _p_one_of(_c_dict_get(space, "__name__"), (module + "." + key,)) \
            and _p_in_roots(_c_dict_get(space, "__file__"), _S["target_roots"])
    if not _p_defined_in_target(value):
        return False
    own = _c_type_name(value) if _p_in(type, _c_mro(type(value))) else _c_func_name(value) \
        if type(value) is _c_FunctionType else None
    return type(own) is str and own == key


def _p_in(item: Any, items: Any) -> bool:
    """Identity membership (`in` would call `__eq__` of what the snippet made). A plain loop: hot path."""
    for each in items:  # noqa: SIM110
        if each is item:
            return True
    return False


def _p_one_of(text: Any, options: tuple[str, ...]) -> bool:
    """An exact `str` equal to one of `options` (by value: strings need not be the same object)."""
    if type(text) is not str:
        return False
    for option in options:  # noqa: SIM110  # hot path
        if text == option:
            return True
    return False


def _p_class_attr(cls: Any, name: str) -> Any:
    """`name` as the class's MRO resolves it, read from the class dicts (no descriptor runs)."""
    try:
        mro = _c_mro(cls)
    except BaseException:
        return _c_MISSING
    for klass in mro:
        found = _c_proxy_get(_c_type_dict(klass), name, _c_MISSING)
        if found is not _c_MISSING:
            return found
    return _c_MISSING


def _p_function_of(value: Any) -> Any:
    """The plain function behind a method, a static or class method; else the value itself."""
    kind = type(value)
    if kind is _c_MethodType:
        return _p_function_of(_c_method_func(value))
    if kind is _c_staticmethod:
        return _c_static_func(value)
    if kind is _c_classmethod:
        return _c_class_func(value)
    return value


def _p_in_roots(path: Any, roots: tuple[str, ...]) -> bool:
    """Under one of `roots` by its very name: a name that climbs out again (`<root>/../tmp/x.py`, which the
    import system compiles as it is written) is under none."""
    return type(path) is str and path.startswith(roots) and "/../" not in path and not path.endswith("/..")


def _p_compiled_in_target(value: Any) -> bool:
    """A function (or method) whose code was compiled from one of the target's files."""
    function = _p_function_of(value)
    if type(function) is not _c_FunctionType:
        return False
    return _p_in_roots(_c_func_code(function).co_filename, _S["target_roots"])


def _p_class_in_target(cls: Any) -> bool:
    """Every function a class defines itself was compiled in the target (a class with none is neutral)."""
    for _, value in _c_proxy_items(_c_type_dict(cls)):
        function = _p_function_of(value)
        if type(function) is _c_FunctionType and not _p_compiled_in_target(function):
            return False
    return True


def _p_is_module(value: Any) -> bool:
    """A module, or an instance of a module subclass (a lazily loading package)."""
    return _p_in(_c_ModuleType, _c_mro(type(value)))


def _p_where(code: Any) -> str:
    return _c_str_rsplit(code.co_filename, "/", 1)[-1] + ":" + _c_int_repr(code.co_firstlineno)


# -- tampering -----------------------------------------------------------------------------------------


def _p_tamper(kind: str, label: str) -> None:
    """Sent at once: whatever the snippet does next, this line is already on its way."""
    key = kind + ":" + label
    reported = _S["reported"]
    if key in reported:
        return
    reported.add(key)
    _p_emit({"e": "tamper", "kind": kind, "what": label}, True)


def _p_by_snippet(depth: int) -> bool:
    """Whether the event being handled was raised by the snippet's own code: the innermost frame
    outside Python's own library is not a trusted file. Import machinery that reads a trusted file
    (`_compile_bytecode` of a `.pyc`, `get_code` of a source) raises nothing on the snippet's behalf."""
    return _p_snippet_on_stack(depth + 1, innermost=True)


def _p_reads_trusted_file(frame: Any, code: Any) -> bool:
    """A frame of the import system (`<frozen ...>`) reading a trusted file: `_compile_bytecode` of a `.pyc`,
    `get_code` or `source_to_code` of a source, whose path is under the trusted roots."""
    if code.co_name not in ("_compile_bytecode", "get_code", "source_to_code"):
        return False
    local = _S["locals_of"](frame)
    for name in ("bytecode_path", "source_path", "path"):
        found = _c_dict_get(local, name)
        if type(found) is str and _p_in_roots(found, _S["trusted_roots"]):
            return True
    return False


def _p_for_snippet(depth: int) -> bool:
    """Whether the event being handled happens on the snippet's behalf: a frame of its code is on the stack, below the
    import system reading a trusted file (which raises nothing on its behalf). Code made while the snippet's code waits
    on trusted code is the snippet's too: the library's deep copy rebuilds a code object from what the snippet's
    `__reduce__` described, trusted code's `compile` compiles what it was handed, under names the snippet chose."""
    return _p_snippet_on_stack(depth + 1, innermost=False)


def _p_snippet_on_stack(depth: int, innermost: bool) -> bool:
    """The one walk of `_p_by_snippet` and `_p_for_snippet`, outward from `depth`: the import system reading a trusted
    file ends it (nothing on the snippet's behalf); with `innermost`, the first frame outside Python's own library
    decides (the snippet's when it is not a trusted file), else any frame of an untrusted file does."""
    try:
        frame: Any = _c_getframe(depth + 1)
    except ValueError:  # raised from C with no Python frame below: not the snippet's code
        return False
    trusted = _S["trusted_roots"]
    while frame is not None:
        code = frame.f_code
        path = code.co_filename
        if path.startswith("<frozen "):
            if _p_reads_trusted_file(frame, code):
                return False
        elif not _p_in_stdlib(path):
            untrusted = not _p_in_roots(path, trusted)
            if innermost or untrusted:
                return untrusted
        frame = frame.f_back
    return False


def _p_registered_on_import(standin: Any) -> bool:
    """Whether a registrar's stand-in (`standin`, its frame) was called by a trusted module's own top-level code while
    it is imported (the runtime's `register_autograd(...)` lines of a module the library imports lazily, during a
    check): the runtime registering its own kernels, met walking out before any frame of the snippet's. Those are
    not the snippet's choice, and searching them read the runtime's generated autograd functions as planted gadgets
    (a false tamper of two entries' befores on the real library)."""
    trusted = _S["trusted_roots"]
    frame = standin.f_back
    while frame is not None:
        code = frame.f_code
        path = code.co_filename
        if not path.startswith("<frozen ") and not _p_in_stdlib(path):
            if not _p_in_roots(path, trusted):
                return False  # the snippet's code, before any trusted module's top level
            if code.co_name == "<module>":
                return True
        frame = frame.f_back
    return False


def _p_in_stdlib(path: Any) -> bool:
    """A file of Python's own library, under the check's roots (`_p_in_python_library`): frame walks and the errors
    beneath a watched function both ask it."""
    return _p_in_python_library(path, _S["stdlib_roots"], _S["site_roots"])


def _p_tables_module(path: Any) -> bool:
    """A module whose containers are tables the planted search diffs (`_python_tables`), under the check's roots."""
    return _p_holds_tables(path, _S["stdlib_roots"], _S["site_roots"], _S["target_roots"])


def _p_holds_tables(path: Any, stdlib_roots: tuple[str, ...], site_roots: tuple[str, ...],
                    target_roots: tuple[str, ...]) -> bool:
    """A file of Python's own library or of the target: code there reads the containers its module holds by name and
    calls what it finds, with no frame holding them (`_python_tables`). The one definition (a zygote asks it of its
    roots: `snapshot_tables`)."""
    return _p_in_python_library(path, stdlib_roots, site_roots) or _p_in_roots(path, target_roots)


def _p_in_python_library(path: Any, stdlib_roots: tuple[str, ...], site_roots: tuple[str, ...]) -> bool:
    """A file of Python's own library: under a standard library's folder but not in a site-packages below
    it (a venv's `lib/python3.X/`, a plain install's, hold the installed packages too; so does the base
    Python's of a venv, on no path until the snippet puts it there). The one definition (a zygote asks it of its
    roots before any check exists: `snapshot_tables`)."""
    return _p_in_roots(path, stdlib_roots) and not _p_in_roots(path, site_roots) \
        and "/site-packages/" not in path and "/dist-packages/" not in path


def _p_on_settrace(ident: int, args: Any) -> None:
    caller = _c_getframe(2)
    if caller is not None and _p_in(caller.f_code, _S["installers"]) and ident not in _S["threads"] \
            and _S["expected"] > 0:
        _S["expected"] -= 1
        return
    _p_tamper("replaced", "sys.settrace (the verifier's call tracer)")


def _p_on_setprofile(ident: int, args: Any) -> None:
    _p_tamper("replaced", "sys.setprofile (beside the verifier's call tracer)")


def _p_on_frames(ident: int, args: Any) -> None:
    _p_tamper("observer", "read every thread's frames (sys._current_frames)")


def _p_on_gc(ident: int, args: Any) -> None:
    _p_tamper("observer", "searched the interpreter's objects (gc)")


def _p_on_addaudithook(ident: int, args: Any) -> bool:
    _p_tamper("observer", "added an audit hook beside the verifier's")
    return True


def _p_on_memory(ident: int, args: Any) -> None:
    if _p_by_snippet(2):
        _p_tamper("observer", "read or called raw memory (ctypes)")


def _p_on_open(ident: int, args: Any) -> None:
    path = args[0] if type(args) is tuple and len(args) else None
    if type(path) is bytes:
        path = path.decode("latin-1")
    if type(path) is str and path.startswith("/proc/") and (path.endswith("/mem") or "/map_files/" in path):
        _p_tamper("observer", "opened the process's memory (" + path + ")")


def _p_on_setattr(ident: int, args: Any) -> None:
    """`function.__code__ = ...`: on the function under test, on a function of the library, the
    verifier or Python, or to code compiled under such a file's name."""
    if type(args) is tuple and len(args) == 3 and type(args[1]) is str \
            and (args[1] == "__class__" or args[1] == "__bases__"):
        _S["fin"]["dirty"] = True  # an object made before may now be of a class with a planted `__del__`: all walked
    if type(args) is not tuple or len(args) != 3 or args[1] != "__code__" or type(args[0]) is not _c_FunctionType:
        return
    function, new = args[0], args[2]
    old = _c_func_code(function)
    if _p_marked_coroutine(old, new):
        return
    for slot in _S["slots"]:
        if slot["function"] is function:
            _p_tamper("replaced", slot["label"] + " (its code)")
            return
    protected = _S["protected_roots"]
    if _p_in_roots(old.co_filename, protected):
        _p_tamper("replaced", old.co_qualname + " (its code)")
    elif type(new) is type(old) and _p_in_roots(new.co_filename, protected):
        _p_tamper("forged", new.co_filename)


def _p_marked_coroutine(old: Any, new: Any) -> bool:
    """What `types.coroutine` does to a generator function (asyncio to its own `__sleep0` when it is first
    imported): the very same code with CO_ITERABLE_COROUTINE added. No other code runs, and a generator
    stays a generator (any other change of flags, such as making a function a generator, is a replacement)."""
    if type(new) is not _c_CodeType or type(old) is not _c_CodeType:
        return False
    flags = old.co_flags
    if not flags & 0x20 or new.co_flags != flags | 0x100:
        return False
    # The same bytecode and the very objects it runs with (compared by identity: no value's `__eq__` runs);
    # the names of locals are not compared (they change nothing that runs).
    same = new.co_consts is old.co_consts and new.co_names is old.co_names and \
        new.co_freevars is old.co_freevars and new.co_cellvars is old.co_cellvars and \
        new.co_filename is old.co_filename and new.co_qualname is old.co_qualname and \
        new.co_linetable is old.co_linetable and new.co_exceptiontable is old.co_exceptiontable
    code = new.co_code
    return same and type(code) is bytes and code == old.co_code and new.co_argcount == old.co_argcount and \
        new.co_posonlyargcount == old.co_posonlyargcount and new.co_kwonlyargcount == old.co_kwonlyargcount and \
        new.co_nlocals == old.co_nlocals and new.co_stacksize == old.co_stacksize


def _p_on_code_new(ident: int, args: Any) -> None:
    if type(args) is tuple and len(args) > 1 and _p_in_roots(args[1], _S["forge_roots"]) and _p_for_snippet(2) \
            and _c_getframe(2).f_code is not _c_COROUTINE_CODE:  # 0 here, 1 `_p_hook`, 2 who made the code
        # (`types.coroutine` re-flags a generator function's code for its `__code__`, where
        # `_p_marked_coroutine` holds it to that)
        _p_tamper("forged", args[1])


def _p_on_compile(ident: int, args: Any) -> None:
    if type(args) is not tuple or len(args) < 2:
        return
    source, path = args[0], args[1]
    if not _p_in_roots(path, _S["forge_roots"]):
        if type(path) is str and (type(source) is str or type(source) is bytes):
            # A source the snippet could have chosen is its code, whoever compiles it (`_p_snippet_chose`).
            chosen: bool | None = None
            if _p_compiled_for_runtime(2):
                chosen = _p_snippet_chose(source, 2)
                if not chosen:
                    _p_pend(_S["runtime_sources"], path, source)
            # Code compiled at run time inside the call; a file's own source (the import system loading a module
            # no trusted root holds, the snippet's shadow of a backend among them) is whoever wrote the file's.
            if _c_dict_get(_S["active"], ident, 0) > 0 and not _p_same_as_file(source, path) \
                    and not (chosen if chosen is not None else _p_snippet_chose(source, 2)):
                _p_pend(_S["call_sources"], path, source)
            if _p_making_in(ident):
                _p_pend(_S["maker_sources"], path, source)
        return
    if not _p_for_snippet(2):
        return
    if _p_same_as_file(source, path):  # the import system compiling the real file
        return
    _p_tamper("forged", path)


def _p_snippet_chose(source: Any, depth: int) -> bool:
    """Whether the snippet could have chosen the text trusted code compiles (`source`, as the audit event gives it: a
    copy, so by text): a string constant of its code (`snippet_texts`), or a string its frames on this thread's stack
    hold (their locals and globals) or the watched calls there were handed (their arguments), a few levels inside
    (`_p_holds_text`: its class's annotation, its object's attribute, its dict's item). Code compiled from such a text
    is the snippet's, not the call's own nor the runtime's (a `ForwardRef` of its string annotation, `eval` of its
    attribute, `exec` of its argument): who could choose a source decides, not only who compiled it. A text the call
    builds itself (Python's generated `__init__`, a type's name read from C) is held by none of these. Fails closed
    (True) where the text cannot be read or the search cannot finish."""
    if type(source) is bytes:
        try:
            text: Any = _c_bytes_decode(source, "utf-8")
        except BaseException:
            return True
    else:
        text = source
    if type(text) is not str:
        return True
    if _c_dict_get(_S["snippet_texts"], text) is not None:
        return True
    try:
        frame: Any = _c_getframe(depth + 1)
    except ValueError:
        return False
    roots: list[Any] = []
    spaces: dict[int, Any] = {}
    frames = _S["frames"]
    while frame is not None:
        code = frame.f_code
        if _p_untrusted_code(code):
            local = _S["locals_of"](frame)
            if not _p_in(dict, _c_mro(type(local))):  # a class body's mapping of the snippet's own: fails closed
                return True
            roots.extend(list(_c_dict_values(local)))
            space, builtins_space = frame.f_globals, frame.f_builtins
            if type(space) is dict and _c_dict_get(spaces, id(space)) is not space:
                spaces[id(space)] = space
                roots.extend([value for value in _c_list_iter(list(_c_dict_values(space)))
                              if value is not builtins_space])
        else:
            record = _c_dict_get(frames, id(frame))
            if record is not None and record[0] is frame and record[6] == "target":
                roots.extend(_p_arguments(frame, code))
        if frame is _S["top"]:  # the snippet's own run: what is outward is the harness's
            break
        frame = frame.f_back
    return _p_holds_text(roots, text)


def _p_holds_text(level: list[Any], text: str) -> bool:
    """A string equal to `text` among `level` or inside it, `_c_CHOSEN_DEPTH` levels down, over what objects hold
    (`_p_reach`: no module, code, frame, nor a trusted class's namespace entered), each object once. A string of a
    subclass is read by `str`'s own C method (its `__eq__` never runs). Past `_c_PLANT_BUDGET` objects, or at a referent
    that cannot be read, it fails closed (True)."""
    seen: dict[int, Any] = {}
    budget = _c_PLANT_BUDGET
    for at in range(_c_CHOSEN_DEPTH + 1):
        following: list[Any] = []
        for value in _c_list_iter(level):
            kind = type(value)
            if kind is str:
                if value == text:
                    return True
                continue
            if value is None or kind is int or kind is float or kind is bool or kind is bytes:
                continue
            if _c_dict_get(seen, id(value)) is value:
                continue
            seen[id(value)] = value
            budget -= 1
            if budget < 0 or value is _c_UNREADABLE:
                return True
            try:
                if _p_in(str, _c_mro(kind)) and _c_str_str(value) == text:
                    return True
            except BaseException:
                return True
            if at < _c_CHOSEN_DEPTH:
                items = _p_reach(value, kind)
                if items is not None:
                    following.extend(items)
        level = following
    return False


def _p_snippet_texts(code: Any) -> None:
    """Keep the string constants of the snippet's `code` and of the code nested in it (inside tuples and frozensets of
    constants too) by their text: what it could hand trusted code to compile (`_p_snippet_chose`)."""
    texts = _S["snippet_texts"]
    for each in _c_list_iter(_p_code_tree(code)):
        level: list[Any] = list(_c_tuple_iter(each.co_consts))
        while level:
            following: list[Any] = []
            for constant in _c_list_iter(level):
                kind = type(constant)
                if kind is str:
                    texts[constant] = True
                elif kind is bytes:
                    try:
                        texts[_c_bytes_decode(constant, "utf-8")] = True
                    except BaseException:
                        pass
                elif kind is tuple:
                    following.extend(list(_c_tuple_iter(constant)))
                elif kind is frozenset:
                    following.extend(list(_c_frozenset_iter(constant)))
            level = following


def _p_pend(table: dict[str, list[Any]], path: str, source: Any) -> None:
    pending: list[Any] | None = _c_dict_get(table, path)
    if pending is None:
        pending = table[path] = []
    pending.append(source)


def _p_compiled_for_runtime(depth: int) -> bool:
    """Whether a compile happens on the runtime's behalf: no frame of untrusted code on the stack, outward from `depth`,
    before the body of a trusted module the import system runs (a dataclass made at a lazy import, inside the
    library's call the snippet made: the module's file decides what it compiles, not who imported it). Code the
    snippet's code waits on compiles what the snippet may have handed it (`_p_for_snippet`): not the runtime's, nor is
    a compile with no Python frame beneath it (C code run alone in a thread the snippet started)."""
    try:
        frame: Any = _c_getframe(depth + 1)
    except ValueError:
        return False
    while frame is not None:
        code = frame.f_code
        if _p_untrusted_code(code):
            return False
        if code.co_name == "<module>" and _p_in_roots(code.co_filename, _S["trusted_roots"]) \
                and frame.f_back is not None and frame.f_back.f_code.co_filename.startswith("<frozen importlib."):
            return True
        frame = frame.f_back
    return True


def _p_untrusted_code(code: Any) -> bool:
    """Whether code is the snippet's, decided once per code object: code of a file the observer does not trust, or code
    compiled at run time (a name that is no trusted file) that trusted code did not compile: neither before the
    snippet ran (`made_codes`, by identity) nor on the runtime's behalf since (`runtime_sources`, compiled again from
    the very source, under the very name, and compared). Who compiled it decides, never the name it bears. Kept by
    identity: code objects compare equal across files (`co_filename` is not compared), and the snippet's code written
    line for line as a trusted file's, at the same line, would share its verdict."""
    known = _c_dict_get(_S["untrusted"], id(code))
    if known is not None and known[0] is code:
        return bool(known[1])
    path = code.co_filename
    untrusted = not _p_in_roots(path, _S["trusted_roots"]) and _c_dict_get(_S["made_codes"], id(code)) is not code \
        and not _p_runtime_compiled(code, path)
    _S["untrusted"][id(code)] = (code, untrusted)
    if untrusted:
        _p_snippet_texts(code)
    return untrusted


def _p_runtime_compiled(code: Any, path: Any) -> bool:
    """Code equal to one compiled from a source trusted code compiled under the same name (`_p_on_compile`): the same
    bytecode, constants, names and lines, so the same code, whoever holds it."""
    return _p_compiled_from(code, path, _S["runtime_sources"], _S["runtime_codes"])


def _p_made_in_call(code: Any) -> bool:
    """Untrusted code compiled while a watched call ran in the compiling thread (`_p_on_compile`): the call's own (the
    snippet's code that compiled it there was a callback itself), no callback where it runs. Code compiled for the
    snippet before the call (a graph of its own the runtime made Python of, its dataclass's `__init__`) is not, nor
    code of a text the snippet could have chosen (`_p_snippet_chose`: never kept as the call's)."""
    return _p_compiled_from(code, code.co_filename, _S["call_sources"], _S["call_codes"])


def _p_compiled_from(code: Any, path: Any, sources: dict[str, list[Any]], made: dict[Any, Any]) -> bool:
    """Code equal to one compiled from a source of `sources` under the same name, compiled again (into `made`) when
    code of that name is first asked about since."""
    pending = _c_dict_get(sources, path) if type(path) is str else None
    if pending:
        sources[path] = []
        for source in _c_list_iter(pending):
            for mode in ("exec", "eval"):
                try:
                    compiled = compile(source, path, mode, 0, True)
                except BaseException:
                    continue
                for each in _c_list_iter(_p_code_tree(compiled)):
                    made[each] = each
    found = _c_dict_get(made, code)
    return found is not None and type(found.co_filename) is str and found.co_filename == path


def _p_same_as_file(source: Any, path: str) -> bool:
    if type(source) is str:
        source = _c_str_encode(source, "utf-8")
    if type(source) is not bytes:
        return False
    try:
        with open(path, "rb") as file:
            return bool(file.read() == source)
    except BaseException:
        return False


def _p_on_marshal(ident: int, args: Any) -> None:
    if _p_by_snippet(2):
        _p_tamper("forged", "code unmarshalled by the snippet (marshal.loads)")


# -- threads and signals ---------------------------------------------------------------------------------


def _p_on_thread_start(ident: int, args: Any) -> None:
    if type(args) is not tuple or len(args) != 4 or type(args[3]) is not list:
        return
    function, arguments, kwargs, box = args
    if type(arguments) is not tuple:
        box.append(("error", TypeError, "2nd arg must be a tuple"))
        return
    if kwargs is not None and type(kwargs) is not dict:
        box.append(("error", TypeError, "optional 3rd arg must be a dictionary"))
        return
    _S["expected"] += 1
    _S["thread_epoch"] += 1
    try:
        started = _S["start"](_S["bootstrap"], (_S["settrace"], _S["trace"], _S["audit"], function, arguments,
                                                kwargs or {}))
    except BaseException as error:
        _S["expected"] -= 1
        box.append(("error", RuntimeError, _p_message(error) or "can't start new thread"))
        return
    box.append(("ok", started))


def _p_on_thread_ready(ident: int, args: Any) -> None:
    if _c_gettrace() is not _S["trace"]:
        _p_tamper("replaced", "sys.settrace (the verifier's call tracer)")
    _S["thread_epoch"] += 1
    _S["threads"].add(ident)


def _p_on_thread_done(ident: int, args: Any) -> None:
    if _c_gettrace() is not _S["trace"]:  # lost on the way (CPython drops a tracer that failed)
        _p_tamper("replaced", "sys.settrace (the verifier's call tracer, lost in a thread)")
    _S["thread_epoch"] += 1
    _S["threads"].discard(ident)


def _p_on_signal(ident: int, args: Any) -> None:
    if type(args) is not tuple or len(args) != 3 or type(args[2]) is not list:
        return
    signum, handler, box = args
    installed = handler
    if type(handler) is not int and _c_callable(handler):
        installed = _c_partial(_S["trampoline"], handler, _S["redeliver"])
    try:
        previous = _S["signal"](signum, installed)
    except BaseException as error:
        box.append(("error", _p_exception_class(error), _p_message(error) or "signal"))
        return
    if type(signum) is int:
        handlers = _S["handlers"]
        before = _c_dict_get(handlers, signum, _c_MISSING)
        _S["graves"].append(before)
        if installed is handler:
            handlers.pop(signum, None)
        else:
            handlers[signum] = (installed, handler)
        if type(before) is tuple and before[0] is previous:
            previous = before[1]
    box.append(("ok", previous))


def _p_on_getsignal(ident: int, args: Any) -> None:
    if type(args) is not tuple or len(args) != 2 or type(args[1]) is not list:
        return
    signum, box = args
    try:
        current = _S["getsignal"](signum)
    except BaseException as error:
        box.append(("error", _p_exception_class(error), _p_message(error) or "signal"))
        return
    known = _c_dict_get(_S["handlers"], signum, _c_MISSING) if type(signum) is int else _c_MISSING
    if type(known) is tuple and known[0] is current:
        current = known[1]
    box.append(("ok", current))


def _p_on_redeliver(ident: int, args: Any) -> None:
    """The trampoline deferred a handler: the signal is sent again a moment later, from a thread the real
    `_thread.start_new_thread` starts (held here: in the trampoline's frame the handler could read it)."""
    if type(args) is not tuple or len(args) != 1 or type(args[0]) is not int:
        return
    try:
        _S["resend"](args[0])
    except BaseException:  # no thread to send it again: the signal is lost, as one sent twice is
        pass


def _p_on_handled(ident: int, args: Any) -> None:
    """A snippet's signal handler returned (or raised): the frame it was handed, and those above it, carry
    no trace function but the observer's (one set there would run the snippet's code unseen at that
    frame's next event: `_p_frame_taken`)."""
    if type(args) is not tuple or len(args) != 1:
        return
    frame = args[0]
    trace = _S["trace"]
    while type(frame) is _c_FrameType:
        found = frame.f_trace
        if found is not None and found is not trace:
            _p_tamper("observer", "set a frame's trace function (f_trace) from a signal handler, which would run "
                                  "the snippet's code unseen")
            return
        frame = frame.f_back


def _p_on_getframe(ident: int, args: Any) -> bool | None:
    """`sys._getframe` outside the observer's busy time that would still return a frame of its private
    code (a finalizer run as `_p_hook` returns): refused, and tampering. (Its helpers' frames are the
    snippet's to see then: a handler below the trampoline, a thread below its bootstrap.)"""
    if type(args) is tuple and len(args) == 1 and type(args[0]) is _c_FrameType and args[0].f_globals is _S["space"]:
        _p_tamper("observer", "ran code inside the verifier's observer (sys._getframe)")
        return True
    _p_frame_taken(ident, "sys._getframe")
    return None


def _p_frame_taken(ident: int, how: str) -> None:
    """A frame object handed to the snippet's own code: taken there (`sys._getframe()`, `tb.tb_frame`,
    `gen.gi_frame`), or handed back by Python's library functions made to hand frames out (`inspect`,
    `traceback.walk_stack`/`walk_tb`). Its `f_trace` is a plain setter that raises no audit event, and
    CPython runs a frame's trace function with tracing off for that frame's next line, return or
    exception event: a call made there is never seen, and the function can put the observer's tracer
    back before anything else runs. Python's and the library's own reads (`warnings` and `logging`
    finding their caller) hand nothing out. (The observer's own `sys._getframe` here is answered as its
    own: `nested`.)"""
    nested = _S["nested"]
    mine = ident not in nested
    nested.add(ident)
    try:
        try:
            caller: Any = _c_getframe(3)  # 0 here, 1 `_p_on_*`, 2 `_p_hook`, 3 the code that asked
        except ValueError:  # from C with no Python frame below
            return
        code = caller.f_code
        path = code.co_filename
        relayed = _p_relays(code) and caller.f_back is not None
        if relayed:  # the frame is its caller's: that code's reading decides
            caller = caller.f_back
            code = caller.f_code
            path = code.co_filename
        if not relayed and not _p_names(code, "_getframe" if how == "sys._getframe" else how):
            # The code that asked never names what it read: a callable it was handed did (`sys._getframe`
            # itself has no frame of its own, nor has an `attrgetter`), and the frame goes where the result
            # of that callable goes, back to whoever handed it (a mock's side effect, `singledispatch`).
            taken = True
        elif _p_in_stdlib(path):  # Python's own library (not the packages installed below its folder)
            vetted = _p_reads_only(code, caller.f_globals)
            taken = not vetted and _p_by_snippet(3)
            if not vetted and not taken:  # for trusted code: followed, as is trusted code's own taking
                _p_follow_reader(caller)
        else:
            taken = _p_untrusted_code(code)
            if not taken:
                _p_follow_reader(caller)
    finally:
        if mine:
            nested.discard(ident)
    if taken:
        _p_tamper("observer", "took a frame object (" + how + "), whose trace function (f_trace) would run "
                              "the snippet's code unseen")


def _p_names(code: Any, name: str) -> bool:
    """Whether `code` names `name` itself: among the names it loads, or a string constant of its own."""
    for each in code.co_names:  # a plain loop: no generator in the private namespace
        if type(each) is str and each == name:
            return True
    for each in code.co_consts:  # noqa: SIM110
        if type(each) is str and each == name:
            return True
    return False


def _p_relays(code: Any) -> bool:
    """Python's own code that returns the frame it took (`_c_FRAME_RELAYS`)."""
    for suffix, name in _c_FRAME_RELAYS:
        if code.co_filename.endswith(suffix) and code.co_name == name and _p_in_roots(code.co_filename,
                                                                                        _S["stdlib_roots"]):
            return True
    return False


def _p_reads_only(code: Any, space: Any) -> bool:
    """Python's own code that reads a frame and hands nothing out (`_c_FRAME_READERS`), run in its module's
    namespace as it was before the snippet ran, its classes' too: a function it calls with the frame, replaced
    there (by a C callable, say `logging._is_internal_frame = frames.append`, which no trace event shows, or
    `traceback.StackSummary.extract`, handed `walk_stack`'s generator of frames), hands it out."""
    path = code.co_filename
    for suffix, functions in _c_FRAME_READERS:
        if path.endswith(suffix):
            if functions is not None and not _p_one_of(code.co_name, functions):
                return False
            known = _c_dict_get(_S["reader_spaces"], id(space))
            if known is None or known[0] is not space or len(space) != len(known[1]):
                return False
            for key, value in _c_dict_items(known[1]):  # a plain loop: no generator in the private namespace
                if _c_dict_get(space, key, _c_MISSING) is not value:
                    return False
            for shared, snapshot in _S["reader_shared"]:
                if len(shared) != len(snapshot):
                    return False
                for key, value in _c_dict_items(snapshot):
                    now = _c_dict_get(shared, key, _c_MISSING) if type(shared) is dict else \
                        _c_proxy_get(shared, key, _c_MISSING)
                    if now is not value:
                        return False
            return True
    return False


def _p_on_gc_setting(ident: int, args: Any) -> None:
    """The snippet's `gc.enable`/`disable`/`isenabled`: its setting, applied when the observer is done; its
    `gc.freeze`, applied, fails closed (`gc_freeze`)."""
    if type(args) is not tuple or len(args) != 2 or type(args[1]) is not list:
        return
    what, box = args
    if _p_one_of(what, ("enable", "disable")):
        _S["collect"] = what == "enable"
        box.append(("ok", None))
    elif _p_one_of(what, ("isenabled",)):
        box.append(("ok", _S["collect"]))
    elif _p_one_of(what, ("freeze",)):
        _p_tamper("observer", "froze the collector's objects (gc.freeze), hiding from the verifier what they may run "
                              "with no frame as they die")
        _S["gc_freeze"]()
        box.append(("ok", None))
    elif _p_one_of(what, ("unfreeze",)):
        # What the zygote froze is listed again, in the oldest generation, which the next young walk would not read
        # (`_p_fin_young`): all of it is walked there.
        _S["fin"]["dirty"] = True
        _S["gc_unfreeze"]()
        box.append(("ok", None))


def _p_on_create_builtin(ident: int, args: Any) -> None:
    """A builtin module made from its spec. Read only as importlib makes it (an exact `ModuleSpec`, its
    name an exact `str` in its own `__dict__`) and made from a spec of the observer's own, so the C code
    reads nothing of the snippet's. A second instance of a module the observer stands in for is refused."""
    if type(args) is not tuple or len(args) != 2 or type(args[1]) is not list:
        return
    spec, box = args
    name = _c_dict_get(_c_spec_dict(spec), "name") if type(spec) is _c_ModuleSpec else None
    if type(name) is not str:
        box.append(("error", ImportError, "the verifier makes a built-in module only from a spec importlib made"))
        return
    if _p_one_of(name, _S["guarded"]):
        _p_tamper("observer", "made a second " + name + " module, whose functions the verifier's observer "
                              "stands in for")
        box.append(("error", ImportError, "refused by the verifier: a second " + name + " module"))
        return
    try:
        module = _S["create_builtin"](_c_SimpleNamespace(name=name))
    except BaseException as error:
        box.append(("error", ImportError, _p_message(error) or "no built-in module named " + name))
        return
    box.append(("ok", module))


def _p_on_register(ident: int, args: Any) -> bool | None:
    """A `registrar` stand-in called: what it is handed is kept for the planted search (`_p_runtime_held`), and the
    original is called here, with the observer not busy in this thread while it runs (it may run Python's code, a
    warning shown: traced as ever). Asked by anything but a stand-in's own frame, it is refused: the answer is the
    original's call."""
    if type(args) is not tuple or len(args) != 3 or type(args[2]) is not list:
        return None
    call_args, call_kwargs, box = args
    caller = _c_getframe(2)  # 0 here, 1 `_p_hook`, 2 who raised the event
    entry = None
    if caller is not None and caller.f_code is _S["registrar_code"]:
        for each in _c_list_iter(_S["registrars"]):
            if each[0] is caller.f_globals:
                entry = each
    if entry is None or type(call_args) is not tuple or type(call_kwargs) is not dict:
        _p_tamper("observer", "asked for a runtime's registration in the verifier's place")
        return True
    if entry[2] == "runner" and not _p_registered_on_import(caller):
        # what it makes runs Python in threads of the runtime's own, where no tracer is: unseen, inside any call
        _p_tamper("observer", "asked the runtime for code or an agent that runs Python in threads of its own ("
                  + entry[3] + "), where the verifier's observer never is")
        return True
    if entry[2] == "frame":  # a frame hook: the callable would be handed every frame, the observer's among them
        given = list(call_args) + [pair[1] for pair in _c_list_iter(list(_c_dict_items(call_kwargs)))]
        for value in _c_list_iter(given):
            if value is not None and type(value) is not bool and _c_callable(value):
                _p_tamper("observer", "handed the runtime a callable to which it hands every frame (" + entry[3]
                          + "), the verifier's observer's among them")
                return True
    if not _p_registered_on_import(caller):
        _S["registered"].append((call_args, _c_dict_copy(call_kwargs)))
    busy = _S["busy"]
    busy.discard(ident)
    try:
        result = entry[1](*call_args, **call_kwargs)
    except BaseException as error:
        box.append(("error", _p_exception_class(error), _p_message(error) or "refused by the runtime"))
        return None
    finally:
        busy.add(ident)
        if _c_gc_isenabled():  # turned on by another event's end meanwhile: off again while the observer runs
            _S["collect"] = True
            _c_gc_disable()
    box.append(("ok", result))
    return None


def _p_exception_class(error: BaseException) -> Any:
    kind = type(error)
    return kind if _p_in(kind, (ValueError, TypeError, OSError, RuntimeError)) else RuntimeError


# -- tracing -----------------------------------------------------------------------------------------------
# Frames followed: the watched functions' (counted), the snippet's own and the owner's `__getattr__`
# (where an exception may start that a before's judgement reads). Record: [frame, slot or -1, thread,
# last exception seen in it, device counter at the call, override entry or None, where].


def _p_trace(ident: int, args: Any) -> None:
    if type(args) is not tuple or len(args) != 3:
        return
    frame, what, arg = args
    if type(frame) is not _c_FrameType or type(what) is not str:
        _p_tamper("observer", "called the verifier's trace function itself")
        return
    if what == "call":
        code = frame.f_code
        index = _c_dict_get(_S["by_code"], code)
        if index is not None:
            _p_call(ident, frame, code, index)
            return
        getter = _c_dict_get(_S["init_codes"], code)
        if getter is not None:
            _p_track(frame, code, getter)
            if _S["probe"] is not None:
                _p_object_call(ident, frame, code)
            return
        if _c_dict_get(_S["methods"], code) is code:
            _p_object_call(ident, frame, code)
            return
        if code is _c_FIN_INIT:  # never quiet: who makes each finalize decides whether its data is the snippet's
            _p_fin_made(frame)
            return
        untrusted = _p_untrusted_code(code)
        if untrusted or _p_in(code, _S["getattr_codes"]):
            _p_follow(ident, frame, code, untrusted)
        elif _p_rebinder(code):
            _p_follow_rebinder(frame, code)
        elif _p_held_module_body(frame, code):
            _p_follow_import(frame)
        elif code.co_name == "<module>" and _p_in_roots(code.co_filename, _S["target_roots"]) \
                and type(frame.f_globals) is dict:
            _p_follow_body(frame)
        elif code.co_name == "<module>" and _p_in_roots(code.co_filename, _S["stdlib_roots"]) \
                and type(frame.f_globals) is dict:  # the runtime's own body (trusted code: `untrusted` is False)
            _p_follow_runtime_body(frame)
        elif _p_class_maker(code):
            _p_follow_maker(ident, frame, code)
        elif _S["probe"] is not None and _p_in_roots(code.co_filename, _S["target_roots"]) and code.co_argcount:
            _S["methods"][code] = code  # the library's, on a device check: its calls on its own objects are read
            _p_object_call(ident, frame, code)
        elif _p_library_rebinder(code) is not None:  # not a module's body (the import's), nor a measured method
            _p_follow_rebinder(frame, code)
        else:
            _S["quiet"][code] = code  # trusted, watched by nothing: `_p_hook` answers its calls itself
        return
    measured = _c_dict_get(_S["object_frames"], id(frame))
    if measured is not None and measured[0] is frame:
        if _c_getframe(2) is not frame:
            _p_tamper("observer", "called the verifier's trace function itself")
        elif what == "return":
            _p_object_return(ident, frame, measured)
        return
    record = _c_dict_get(_S["frames"], id(frame))
    reader = _c_dict_get(_S["readers"], id(frame))
    rebinding = _c_dict_get(_S["rebinding"], id(frame))
    importing = _c_dict_get(_S["importing"], id(frame))
    making = _c_dict_get(_S["making"], id(frame))
    body = _c_dict_get(_S["bodies_running"], id(frame))
    if (record is None or record[0] is not frame) and reader is not frame \
            and (rebinding is None or rebinding[0] is not frame) and (importing is None or importing[0] is not frame) \
            and (making is None or making[0] is not frame) and (body is None or body[0] is not frame):
        return
    if _c_getframe(2) is not frame:  # the interpreter calls the trace function from the traced frame itself
        _p_tamper("observer", "called the verifier's trace function itself")
        return
    if reader is frame and what == "return":
        _p_reader_return(frame, arg)
    if rebinding is not None and rebinding[0] is frame and what == "return":
        _p_rebinder_return(frame, rebinding)
    if making is not None and making[0] is frame and what == "return":
        _p_maker_return(ident, frame, making, arg)
    if importing is not None and importing[0] is frame:
        if what == "line":
            _p_import_line(importing)
        elif what == "return":
            _p_import_return(importing)
    if body is not None and body[0] is frame and what == "return":
        _p_body_return(frame, body)
    if record is None or record[0] is not frame:
        return
    if what == "exception":
        _p_exception(record, frame, arg)
    elif what == "return":
        _p_return(ident, record, frame, arg)


def _p_call(ident: int, frame: Any, code: Any, index: int) -> None:
    if _c_getframe(3) is not frame:
        _p_tamper("observer", "called the verifier's trace function itself")
        return
    slot = _S["slots"][index]
    frame.f_trace = _S["trace"]
    frame.f_trace_lines = False
    if not _c_dict_get(_S["active"], ident, 0):  # the thread's outermost watched call: what may die in it, armed
        _p_fin_arm()
        _p_modules_check()
    _S["frames"][id(frame)] = [frame, index, ident, None, (_p_probe(), _p_alone(ident)), None, "target",
                               _c_dict_get(_S["callbacks_run"], ident, 0), _p_fin_tally()]
    if _S["probe"] is not None:
        _p_subject(frame, code)
    active = _S["active"]
    active[ident] = _c_dict_get(active, ident, 0) + 1
    _S["counts"][index][0] += 1
    per_thread = _c_dict_get(_S["thread_counts"], ident)
    if per_thread is None:
        per_thread = _S["thread_counts"][ident] = [0] * len(_S["slots"])
    per_thread[index] += 1
    _p_call_checks(frame, slot)


def _p_follow(ident: int, frame: Any, code: Any, untrusted: bool) -> None:
    frame.f_trace = _S["trace"]
    frame.f_trace_lines = False
    record = [frame, -1, ident, None, None, None, "snippet" if untrusted else "library", 0, 0]
    _S["frames"][id(frame)] = record
    if code is _S["snippet_code"] and _S["top"] is None:  # the snippet's own run, begun by the harness
        _S["top"] = frame
    if untrusted and not _p_maker_expression(ident, code):
        _S["snippet_calls"] += 1
        # The snippet's code by who compiled it (`_p_untrusted_code`), not by its file: its folder's, and code
        # compiled at run time for it (a graph it built that the runtime made Python of, its dataclass's `__init__`);
        # not code the call compiled for itself meanwhile (`_p_made_in_call`).
        if _c_dict_get(_S["active"], ident, 0) > 0 and not _p_made_in_call(code):
            _S["callbacks_run"][ident] = _c_dict_get(_S["callbacks_run"], ident, 0) + 1
            if not _S["callbacks"]:
                _p_tamper("callback", _p_where(code) + " (" + code.co_qualname + ")")
        _p_scan_shadows()
        record[5] = _p_override(ident, frame, code)
        if _p_handed_a_frame(frame, code):
            _p_tamper("observer", "was handed a frame object (an argument of " + code.co_qualname + "), whose trace "
                                  "function (f_trace) would run the snippet's code unseen")


def _p_handed_a_frame(frame: Any, code: Any) -> bool:
    """A frame object among the arguments a snippet's function is called with (also in its `*args` and
    `**kwargs`), or, called by trusted code, inside one (a list, a dict, a named tuple, an object's attribute:
    `_p_holds_frame`): code that reads frames hands one to a function the snippet put where it calls
    (`logging._is_internal_frame`, `traceback.walk_stack` replaced), with no audit event. (What the snippet's
    own code hands its functions, it had: how it got a frame is seen where it got it.)"""
    caller = frame.f_back
    inside = caller is not None and _p_untrusted_code(caller.f_code)
    return _p_args_hold_frame(frame, code, [1 if inside else _c_FRAME_BUDGET], 1 if inside else _c_FRAME_DEPTH)


def _p_args_hold_frame(frame: Any, code: Any, budget: list[int], depth: int = _c_FRAME_DEPTH) -> bool:
    """Whether a frame object is among (or inside) the values of `frame`'s arguments, as they are now."""
    for value in _p_arguments(frame, code):  # noqa: SIM110  # a plain loop: no generator in the private namespace
        if _p_holds_frame(value, depth, budget):
            return True
    return False


def _p_arguments(frame: Any, code: Any) -> list[Any]:
    """The values `frame`'s arguments (its `*args` and `**kwargs` too) hold now: what its caller handed it, unless
    its own code rebound the name since."""
    count = code.co_argcount + code.co_kwonlyargcount + (1 if code.co_flags & 4 else 0) + \
        (1 if code.co_flags & 8 else 0)
    if count == 0:
        return []
    local = _S["locals_of"](frame)
    values: list[Any] = []
    for name in _c_tuple_iter(code.co_varnames[:count]):
        value = _c_dict_get(local, name, _c_MISSING)
        if value is not _c_MISSING:
            values.append(value)
    return values


def _p_space_holds_frame(space: Any) -> bool:
    """A frame object a module's namespace holds, directly, in a value (`_p_holds_frame`, two levels down), or in
    the namespace of a class of its: where code that took a frame may leave it for the snippet to read later (a
    global, a class attribute), with no event when it is read."""
    if type(space) is not dict:
        return False
    budget = [_c_FRAME_BUDGET * 8]
    for _, value in _c_list_iter(list(_c_dict_items(space))):
        kind = type(value)
        if kind is _c_FrameType:
            return True
        if _p_in(type, _c_mro(kind)):
            if not _c_type_flags(value) & _c_HEAPTYPE:
                continue
            for _, held in _c_list_iter(list(_c_proxy_items(_c_type_dict(value)))):
                if _p_holds_frame(held, 2, budget):
                    return True
        elif _p_holds_frame(value, 2, budget):
            return True
    return False


def _p_holds_frame(value: Any, depth: int, budget: list[int]) -> bool:
    """A frame object, or one inside `value` (`_p_search`)."""
    return _p_search(value, depth, budget, _p_frame_node) is not None


def _p_frame_node(value: Any) -> str | None:
    return "frame" if type(value) is _c_FrameType else None


def _p_search(value: Any, depth: int, budget: list[int], check: Callable[[Any], str | None]) -> str | None:
    """What `check` says of `value` or of a value inside it (`_p_inside`), `depth` levels down, `budget` items in
    all, depth first."""
    kind = type(value)
    if value is None or kind is str or kind is int or kind is float or kind is bool or kind is bytes:
        return None
    found = check(value)
    if found is not None:
        return found
    budget[0] -= 1
    if depth <= 0 or budget[0] <= 0:
        return None
    items = _p_inside(value, kind)
    if items is None:
        return None
    for item in items:
        if budget[0] <= 0:
            return None
        found = _p_search(item, depth - 1, budget, check)
        if found is not None:
            return found
    return None


def _p_inside(value: Any, kind: Any) -> Any:
    """The values inside `value`, or None: a tuple's (a named tuple's too), list's, set's or dict's (keys and
    values, subclasses too), an object's own `__dict__` (a container subclass's too), what a function closes over
    and its defaults, a bound method's function and object, a partial's parts. Read by C code alone (the base
    type's own iterator, a C getter): no method of the value's runs. Frames, modules, classes and code are not
    searched inside."""
    if kind is _c_FrameType:
        return None
    try:
        mro = _c_mro(kind)
    except BaseException:
        return None
    items: list[Any] | None = None
    if _p_in(tuple, mro):
        items = list(_c_tuple_iter(value))
    elif _p_in(list, mro):
        items = list(_c_list_iter(value))
    elif _p_in(dict, mro):
        items = list(_c_dict_items(value))
    elif _p_in(set, mro):
        items = list(_c_set_iter(value))
    elif _p_in(frozenset, mro):
        items = list(_c_frozenset_iter(value))
    elif kind is _c_FunctionType:  # what it closes over and its defaults, not its globals (a whole module)
        return _c_list_iter([_p_cell(cell) for cell in (_c_func_closure(value) or ())]
                            + list(_c_func_defaults(value) or ()))
    elif kind is _c_MethodType:
        return _c_list_iter([_c_method_func(value), _c_method_self(value)])
    elif _p_in(_c_partial, mro):
        return _c_list_iter([_c_partial_parts[0](value), _c_partial_parts[1](value), _c_partial_parts[2](value)])
    elif _p_in(type, mro) or _p_is_module(value) or kind is _c_CodeType:
        return None
    if items is not None and not _c_type_flags(kind) & _c_HEAPTYPE:
        return _c_list_iter(items)
    own = _p_own_dict(value, kind)
    if own is None:
        return None if items is None else _c_list_iter(items)
    return _c_list_iter((items or []) + list(_c_dict_items(own)))


def _p_own_dict(value: Any, kind: Any) -> dict[str, Any] | None:
    """An object's own `__dict__`, read through its class's C getter alone; None without one."""
    getter = _p_class_attr(kind, "__dict__")
    if type(getter) is not _c_GetSetDescriptorType:
        return None
    try:
        own = _c_getset_get(getter, value, kind)
    except BaseException:
        return None
    return own if type(own) is dict else None


def _p_cell(cell: Any) -> Any:
    """A closure cell's contents, None when empty."""
    try:
        return _c_cell_contents(cell)
    except ValueError:
        return None


# -- C code the snippet planted where the library calls it ------------------------------------------------------


def _p_planted_under(frame: Any, tb: Any) -> str | None:
    """An exception started in a watched function's frame by C code it called (no `raise` of its own), or beneath
    it: C code the snippet put on the class of an object the function works with (an exhausted generator's
    `throw` through a `functools.partial`, set as `__len__`), or in a C object that calls what it holds (a map's
    function, a defaultdict's factory), raises whatever the snippet chose, from there, and no code of the
    snippet's runs to be seen. Looked for in everything the frame can reach (`_p_roots`: its locals, the globals
    and constants its code names, what the snippet's code returned into the call, which only the interpreter's
    value stack may hold, and the locals of the trusted frames beneath it that the error came through, where a
    callable trusted code took out of an object is held while it runs), inside every object as its C type lists
    what it holds (`_p_reach`), breadth first,
    each object once, at any depth. A search that cannot finish (more than `_c_PLANT_BUDGET` objects) fails
    closed: what it did not see may hold the class, so that is said as tampering too. A trusted module's name the
    snippet rebound to something of its own is planted too (`_p_rebound`)."""
    changed: list[Any] = []
    rebound = _p_rebound(changed)
    if rebound is not None:
        return rebound
    level = _p_roots(frame, tb)
    if level is None:
        return "one of more than " + _c_int_repr(_c_RETURNED_MAX) + " values its code returned into the call, " \
               "too many to keep"
    level.extend(changed)  # what code beneath reads through a rebound trusted name is searched too
    found = _p_walk(level, _c_PLANT_BUDGET, _p_planted_check, {})
    if found is _c_EXHAUSTED:
        return "one of more than " + _c_int_repr(_c_PLANT_BUDGET) + " objects the frame holds, too many to search"
    if found is _c_UNREADABLE:
        return "a weak reference whose referent cannot be read, so cannot be searched"
    if found is _c_PUT_BACK:
        return _c_PUT_BACK_WORDS
    return found if type(found) is str else None


def _p_planted_check(value: Any, kind: Any, items: list[Any] | None, context: Any) -> str | None:
    """`_p_walk`'s question for the planted search: a class of the snippet's holding planted code (`_p_planted_node`),
    or a C object calling what it holds (`_p_calls_held`). `context` gathers the C methods trusted objects delegate to
    (`_p_delegates`), met before the methods themselves (the walk is breadth first)."""
    found = _p_planted_node(value)
    if found is not None or items is None:
        return found
    _p_delegates(value, kind, context)
    return _p_calls_held(value, kind, items, context)


def _p_handoff(frame: Any) -> Any:
    """The frame of the first call the snippet's own files made on the way to `frame` (its caller is a frame of the
    snippet's folder): whose arguments are what the snippet handed, directly or through trusted relays
    (`lib.call(f, x)`). None where no such frame is below, within `_c_HANDOFF_DEPTH` frames (a thread the library
    started): nothing there was handed by it."""
    last = frame
    below = frame.f_back
    depth = 0
    while below is not None and depth < _c_HANDOFF_DEPTH:
        if _p_in_roots(below.f_code.co_filename, _S["snippet_roots"]):
            return last
        last = below
        below = below.f_back
        depth += 1
    return None


def _p_planted_handed(frame: Any) -> str | None:
    """`_p_made_check` over what the snippet handed the call by hand (`_p_handed_by_hand`), from the frame of
    its own hand-off (`_p_handoff`): what trusted code made on the way and handed on (the runtime's export, tracing the
    snippet's model, hands its watched function partials of its own) is not searched."""
    handoff = _p_handoff(frame)
    if handoff is None:
        return None
    return _p_handed_by_hand(handoff, _p_made_check, None)


def _p_made_check(value: Any, kind: Any, items: list[Any] | None, context: Any) -> str | None:
    """`_p_walk`'s question where no error started in C code (the function's own `raise`, a call's device work): only
    what the snippet made to run with no frame of its own, told by what it is, never by who may have bound it. A class
    of the snippet's holding planted code (`_p_planted_node`), a partial it made binding data to what is not its own
    code, an `operator` getter or caller, or a calling iterator it made that may have called; not a C method bound to
    an object made since (`_p_chosen_call` reads it as the snippet's, failing closed where an error starts in C code:
    a runtime's export binds such methods while it traces, and its function's own `raise` read as planted) nor what a C
    object holds beyond these."""
    found = _p_planted_node(value)
    if found is not None:
        return found
    if _p_in(_c_partial, _c_mro(kind)):
        return _p_qualname(kind) + " (made by the snippet, binding data)" if _p_snippet_partial(value) else None
    if _p_calling_iterator(kind) or _p_in_binders(kind):
        return _p_qualname(kind) + " (made by the snippet, calling what it chose)" \
            if _p_chosen_call(value, kind) else None
    return None


def _p_delegates(value: Any, kind: Any, delegated: dict[int, Any]) -> None:
    """The C methods an instance of a trusted class holds in its own `__dict__` under their own names, bound to an
    object that very dict holds too: Python's code delegating to a member (`threading.Condition`: `self.acquire =
    lock.acquire` beside `self._lock = lock`), whose call is the member's own, by the name it has there."""
    if not _c_type_flags(kind) & _c_HEAPTYPE:
        return
    own = _p_own_dict(value, kind)
    if own is None:
        return
    pairs = list(_c_dict_items(own))
    members: dict[int, Any] | None = None
    for key, held in _c_list_iter(pairs):
        bound = _p_bound_to_data(held, type(held))
        if bound is _c_MISSING or type(key) is not str or not _p_one_of(_p_c_method_name(held), (key,)):
            continue
        if members is None:
            if not _p_trusted_class(kind):
                return
            members = {id(pair[1]): pair[1] for pair in _c_list_iter(pairs)}
        if _c_dict_get(members, id(bound)) is bound:
            delegated[id(held)] = held


def _p_c_method_name(method: Any) -> Any:
    """A C method's own name, read by its type's C getter."""
    return _c_BOUND_NAMES[0](method) if type(method) is _c_BOUND_C[0] else _c_BOUND_NAMES[1](method)


def _p_walk(level: list[Any], budget: int, check: Callable[[Any, Any, list[Any] | None, Any], Any],
            context: Any) -> Any:
    """The one breadth-first walk over what objects hold (`_p_reach`), for every search of it (planted code, an
    exception an object reaches, what a callable object may raise): from `level`, each object once (by identity),
    plain data skipped; `check(value, type, what it holds, context)` is asked of every other object, and its first
    answer that is not None is returned. A walk that cannot finish fails closed, answering `_c_EXHAUSTED` past
    `budget` objects and `_c_UNREADABLE` at a weak reference whose referent cannot be read: what it did not see may
    hold anything, which each caller says in its own words."""
    seen: dict[int, Any] = {}
    while level:
        following: list[Any] = []
        for value in level:
            kind = type(value)
            if value is None or kind is str or kind is int or kind is float or kind is bool or kind is bytes:
                continue
            if _c_dict_get(seen, id(value)) is value:
                continue
            seen[id(value)] = value
            budget -= 1
            if budget < 0:
                return _c_EXHAUSTED
            if value is _c_UNREADABLE or value is _c_PUT_BACK:
                return value
            items = _p_reach(value, kind)
            found = check(value, kind, items, context)
            if found is not None:
                return found
            if items is not None:
                following.extend(items)
        level = following
    return None


def _p_roots(frame: Any, tb: Any) -> list[Any] | None:
    """Where the planted search starts: the frame's locals, the values of the names its code reads (a global, or a
    builtin), its constants, the module table's entries that are not the trusted modules it held (`_p_table_entries`,
    which the import statement reads from C), what the snippet's frames returned or yielded into the watched call
    running in this thread (a temporary, on the value stack alone), and the locals of every frame beneath it on the
    error's way (`tb`'s, all trusted: `_p_beneath`), which hold what that code took out of an object to call (an exit
    stack's callback, popped before it is called); None when more were returned than are kept."""
    code = frame.f_code
    roots: list[Any] = [value for _, value in _c_list_iter(list(_c_dict_items(_S["locals_of"](frame))))]
    below = tb.tb_next if type(tb) is _c_TracebackType else None
    while type(below) is _c_TracebackType:
        roots.extend([value for _, value in _c_list_iter(list(_c_dict_items(_S["locals_of"](below.tb_frame))))])
        below = below.tb_next
    space, builtins_space = frame.f_globals, frame.f_builtins
    for name in _c_tuple_iter(code.co_names):
        value = _c_dict_get(space, name, _c_MISSING) if type(space) is dict else _c_MISSING
        if value is _c_MISSING and type(builtins_space) is dict:
            value = _c_dict_get(builtins_space, name, _c_MISSING)
        if value is not _c_MISSING:
            roots.append(value)
    roots.extend(list(_c_tuple_iter(code.co_consts)))
    roots.extend(_p_table_entries())
    returned = _c_dict_get(_S["returned"], _c_get_ident())
    if returned is not None:
        if len(returned) > _c_RETURNED_MAX:
            return None
        roots.extend(returned)
    roots.extend(_p_runtime_held())
    return roots


def _p_table_entries() -> list[Any]:
    """What Python's C code looks up in its own tables, reached from no frame: the module table's entries that are not
    the modules of trusted files it held before the snippet ran (compared by identity with `modules_as_were`: the
    import statement reads `sys.modules["pkg"]`, its `__path__` and the name imported, from C), the values of
    `_c_PYTHON_TABLES` (a reducer `copyreg.pickle` registered, which `pickle.dumps` calls), and each context variable
    set in this thread's current context with its value (`ContextVar.get` reads it from C: a library's hook)."""
    was = _S["modules_as_were"]
    found: list[Any] = []
    for name, value in _c_list_iter(list(_c_dict_items(_S["sys_modules"]))):
        if type(name) is not str or _c_dict_get(was, name) is not value:
            found.append(value)
            path = _c_dict_get(_c_module_dict(value), "__file__") if _p_is_module(value) else None
            copied = _c_dict_get(_S["as_was"], id(value))
            new = copied is None or copied[0] is not value  # not a module whose names were copied before (`_p_rebound`)
            if _p_tables_module(path):  # Python's own or the target's, loaded since: all new
                _p_new_tables(_c_module_dict(value), found, new and _p_in_roots(path, _S["target_roots"]))
            elif new and _p_is_module(value) and _p_target_named(name):  # a stand-in under a name of the target's
                _p_new_tables(_c_module_dict(value), found, True)
    for table in _c_tuple_iter(_c_PYTHON_TABLES):
        found.extend([pair[1] for pair in _c_list_iter(list(_c_dict_items(table)))])
    for pair in _c_list_iter(list(_c_context_items(_c_copy_context()))):
        found.append(pair[0])
        found.append(pair[1])
    _p_tables_written(found)
    return found


def _p_target_named(name: str) -> bool:
    """A module name that names a file of the target's (`pkg.sub` as `<root's parent>/pkg/sub.py`, or its package's
    `__init__.py`; a root that is a folder on the import path, `<root>/sub.py`): the import statement, and the
    library's lazy import, take whatever the module table holds under it. Told by the files alone, once per name
    (`target_named`), never by what the module object says of itself."""
    known = _c_dict_get(_S["target_named"], name)
    if known is not None:
        return known is True
    found = False
    if name and "/" not in name and "\\" not in name and not _c_str_startswith(name, ".") and ".." not in name:
        tail = _c_str_replace(name, ".", "/")
        for root in _c_tuple_iter(tuple(_S["target_roots"])):
            if type(root) is not str or not _c_str_endswith(root, "/"):
                continue
            for base in (root, _c_str_rsplit(root[:-1], "/", 1)[0] + "/"):
                for candidate in (base + tail + ".py", base + tail + "/__init__.py"):
                    if _p_in_roots(candidate, _S["target_roots"]) and _p_is_file(candidate):
                        found = True
    _S["target_named"][name] = found
    return found


def _p_is_file(path: str) -> bool:
    try:
        return _c_stat_isreg(_c_stat(path).st_mode)
    except OSError:
        return False


def _p_new_tables(space: Any, found: list[Any], target: bool) -> None:
    """The containers a module of Python's own library or the target's loaded while the snippet ran holds by name, into
    `found`. A module of the target's (`target`) has no copy from before the snippet ran (round thirty-three: the
    snippet imports it, or the library's lazy import does, and the snippet sets what it holds). Where its body was
    followed to its end (`_p_body_return`), what that body bound is its own, and what those values keep is compared
    with the tables taken there (`_p_tables_written`); a value set since is searched whole, with the registries it
    keeps (`_p_body_registries`). Where no body was seen, every value it holds but a module is (failing closed)."""
    body = _c_dict_get(_S["bodies"], id(space)) if target else None
    own = body[1] if body is not None and body[0] is space else None
    for key, value in _c_list_iter(list(_c_dict_items(space))):
        if own is not None and _c_dict_get(own, key, _c_MISSING) is value:
            continue  # its body's own: its tables were taken at the body's end
        kind = type(value)
        if kind is dict or kind is list or kind is set:
            found.append(value)
        elif target and not _p_is_module(value):
            found.append(value)
            _p_body_registries(value, kind, found)


def _p_body_registries(value: Any, kind: Any, found: list[Any]) -> None:
    """What a value of a target module's that no body's end took (`_p_new_tables`) keeps that the snippet may fill,
    into `found`, besides the value itself (whose search reaches an object's attributes): a class's containers (the
    walk reads no trusted class's namespace)."""
    if _p_in(type, _c_mro(kind)) and _c_type_flags(value) & _c_HEAPTYPE:
        for pair in _c_list_iter(list(_c_proxy_items(_c_type_dict(value)))):
            held = type(pair[1])
            if held is dict or held is list or held is set:
                found.append(pair[1])


def _p_tables_written(found: list[Any]) -> None:
    """What the containers of Python's own modules and the target's (`_python_tables`), and those taken where a target
    module's body ended while the snippet ran (`body_tables`), hold now that they did not hold when taken, into
    `found`: a key and its value where either is not the one at that place (a dict's order is its insertion's), a
    list's item likewise, a set's item that was not in it. A dict whose version is unchanged was not written
    (`_version_offset`); honest writes (`re._cache` filled by the library's patterns, a library's registry filled by
    its own code) are searched too."""
    for taken in (_S["tables"], _S["body_tables"]):
        for entry in _c_list_iter(taken):
            _p_table_written(entry, found)


def _p_table_written(entry: tuple[Any, Any, int], found: list[Any]) -> None:
    """`_p_tables_written` of one table (`_p_table`)."""
    table, copy, version = entry
    kind = type(table)
    if type(copy) is tuple:  # an object's registries (`_p_object_entry`)
        _p_object_written(table, kind, copy, version, found)
    elif kind is dict or (kind is not list and kind is not set and kind is not _c_LRU_CACHE
                          and _p_in(dict, _c_mro(kind))):
        _p_dict_written(table, copy, version, found)
    elif kind is list:
        now = list(_c_list_iter(table))
        for index in range(len(now)):
            if index >= len(copy) or copy[index] is not now[index]:
                found.append(now[index])
    elif kind is not set and _p_in(_c_deque, _c_mro(kind)):
        found.extend([item for item in _c_deque_iter(table) if _c_dict_get(copy, id(item)) is not item])
    elif kind is _c_LRU_CACHE:  # what it cached since: a key, a result (its C traversal lists both)
        held = _p_cached_items(list(_c_get_referents(table)))
        found.extend([item for item in _c_list_iter(held) if _c_dict_get(copy, id(item)) is not item])
    else:
        found.extend([item for item in _c_set_iter(table) if _c_dict_get(copy, id(item)) is not item])


def _p_dict_written(table: Any, was: list[tuple[Any, Any]], version: int, found: list[Any]) -> None:
    """`_p_tables_written` of one dict, whose copy `was` is its pairs in order: a key and its value where either is
    not the one at that place."""
    if _c_VERSIONED and _p_version(id(table) + _c_VERSION_OFFSET) == version:
        return
    now = list(_c_dict_items(table))
    for index in range(len(now)):
        pair = now[index]
        if index >= len(was) or was[index][0] is not pair[0] or was[index][1] is not pair[1]:
            found.append(pair[0])
            found.append(pair[1])


def _p_object_written(owner: Any, kind: Any, copy: tuple[Any, ...], version: int, found: list[Any]) -> None:
    """`_p_tables_written` of an object a target module holds (`_p_object_entry`): what its `__dict__` holds anew, all
    of a `__dict__` put in place of its own (`registry.__dict__ = {...}`), and what a slot holds instead of what it
    did."""
    _, space, was, slots = copy
    if space is not None:
        now = _p_object_dict(owner, kind)
        if now is space:
            _p_dict_written(space, was, version, found)
        elif now is not None:
            found.extend([item for pair in _c_list_iter(list(_c_dict_items(now))) for item in pair])
    for slot, held in _c_tuple_iter(slots):
        try:
            current = _c_member_get(slot, owner, kind)
        except AttributeError:
            current = _c_MISSING
        if current is not held and current is not _c_MISSING:
            found.append(current)


def _p_runtime_held() -> list[Any]:
    """What the runtime calls from its own C code and keeps where no object a frame holds leads (the plug's
    `held_state`): each mode on its mode stacks, its infrastructure modes, its hook registries, what its kernel tables
    hold that they did not before the snippet ran (`_p_kernel_tables_written`). Read through the
    runtime's C functions alone (no code of the snippet's runs); one that fails to answer, or a stack longer than
    `_c_RETURNED_MAX`, is an unreadable value (the walk fails closed on it)."""
    stacks, reads, held, _ = _S["held_state"]
    found: list[Any] = list(_c_tuple_iter(held))
    found.extend(_S["registered"])  # what the runtime's registrars were handed while the snippet ran
    _p_kernel_tables_written(found)
    for length, at in _c_tuple_iter(stacks):
        try:
            count = length()
            if type(count) is not int or count > _c_RETURNED_MAX:
                found.append(_c_UNREADABLE)
                continue
            for index in range(count):
                found.append(at(index))
        except BaseException:
            found.append(_c_UNREADABLE)
    for read, args in _c_tuple_iter(reads):
        try:
            found.append(read(*args))
        except BaseException:
            found.append(_c_UNREADABLE)
    return found


def _p_kernel_tables_written(found: list[Any]) -> None:
    """What the runtime's kernel tables (`_kernel_tables`), and the namespaces leading to them, hold now that they did
    not when they were taken, into `found`: a key and its value where either is not the one at that place (compared by
    position and identity: no key's `__eq__` runs), read only in the dicts whose version moved (all of them where
    versions cannot be read). A new owner (an operator object made since) is found whole: the walk reaches an
    instance's namespace; a module's is read here, as far down as owners may be. The runtime's own writes (its
    dispatch cache filled as it runs, a module of its registering kernels) are searched too: its own code is no
    planted C code. A namespace on the way (not a table) written with nothing added or changed was written and put
    back, or cut short (a write of the same value moves no version): its C++ keeps the operator object it first
    looked up there for good, so whatever stood there meanwhile may be kept out of every search's reach, and the
    search fails closed (`_c_PUT_BACK`)."""
    taken = _S["kernel_tables"]
    if taken is None:
        return
    nodes, addresses, versions, reader = taken
    if _c_VERSIONED and versions is not None:
        now = reader() if reader is not None else tuple([_p_version(address) for address in addresses])
        if now == versions:  # nothing written since: the usual answer, told by one comparison in C
            return
        changed: Any = _c_compress(range(len(versions)), map(_c_ne, now, versions))
    else:
        changed = range(len(nodes))
    for index in changed:
        space, copy, levels = nodes[index]
        now_pairs, was = list(_c_dict_items(space)), list(_c_dict_items(copy))
        differs = len(now_pairs) > len(was)
        for at in range(len(now_pairs)):
            pair = now_pairs[at]
            if at < len(was) and was[at][0] is pair[0] and was[at][1] is pair[1]:
                continue
            differs = True
            found.append(pair[0])
            found.append(pair[1])
            if levels > 1:
                _p_kernel_modules(pair[1], levels - 1, found)
        if not differs and levels >= 0:  # a way to the tables written, and put back (or cut short) since
            found.append(_c_PUT_BACK)


def _p_kernel_modules(value: Any, levels: int, found: list[Any]) -> None:
    """A module new on the way to the kernel tables: what its namespace holds, into `found`, and so on down while
    `levels` is above 0 (the walk searches no module inside)."""
    if not _p_is_module(value):
        return
    for pair in _c_list_iter(list(_c_dict_items(_c_module_dict(value)))):
        found.append(pair[1])
        if levels > 1:
            _p_kernel_modules(pair[1], levels - 1, found)


def _p_reach(value: Any, kind: Any) -> list[Any] | None:
    """What `value` holds, as its C type's traversal lists it (any object: a container's items, an object's
    `__dict__` and slots, a C iterator's function and source, a defaultdict's factory, a mapping proxy's mapping, a
    memoryview's buffer, a suspended generator's locals); a function's without its globals and builtins (whole
    namespaces, looked at by name where they are read); a weak reference's referent, which no traversal lists
    (`_p_referent`); a class's, where the interpreter reaches from a class (`_p_class_reach`). None for what is not
    searched inside: frames, code, modules. No method of the value's runs."""
    if kind is _c_FrameType or kind is _c_CodeType:
        return None
    try:
        mro = _c_mro(kind)
    except BaseException:
        return None
    if _p_in(type, mro):
        return _p_class_reach(value, kind)
    if _p_in(_c_ModuleType, mro):
        return None
    items = list(_c_get_referents(value))
    if kind is _c_FunctionType:
        namespace, builtins_space = _c_func_globals(value), _c_func_builtins(value)
        return [item for item in items if item is not namespace and item is not builtins_space]
    for weak in _c_WEAK_TYPES:
        if _p_in(weak, mro):
            items.append(_p_referent(value))
            break
    return items


def _p_class_reach(cls: Any, kind: Any) -> list[Any]:
    """What the interpreter reaches from a class: its metaclass, whose namespace answers what is done to the class
    itself (`len(cls)` runs the metaclass's `__len__`), and the values in the namespaces of its classes that are the
    snippet's (`Holder.inner`, read through an instance). A trusted class's namespace is compared with its copy
    instead (`_p_rebound`): its values are what trusted code put there."""
    items: list[Any] = [kind]
    for klass in _c_tuple_iter(_c_mro(cls)):
        if _c_type_flags(klass) & _c_HEAPTYPE and not _p_trusted_class(klass):
            items.extend([pair[1] for pair in _c_list_iter(list(_c_proxy_items(_c_type_dict(klass))))])
    return items


def _p_referent(reference: Any) -> Any:
    """The object a weak reference (or a proxy) refers to, read where CPython holds it (`_referent_offset`): None
    once it died. Where that cannot be read, a sentinel the planted search reads as planted (it fails closed)."""
    offset = _c_REFERENT_OFFSET
    if offset is None:
        return _c_UNREADABLE
    return _c_py_object_at(id(reference) + offset).value


def _p_calls_held(value: Any, kind: Any, items: list[Any], delegated: dict[int, Any]) -> str | None:
    """A C object (of a type C code made) that may call what it holds, holding C code the snippet chose (a map's
    or a callable iterator's function, a defaultdict's factory, a partial's): `Type` of it. A container's items
    are its data (a tuple, list, dict, set or frozenset, calls none of them); what a container holds besides them
    (a defaultdict's factory) is not. Functions, cells and generators are not callers of what they hold here:
    their Python code is (followed where it is the snippet's); nor are a property, a static or a class method,
    which call what they hold only as a class's attribute, where `_p_planted_own` looks (Python's own classes
    hold many, around trusted functions). Nor is a bound method of a trusted class's own function
    (`_p_own_method`) whose object holds no exception, nor a partial trusted code made over a trusted function with
    plain data (`_p_plain_partial`), nor what a rebinder bound holding nothing of the snippet's
    (`_p_rebinder_parts`), nor a Python function a cache holds (`_c_PASS_THROUGH`: it is called with the cache's
    caller's arguments, as it would be held plainly). A partial the snippet made that binds data to what is not its
    own code, or a method bound to an object that holds an exception (a failed future's `result`, Python's or C
    code's), raises what the snippet chose: planted. A bound method calls its function, with its object as the first
    argument: the object is data here (a callable one, the snippet's model under its own `forward`, is not what is
    called)."""
    if not _p_made_by_c(kind) or kind is _c_FunctionType or kind is _c_CellType or _p_in(kind, _c_GENERATOR_TYPES) \
            or _p_in(kind, _c_DESCRIPTOR_WRAPPERS) or _p_in(type, _c_mro(kind)):
        return None
    if kind is _c_WeakrefType:  # called, it returns its referent (searched as a value); its callback runs when the
        return None  # referent dies, where Python prints and drops its error: neither starts an error in the call
    if _p_rebinder_parts(value) is not None:  # a rebinder's own, holding nothing of the snippet's (searched apart)
        return None
    if _c_dict_get(delegated, id(value)) is not value and _p_chosen_call(value, kind):
        return _p_qualname(kind) + " (raising what the snippet chose)"
    if (kind is _c_MethodType and _p_own_method(value)) or _p_plain_partial(value, kind):
        return None
    data: dict[int, Any] = {}
    mro = _c_mro(kind)
    if _p_in(tuple, mro):
        contents = list(_c_tuple_iter(value))
    elif _p_in(list, mro):
        contents = list(_c_list_iter(value))
    elif _p_in(dict, mro):
        contents = [part for pair in _c_list_iter(list(_c_dict_items(value))) for part in pair]
    elif _p_in(set, mro):
        contents = list(_c_set_iter(value))
    elif _p_in(frozenset, mro):
        contents = list(_c_frozenset_iter(value))
    elif kind is _c_MethodType:  # its object is the argument it passes, not what it calls (searched as a value)
        contents = [_c_method_self(value)]
    else:
        contents = []
    for item in _c_list_iter(contents):
        data[id(item)] = item
    passes_through = _p_in(kind, _c_PASS_THROUGH)
    if passes_through:
        items = _p_cache_calls(items)
    for item in _c_list_iter(items):
        if _c_dict_get(data, id(item)) is item:
            continue
        if passes_through and type(item) is _c_FunctionType:  # called as if directly: a function held plainly
            continue
        if _p_held_gadget(item, 3):
            return _p_qualname(kind) + " (holding C code it calls)"
    return None


def _p_cache_calls(items: list[Any]) -> list[Any]:
    """Of what a cache holds (`_p_reach`, its C traversal), what it calls: its function. Its cached keys and results,
    listed first, it compares and returns, never calls (a bounded cache of typing's aliases, callable objects of
    Python's, is no C code that calls them); the walk searches them as the data they are, so a result the snippet
    planted is still found where the function calls what the cache returned. Where CPython's order does not hold
    (`_c_CACHE_LAYOUT`, `_c_CACHE_TAILS`), all it holds is read as called (fails closed)."""
    count = len(items)
    if not _c_CACHE_LAYOUT:
        return items
    for tail in _c_tuple_iter(_c_CACHE_TAILS):
        at = count - tail
        if at >= 0 and type(items[at]) is dict and type(items[at + 2]) is object \
                and _p_in(type, _c_mro(type(items[at + 3]))) and _p_in(type, _c_mro(type(items[at + 4]))):
            return [items[at + 1]]
    return items


def _p_chosen_call(value: Any, kind: Any) -> bool:
    """A callable that runs no code of the snippet's and yet raises what the snippet chose: a partial the snippet
    made binding data to a callable not its own (`partial(operator.getitem, [], 3)`: the callee fails on the
    data), an `operator` getter or caller it made (`methodcaller("result")` calls the argument's own method, as
    `itemgetter(3)` its item: what fails is the name or key it chose, on the argument it was handed), or a method
    bound to an object that holds an exception (`Future.result`, a C future's `result`), which Python's or C code
    re-raises; or a C method bound to an object (`[].__getitem__`, `deque().popleft`) that did not exist before the
    snippet ran: the object's C code fails on the object and the arguments chosen for it, and whether the library or
    the snippet bound it cannot be told, so it is read as the snippet's (failing closed: one trusted code binds while
    the snippet runs, held where the search meets it, is read so too)."""
    if _p_in(_c_partial, _c_mro(kind)):
        return _p_snippet_partial(value)
    if _p_calling_iterator(kind):  # a map's iterables are its function's arguments, as a partial's are
        return not _p_made_before(value) and not _p_calls_snippet_code(value) and _p_advanced(value)
    if _p_in_binders(kind):  # an `operator` getter or caller: its names, keys and arguments are its data
        return not _p_made_before(value)
    if kind is _c_MethodType:
        return _p_reaches_error(_c_method_self(value))
    bound = _p_bound_to_data(value, kind)
    if bound is not _c_MISSING and not _p_runtime_function(bound) and not _p_own_descriptor(bound):
        # a C method bound to an object: made by the snippet, it chose the object and the call
        return not _p_made_before(value) or _p_reaches_error(bound)
    return False


def _p_own_descriptor(bound: Any) -> bool:
    """A C method's `__self__` that is a C descriptor of a class the snippet did not make (`getset.__get__` of a C
    type's attribute, which a runtime binds while it traces): what it runs is that class's own C accessor, on the object
    it is handed, as the descriptor itself would (`_c_C_DESCRIPTORS` raise only their own errors). A descriptor of a
    class of the snippet's names what the snippet named."""
    kind = type(bound)
    for index in range(len(_c_C_DESCRIPTORS)):
        if kind is _c_C_DESCRIPTORS[index]:
            owner = _c_DESCRIPTOR_OWNER[index](bound)
            return not _c_type_flags(owner) & _c_HEAPTYPE or _p_trusted_class(owner)
    return False


def _p_runtime_function(bound: Any) -> bool:
    """A C function's `__self__` that is a record of the runtime's own C functions (the plug's `records`: pybind11's
    function record, which only the runtime's C++ makes): the function is the runtime's, as a module's C function is,
    whoever asked for it to be made; it raises its own errors on the arguments it is handed."""
    kind = type(bound)
    for record in _c_tuple_iter(_S["function_records"]):  # noqa: SIM110  # a plain loop: no generator here
        if kind is record:
            return True
    return False


def _p_calls_snippet_code(iterator: Any) -> bool:
    """A calling iterator whose callables (what it holds that can be called: its function, a predicate, a key) are all
    the snippet's own Python code, followed where it runs; it holds at least one."""
    found = False
    for item in _c_list_iter(list(_c_get_referents(iterator))):
        if not _c_callable(item) or _p_in(type, _c_mro(type(item))) and not _p_made_by_c(item):
            continue
        if type(item) is not _c_FunctionType or not _p_untrusted_code(_c_func_code(item)):
            return False
        found = True
    return found


def _p_advanced(iterator: Any) -> bool:
    """Whether a calling iterator may have called its function: it pulls an item before every call, so one whose
    iterables are a list's or a tuple's iterators still at their start has called nothing (`map(str, [1])` held
    beside the call). Any other iterable, or one that moved or is exhausted, may have (fails closed)."""
    for item in _c_list_iter(list(_c_get_referents(iterator))):
        if _c_callable(item):
            continue
        for inner in _c_list_iter(list(_c_tuple_iter(item)) if type(item) is tuple else [item]):
            fresh = False
            for kind, reduce in _c_tuple_iter(_c_SEQUENCE_ITERATORS):
                if type(inner) is kind:
                    state = reduce(inner)
                    fresh = type(state) is tuple and len(state) == 3 and type(state[2]) is int and state[2] == 0
            if not fresh:
                return True
    return False


def _p_made_before(value: Any) -> bool:
    """A partial, or an `operator` getter or caller, that existed before the snippet ran (`_record_binder`)."""
    return _c_dict_get(_S["binders_as_were"], id(value)) is value \
        or _c_dict_get(_S["library_binders"], id(value)) is value


def _p_snippet_partial(value: Any) -> bool:
    """A partial the snippet made (it did not exist before the snippet ran) that binds data (arguments or keywords)
    to a callable that is not the snippet's own Python code (which is followed where it runs)."""
    if _p_made_before(value):
        return False
    function, args, keywords = (part(value) for part in _c_partial_parts)
    if not args and not keywords:
        return False
    return not (type(function) is _c_FunctionType and _p_untrusted_code(_c_func_code(function)))


def _p_reaches_error(owner: Any) -> bool:
    """An exception instance anywhere `owner` reaches (`_p_walk`): what a bound method of it may re-raise. More than
    `_c_PLANT_BUDGET` objects: it fails closed (True)."""
    kind = type(owner)
    if owner is None or kind is str or kind is int or kind is float or kind is bool or kind is bytes \
            or _p_is_module(owner) or _p_in(type, _c_mro(kind)):
        return False
    return _p_walk([owner], _c_PLANT_BUDGET, _p_error_check, None) is not None


def _p_error_check(value: Any, kind: Any, items: list[Any] | None, context: Any) -> bool | None:
    """`_p_walk`'s question for `_p_reaches_error`: an exception instance, or an instance of a class of the runtime's
    that keeps what no traversal lists (the plug's `opaque`: a runtime future's exception, kept by its C++), which
    may hold one unseen (it fails closed)."""
    if _p_in(BaseException, _c_mro(kind)) or _p_opaque(kind):
        return True
    return None


def _p_opaque(kind: Any) -> bool:
    """A class of the runtime's whose instances keep what no traversal lists (the plug's `opaque`: a runtime future's
    exception, kept by its C++), or a subclass of one."""
    mro = _c_mro(kind)
    for cls in _c_tuple_iter(_S["held_state"][3]):  # noqa: SIM110  # a plain loop: no generator in the private namespace
        if _p_in(cls, mro):
            return True
    return False


def _p_own_method(method: Any) -> bool:
    """A bound method of a Python function that a trusted class of its object's (`_p_trusted_class`) holds in its
    namespace, as that class held it before the snippet ran where it was copied (`model.__call__`: the runtime's
    `Module._wrapped_call_impl` bound to the snippet's model), or a method (a function compiled in a class body: its
    code's qualified name, which its compiler set, is `Class.name`, never a module's function nor a closure) that a
    class of its object's of that very qualified name holds under its own name (a class trusted code made while the
    snippet ran, in its own function: an export's `Wrapper.forward`; a class of the snippet's so named holds what
    a subclass of the method's class would): calling it runs that class's own code, traced, as calling the method by
    its name would; no C code the snippet chose. (The object is searched apart, as the walk's data: an exception it
    holds, C code it holds.) A module's function bound so (`partial(function, data)` as a method) is not this."""
    function, owner = _c_method_func(method), _c_method_self(method)
    if type(function) is not _c_FunctionType:
        return False
    code = _c_func_code(function)
    name, qualname = code.co_name, code.co_qualname
    parts = _c_str_rsplit(qualname, ".", 2) if type(qualname) is str else []
    method_of = parts[-2] if len(parts) >= 2 and parts[-1] == name and parts[-2] != "<locals>" else None
    owner_kind = type(owner)
    mro = _c_mro(owner) if _p_in(type, _c_mro(owner_kind)) else _c_mro(owner_kind)
    for klass in _c_tuple_iter(mro):
        if not _c_type_flags(klass) & _c_HEAPTYPE:
            continue
        trusted = _p_trusted_class(klass)
        copied = _c_dict_get(_S["classes_as_were"], id(klass))
        pairs = list(_c_dict_items(copied[1])) if copied is not None and copied[0] is klass \
            else list(_c_proxy_items(_c_type_dict(klass)))
        named = not trusted and method_of is not None and _p_qualname(klass) + "." + name == qualname
        for pair in _c_list_iter(pairs):
            if (trusted or (named and type(pair[0]) is str and pair[0] == name)) \
                    and _p_in(function, _p_functions_in(pair[1])):
                return True
    return False


def _p_held_gadget(value: Any, depth: int) -> bool:
    """A callable that raises what the snippet chose with no code of the snippet's running to be seen, when
    something calls it: C code bound to an object (an exhausted generator's `throw`; not a module's own function,
    which raises its own errors on its arguments), a partial or a bound method over one, a Python function of a
    trusted file that is not the target's (a future's `result`), an instance of a C callable type (an
    `attrgetter`), a callable object of Python's that raises what it holds (`_p_holds_error`). Not classes, the
    snippet's own functions (followed), nor the target's."""
    kind = type(value)
    if value is None or kind is str or kind is int or kind is float or kind is bool or not _c_callable(value):
        return False
    mro = _c_mro(kind)
    if _p_in(type, mro) or _p_in(kind, _c_C_DESCRIPTORS):
        return False
    if kind is _c_WeakrefType:  # called, it returns its referent or None, and raises nothing, whoever made it (the
        return False  # weak reference a `threading.local` binds its per-thread callback to, made as click reads one)
    if kind is _c_FunctionType:
        path = _c_func_code(value).co_filename
        return _p_in_roots(path, _S["trusted_roots"]) and not _p_in_roots(path, _S["target_roots"])
    if _p_in(kind, _c_BuiltinTypes[:2]):
        bound = _c_builtin_self(value)
        return bound is not None and not _p_is_module(bound) and not _p_in(type, _c_mro(type(bound))) \
            and not _p_runtime_function(bound)
    if depth <= 0:
        return True
    if kind is _c_MethodType:
        return _p_held_gadget(_c_method_func(value), depth - 1)
    if _p_in(_c_partial, mro):
        return _p_snippet_partial(value) or _p_held_gadget(_c_partial_parts[0](value), depth - 1)
    if _p_made_by_c(kind):
        return True
    return not _p_calls_own_code(kind) and _p_holds_error(value)


def _p_made_by_c(kind: Any) -> bool:
    """A class whose behaviour is C code's: a static type, or one C code made at run time (`functools.partial`,
    `operator.attrgetter`: heap types too), or a subclass of one adding no Python function. A class statement's
    class defines functions; one that defines none behaves as the C classes it derives from."""
    if not _c_type_flags(kind) & _c_HEAPTYPE:
        return True
    known = _c_dict_get(_S["c_made"], id(kind))
    if known is not None and known[0] is kind:
        return bool(known[1])
    made = True
    for klass in _c_tuple_iter(_c_mro(kind)):
        if not _c_type_flags(klass) & _c_HEAPTYPE:
            continue
        for _, value in _c_list_iter(list(_c_proxy_items(_c_type_dict(klass)))):
            if type(_p_function_of(value)) is _c_FunctionType:
                made = False
                break
        if not made:
            break
    _S["c_made"][id(kind)] = (kind, made)
    return made


def _p_rebound(changed: list[Any]) -> str | None:
    """`module.name` of a trusted module's name, or `Class.name` of a name in a class such a module holds (a
    class's namespace changes with no audit event: `fractions.Fraction.__lt__ = ...`), loaded before the snippet
    ran, that the snippet has since rebound, or added, to
    something of its own: a class no trusted module defines, a function compiled outside the trusted files, C code
    it chose (`_p_held_gadget`). Code beneath the function reads it there (`collections.OrderedDict`,
    `builtins.ValueError`, a runtime's attribute) and calls or raises the snippet's. Trusted code rebinding its
    own names to its own objects (a warnings filter list, a lazily set attribute) is not this. Every other value
    a trusted name now has instead of its own goes to `changed`, for the planted search (an object of the
    snippet's whose class holds planted code, read through the name). Only the namespaces written since
    install are compared (`_p_written`): the others hold what their copies do."""
    modules, classes = _p_written(True)
    for _, entry, version in _c_list_iter(modules):
        module, was = entry
        current = _c_module_dict(module)
        for key, now in _c_list_iter(_p_differing(current, was, version, False)):
            parts = _p_trusted_binding(current, key, now)
            if parts is not None:  # bound by a rebinder, to nothing of the snippet's: what it holds is searched
                changed.extend(parts)
                continue
            if _p_foreign(now):
                name = _c_dict_get(was, "__name__")
                return (name if type(name) is str else "?") + "." + key + " (rebound)"
            changed.append(now)
        if _p_in_roots(_c_dict_get(was, "__file__"), _S["target_roots"]):
            _p_added(current, was, changed)
    for _, entry, version in _c_list_iter(classes):
        cls, was = entry
        for key, now in _c_list_iter(_p_differing(cls, was, version, True)):
            if _p_names_itself(now, key):  # what the class's own module binds there at import, made now
                continue
            parts = _p_trusted_binding(cls, key, now)
            if parts is not None:  # bound by a body of the target's (`_p_body_bound`), to nothing of the snippet's
                changed.extend(parts)
                continue
            if _p_foreign(now):  # rebound, or new (a special method shadowing a base's)
                return _p_qualname(cls) + "." + key + " (rebound)"
            changed.append(now)
    return None


def _p_added(current: dict[str, Any], was: dict[str, Any], changed: list[Any]) -> None:
    """What a target module now holds under a name its copy `was` has not, into `changed` (round thirty-three): the
    library's code may read a name its own code never binds (`globals().get("OVERRIDE")`, `getattr(module, name,
    None)`), which the snippet added. Searched for planted code, not read as rebound: a module's names grow as it runs
    (a submodule imported, a lazy attribute), by trusted code."""
    for pair in _c_list_iter(list(_c_dict_items(current))):
        if _c_dict_get(was, pair[0], _c_MISSING) is _c_MISSING:
            changed.append(pair[1])


def _p_written(versioned: bool = False) -> tuple[list[Any], list[Any]]:
    """The copied modules' and classes' `(id, (it, copy))` whose namespace dict was written since install (its
    version, `_version_offset`, is not the one its copy was taken at); all of them where versions cannot be read.
    `versioned`: each with its version now too (None where unread), `(id, (it, copy), version)`. Reads numbers
    alone: no copy is touched (a check's every touch of one writes a page it shares); all at once where they can be
    (`versions_now`), and the changed ones are told from the rest by C code (`itertools.compress`)."""
    if not _c_VERSIONED:
        every = list(_c_dict_items(_S["as_was"])), list(_c_dict_items(_S["classes_as_were"]))
        if versioned:
            return [(key, entry, None) for key, entry in every[0]], [(key, entry, None) for key, entry in every[1]]
        return every
    held = _S["copies_held"]
    ids, addresses, versions = held["ids"], held["addresses"], held["versions"]
    now: Any = None
    if _S["versions_now"] is not None:
        now = _S["versions_now"]()
        if len(now) != len(ids):  # the arrays grew since install: read one by one
            now = None
    if now is None:
        now = [_p_version(addresses[index]) for index in range(len(ids))]
    modules: list[tuple[Any, ...]] = []
    classes: list[tuple[Any, ...]] = []
    for index in _c_compress(range(len(ids)), map(_c_ne, now, versions)):
        key = ids[index]
        entry = _c_dict_get(_S["as_was"], key)
        if entry is not None:
            modules.append((key, entry, now[index]) if versioned else (key, entry))
            continue
        entry = _c_dict_get(_S["classes_as_were"], key)
        if entry is not None:
            classes.append((key, entry, now[index]) if versioned else (key, entry))
    return modules, classes


def _p_version(address: int) -> int:
    """The 8-byte word at `address` (a dict's version), through the private view of memory where there is one (no
    audit event), else by `from_address` (one)."""
    memory = _S["memory"]
    if memory is not None and address >= 8 and not address % 8:
        word: int = memory[(address - 8) >> 3]
        return word
    value: int = _c_from_address(address).value
    return value


def _p_differing(subject: Any, was: dict[Any, Any], version: Any, is_class: bool) -> list[tuple[str, Any]]:
    """The `(name, value)` pairs of a written namespace (a module's, or a class's) whose value is not the one its copy
    `was` holds: a module's names of the copy now bound to another value, a class's names now bound to what the copy
    does not hold there; string names alone. Kept per namespace with the version it was read at (`differing`): a dict
    whose version did not move since was not written (PEP 509), so its pairs are the very same; a namespace is
    compared name by name again only after a write (at every search, a module the library writes lazily was compared
    whole each time)."""
    cached = _c_dict_get(_S["differing"], id(subject))
    if version is not None and cached is not None and cached[0] is subject and cached[1] == version:
        kept: list[tuple[str, Any]] = cached[2]
        return kept
    pairs: list[tuple[str, Any]] = []
    if is_class:
        for key, now in _c_list_iter(list(_c_proxy_items(_c_type_dict(subject)))):
            if now is not _c_dict_get(was, key, _c_MISSING) and type(key) is str:
                pairs.append((key, now))
    else:
        for key, value in _c_list_iter(list(_c_dict_items(was))):
            now = _c_dict_get(subject, key, _c_MISSING)
            if now is not value and now is not _c_MISSING and type(key) is str:
                pairs.append((key, now))
    if version is not None:
        _S["differing"][id(subject)] = (subject, version, pairs)
    return pairs


def _p_foreign(value: Any) -> bool:
    """Something of the snippet's in a trusted module's name: see `_p_rebound`."""
    kind = type(value)
    if kind is _c_FunctionType:
        return _p_untrusted_code(_c_func_code(value))
    try:
        mro = _c_mro(kind)
    except BaseException:
        return True
    if _p_in(type, mro):
        return bool(_c_type_flags(value) & _c_HEAPTYPE) and not _p_trusted_class(value)
    if _p_plain_partial(value, kind):
        return False
    return _p_held_gadget(value, 3)


def _p_names_itself(value: Any, key: str) -> bool:
    """A partial over a trusted function with plain data alone bound, one of which is the very name it is bound to
    in a trusted class (a runtime's opaque classes, when the snippet's import first loads their module:
    `Placement.__eq__ = partial(_raise_error, method_name="__eq__")`), made while the snippet ran. Made by the
    snippet instead, it raises only what that trusted code would there: the data names nothing the snippet chose
    but the name itself."""
    held = _p_trusted_plain_data(value)
    if held is None:
        return False
    for item in _c_list_iter(held):  # noqa: SIM110  # a plain loop: no generator in the private namespace
        if type(item) is str and item == key:
            return True
    return False


def _p_trusted_plain_data(value: Any) -> list[Any] | None:
    """What a `functools.partial` over a function of a trusted file binds (its arguments and keywords' values),
    when all of it is plain data (a string, a number, None); None for anything else."""
    if type(value) is not _c_partial:
        return None
    function, args, keywords = (part(value) for part in _c_partial_parts)
    if type(function) is not _c_FunctionType or not _p_in_roots(_c_func_code(function).co_filename,
                                                                 _S["trusted_roots"]):
        return None
    held = list(_c_tuple_iter(args)) if type(args) is tuple else [args]
    if type(keywords) is dict:
        held.extend([pair[1] for pair in _c_list_iter(list(_c_dict_items(keywords)))])
    for item in _c_list_iter(held):
        kind = type(item)
        if not (item is None or kind is str or kind is int or kind is float or kind is bool or kind is bytes):
            return None
    return held


def _p_plain_partial(value: Any, kind: Any) -> bool:
    """A `functools.partial` that existed before the snippet ran (`_p_made_before`), over a function of a trusted
    file with nothing but plain data bound (`_p_trusted_plain_data`): what trusted code binds a class's name to (a
    runtime's opaque classes: `__eq__` as a partial over its `_raise_error` with the method's name, at import),
    holding no object, exception or C code the snippet could choose. One the snippet made chose its data."""
    return kind is _c_partial and _p_made_before(value) and _p_trusted_plain_data(value) is not None


def _p_planted_node(value: Any) -> str | None:
    kind = type(value)
    return _p_planted_in(value if _p_in(type, _c_mro(kind)) else kind, 2)


def _p_planted_in(cls: Any, depth: int) -> str | None:
    """`Class.name` of a callable the snippet planted in a class of `cls`'s MRO (or in a class one holds): C code,
    Python's code bound to objects of the snippet's, or a trusted function under another name than its own,
    where Python looks up a method. Classes C code made, and classes a trusted module defines, are not the
    snippet's."""
    try:
        mro = _c_mro(cls)
    except BaseException:
        return None
    for klass in mro:
        found = _p_planted_own(klass, depth)
        if found is not None:
            return found
    return None


def _p_planted_own(klass: Any, depth: int) -> str | None:
    """`_p_planted_in` of one class's own namespace."""
    if not _c_type_flags(klass) & _c_HEAPTYPE or _p_trusted_class(klass):
        return None
    replaced = _p_replaced_engine(klass)
    if replaced is not None:
        return replaced
    items = list(_c_proxy_items(_c_type_dict(klass)))
    for key, value in items:
        if type(key) is not str:
            continue
        if _p_gadget(value, key) and not _p_library_put(klass, key, value):
            return _p_qualname(klass) + "." + key
        if depth > 0 and value is not klass and _p_in(type, _c_mro(type(value))):
            found = _p_planted_in(value, depth - 1)
            if found is not None:
                return found
    return None


def _p_qualname(cls: Any) -> str:
    try:
        name = _c_type_qualname(cls)
    except BaseException:
        return "?"
    return name if type(name) is str else "?"


def _p_trusted_class(cls: Any) -> bool:
    """A class that existed before the snippet ran (`snapshot_trusted` copied it: whatever module it names, one with
    no file included), or a class a module of a trusted file defines: that module's namespace holds this very class
    under its qualified name (its functions' files would not do: a class of the snippet's may hold only trusted
    functions)."""
    copied = _c_dict_get(_S["classes_as_were"], id(cls))
    if copied is not None and copied[0] is cls:  # it existed before the snippet ran: never the snippet's
        return True
    try:
        module_name, qualname = _c_type_module(cls), _c_type_qualname(cls)
    except BaseException:
        return False
    if type(module_name) is not str or type(qualname) is not str:
        return False
    module = _c_dict_get(_S["sys_modules"], module_name)
    known = _c_dict_get(_S["as_was"], id(module)) if module is not None else None
    if known is None or known[0] is not module:  # not a module copied before the snippet ran: the table as it was
        module = _c_dict_get(_S["modules_as_were"], module_name) or module
    if module is None or not _p_is_module(module):
        return False
    if not _p_in_roots(_c_dict_get(_c_module_dict(module), "__file__"), _S["trusted_roots"]):
        return False
    parts = qualname.split(".")
    was = _c_dict_get(_S["as_was"], id(module))
    value = module
    if was is not None and was[0] is module:  # its namespace as it was before the snippet ran, where it had the name
        first = _c_dict_get(was[1], parts[0], _c_MISSING)
        if first is not _c_MISSING:
            value, parts = first, parts[1:]
    for part in parts:
        if value is _c_MISSING:
            return False
        copied = _c_dict_get(_S["classes_as_were"], id(value))
        if copied is not None and copied[0] is value and _c_dict_get(copied[1], part, _c_MISSING) is not _c_MISSING:
            value = _c_dict_get(copied[1], part)  # a nested class, as its trusted class held it
        else:
            value = _p_static_attr(value, part)
    return value is cls


def _p_functions_in(value: Any) -> tuple[Any, ...]:
    """The callables a class attribute stands for: itself, or what a static or class method, a property, wraps."""
    kind = type(value)
    if kind is _c_staticmethod:
        return (_c_static_func(value),)
    if kind is _c_classmethod:
        return (_c_class_func(value),)
    if _p_in(property, _c_mro(kind)):  # a subclass's too: its accessors run as a property's do
        return (_c_prop_parts[0](value), _c_prop_parts[1](value), _c_prop_parts[2](value))
    if _p_in(_c_cached_property, _c_mro(kind)):  # not callable itself: its getter is what runs
        own = _p_own_dict(value, kind)
        return (_c_dict_get(own, "func"),) if own is not None else (None,)
    return (value,)


def _p_gadget(value: Any, key: str, depth: int = 3) -> bool:
    """A callable in a class of the snippet's that runs no code of the snippet's own to be seen: a partial, a bound
    method (a C one, or Python's code bound to an object), an instance of a C callable type, a function compiled
    in a trusted file under another name than its own (`__len__ = Future.result`); not the snippet's own
    functions (followed), nor C types' own method descriptors (they raise their own errors). A trusted function
    made at run time around something (a decorator's wrapper: its closure) is what it holds (`_p_wrapper_holds`);
    one Python's own library makes for the very name it is under is not planted (`_p_made_for`). A class, or a C
    type's method descriptor, answers with what it makes of what it is handed: one that is a property's accessor (its
    getter answering what the function reads: `frozen = property(bool, slice)`, round sixteen), or a class under a
    special name (`__get__ = slice`, `__eq__ = slice`: the protocol's answer, chosen), is planted too."""
    parts = _p_functions_in(value)
    accessor = _p_in(property, _c_mro(type(value))) or _p_in(_c_cached_property, _c_mro(type(value)))
    special = key[:2] == "__" and key[-2:] == "__" and len(key) > 4
    for function in parts:
        if function is None or not _c_callable(function):
            continue
        kind = type(function)
        if kind is not _c_FunctionType and (accessor or (special and _p_in(type, _c_mro(kind)))):
            return True
        if kind is _c_FunctionType:
            code = _c_func_code(function)
            if code.co_name != key and _p_in_roots(code.co_filename, _S["trusted_roots"]) \
                    and not _p_made_for(code, key):
                cells = _c_func_closure(function)
                if cells is None or depth <= 0 or _p_wrapper_holds(cells, key, depth - 1):
                    return True
            continue
        if _p_in(kind, _c_C_DESCRIPTORS) or _p_in(type, _c_mro(kind)):
            continue
        if _p_in(kind, _c_BuiltinTypes[:2]):  # a C function: a module's, or one bound to an object
            bound = _c_builtin_self(function)
            if bound is not None and _p_in(type, _c_mro(type(bound))):  # bound to a class (`object.__new__`)
                continue
            return True
        if kind is _c_MethodType or kind is _c_partial or _p_in(_c_partial, _c_mro(kind)):
            return True
        if _p_made_by_c(kind):  # an instance of a C callable type (operator.attrgetter, a heap type of C code's)
            return True
        if not _p_calls_own_code(kind) and _p_holds_error(function):  # raises what it holds (a mock's side effect)
            return True
    return False


def _p_calls_own_code(kind: Any) -> bool:
    """A callable object whose `__call__` is the snippet's own code: what it does is seen where it runs."""
    call = _p_class_attr(kind, "__call__")
    return type(call) is _c_FunctionType and _p_untrusted_code(_c_func_code(call))


def _p_holds_error(value: Any) -> bool:
    """What a callable object of a trusted class may raise when the snippet put it where a method is looked up:
    an exception (a class or an instance), or C code that raises one (`_p_held_gadget`), anywhere it reaches
    (`_p_reach`: in its attributes, a list of side effects, a partial that builds one, a closure), or in a
    namespace of a class of the snippet's it is an instance of. More than `_c_HOLDS_BUDGET` objects: it fails
    closed (True)."""
    level: list[Any] = [value]
    for klass in _c_tuple_iter(_c_mro(type(value))):
        if _c_type_flags(klass) & _c_HEAPTYPE and not _p_trusted_class(klass):
            level.extend([pair[1] for pair in _c_list_iter(list(_c_proxy_items(_c_type_dict(klass))))])
    return _p_walk(level, _c_HOLDS_BUDGET, _p_holds_check, value) is not None


def _p_holds_check(held: Any, kind: Any, items: list[Any] | None, value: Any) -> bool | None:
    """`_p_walk`'s question for `_p_holds_error` (of `value`): an exception, a class or an instance, or C code that
    raises one (`_p_held_gadget`) held by it."""
    mro = _c_mro(kind)
    if _p_in(BaseException, mro) or (_p_in(type, mro) and _p_in(BaseException, _c_mro(held))):
        return True
    if held is not value and _p_held_gadget(held, 0):
        return True
    return None


def _p_wrapper_holds(cells: Any, key: str, depth: int) -> bool:
    """A trusted wrapper's closure holds what it runs: a gadget (`_p_gadget`), or an exception (a class or an
    instance) it would raise. The snippet's own functions in it are followed when they run."""
    for cell in _c_tuple_iter(cells):
        held = _p_cell(cell)
        if held is None:
            continue
        kind = type(held)
        try:
            mro = _c_mro(kind)
        except BaseException:
            return True
        if _p_in(BaseException, mro) or (_p_in(type, mro) and _p_in(BaseException, _c_mro(held))):
            return True
        if _c_callable(held) and _p_gadget(held, key, depth):
            return True
    return False


def _p_made_for(code: Any, key: str) -> bool:
    """Python's own `functools.total_ordering` fills in a comparison with a function named for it: `_gt_from_lt`
    as `__gt__`, which calls the class's own `__lt__` (seen where it runs)."""
    name: str = code.co_name
    path: str = code.co_filename
    if not _p_in_stdlib(path) or not path.endswith("/functools.py") or "_from_" not in name \
            or not name.startswith("_"):
        return False
    return bool("__" + name[1:].split("_from_")[0] + "__" == key)


def _p_rebinder(code: Any) -> bool:
    """Trusted code of the runtime's that rebinds names of trusted modules to objects it makes while it runs (the
    plug's `rebinders`: an export binding `builtins.max` to a partial of its own as it traces a model), known by
    its file and name: trusted code is known by its file (the snippet compiling code under a trusted file's name is
    tampering, `_p_on_compile`)."""
    for path, name in _c_list_iter(_S["rebinders"]):  # noqa: SIM110  # a plain loop: no generator here
        if code.co_filename == path and code.co_name == name:
            return True
    return False


def _p_library_rebinder(code: Any) -> Any:
    """The target's module whose globals this code may rebind (`library_rebinders`: its file, and a name it names
    that the module's own functions assign under `global`), or None. Known by its file, as `_p_rebinder`'s are."""
    for entry in _c_list_iter(_S["library_rebinders"]):
        if code.co_filename == entry[0]:
            for key in _c_tuple_iter(code.co_names):
                if _p_in(key, entry[3]):
                    return entry
    return None


def _p_rebinder_spaces(code: Any) -> list[Any]:
    """The namespaces a rebinder's frame may bind in, each with its copy: the trusted modules written since install,
    and the target's module whose globals the code rebinds (`_p_library_rebinder`)."""
    modules, _ = _p_written()
    spaces = []
    for _, entry in _c_list_iter(modules):
        spaces.append((_c_module_dict(entry[0]), entry[1]))
    library = _p_library_rebinder(code)
    if library is not None:
        spaces.append((library[1], library[2]))
    return spaces


def _p_class_maker(code: Any) -> bool:
    """A metaclass's `__new__` of the target's own (`__new__(mcls, name, bases, namespace, ...)`): the library's code
    that makes a class and may put in it what it chooses (mypy_extensions' `_TypedDictMeta.__new__` puts its
    `_dict_new` on each typed dict as `__new__`). Decided once per code object."""
    known = _c_dict_get(_S["makers"], id(code))
    if known is not None and known[0] is code:
        return bool(known[1])
    maker = code.co_name == "__new__" and code.co_argcount >= 4 and _p_in_roots(code.co_filename, _S["target_roots"])
    _S["makers"][id(code)] = (code, maker)
    return maker


def _p_follow_maker(ident: int, frame: Any, code: Any) -> None:
    """A maker's frame starts (`_p_class_maker`), called with a metaclass: followed to its return, with the binders
    there as it began (`_p_young_binders`) and, where its namespace is a plain dict, what that holds now (what the
    snippet's class body, or code of the snippet's that called the maker, chose), while the calling thread is the only
    one alive (another thread could write the namespace or the class meanwhile, unseen); else not followed, and what
    the class holds is the snippet's as before. A namespace of another class (pydantic's own `__prepare__` makes one)
    is no record of what the class body chose: nothing is read as put by the library there (`held` is None)."""
    epoch = _p_alone(ident)
    if epoch is None:
        return
    local = _S["locals_of"](frame)
    names = code.co_varnames
    meta = _c_dict_get(local, names[0], _c_MISSING)
    space = _c_dict_get(local, names[3], _c_MISSING)
    if not _p_in(type, _c_mro(type(meta))) or not _p_in(type, _c_mro(meta)):
        return
    held: dict[str, Any] | None = None
    if type(space) is dict:
        held = {}
        for key, value in _c_list_iter(list(_c_dict_items(space))):
            if type(key) is str:
                held[key] = value
    _S["making"][id(frame)] = (frame, held, _S["snippet_calls"], epoch, _p_young_binders(), ident)
    if frame.f_trace is None:
        frame.f_trace_lines = False
    frame.f_trace = _S["trace"]


def _p_maker_return(ident: int, frame: Any, making: Any, made: Any) -> None:
    """A maker's frame returns: the class it returns holds, by name, what it holds now that is not what the namespace
    held as the maker began (nor a static or class method over that very function, as `type` wraps `__new__`), put
    there by the library's code (`library_made`). Only where no code of the snippet's ran meanwhile (a base's
    `__init_subclass__`, a descriptor's `__set_name__`, in the frame or another thread) and the thread was alone
    throughout: else nothing is recorded."""
    _S["graves"].append(_S["making"].pop(id(frame), None))
    _, held, calls, epoch, binders, _ = making
    if _S["snippet_calls"] != calls or _p_alone(ident) != epoch:
        return
    _p_maker_binders(binders)
    if not _p_in(type, _c_mro(type(made))) or not _c_type_flags(made) & _c_HEAPTYPE:
        return
    _p_maker_engines(made)
    if held is None:
        return
    put: dict[str, Any] = {}
    for key, value in _c_list_iter(list(_c_proxy_items(_c_type_dict(made)))):
        if type(key) is not str:
            continue
        was = _c_dict_get(held, key, _c_MISSING)
        if was is value or (was is not _c_MISSING and _p_in(was, _p_functions_in(value))):
            continue
        put[key] = value
    _S["library_made"][id(made)] = (made, put)


def _p_maker_engines(made: Any) -> None:
    """What the class a maker of the target's returned holds in its own namespace that is an instance of a class whose
    behaviour is C code's (`_p_made_by_c`), not plain data nor a class nor a function: the library's compiled engine
    for that class (pydantic's `__pydantic_validator__`, a `SchemaValidator` built for it), kept by identity. One the
    snippet replaces or removes afterwards is planted (`_p_replaced_engine`), whatever it puts there: a validator
    pydantic made for another model answers for a model that is not its own."""
    engines: dict[str, Any] = {}
    for key, value in _c_list_iter(list(_c_proxy_items(_c_type_dict(made)))):
        kind = type(value)
        if type(key) is not str or value is None or kind is str or kind is int or kind is float or kind is bool \
                or kind is bytes or kind is tuple or kind is frozenset or _p_in(type, _c_mro(kind)) \
                or kind is _c_FunctionType or _p_in(kind, _c_BuiltinTypes) or _p_in(kind, _c_DESCRIPTOR_WRAPPERS) \
                or not _p_made_by_c(kind):
            continue
        engines[key] = value
    if engines:
        _S["library_engines"][id(made)] = (made, engines)


def _p_replaced_engine(klass: Any) -> str | None:
    """`Class.name` of an engine the target's maker left in `klass` (`_p_maker_engines`) that it no longer holds."""
    known = _c_dict_get(_S["library_engines"], id(klass))
    if known is None or known[0] is not klass:
        return None
    space: dict[Any, Any] = {}
    for key, value in _c_list_iter(list(_c_proxy_items(_c_type_dict(klass)))):
        space[key] = value
    engines: dict[str, Any] = known[1]
    for key, was in _c_list_iter(list(_c_dict_items(engines))):
        if _c_dict_get(space, key, _c_MISSING) is not was:
            return _p_qualname(klass) + "." + key + " (not what the library made for it)"
    return None


def _p_making_in(ident: int) -> bool:
    """Whether a maker of the target's (`_p_follow_maker`) is running in thread `ident`, followed to its return."""
    for entry in _c_list_iter(list(_c_dict_values(_S["making"]))):  # noqa: SIM110  # a plain loop: no generator
        if entry is not None and entry[5] == ident:
            return True
    return False


# What a type expression compiles to: names, attributes, constants, subscripts and operators, no call, no store, no
# import, no code of its own. Each may still run a Python method of the snippet's (`__getitem__`, `__or__`, a
# property), which is followed where it runs and counted as the snippet's.
_c_EXPRESSION_OPS = ("CACHE", "RESUME", "NOP", "EXTENDED_ARG", "LOAD_NAME", "LOAD_GLOBAL", "LOAD_CONST", "LOAD_ATTR",
                     "BINARY_SUBSCR", "BINARY_OP", "BUILD_TUPLE", "BUILD_LIST", "RETURN_VALUE")


def _p_maker_expression(ident: int, code: Any) -> bool:
    """Code of no file a maker of the target's running in this thread had compiled meanwhile (`maker_sources`), that
    only evaluates a type expression (`_c_EXPRESSION_OPS`): pydantic evaluating its own `BaseModel`'s string
    annotations through `typing.ForwardRef` while it makes the snippet's model. Its source may be the snippet's (a
    string annotation of its own); what such code can do without a call is read a value, which is no code of the
    snippet's running inside the maker. Code that calls anything, or makes code, counts as the snippet's."""
    if not _p_making_in(ident) or not _p_compiled_from(code, code.co_filename, _S["maker_sources"], _S["maker_codes"]):
        return False
    for constant in _c_tuple_iter(code.co_consts):
        if type(constant) is _c_CodeType:
            return False
    ops = code.co_code
    names = _S["opnames"]
    for at in range(0, len(ops), 2):
        if ops[at] >= len(names) or not _p_one_of(names[ops[at]], _c_EXPRESSION_OPS):
            return False
    return True


def _p_young_binders() -> dict[int, Any]:
    """The binders the collector lists now (`_c_get_objects`: in a forked check, those made since the zygote froze its
    own), by identity: what a maker found as it began (`_p_maker_binders`)."""
    found: dict[int, Any] = {}
    kinds = _S["binder_kinds"]
    for value in _c_list_iter(_c_get_objects()):
        kind = type(value)
        known = _c_dict_get(kinds, id(kind))
        if known is None or known[0] is not kind:
            known = (kind, kind is _c_partial)
            kinds[id(kind)] = known
        if known[1]:
            found[id(value)] = value
    return found


def _p_maker_binders(binders: dict[int, Any]) -> None:
    """A maker of the target's returned with no code of the snippet's run meanwhile, the thread alone throughout: each
    partial made meanwhile (not among `binders`, those there as it began) over a function of trusted Python code is the
    library's making (pydantic's `LazyClassAttribute` over `partial(generate_pydantic_signature, init=..., ...)` on
    every model), read as one made before the snippet ran (`_p_made_before`). One over C code (`setattr`, a C method),
    or over the snippet's code, is not recorded whoever made it: trusted code copying what the snippet made (a deep
    copy of a default) makes one binding what the snippet chose."""
    made = _S["library_binders"]
    for value in _c_list_iter(list(_c_dict_values(_p_young_binders()))):
        if _c_dict_get(binders, id(value)) is value:
            continue
        function = _c_partial_parts[0](value)
        if type(function) is _c_FunctionType and not _p_untrusted_code(_c_func_code(function)):
            made[id(value)] = value


def _p_library_put(klass: Any, key: str, value: Any) -> bool:
    """A function of the target's own (no closure; or a static or class method over one) that the target's metaclass
    put in `klass` under `key` as it made the class, still there (`_p_maker_return`): the library's choice of what the
    name runs, not the snippet's, though the class is the snippet's (mypy_extensions' `__new__ = _dict_new` on the
    user's typed dict). The snippet putting one itself, in its class body, in a metaclass of its own before the
    library's, or in the class after it is made, is not this."""
    made = _c_dict_get(_S["library_made"], id(klass))
    if made is None or made[0] is not klass or _c_dict_get(made[1], key, _c_MISSING) is not value:
        return False
    for function in _c_tuple_iter(_p_functions_in(value)):
        if type(function) is not _c_FunctionType or _c_func_closure(function) is not None \
                or not _p_in_roots(_c_func_code(function).co_filename, _S["target_roots"]):
            return False
    return True


def _p_follow_rebinder(frame: Any, code: Any) -> None:
    """A rebinder's frame starts (or a generator's resumes): followed to its return (or yield), with what the names its
    code names hold now in the trusted modules written since install, to tell what it binds from what was there."""
    epoch: int | None = -1  # the runtime's rebinders: as the plug names them
    if not _p_rebinder(code):  # the target's own: followed only while its thread is alone (`_p_alone`), as a maker's
        epoch = _p_alone(_c_get_ident())  # is; a thread of the snippet's binding the name meanwhile starts no frame
        if epoch is None:
            return
    before: dict[Any, Any] = {}
    names = code.co_names
    for space in _c_list_iter(_p_rebinder_spaces(code)):
        current = space[0]
        for key in _c_tuple_iter(names):
            before[(id(current), key)] = _c_dict_get(current, key, _c_MISSING)
    _S["rebinding"][id(frame)] = (frame, code, before, _S["snippet_calls"], epoch)
    if frame.f_trace is None:
        frame.f_trace_lines = False
    frame.f_trace = _S["trace"]


def _p_rebinder_return(frame: Any, rebinding: Any) -> None:
    """A rebinder's frame returns (or yields): each name its code names, in a trusted module (or the target's module
    whose global it rebinds, `_p_rebinder_spaces`), now bound to what was
    in neither the module's copy nor that name when the frame started, nor is held by the frame (what it read as it
    began, and restores as it exits: the snippet's, if the snippet bound it first), was bound by that frame, to what
    it made (`bound_by_trusted`, by identity; `_p_rebound` still holds what it holds to the rule). Nothing else ran
    between but trusted code: the snippet's code called inside is followed, and then nothing is recorded."""
    _S["graves"].append(_S["rebinding"].pop(id(frame), None))
    _, code, before, calls, epoch = rebinding
    if _S["snippet_calls"] != calls:  # the snippet's code ran meanwhile (in the frame, or in another thread)
        return
    if epoch != -1 and _p_alone(_c_get_ident()) != epoch:  # another thread lived meanwhile: its bindings start no frame
        return
    held: dict[int, Any] = {}  # what the frame keeps (what it read from the names as it began, to restore): not its own
    for pair in _c_list_iter(list(_c_dict_items(_S["locals_of"](frame)))):
        held[id(pair[1])] = pair[1]
    for space in _c_list_iter(_p_rebinder_spaces(code)):
        current, was = space
        for key in _c_tuple_iter(code.co_names):
            now = _c_dict_get(current, key, _c_MISSING)
            if now is _c_MISSING or now is _c_dict_get(was, key, _c_MISSING) \
                    or now is _c_dict_get(before, (id(current), key), _c_MISSING) or _c_dict_get(held, id(now)) is now:
                continue
            _S["bound_by_trusted"][(id(current), key)] = now
            _S["rebinder_made"][id(now)] = now


def _p_trusted_binding(current: Any, key: Any, now: Any) -> list[Any] | None:
    """What a name a rebinder bound (`_p_rebinder_return`) holds, when it holds it still (`_p_rebinder_parts`); None
    otherwise (the name is judged as any other)."""
    if _c_dict_get(_S["bound_by_trusted"], (id(current), key)) is not now:
        return None
    return _p_rebinder_parts(now)


def _p_rebinder_parts(now: Any, depth: int = 3) -> list[Any] | None:
    """What an object a rebinder bound holds (wherever the search meets it: the name it was bound to, a frame's
    builtins): a partial (exactly) over a function, or any one object, none of whose parts is the snippet's
    (`_p_foreign`, read now: a partial's keywords are a dict anyone may write), or is itself what a rebinder bound (a
    rebinder entered twice wraps its own partial: an export within an export); None for anything else, or past
    `depth` such nestings (a keyword set to the partial itself)."""
    if depth <= 0 or _c_dict_get(_S["rebinder_made"], id(now)) is not now:
        return None
    if type(now) is _c_LRU_CACHE:  # what it calls, by its C traversal (`_p_cache_calls`): trusted Python code alone
        held = _p_cache_calls(list(_c_get_referents(now)))
        if len(held) != 1 or type(held[0]) is not _c_FunctionType or _p_untrusted_code(_c_func_code(held[0])):
            return None
        return held
    if type(now) is not _c_partial:
        return [] if not _p_foreign(now) else None
    function, args, keywords = (part(now) for part in _c_partial_parts)
    parts = [function]
    if type(args) is tuple:
        parts.extend(list(_c_tuple_iter(args)))
    if type(keywords) is dict:
        parts.extend([pair[1] for pair in _c_list_iter(list(_c_dict_items(keywords)))])
    for part in _c_list_iter(parts):
        if _p_rebinder_parts(part, depth - 1) is None and _p_foreign(part):
            return None
    return parts


def _p_held_module_body(frame: Any, code: Any) -> bool:
    """The body of a module of the target's files starting, run as the module the observer holds the module table's
    entry of (`_S["modules"]`: the watched function's module, the library's package), with Python's own builtins: a
    lazily loading package's body puts a module of its own in its own entry as it ends (and a module of the package
    may run that body again when it is first imported), which the snippet's import may
    have set off (`_p_follow_import`)."""
    if code.co_name != "<module>" or not _p_in_roots(code.co_filename, _S["target_roots"]) \
            or frame.f_builtins is not _S["builtins"]:
        return False
    name = _c_dict_get(frame.f_globals, "__name__") if type(frame.f_globals) is dict else None
    if type(name) is not str:
        return False
    for held, _ in _c_list_iter(_S["modules"]):  # noqa: SIM110  # a plain loop: no generator here
        if held == name:
            return True
    return False


def _p_follow_body(frame: Any) -> None:
    """The body of a module of the target's files starting while the snippet runs (round thirty-three): no copy says
    what its names were before the snippet ran, as none existed. Followed to its end (`_p_body_return`), whose
    namespace then is what its own body bound."""
    space = frame.f_globals
    _S["bodies_running"][id(frame)] = [frame, _S["snippet_calls"], dict(_c_dict_items(space)), _p_trusted_pairs()]
    frame.f_trace_lines = False
    frame.f_trace = _S["trace"]


def _p_trusted_pairs() -> dict[tuple[int, str], tuple[Any, Any, Any]]:
    """What each name of a trusted module's or class's namespace written since install holds now that its copy does
    not (`_p_differing`), by `(id of the module's dict or the class, name)`: `(holder, name, value)`. A body's start
    and end compared (`_p_body_bound`)."""
    pairs: dict[tuple[int, str], tuple[Any, Any, Any]] = {}
    modules, classes = _p_written(True)
    for _, entry, version in _c_list_iter(modules):
        current = _c_module_dict(entry[0])
        for key, now in _c_list_iter(_p_differing(current, entry[1], version, False)):
            pairs[(id(current), key)] = (current, key, now)
    for _, entry, version in _c_list_iter(classes):
        for key, now in _c_list_iter(_p_differing(entry[0], entry[1], version, True)):
            pairs[(id(entry[0]), key)] = (entry[0], key, now)
    return pairs


def _p_body_bound(body: Any) -> None:
    """A followed body of the target's ended with no code of the snippet's run meanwhile, its thread alone throughout:
    each name of a trusted module or class (Python's own included) that now holds what it held neither in its copy
    nor as the body started, nor what the body's namespace held as it started (the snippet may have seeded it there),
    was bound by the body or by trusted code it called: the library's own doing, recorded as a rebinder's is
    (`bound_by_trusted`, by identity; `_p_rebinder_parts` still holds what it holds to the rule). In subprocess
    isolation the library first loads while the snippet runs: a library's logging module whose body sets a method of
    `logging.Logger` (an `lru_cache` over its own function) was read as the snippet's rebinding (round thirty-four;
    the real case is in docs/threat-model.md). Who bound it is told by the frame that ran, never by the name or the
    value's file."""
    started: dict[Any, Any] = {}
    for pair in _c_list_iter(list(_c_dict_items(body[2]))):
        started[id(pair[1])] = pair[1]
    before = body[3]
    for key, entry in _c_list_iter(list(_c_dict_items(_p_trusted_pairs()))):
        now = entry[2]
        was = _c_dict_get(before, key)
        if (was is not None and was[2] is now) or _c_dict_get(started, id(now)) is now:
            continue
        _S["bound_by_trusted"][key] = now
        _S["rebinder_made"][id(now)] = now


def _p_follow_runtime_body(frame: Any) -> None:
    """The body of a module of Python's own library starting while the snippet runs (round thirty-five): followed to
    its end (`_p_body_return`) as a target body is, with no copy of its namespace (`body[2]` None): what it registers
    of its own is told there (`_p_runtime_binders`)."""
    _S["bodies_running"][id(frame)] = [frame, _S["snippet_calls"], None, None]
    frame.f_trace_lines = False
    frame.f_trace = _S["trace"]


def _p_runtime_binders(space: dict[str, Any], body: Any) -> None:
    """A followed body of Python's own library ended with no code of the snippet's run meanwhile, its thread alone
    throughout: each partial a table holds anew (`_p_tables_written`) over a function of that very body (its code one
    of the body's code's constants, its globals the body's namespace, which binds it now under its name: made by this
    run of the body, so no partial over it existed as the body began) is the runtime's own making, read as one made
    before the snippet ran (`library_binders`, `_p_made_before`). In subprocess isolation `concurrent.futures.thread`
    first loads inside the library's call; its body registers `partial(_python_exit)` in
    `threading._threading_atexits` (round thirty-five). Told by identity (the code and function objects, the
    namespace), never by a name or a file the snippet controls."""
    found: list[Any] = []
    _p_tables_written(found)
    made = _S["library_binders"]
    for value in _c_list_iter(found):
        if type(value) is not _c_partial:
            continue
        function = _c_partial_parts[0](value)
        if type(function) is _c_FunctionType and _c_func_globals(function) is space \
                and _c_dict_get(space, _c_func_name(function)) is function \
                and _p_in(_c_func_code(function), body.co_consts):
            made[id(value)] = value


def _p_body_return(frame: Any, body: Any) -> None:
    """A followed module body ends: what its body bound (its namespace, but the names holding what they held as it
    started) is copied as the module's own, and the registries those values keep are taken as tables, by the rule a
    module loaded before the snippet has them taken (`_p_held_tables`, into `body_tables`): `_p_new_tables` searches
    only what differs from them, never what the library's own body made (a module-level instance of the library's
    holding a C partial it made itself, made while the snippet ran where the library first loads then: a subprocess
    check; docs/threat-model.md names the real case). Where a frame of the snippet's started meanwhile, or its
    thread was not alone, no copy: everything the module holds is searched, failing closed."""
    _S["graves"].append(_S["bodies_running"].pop(id(frame), None))
    space = frame.f_globals
    alone = len(_S["threads"]) == 1 and _c_get_ident() in _S["threads"] and _S["expected"] == 0
    if body[2] is None:  # the runtime's own body (`_p_follow_runtime_body`)
        if _S["snippet_calls"] == body[1] and alone and type(space) is dict:
            _p_runtime_binders(space, frame.f_code)
        return
    if _S["snippet_calls"] == body[1] and alone and type(space) is dict:
        started = body[2]  # what it held as its body started (seeded by the snippet, say): not the body's
        own = {pair[0]: pair[1] for pair in _c_list_iter(list(_c_dict_items(space)))
               if _c_dict_get(started, pair[0], _c_MISSING) is not pair[1]}
        tabled, tables = _S["body_tabled"], _S["body_tables"]
        seen: set[int] = set()
        for pair in _c_list_iter(list(_c_dict_items(own))):
            value = pair[1]
            if _c_dict_get(tabled, id(value)) is value or _p_is_module(value):
                continue  # taken at another body's end (a name it imported), or a module: its own names are its own
            tabled[id(value)] = value
            _p_held_tables(value, _c_OBJECT_DEPTH, seen, tables, _p_dict_version)
        _S["bodies"][id(space)] = (space, own)
        _p_body_bound(body)


def _p_follow_import(frame: Any) -> None:
    """A held module's body starts: followed line by line to its end (`_p_import_line`), with the module table's entry
    of its name as it is now and how many frames of the snippet's code had started."""
    name = _c_dict_get(frame.f_globals, "__name__")
    _S["importing"][id(frame)] = [frame, name, _S["snippet_calls"], _c_dict_get(_S["sys_modules"], name, _c_MISSING),
                                  None]
    frame.f_trace_lines = True
    frame.f_trace = _S["trace"]


def _p_import_line(importing: Any) -> None:
    """A line of a held module's body starts (or the body ends): where the entry of its name changed since the last
    one, the line just run changed it, when nothing else could have (this thread is the only one, none starting). Its
    first such change is what the body put there (`importing[4]`); a second one, or one another thread may have made,
    leaves the entry nobody's (`_c_MISSING`: a callback that runs no frame, the snippet's C code collected in the body,
    may have written it)."""
    now = _c_dict_get(_S["sys_modules"], importing[1], _c_MISSING)
    if now is importing[3]:
        return
    importing[3] = now
    alone = len(_S["threads"]) == 1 and _c_get_ident() in _S["threads"] and _S["expected"] == 0
    importing[4] = now if importing[4] is None and alone else _c_MISSING


def _p_import_return(importing: Any) -> None:
    """A held module's body ends. What its own line put in the module table's entry of its name (`_p_import_line`), when
    it is there still and differs from the module the observer holds, is the library's own doing, held from now on
    instead (the end compares the entry with it, and its namespace with a copy taken now: `_p_end_checks`), when
    nothing but trusted code ran meanwhile (the snippet's code called inside is followed, and then nothing is recorded)
    and the module's class is trusted (the package's own lazy class, or Python's module type; a class of the snippet's,
    put where the body reads its class, leaves the entry the snippet's). A module of the snippet's put there later is
    still another module."""
    _p_import_line(importing)
    frame, name, calls, now, made = importing
    _S["graves"].append(_S["importing"].pop(id(frame), None))
    if _S["snippet_calls"] != calls or made is None or made is _c_MISSING or made is not now \
            or not _p_is_module(made):
        return
    kind = type(made)
    if _c_type_flags(kind) & _c_HEAPTYPE and not _p_trusted_class(kind):
        return
    modules = _S["modules"]
    for index in range(len(modules)):
        if modules[index][0] == name and modules[index][1] is not made:
            modules[index] = (name, made)
            space = _c_module_dict(made)
            _S["spaces"].append((name, made, _c_dict_copy(space), kind is not _c_ModuleType, frozenset()))


def _p_follow_reader(frame: Any) -> None:
    """Trusted code that took a frame object (the library's, an installed package's, Python's reaching it for
    them): not the snippet taking it, as long as it hands the snippet none. Followed to its return, where
    what it returns or leaves in its arguments is looked at (`_p_reader_return`)."""
    readers = _S["readers"]
    if _c_dict_get(readers, id(frame)) is frame:
        return
    readers[id(frame)] = frame
    if frame.f_trace is None:
        frame.f_trace_lines = False
    frame.f_trace = _S["trace"]


def _p_reader_return(frame: Any, value: Any) -> None:
    """A frame that took a frame object returns (or yields) `value`: a frame in it, or in its arguments, goes to
    the frame it returns to. The snippet's code there is handed it; trusted code there is followed in turn."""
    if not _p_one_of(_p_opname(frame.f_code, frame.f_lasti), ("YIELD_VALUE",)):  # a generator may take more
        _S["graves"].append(_S["readers"].pop(id(frame), None))
    budget = [_c_FRAME_BUDGET]
    if not _p_holds_frame(value, _c_FRAME_DEPTH, budget) and not _p_args_hold_frame(frame, frame.f_code, budget) \
            and not _p_space_holds_frame(frame.f_globals):
        return
    receiver = frame.f_back
    if receiver is None:
        return
    if not _p_untrusted_code(receiver.f_code):
        _p_follow_reader(receiver)
        return
    _p_tamper("observer", "was handed a frame object by trusted code (" + frame.f_code.co_qualname + "), whose "
                          "trace function (f_trace) would run the snippet's code unseen")


def _p_call_checks(frame: Any, slot: dict[str, Any]) -> None:
    """At every call: the function's globals, the builtins, the attributes its code reads, as they were."""
    if frame.f_globals is not slot["globals"]:
        _p_tamper("replaced", slot["label"] + " (run with globals of the snippet's)")
    if frame.f_builtins is not _S["builtins"]:
        _p_tamper("replaced", "builtins (for " + slot["label"] + ")")
    for space, key, value, label in slot["reads"]:
        if _c_dict_get(space, key, _c_MISSING) is not value:
            _p_tamper("replaced", label)
    function = slot["function"]
    if function is not None and (_c_func_defaults(function) is not slot["defaults"]
                                 or _c_func_kwdefaults(function) is not slot["kwdefaults"]):
        _p_tamper("replaced", slot["label"] + " (its default arguments)")
    _p_scan_shadows()


def _p_exception(record: list[Any], frame: Any, arg: Any) -> None:
    """An exception in a followed frame; where it *started* (the traceback so far is this frame
    alone: a `raise` here, or C code called from here), it is kept and announced, with its text
    and what it concerned, as they are now."""
    if type(arg) is not tuple or len(arg) != 3:
        return
    error, tb = arg[1], arg[2]
    if record[3] is not None:
        _S["graves"].append(record[3])
    record[3] = error
    # Counted here, before the observer keeps it anywhere else: held by this frame's `error` and `record[3]` alone.
    unreferenced = _p_unreferenced(error, 2)
    if type(tb) is not _c_TracebackType or tb.tb_frame is not frame:
        return
    deepest = tb if tb.tb_next is None else (_p_beneath(record, tb) or _p_wrapped_refusal(record, tb))
    if deepest is None:
        return
    refs, held = _S["refs"], _S["held"]
    known = _c_dict_get(refs, id(error))
    if known is not None and held[known] is error:
        return
    if len(held) >= _c_MAX_RECORDS:
        return
    number = len(held)
    held.append(error)
    refs[id(error)] = number
    index = record[1]
    started = deepest.tb_frame.f_code
    op = _p_opname(started, deepest.tb_lasti)
    if index >= 0:
        died = _p_fin_ran(record)
        if died is not None:
            _p_tamper("observer", "planted C code the interpreter ran inside " + _S["slots"][index]["label"]
                      + " with no frame (" + died + "), which may have chosen what it read before its error")
    if index >= 0 and (deepest is not tb or not _p_one_of(op, ("RAISE_VARARGS", "RERAISE"))):
        planted = _p_planted_under(frame, tb)  # not the function's own `raise`: C code, or code beneath it
        if planted is not None:
            _p_tamper("observer", "planted C code where " + _S["slots"][index]["label"] + " calls it (" + planted
                      + "), whose error would read as the library's")
    elif index >= 0 and _p_one_of(op, ("RAISE_VARARGS",)) and not _p_callback_ran(record):
        # The function's own `raise`: what it raises, and what it read to get there, may come from C code the snippet
        # planted on what it handed the call (a property over C code answering what the function just assigned; a
        # partial making the exception it raises), run with no frame. Searched in what the snippet handed the call
        # alone: Python's tables fill as trusted code runs (typing's cache of a `Literal` alias a lazy import made,
        # read as planted at an honest entry's own `raise`, round thirteen). Not where a callback the entry declares
        # ran inside this very call: the snippet's own code may steer the call there anyway, the reviewer's. A
        # declared callback that did not run there steers nothing (skipping the search wherever one was declared
        # passed a planted pair beside any callback, round twenty-two).
        planted = _p_planted_handed(frame)
        if planted is not None:
            _p_tamper("observer", "planted C code in what the snippet handed " + _S["slots"][index]["label"] + " ("
                      + planted + "), which may choose what it read before its own `raise`, or what it raised")
    elif index < 0 and _p_users_error(record, frame, op):
        planted = _p_planted_under(frame, tb)
        if planted is not None:
            _p_tamper("observer", "planted C code where its own code, called by the library, runs into it ("
                      + planted + "), whose error would read as Python's")
    if index >= 0:
        handed = _p_handed_error(frame, error, tb, unreferenced, _p_error_made_in_call(record, error))
        if handed is not None:
            _p_tamper("observer", "handed " + _S["slots"][index]["label"] + " " + handed + ", which trusted code "
                      "raised as it was given (in " + started.co_qualname + "): its error would read as the library's")
    if index >= 0 and deepest is not tb:
        handed = _p_handed_generator(frame, tb)
        if handed is not None:
            _p_tamper("observer", "planted " + handed + " over data of its own where " + _S["slots"][index]["label"]
                      + " resumes it, whose error would read as the library's")
    module = _c_dict_get(frame.f_globals, "__name__")
    _p_emit({"e": "raised", "r": number, "w": index, "where": "beneath" if deepest is not tb else record[6],
             "code": started.co_qualname, "type": _p_name(type(error)),
             "qualified": _p_qualified(type(error)), "message": _p_read_message(error), "line": tb.tb_lineno,
             "op": op, "file": frame.f_code.co_filename, "module": module if type(module) is str else None,
             "api": _p_api_facts(error, frame, op, tb.tb_lasti, deepest is not tb) if index < 0 else None})


def _p_fin_kind(kind: Any) -> Any:
    """What an object of `kind` may run with no frame when it dies: `_c_FIN_REFERENCE` for a weak reference (its
    callback, when its referent dies), the words for a class of the snippet's whose `__del__` is not its own Python
    code (`_p_fin_del`), else None (C types' own finalizers are trusted code: only a class made at run time has a
    `__del__` of Python's choosing)."""
    mro = _c_mro(kind)
    if _p_in(_c_WeakrefType, mro) or _p_in(kind, _c_PROXY_TYPES):
        return _c_FIN_REFERENCE
    if not _c_type_flags(kind) & _c_HEAPTYPE:
        return None
    return _p_fin_del(mro)


def _p_fin_del(mro: Any) -> str | None:
    """The `__del__` the class (its MRO) resolves to, where a class of the snippet's holds it and it is not a plain
    function of the snippet's own code (that starts a frame, seen as its code running inside the call): a partial, a
    C callable, a property over one (the interpreter calls its `__get__` on the dying object), a trusted function
    handed the object as `self`. A `__del__` a trusted class defines is the library's own."""
    for klass in _c_tuple_iter(mro):
        found = _c_proxy_get(_c_type_dict(klass), "__del__", _c_MISSING)
        if found is _c_MISSING:
            continue
        if _p_trusted_class(klass):
            return None
        function = _p_function_of(found)
        if type(function) is _c_FunctionType and _p_untrusted_code(_c_func_code(function)):
            return None
        return "the `__del__` of its class " + _p_qualname(klass) + ", " + _p_qualname(type(found))
    return None


def _p_fin_callable(value: Any) -> str | None:
    """A weak reference's callback as the interpreter runs it when the referent dies: None where it is Python code (a
    frame starts: the snippet's is seen as its code running inside the call, a trusted one is the library's, such as a
    `WeakValueDictionary`'s), a partial or a `weakref.finalize` over Python code (whatever data it binds: a trusted
    function's frame is read as the library's, as a runtime's own finalizers are), or C code's own callback
    (`_p_fin_c_own`); else its words: C code chosen for it (a partial or a finalize over a C callable, a C method bound
    to an object, a callable object of a C type)."""
    kind = type(value)
    if _p_fin_python(value):
        return None
    if _p_in(_c_partial, _c_mro(kind)):
        function = _c_partial_parts[0](value)
        return None if _p_fin_python(function) else "a partial over " + _p_qualname(type(function))
    if kind is _c_finalize:
        info = _c_dict_get(_c_finalize_registry, value)
        if info is None:  # called or detached already: it runs nothing
            return None
        function = _c_finalize_parts[0](info)
        if not _p_fin_python(function):
            return "a weakref.finalize of " + _p_qualname(type(function))
        if _c_dict_get(_S["fin"]["library"], id(value)) is value:
            return None
        bound = _p_fin_bound(function, _c_finalize_parts[1](info), _c_finalize_parts[2](info))
        return None if bound is None else "a weakref.finalize the snippet made, binding " + bound + " to " \
            + _p_qualname(type(function))
    if kind is _c_BuiltinFunctionType and _p_fin_c_own(value):
        return None
    return _p_qualname(kind)


def _p_fin_made(frame: Any) -> None:
    """A `weakref.finalize` starts (its `__init__`, `frame`): kept as trusted code's (`fin`'s `library`) where the first
    frame outward that is not Python's own library is a trusted file's (a runtime's operator library finalizing its
    registrations with data of its own), else it is the snippet's binding, whatever function it binds
    (`_p_fin_callable`): its own code, Python's (`tempfile`'s finalizer, the snippet's call), or a thread of Python's
    with no code of anyone's (`Thread.run` with a target and data the snippet chose, down to the observer's
    `thread_bootstrap`). A finalize
    that no `__init__` made (`object.__new__`, its registry filled by hand) is no trusted code's either."""
    made = _c_dict_get(frame.f_locals, "self")
    if type(made) is not _c_finalize:  # a subclass: armed by its class's words (`_p_fin_callable`)
        return
    trusted, caller, first = _S["trusted_roots"], frame.f_back, _c_func_code(_S["bootstrap"])
    while caller is not None:
        code = caller.f_code
        path = code.co_filename
        if code is first:  # a thread's first frame (`thread_bootstrap`): nothing but Python's own library in it
            return
        if path.startswith("<frozen "):
            if _p_reads_trusted_file(caller, code):  # a trusted module's import: its top level made it
                break
        elif not _p_in_stdlib(path):
            if _p_untrusted_code(code) or not _p_in_roots(path, trusted):
                return
            break
        caller = caller.f_back
    if caller is None:
        return
    _S["fin"]["library"][id(made)] = made


def _p_fin_bound(function: Any, args: Any, keywords: Any) -> str | None:
    """What a finalize the snippet made binds to the Python function it calls that the snippet chose (its words), else
    None: plain data alone (a string, a number, bytes, None, tuples of such, a trusted class a classmethod is bound
    to: `tempfile`'s own cleanup of a folder the snippet named) chooses nothing a library's function reads."""
    held: list[Any] = list(_c_tuple_iter(args)) if type(args) is tuple else [args]
    if type(keywords) is dict:
        held.extend([pair[1] for pair in _c_list_iter(list(_c_dict_items(keywords)))])
    elif keywords is not None:
        held.append(keywords)
    if type(function) is _c_MethodType:
        owner = _c_method_self(function)
        if not (_p_in(type, _c_mro(type(owner))) and _p_trusted_class(owner)):
            held.append(owner)
    budget = [64]
    while held:
        item = held.pop()
        kind = type(item)
        budget[0] -= 1
        if budget[0] < 0:
            return "more than it can read"
        if kind is tuple:
            held.extend(list(_c_tuple_iter(item)))
        elif not (item is None or kind is str or kind is int or kind is float or kind is bool or kind is bytes):
            return "an object of " + _p_qualname(kind)
    return None


def _p_fin_python(function: Any) -> bool:
    """A plain function, or a method over one: Python code, run in a frame of its own when called."""
    kind = type(function)
    return kind is _c_FunctionType or (kind is _c_MethodType and type(_c_method_func(function)) is _c_FunctionType)


def _p_fin_c_own(function: Any) -> bool:
    """A C function that is C code's own weak reference callback, or a module's: bound to nothing, to a module, to a
    weak reference (`_abc`'s registries, `_thread._local`'s dummies: what they hold is found through it and the
    reference they are handed, never the snippet's), or to an extension's record of it (a pybind11 function's:
    `keep_alive`, its type cache). Called with the dead reference alone, it changes nothing the snippet chose; a C
    method bound to an object (`store.__dict__.clear`, a list's `append`) is chosen with its object."""
    bound = _c_builtin_self(function)
    kind = type(bound)
    if bound is None or _p_is_module(bound) or kind is _c_WeakrefType:
        return True
    name = _c_type_name(kind)
    return not _c_type_flags(kind) & _c_HEAPTYPE and (name == "PyCapsule" or name.startswith("pybind11_"))


def _p_fin_arm() -> None:
    """Arm what may run planted code with no frame when it dies inside the watched call about to start: each object
    the collector lists (in a forked check, what was made since the zygote froze its own) that is of a class of the
    snippet's with a planted `__del__` (`_p_fin_del`), or the referent of a weak reference (or proxy) whose callback
    is not Python code (`_p_fin_callable`), gets a weak reference of the observer's own (`fin`'s `armed`); whether it
    died, or was finalized and lived on (a `__del__` that kept it), since the call began is read where an error starts
    (`_p_fin_ran`). An object the observer cannot refer to weakly fails closed; so does the snippet's freeze of the
    collector (`gc_freeze`: what it froze is listed no more). Walked are the objects made since the last arming alone
    (`_p_fin_young`), and what an object made before may run as it dies that changed since (`_p_fin_changed`)."""
    fin = _S["fin"]
    armed, verdicts = fin["armed"], fin["kinds"]
    _c_dict_clear(verdicts)  # a class's `__del__` may have changed since the last call: read again once per arming
    library = fin["library"]
    for key, kept in _c_list_iter(list(_c_dict_items(library))):  # the library's finalizers that ran (or were
        if _c_dict_get(_c_finalize_registry, kept) is None:  # detached) let go: their addresses may be used again
            del library[key]
    objects, full = _p_fin_young(fin)
    if full:
        fin["alive"] = {}
    alive: dict[int, None] = fin["alive"]
    known, watch = fin["known"], fin["watch"]
    for value in _c_list_iter(objects):
        kind = type(value)
        # Keyed by the class itself where its metaclass is `type` (hashed by address, in C: no `id()`, whose audit
        # event per object tripled the walk), else read each time (a metaclass's `__hash__` may be the snippet's).
        plain = type(kind) is type
        verdict = _c_dict_get(verdicts, kind) if plain else None
        if verdict is None:
            verdict = (kind, _p_fin_kind(kind), _p_in(BaseException, _c_mro(kind)))
            if plain:
                verdicts[kind] = verdict
            if verdict[1] is None and _c_type_flags(kind) & _c_HEAPTYPE:
                _p_fin_know(known, kind)  # its `__del__` may be planted later: read again at each arming
        if verdict[2]:
            alive[id(value)] = None
        words = verdict[1]
        if words is None:
            continue
        target = value
        if words is _c_FIN_REFERENCE:
            if _p_in(kind, _c_PROXY_TYPES):
                held = _c_get_referents(value)  # a proxy's callback, which its C traversal alone lists
                callback = held[0] if held else None
            else:
                callback = _c_ref_callback(value)
            if callback is None:
                continue
            words = _p_fin_callable(callback)
            if words is None and not _p_fin_changeable(callback):
                continue
            target = _p_referent(value)
            if target is None:
                continue
            if target is _c_UNREADABLE:
                _p_tamper("observer", "made a weak reference whose referent cannot be read, so cannot be watched")
                continue
            if words is None:
                _p_fin_watch(watch, value, callback, target)  # a partial's or a finalize's parts may change later
                continue
            words = "a weak reference's callback, " + words
        _p_fin_mark(armed, target, words)
    for entry in _c_list_iter(list(_c_dict_values(watch))):  # callbacks read as trusted when first walked
        callback, target = entry[1](), entry[2]()
        if callback is None or target is None:
            _c_dict_pop(watch, entry[0], None)
            continue
        words = _p_fin_callable(callback)
        if words is not None:
            _p_fin_mark(armed, target, "a weak reference's callback, " + words)
    if full or fin["stale"]:
        _p_fin_know_again(fin)  # the versions the next arming compares with: as this walk read the classes
    ident = _c_get_ident()
    fin["errors"][ident] = (alive, _c_dict_get(_S["callbacks_run"], ident, 0), _p_alone(ident))


def _p_fin_changeable(callback: Any) -> bool:
    """A callback whose parts may be changed after it was read (a partial's `__setstate__`, a finalize's registry
    record); a function, a bound method, C code's own callback run what they ran when made."""
    kind = type(callback)
    return kind is _c_finalize or _p_in(_c_partial, _c_mro(kind))


def _p_fin_mark(armed: dict[int, Any], target: Any, words: str) -> None:
    entry = _c_dict_get(armed, id(target))
    if entry is not None and entry[0]() is target:
        return
    try:
        marker = _c_weakref(target)
    except TypeError:
        _p_tamper("observer", "made an object that runs " + words + " as it dies and that the verifier cannot "
                              "watch (no weak reference to it)")
        return
    armed[id(target)] = [marker, words, None]


def _p_fin_young(fin: dict[str, Any]) -> tuple[list[Any], bool]:
    """What the arming walks (`_p_fin_arm`), and whether it is all the collector lists: the collector's generations
    hold what was made since the last walk in the youngest ones alone while no older generation was collected since
    (each collection moves what survives one generation older); else, at the first arming, where an object made
    before may now run planted code that nothing new shows (`_p_fin_changed`), or where generations cannot be read
    so (another interpreter), all of it, as before. The observer collects nothing while it runs."""
    # (Not `gc.get_freeze_count`, which counts the zygote's frozen objects one by one: its `gc.unfreeze` is a stand-in.)
    stats = [entry["collections"] for entry in _c_list_iter(_c_gc_get_stats())]
    seen = fin["seen"]
    fin["seen"] = stats
    if not _c_GENERATIONS or seen is None or len(seen) != 3 or seen[1:] != stats[1:] or _p_fin_changed(fin):
        fin["dirty"] = False
        fin["stale"] = True
        fin["full"] += 1
        return _c_get_objects(), True
    fin["young"] += 1
    if seen[0] == stats[0]:
        return _c_get_objects(0), False
    objects: list[Any] = _c_get_objects(0)
    objects.extend(_c_get_objects(1))
    return objects, False


def _p_fin_changed(fin: dict[str, Any]) -> bool:
    """Whether an object made before the last walk may now run planted code as it dies, though it was not armed then:
    its class given another (`__class__`, `__bases__`: audited, `fin`'s `dirty`), or a class known from a walk
    (`fin`'s `known`: the classes, of the snippet's or trusted, whose `__del__` was not planted then) given a planted
    `__del__` since (its namespace, or one of its bases', written: read by the dicts' versions, then their
    `__del__` again). A weak reference's callback that may change is read again at every arming (`fin`'s `watch`)."""
    if fin["dirty"]:
        return True
    known = fin["known"]
    if not known:
        return False
    addresses, versions = fin["addresses"], fin["versions"]
    if any(map(_c_is, map(_c_call_ref, fin["known_refs"]), _c_repeat(None))):
        # A known class died: its namespace's address may be used again, so none is read; the `__del__` of those alive
        # is read again instead (the addresses are read again as this arming ends).
        fin["stale"] = True
        for entry in _c_list_iter(list(_c_dict_values(known))):
            kind = entry[0]()
            if kind is not None and _p_fin_kind(kind) is not None:
                return True
        return False
    now = [_p_version(address) for address in _c_list_iter(addresses)] if fin["reader"] is None else fin["reader"]()
    if type(now) is not list:
        now = list(now) if type(now) is tuple else [now]
    if now == versions:
        return False
    fin["versions"] = now
    for entry in _c_list_iter(list(_c_dict_values(known))):
        kind = entry[0]()
        if kind is not None and _p_fin_kind(kind) is not None:
            return True
    return False


def _p_fin_know(known: dict[int, Any], kind: Any) -> None:
    """Keep `kind` (weakly: the observer holds no class of the snippet's alive) among the classes whose `__del__` is
    read again at each arming (`_p_fin_changed`)."""
    entry = _c_dict_get(known, id(kind))
    if entry is not None and entry[0]() is kind:
        return
    try:
        known[id(kind)] = (_c_weakref(kind),)
    except TypeError:
        return
    _S["fin"]["stale"] = True


def _p_fin_know_again(fin: dict[str, Any]) -> None:
    """The known classes alive, and the addresses and versions of their namespaces and their bases' made at run time
    (`gc.get_referents` of the mapping proxy: the very dict, whose version every write changes)."""
    known = fin["known"]
    seen: dict[int, None] = {}
    addresses: list[int] = []
    for key, entry in _c_list_iter(list(_c_dict_items(known))):
        kind = entry[0]()
        if kind is None:
            del known[key]
            continue
        for klass in _c_tuple_iter(_c_mro(kind)):
            if not _c_type_flags(klass) & _c_HEAPTYPE or _c_dict_get(seen, id(klass)) is not None:
                continue
            seen[id(klass)] = None
            addresses.append(id(_c_get_referents(_c_type_dict(klass))[0]) + _c_VERSION_OFFSET)
    fin["known_refs"] = [entry[0] for entry in _c_list_iter(list(_c_dict_values(known)))]
    fin["addresses"] = addresses
    fin["versions"] = [_p_version(address) for address in _c_list_iter(addresses)]
    memory, reader = _S["memory"], None
    if memory is not None and len(addresses) >= 2 \
            and not any(map(_c_mod, addresses, _c_repeat(8))) and min(addresses) >= 8:
        # One C call reads them all (`_version_reader`'s way: an item getter over the private view of memory).
        reader = _c_partial(_c_itemgetter(*[(address - 8) >> 3 for address in _c_list_iter(addresses)]), memory)
    fin["reader"] = reader
    fin["stale"] = False


def _p_fin_holder(made: Any) -> Callable[[], Any]:
    """A stand-in for a weak reference to a finalize (which allows none): it while registered, else None."""
    return lambda: made if _c_dict_get(_c_finalize_registry, made) is not None else None


def _p_fin_watch(watch: dict[Any, Any], reference: Any, callback: Any, target: Any) -> None:
    """Keep a weak reference's callback that reads as trusted code now but whose parts may be changed later (a
    partial's `__setstate__`, a finalize's registry record), with its referent, weakly, to be read again at every
    arming (`_p_fin_arm`). A finalize, which no weak reference can point to, is held while it is registered."""
    kind = type(callback)
    key = (id(reference), id(callback), id(target))
    entry = _c_dict_get(watch, key)
    if entry is not None and entry[1]() is callback and entry[2]() is target:
        return
    if kind is _c_finalize:
        holder: Any = _p_fin_holder(callback)
    else:
        try:
            holder = _c_weakref(callback)
        except TypeError:
            return
    try:
        watch[key] = (key, holder, _c_weakref(target))
    except TypeError:
        return


def _p_fin_tally() -> int:
    """How many armed objects (`_p_fin_arm`) have died, or been finalized and lived on, so far: each counted once,
    the count's last words kept (`fin`'s `last`); the dead are let go (their addresses may be used again)."""
    fin = _S["fin"]
    armed = fin["armed"]
    for key, entry in _c_list_iter(list(_c_dict_items(armed))):
        target = entry[0]()
        if entry[2] is None and (target is None or _c_is_finalized(target)):
            fin["count"] += 1
            entry[2] = fin["count"]
            fin["last"] = entry[1]
        if target is None:
            del armed[key]
    count: int = fin["count"]
    return count


def _p_fin_ran(record: list[Any]) -> str | None:
    """Whether an armed object died (or was finalized) since the watched call `record` follows began: its planted
    finalizer ran inside the call with no frame, and may have changed what the function read (the words), else
    None."""
    before = record[8]
    return _S["fin"]["last"] if _p_fin_tally() > before else None


def _p_error_made_in_call(record: list[Any], error: Any) -> bool:
    """Whether the exception was made inside the thread's outermost watched call, so the snippet never handed it one:
    not among the exceptions the collector listed as that call began (`_p_fin_arm`: in a forked check, every one made
    since the zygote froze its own, so every one the snippet made), with the calling thread alone throughout (no other
    thread of the snippet's could make one meanwhile) and no frame of the snippet's started in it since (a callback,
    declared or not, returning one it made). The library keeping the error it made on an argument, then raising it
    from there (`self.error = ValueError(...)`; `raise self.error`), is the library's. An address reused by a new
    exception reads as one alive then (searched, as before)."""
    ident = record[2]
    taken = _c_dict_get(_S["fin"]["errors"], ident)
    if taken is None:
        return False
    alive, callbacks, epoch = taken
    return epoch is not None and _p_alone(ident) == epoch \
        and _c_dict_get(_S["callbacks_run"], ident, 0) == callbacks \
        and _c_dict_get(alive, id(error), _c_MISSING) is _c_MISSING


def _p_unreferenced(error: Any, own: int) -> bool:
    """Whether nothing but the interpreter, as it tells the tracer of `error` (`raised_refs`), and `own` references of
    the observer's (its caller's) holds the exception: no object refers to it, strongly (every such reference is
    counted in its reference count) nor weakly (`weakref.getweakrefcount`; a weak reference is what the planted walk
    follows that the count does not show), so no walk from any root can reach it (`_p_handed_error` needs none). An
    exception the snippet made and handed the call is held by what it handed it in (an argument, a list, a class, a
    future, a value returned into the call) while it is raised. False where the count was not measured."""
    floor = _S["raised_refs"]
    if floor is None:
        return False
    # `error` here is one more reference than the caller's own (this frame's argument), as `sys.getrefcount`'s argument
    # was in the measurement.
    return _c_getrefcount(error) == floor + own + 1 and _c_getweakrefcount(error) == 0


def _p_handed(frame: Any, check: Callable[[Any, Any, list[Any] | None, Any], Any], context: Any) -> str | None:
    """What the snippet handed a watched call, searched with `check` (`_p_walk`): the function's arguments, and inside
    them; what its code returned into the call (`_p_keep_returned`); what it put in a trusted module's or class's name
    (`_p_rebound`); Python's tables and the runtime's held state, which it fills. An object trusted code made while
    the call ran, in its own locals, is reached from none of these unless it stored it in an argument (a possible
    false tamper). The found object's words, or None; a search that cannot finish fails closed."""
    roots, answer = _p_handed_roots(frame, True)
    return answer if answer is not None else _p_handed_walk(roots, check, context, True)


def _p_handed_by_hand(frame: Any, check: Callable[[Any, Any, list[Any] | None, Any], Any], context: Any) -> str | None:
    """`_p_handed` over what the snippet handed the call by hand alone: its arguments and what its code returned into
    it, never a trusted name, Python's tables nor the runtime's held state (trusted code fills those as it runs: a
    runtime's export rebinding builtins to partials)."""
    roots, answer = _p_handed_roots(frame, False)
    return answer if answer is not None else _p_handed_walk(roots, check, context, False)


def _p_handed_counted(frame: Any, check: Callable[[Any, Any, list[Any] | None, Any], Any], context: Any,
                      unreferenced: bool, made: bool = False) -> str | None:
    """`_p_handed` for the handed-error search (`_p_handed_error`), whose answers the end event tells apart
    (`searched`): `unreferenced`, what the walk looks for is held by nothing, so no root reaches it
    (`_p_unreferenced`); else `made`, it was made inside the call, so the snippet handed it nowhere
    (`_p_error_made_in_call`); either way none is walked (the trusted names the snippet rebound are still read, and
    fail closed)."""
    roots, answer = _p_handed_roots(frame, True)
    if answer is not None:
        return answer
    if unreferenced:
        _S["searched"]["unreferenced"] += 1
        return None
    if made:
        _S["searched"]["made"] += 1
        return None
    _S["searched"]["handed"] += 1
    return _p_handed_walk(roots, check, context, True)


def _p_handed_roots(frame: Any, rebound: bool) -> tuple[list[Any], str | None]:
    """Where the searches of what the snippet handed a call start: the function's arguments and what its code returned
    into the call; with `rebound`, what a trusted name now holds instead of its own is read first (a class attribute
    the snippet set). With the search's answer where it cannot start (else None): a name rebound to code of the
    snippet's stops that reading at the first one found (that alone fails closed), and so do too many values
    returned."""
    roots = _p_arguments(frame, frame.f_code)
    found = _p_rebound(roots) if rebound else None
    if found is not None:
        return roots, "what it rebound a trusted name to (" + found + "), past which the search cannot read"
    returned = _c_dict_get(_S["returned"], _c_get_ident())
    if returned is not None:
        if len(returned) > _c_RETURNED_MAX:
            return roots, ("one of more than " + _c_int_repr(_c_RETURNED_MAX)
                           + " values its code returned into the call")
        roots.extend(returned)
    return roots, None


def _p_handed_walk(roots: list[Any], check: Callable[[Any, Any, list[Any] | None, Any], Any], context: Any,
                   tables: bool) -> str | None:
    """`_p_walk` from `roots`, with Python's tables and the runtime's held state where `tables`: the found object's
    words, or None; a walk that cannot finish fails closed."""
    if tables:
        roots.extend(_p_table_entries())
        roots.extend(_p_runtime_held())
    found = _p_walk(roots, _c_PLANT_BUDGET, check, context)
    if found is _c_EXHAUSTED:
        return "one of more than " + _c_int_repr(_c_PLANT_BUDGET) + " objects, too many to search"
    if found is _c_UNREADABLE:
        return "a weak reference whose referent cannot be read, so cannot be searched"
    if found is _c_PUT_BACK:
        return _c_PUT_BACK_WORDS
    return found if type(found) is str else None


def _p_handed_error(frame: Any, error: Any, tb: Any, unreferenced: bool = False, made: bool = False) -> str | None:
    """A `raise` of an exception object (in the watched function's frame, or beneath it) raises what it holds, whoever
    made it, and C code re-raises what the object it works on holds (a failed future's `result`): one the snippet
    made and handed the function (`lib.call(ErrorHandler().error, ValueError(text))`, whose `raise exception`
    re-raises its argument) starts there with the snippet's class and text. Told by where it is reached from: among
    what the snippet handed the call (`_p_handed`). An object of the runtime's that keeps what no traversal lists
    (the plug's `opaque`: a runtime future, whose C++ keeps a failed one's exception and hands it to the code that
    raises it) may hold it unseen: handed, and held by a frame beneath the function on the error's way (the future's
    own `wait`), it fails closed. `unreferenced` (`_p_unreferenced`): nothing holds the exception, so it is looked
    for in nothing, unless a frame on its way holds such an opaque object; so is one `made` inside the call
    (`_p_error_made_in_call`)."""
    receivers: list[Any] = []
    below = tb.tb_next
    while type(below) is _c_TracebackType:
        for _, value in _c_list_iter(list(_c_dict_items(_S["locals_of"](below.tb_frame)))):
            if _p_opaque(type(value)):
                receivers.append(value)
        below = below.tb_next
    return _p_handed_counted(frame, _p_is_check, (error, receivers), unreferenced and not receivers,
                             made and not receivers)


def _p_is_check(value: Any, kind: Any, items: list[Any] | None, context: tuple[Any, list[Any]]) -> str | None:
    """`_p_walk`'s question for `_p_handed_error`: the very exception object, or an opaque object of the runtime's
    that a frame on the error's way holds."""
    if value is context[0]:
        return "the very exception (" + _p_name(kind) + ") it raised"
    if _p_in(value, context[1]):
        return "a " + _p_name(kind) + " (which may hold the exception it raised unseen)"
    return None


def _p_handed_generator(frame: Any, tb: Any) -> str | None:
    """An error that started beneath the function on its way through a suspended frame of trusted code (a generator,
    a coroutine) whose generator the snippet made and handed the call (`lib.call(next, lengths([5]))`): calling a
    generator function binds the data it is handed to that code, as a partial does, and no event says who called
    it; the function only resumed it. Told by where it is reached from (`_p_handed`): a generator object of the
    frame's very code among what the snippet handed the call. (`model.parameters()` handed to the library is such
    a generator too: an error starting inside it is read so, failing closed.)"""
    codes: list[Any] = []
    below = tb.tb_next
    while type(below) is _c_TracebackType:
        code = below.tb_frame.f_code
        if code.co_flags & _c_GENERATOR_FLAGS:
            codes.append(code)
        below = below.tb_next
    if not codes:
        return None
    return _p_handed(frame, _p_generator_check, codes)


def _p_generator_check(value: Any, kind: Any, items: list[Any] | None, codes: list[Any]) -> str | None:
    """`_p_walk`'s question for `_p_handed_generator`: a generator (a coroutine, an async generator) of `codes`."""
    for generator_type, code_of in _c_tuple_iter(_c_GENERATOR_CODES):
        if kind is generator_type:
            code = code_of(value)
            return "a generator of " + code.co_qualname if _p_in(code, codes) else None
    return None


def _p_callback_ran(record: list[Any]) -> bool:
    """A callback the entry declares ran inside the call `record` follows: a frame of the snippet's code started in its
    thread since the call began (or last resumed; its thread's count moved), while it ran there."""
    return bool(_S["callbacks"]) and _c_dict_get(_S["callbacks_run"], record[2], 0) != record[7]


def _p_users_error(record: list[Any], frame: Any, op: Any) -> bool:
    """An error Python raises in the snippet's own code while a watched call runs in its thread, where that code
    is declared (`source.user_code`, a callback): not its `raise`, so an instruction of its own failing, which is
    what a `user_code` entry documents, or C code it reached (judged, or looked for as planted)."""
    if record[6] != "snippet" or not _S["callbacks"] or _p_one_of(op, ("RAISE_VARARGS", "RERAISE")):
        return False
    return _c_dict_get(_S["active"], record[2], 0) > 0 and frame is not None


def _p_beneath(record: list[Any], tb: Any) -> Any:
    """For an exception passing through a frame of a watched function: the traceback entry where it
    started, when every frame between is the library's, the runtime's or a backend's own code, or
    Python's (an error Python or the runtime raises under the function, such as a tensor's `__len__`);
    else None. Another installed package is none of these, wherever it lies. Code compiled by the
    snippet under those files' names is tampering (the protected roots)."""
    if record[1] < 0:
        return None
    roots = _S["beneath_roots"]
    below = tb.tb_next
    deepest = None
    while below is not None:
        if type(below) is not _c_TracebackType:
            return None
        path = below.tb_frame.f_code.co_filename
        if not _p_in_roots(path, roots) and not _p_in_stdlib(path):
            return None
        deepest = below
        below = below.tb_next
    return deepest


def _p_wrapped_refusal(record: list[Any], tb: Any) -> Any:
    """A snippet's call that no longer binds, refused inside the library's own decorator wrappers
    of the function (4.45's `deprecate_kwarg` around `DynamicCache.__init__`) where the innermost
    calls the real one: the traceback entry of that wrapper when every frame under the snippet's
    is the next wrapper resolved before the snippet ran, each holding (in its frame and in its
    closure, unchanged) the very function it wraps; else None."""
    api = _S["api"]
    if record[1] >= 0 or record[6] != "snippet" or api is None or api["kind"] != "signature":
        return None
    wrappers = api["wrappers"]
    below = tb.tb_next
    for code, name, cell, inner in wrappers:
        if type(below) is not _c_TracebackType:
            return None
        frame = below.tb_frame
        if frame.f_code is not code or _c_dict_get(_S["locals_of"](frame), name, _c_MISSING) is not inner:
            return None
        try:
            if _c_cell_contents(cell) is not inner:
                return None
        except ValueError:
            return None
        if below.tb_next is None:
            return below
        below = below.tb_next
    return None


def _p_opname(code: Any, offset: Any) -> str | None:
    ops = code.co_code
    if type(offset) is not int or offset < 0 or offset >= len(ops):
        return None
    names = _S["opnames"]
    return names[ops[offset]] if ops[offset] < len(names) else None


def _p_return(ident: int, record: list[Any], frame: Any, value: Any) -> None:
    _S["graves"].append(_S["frames"].pop(id(frame), None))
    index = record[1]
    if frame is _S["top"] and _S["top_end"] is None:
        _S["top_end"] = "returned" if _p_returned_normally(frame) else "raised"
    if index < 0:
        if record[6] == "snippet" and _c_dict_get(_S["active"], ident, 0) > 0:
            _p_keep_returned(ident, value)
        if record[5] is not None:
            _p_override_return(ident, record[5], frame)
        return
    slot = _S["slots"][index]
    active = _S["active"]
    active[ident] = _c_dict_get(active, ident, 1) - 1
    if active[ident] <= 0:
        kept = _S["returned"].pop(ident, None)
        if kept is not None:
            _S["graves"].append(kept)
    _p_device_work(record[4], frame)
    if frame.f_lasti in slot["normal"]:
        _S["counts"][index][1] += 1
        return
    error = record[3]
    number = _c_dict_get(_S["refs"], id(error)) if error is not None else None
    if number is not None and _S["held"][number] is not error:
        number = None
    unwound = {"type": _p_name(type(error)) if error is not None else "?", "message": _p_read_message(error),
               "qualified": _p_qualified(type(error)) if error is not None else None, "r": number}
    _S["unwound"][index].append(unwound)
    if _S["records"] < _c_MAX_RECORDS:
        _S["records"] += 1
        _p_emit({"e": "unwound", "w": index, **unwound})


def _p_keep_returned(ident: int, value: Any) -> None:
    """What the snippet's code returned (or yielded) into a watched call running in this thread: the planted
    search starts from it too (`_p_roots`), as it may live on the interpreter's value stack alone (a C iterator
    the library then iterates). Kept until the call returns; past `_c_RETURNED_MAX`, the search fails closed."""
    kind = type(value)
    if value is None or kind is str or kind is int or kind is float or kind is bool or kind is bytes:
        return
    kept = _c_dict_get(_S["returned"], ident)
    if kept is None:
        kept = _S["returned"][ident] = []
    if len(kept) <= _c_RETURNED_MAX:
        kept.append(value)


def _p_returned_normally(frame: Any) -> bool:
    """A 'return' event at a return (or yield) instruction: not a frame unwound by an exception."""
    name = _p_opname(frame.f_code, frame.f_lasti)
    return _p_one_of(name, ("RETURN_VALUE", "RETURN_CONST", "YIELD_VALUE"))


# -- what a removed name's or a changed signature's error concerned, read where it started -----------------


def _p_api_facts(error: Any, frame: Any, op: str | None, lasti: Any, wrapped: bool = False) -> dict[str, Any] | None:
    """What a removed name's or a changed signature's error concerned. Whether the name is absent, and
    what a call binds to, were decided before the snippet ran (`child._api_config`): here only
    identities are compared."""
    api = _S["api"]
    if api is None:
        return None
    owner, kind = api["owner"], api["kind"]
    absent = api["absent"] is True
    mro = _c_mro(type(error))
    if kind == "signature":
        return _p_call_facts(error, frame, op, api, mro, lasti, wrapped)
    if _p_in(ImportError, mro) and _p_one_of(op, ("IMPORT_NAME", "IMPORT_FROM")):
        module_name = _c_import_name(error)
        message = _p_message(error) or ""
        imported = None
        if message.startswith("cannot import name '"):
            imported = message[20:].partition("'")[0]
        module = _c_dict_get(_S["sys_modules"], module_name) if type(module_name) is str else None
        is_owner = _p_is_module(owner) and module is owner
        return {"via": "import", "owner_is_target": is_owner, "name": imported, "absent_in_target": is_owner and absent}
    if _p_in(AttributeError, mro):
        if _p_one_of(op, ("LOAD_ATTR", "LOAD_METHOD", "STORE_ATTR", "DELETE_ATTR")):
            target = _c_attribute_obj(error)
            asked = _c_attribute_name(error)
            if target is not None:
                return {"via": "attribute", "owner_is_target": _p_instance_of(target, owner),
                        "name": asked if type(asked) is str else None, "absent_in_target": absent}
        if _p_in(frame.f_code, _S["getattr_codes"]):
            local = _S["locals_of"](frame)
            target = _c_dict_get(local, "self", _c_MISSING)
            asked = _c_dict_get(local, "name")
            hook = _p_function_of(_p_class_attr(type(target), "__getattr__"))
            genuine = type(hook) is _c_FunctionType and _c_func_code(hook) is frame.f_code
            return {"via": "getattr" if genuine else None, "owner_is_target": genuine and _p_instance_of(target, owner),
                    "name": asked if type(asked) is str else None, "absent_in_target": absent}
    return {}


def _p_call_facts(error: Any, frame: Any, op: str | None, api: dict[str, Any], mro: Any, lasti: Any,
                  wrapped: bool = False) -> dict[str, Any]:
    """A call that no longer binds: raised by the interpreter at a call naming the library's function,
    where the object called *is* the library's (the class whose `__init__` is the library's, or the
    function itself), and the function still binds as it did before the snippet ran (its code and
    defaults). The object called is read from the calling frame's own bindings along the call's name
    or attribute chain; a call refused inside the library's own wrappers is proven by their frames
    instead (`_p_wrapped_refusal`: each the wrapper resolved before the snippet, holding the function)."""
    if not _p_in(TypeError, mro) or not _p_one_of(op, ("CALL", "PRECALL", "CALL_FUNCTION_EX", "CALL_KW")):
        return {}
    qualname = api["qualname"]
    message = _p_message(error)
    if type(qualname) is not str or type(message) is not str or not message.startswith(qualname + "()"):
        return {"via": "call"}
    called = wrapped or _p_called_the_library(_p_callee(frame, lasti, api), api)
    genuine = called and _p_binds_as_before(api)
    return {"via": "call", "owner_is_target": genuine, "name": api["name"], "absent_in_target": False}


def _p_callee(frame: Any, lasti: Any, api: dict[str, Any]) -> Any:
    """The object the call at `lasti` called, by its chain in the snippet's source (`identity.call_sites`)
    resolved in `frame` without running any code: `_c_MISSING` when it cannot be told."""
    site = _c_dict_get(api["call_sites"], id(frame.f_code))
    if site is None or site[0] is not frame.f_code:
        return _c_MISSING
    chain = _c_dict_get(site[1], lasti)
    if chain is None:
        return _c_MISSING
    value = _c_MISSING
    for space in (_S["locals_of"](frame), frame.f_globals, frame.f_builtins):
        if type(space) is dict:
            value = _c_dict_get(space, chain[0], _c_MISSING)
            if value is not _c_MISSING:
                break
    for attribute in chain[1:]:
        if value is _c_MISSING:
            return value
        value = _p_static_attr(value, attribute)
    return value


def _p_static_attr(value: Any, name: str) -> Any:
    """`value.name` as the interpreter would find it, read from dicts only (no descriptor, no
    `__getattr__` of the snippet's runs): a module's namespace, a class's MRO, or an instance's own
    `__dict__` (through a C descriptor only) then its class's MRO; `_c_MISSING` otherwise."""
    if _p_is_module(value):
        return _c_dict_get(_c_module_dict(value), name, _c_MISSING)
    if _p_in(type, _c_mro(type(value))):
        return _p_class_attr(value, name)
    getter = _p_class_attr(type(value), "__dict__")
    if getter is not _c_MISSING:
        if type(getter) is not _c_GetSetDescriptorType:
            return _c_MISSING
        own = getter.__get__(value)
        if type(own) is dict and _c_dict_get(own, name, _c_MISSING) is not _c_MISSING:
            return _c_dict_get(own, name)
    return _p_class_attr(type(value), name)


def _p_called_the_library(callee: Any, api: dict[str, Any]) -> bool:
    """The library's own function, or a class of the library's whose `__init__` (through its MRO) is the
    library's and whose instances are made by `type` itself (no metaclass of the snippet's between)."""
    function = api["function"]
    if callee is _c_MISSING:
        return False
    if api["name"] != "__init__":
        return _p_function_of(callee) is function
    if not _p_in(type, _c_mro(type(callee))) or not _p_instance_of(callee, api["owner"]):
        return False
    return _p_function_of(_p_class_attr(callee, "__init__")) is function and \
        _p_class_attr(type(callee), "__call__") is _c_type_call


def _p_binds_as_before(api: dict[str, Any]) -> bool:
    """The refused function's code and defaults are the very objects they were before the snippet ran."""
    refused, binding = api["refused"], api["binding"]
    if refused is None or binding is None:
        return False
    code, defaults, kwdefaults = binding
    return _c_func_code(refused) is code and _c_func_defaults(refused) is defaults \
        and _c_func_kwdefaults(refused) is kwdefaults


def _p_instance_of(value: Any, owner: Any) -> bool:
    """An instance of the library's class `owner` whose own class is the library's too (a look-alike,
    or a subclass written in the snippet, is not); or, for a name looked up on the class itself
    (`DynamicCache.from_legacy_cache`), that class or a library subclass of it."""
    kind = value if _p_in(type, _c_mro(type(value))) else type(value)
    if kind is owner:
        return True
    if not _p_in(owner, _c_mro(kind)):
        return False
    return _p_target_class(kind)


def _p_target_class(kind: Any) -> bool:
    """A class of the target's own: its functions compiled there, and its module (a file of the target's) binding it
    under its name."""
    if not _p_class_in_target(kind):
        return False
    module = _c_dict_get(_S["sys_modules"], _c_type_module(kind)) if type(_c_type_module(kind)) is str else None
    if not _p_is_module(module):
        return False
    space = _c_module_dict(module)
    path = _c_dict_get(space, "__file__")
    return _c_dict_get(space, _c_type_name(kind)) is kind and _p_in_roots(path, _S["target_roots"])


# -- the device, as the runtime's own counters say ---------------------------------------------------------


def _p_probe() -> int | None:
    """The runtime's counter of device work (bytes ever allocated), read through C functions only."""
    probe = _S["probe"]
    if probe is None:
        return None
    ready, reads = probe
    total = 0
    try:
        for gate, args in ready:
            if gate(*args):
                break
        else:
            return 0
        for read, args, path in reads:
            value = read(*args)
            for key in path:
                if type(value) is not dict:
                    return None
                value = _c_dict_get(value, key)
            if type(value) is not int:
                return None
            total += value
    except BaseException:
        return None
    return total


def _p_alone(ident: int) -> int | None:
    """The threads' epoch (bumped as any thread the observer started starts, runs its first line or ends) while the
    calling thread is the only one of Python's alive, none starting; else None."""
    threads = _S["threads"]
    if len(threads) != 1 or ident not in threads or _S["expected"] != 0:
        return None
    epoch: int = _S["thread_epoch"]
    return epoch


def _p_device_work(before: tuple[int | None, int | None], frame: Any) -> None:
    """The runtime's counter is the process's (every thread's work on the device), so a rise between a call's start
    and end is the call's only where no other thread the snippet could run was alive meanwhile: the calling thread
    alone at the start and the end, no thread started or ended between; and only where what the snippet handed the
    call holds no C code it planted, which runs inside the call with no frame (`partial(runtime.ones, n, device=...)`
    as the hook the function calls). A rise read otherwise is counted apart (`shared`, `planted`), never as the call's:
    a thread of the snippet's allocating on the device while the function ran on the CPU, or its planted hook, made a
    device after pass (round sixteen)."""
    reading, epoch = before
    after = _p_probe()
    if type(reading) is int and type(after) is int and after > reading:
        if epoch is None or _p_alone(_c_get_ident()) != epoch:
            _S["device_shared"] += 1
            return
        if _p_planted_handed(frame) is not None:
            _S["device_planted"] += 1
            return
        _S["device_bytes"] += after - reading
        _S["device_calls"] += 1


# -- the library's device work on the objects the function under test ran on -------------------------------------
# A function that allocates nothing (a cache's length, its batch size, an empty constructor) can do no device work of
# its own, however right the fix; the narrower claim its device check can rest on is the library's own work on the
# object it was called on (`self`): the runtime's counter read around the library's calls of methods of that object's
# own class, under the rules of `_p_device_work`, and no call's rise while the snippet's own code ran meanwhile.
# Work entry per object: [weak reference, bytes, calls, shared, planted, snippet, depth per thread].


def _p_defines(kind: Any, code: Any) -> bool:
    """Whether a class in `kind`'s MRO defines `code` under its own name: a method, a static or class method's
    function, or a property's getter, setter or deleter (read through C accessors, never the class's `__getattr__`)."""
    for cls in _c_tuple_iter(_c_mro(kind)):
        value = _c_proxy_get(_c_type_dict(cls), code.co_name, None)
        if value is None:
            continue
        if type(value) is _c_property:
            for part in _c_tuple_iter(_c_prop_parts):
                function = part(value)
                if type(function) is _c_FunctionType and _c_func_code(function) is code:
                    return True
            continue
        function = _p_function_of(value)
        if type(function) is _c_FunctionType and _c_func_code(function) is code:
            return True
    return False


def _p_library_object(frame: Any, code: Any) -> Any:
    """The object a library method's frame was called on (its first argument, as handed), where that object's own
    class is the library's (`_p_instance_of`'s rules: a class of the snippet's, or a look-alike, is not) and that
    class defines the method; else `_c_MISSING`."""
    value = _p_first_argument(frame, code)
    if value is _c_MISSING:
        return _c_MISSING
    kind = type(value)
    if _p_in(type, _c_mro(kind)) or not _p_target_class(kind) or not _p_defines(kind, code):
        return _c_MISSING
    return value


def _p_object_work(value: Any) -> list[Any] | None:
    """The work entry of a live object (made on first use; an id reused by a newer object gets a new one)."""
    table = _S["object_work"]
    entry: list[Any] | None = _c_dict_get(table, id(value))
    if entry is not None and entry[0]() is value:
        return entry
    try:
        ref = _c_weakref(value)
    except TypeError:  # an object no weak reference can follow: no evidence on it
        return None
    entry = [ref, 0, 0, 0, 0, 0, {}]
    table[id(value)] = entry
    return entry


def _p_object_call(ident: int, frame: Any, code: Any) -> None:
    """A library call on an object of the library's own: read the counter at its start, where no call on the same
    object is already being read in this thread (a nested one's work is the outer one's)."""
    value = _p_library_object(frame, code)
    if value is _c_MISSING:
        return
    entry = _p_object_work(value)
    if entry is None:
        return
    depth = entry[6]
    outer = _c_dict_get(depth, ident, 0) == 0
    depth[ident] = _c_dict_get(depth, ident, 0) + 1
    frame.f_trace = _S["trace"]
    frame.f_trace_lines = False
    start = (_p_probe(), _p_alone(ident), _S["snippet_calls"]) if outer else None
    _S["object_frames"][id(frame)] = (frame, entry, start)


def _p_object_return(ident: int, frame: Any, measured: tuple[Any, ...]) -> None:
    """The call's end (a return or an exception leaving it): its rise counted for the object, or apart, as in
    `_p_device_work`, and apart too where the snippet's own code ran meanwhile (a tensor subclass's override of
    the runtime's functions, a method of its subclass the library called)."""
    _S["graves"].append(_S["object_frames"].pop(id(frame), None))
    _, entry, start = measured
    depth = entry[6]
    depth[ident] = _c_dict_get(depth, ident, 1) - 1
    if start is None:
        return
    reading, epoch, calls = start
    after = _p_probe()
    if type(reading) is not int or type(after) is not int or after <= reading:
        return
    if epoch is None or _p_alone(_c_get_ident()) != epoch:
        entry[3] += 1
    elif _S["snippet_calls"] != calls:
        entry[5] += 1
    elif _p_planted_handed(frame) is not None:
        entry[4] += 1
    else:
        entry[1] += after - reading
        entry[2] += 1


def _p_subject(frame: Any, code: Any) -> None:
    """A call of the function under test: the library's object it was called on is one whose work may stand as its
    device evidence (`_p_object_evidence`)."""
    value = _p_library_object(frame, code)
    if value is _c_MISSING:
        return
    entry = _p_object_work(value)
    if entry is not None and not _p_in(entry, _S["subjects"]):
        _S["subjects"].append(entry)


def _p_object_evidence(device: dict[str, Any]) -> None:
    """The end's evidence on the objects the function ran on: the largest work the library did on one of them (never a
    sum that could count a nested call twice), and how many rises on them were counted apart; nothing where the
    function never ran on an object of the library's."""
    if not _S["subjects"]:
        return
    best = None
    apart = [0, 0, 0]
    for entry in _c_list_iter(_S["subjects"]):
        if best is None or entry[1] > best[1]:
            best = entry
        apart[0] += entry[3]
        apart[1] += entry[4]
        apart[2] += entry[5]
    device["object_bytes"] = best[1] if best is not None else 0
    device["object_calls"] = best[2] if best is not None else 0
    device["objects"] = len(_S["subjects"])
    for key, count in _c_list_iter([("object_shared", apart[0]), ("object_planted", apart[1]),
                                    ("object_snippet", apart[2])]):
        if count:
            device[key] = count


# -- instances, overrides, shadows ---------------------------------------------------------------------------


def _p_first_argument(frame: Any, code: Any) -> Any:
    """A frame's first argument (`self` of a method), as its locals hold it; `_c_MISSING` where it has none."""
    if code.co_argcount < 1:
        return _c_MISSING
    return _c_dict_get(_S["locals_of"](frame), code.co_varnames[0], _c_MISSING)


def _p_track(frame: Any, code: Any, getter: Any) -> None:
    """An `__init__` of the target's classes ran: follow that instance (weakly) from now on."""
    instance = _p_first_argument(frame, code)
    if instance is _c_MISSING:
        return
    tracked = _S["tracked"]
    known = _c_dict_get(tracked, id(instance))
    if known is not None and known[0]() is instance:
        return
    try:
        ref = _c_weakref(instance, _S["died"])
        space = getter(instance)
    except BaseException:
        return
    if known is not None:
        _S["graves"].append(known)
    tracked[id(instance)] = (ref, getter, space, type(instance))
    _S["by_ref"][id(ref)] = id(instance)


def _p_on_died(ident: int, args: Any) -> None:
    """A followed instance is gone: check its attributes one last time, from the dict it had. The weak
    reference's callback is this audit event (a private function there would hand out the private
    state by its `__globals__`); sent by anyone for a live instance, it changes nothing."""
    if type(args) is not tuple or len(args) != 1 or type(args[0]) is not _c_WeakrefType:
        return
    ref = args[0]
    if ref() is not None:
        return
    key = _c_dict_get(_S["by_ref"], id(ref))
    entry = _c_dict_get(_S["tracked"], key) if key is not None else None
    if entry is None or entry[0] is not ref:
        return
    _S["by_ref"].pop(id(ref), None)
    _S["tracked"].pop(key, None)
    _S["graves"].append(entry)  # its dict's values may die with it: in `_bury`
    _p_shadows_in(entry[2], entry[3])


def _p_scan_shadows() -> None:
    graves = _S["graves"]
    for entry in list(_S["tracked"].values()):
        instance = entry[0]()
        if instance is None:
            continue
        graves.append(instance)  # held here, it may be the last reference (another thread let it go)
        try:
            space = entry[1](instance)
        except BaseException:
            continue
        _p_shadows_in(space, type(instance))


def _p_shadows_in(space: Any, cls: Any) -> None:
    """A callable set on an instance under the name of one of its class's functions, compiled outside
    the target, stands in for the library's method on that instance."""
    if space is None:
        return
    try:
        items = list(_c_dict_items(space))
    except BaseException:
        return
    _S["graves"].append(items)  # another thread may take the values out of the dict meanwhile
    for key, value in items:
        if type(key) is not str:
            continue
        attribute = _p_class_attr(cls, key)
        if attribute is _c_MISSING or type(_p_function_of(attribute)) is not _c_FunctionType:
            continue
        if _c_callable(value) and not _p_compiled_in_target(value):
            _p_tamper("replaced", key + " on a " + _p_name(cls) + " instance")


def _p_override(ident: int, frame: Any, code: Any) -> list[Any] | None:
    """A snippet function called on an instance of a watched function's owner, where the instance's
    class resolves that function's name to it: an override. Returns [slot, calls so far, label]."""
    first = _p_first_argument(frame, code)
    if first is _c_MISSING:
        return None
    kind = type(first)
    mro = _c_mro(kind)
    for index, slot in enumerate(_S["slots"]):
        owner = slot["owner"]
        if not _p_in(owner, mro):
            continue
        resolved = _p_function_of(_p_class_attr(kind, slot["name"]))
        if type(resolved) is not _c_FunctionType or resolved is slot["function"] or _c_func_code(resolved) is not code:
            continue
        counts = _c_dict_get(_S["thread_counts"], ident)
        return [index, counts[index] if counts else 0, _p_name(kind) + "." + slot["name"] + " (" + _p_where(code) + ")"]
    return None


def _p_override_return(ident: int, entry: list[Any], frame: Any) -> None:
    """An override returned; if it never called the function it overrides, in this thread, it replaced it."""
    index, before, label = entry
    counts = _c_dict_get(_S["thread_counts"], ident)
    now = counts[index] if counts else 0
    if now == before and _p_returned_normally(frame):
        _p_tamper("replaced", label + ", which never called " + _S["slots"][index]["label"])


# -- the end ---------------------------------------------------------------------------------------------------


def _p_on_restore(ident: int, args: Any) -> None:
    """Before the harness describes the outcome: the verifier's and Python's modules as they were
    (the snippet may have patched them to describe its outcome for it), the builtins too."""
    for _, space, snapshot in _S["restore"]:
        _S["graves"].append(_c_dict_copy(space))  # what the snippet put there dies in `_bury`
        _c_dict_clear(space)
        _c_dict_update(space, snapshot)
    _S["restored"] = True


def _p_changed_since_restore() -> list[str]:
    changed = []
    for label, space, snapshot in _S["restore"]:
        if len(space) != len(snapshot):
            changed.append(label)
            continue
        for key, value in _c_dict_items(snapshot):
            if _c_dict_get(space, key, _c_MISSING) is not value:
                changed.append(label + "." + key)
                break
    return changed


def _p_end_checks() -> None:
    _p_scan_shadows()
    for slot in _S["slots"]:
        function = slot["function"]
        if function is not None and _c_func_code(function) is not slot["function_code"]:
            _p_tamper("replaced", slot["label"] + " (its code)")
    for label, owner, name, raw in _S["owners"]:
        if _p_is_module(owner):
            current = _c_dict_get(_c_module_dict(owner), name, _c_MISSING)
        else:  # as it was resolved: through the MRO (DynamicCache.get_max_cache_shape may be Cache's)
            current = _p_class_attr(owner, name)
        if current is not raw:
            _p_tamper("replaced", label)
    _p_modules_check()
    for label, space, snapshot, grows, rebound in _S["spaces"]:
        if _p_is_module(space):
            current = _c_module_dict(space)
        else:
            current = dict(_c_proxy_items(_c_type_dict(space)))
        for key, value in _c_dict_items(snapshot):
            now = _c_dict_get(current, key, _c_MISSING)
            if now is not value and not (_p_in(key, rebound) and (_p_library_data(now, 2) or (
                    _p_is_module(space) and _p_trusted_binding(current, key, now) is not None))):
                _p_tamper("replaced", label + "." + key)
        if grows:  # a lazily loading package: its loader binds new names; replacing one is still seen
            continue
        for key, value in list(_c_dict_items(current)):
            if type(key) is not str or _c_dict_get(snapshot, key, _c_MISSING) is not _c_MISSING:
                continue
            if not _c_callable(value) or _p_defined_in_target(value):
                continue
            _p_tamper("replaced", label + "." + key)


def _p_modules_check() -> None:
    """The module table's entries the observer holds (`_held_modules`), as they were: at the end, and as each thread's
    outermost watched call starts (an entry swapped before a call and put back before the end was not seen at the
    end alone). Skipped where the table was not written since the last check found it whole (its dict's version: a
    loop of calls imports nothing)."""
    modules = _S["sys_modules"]
    version = _p_version(id(modules) + _c_VERSION_OFFSET) if _c_VERSIONED else None
    if version is not None and version == _S["modules_version"]:
        return
    whole = True
    for name, module in _c_list_iter(_S["modules"]):
        if _c_dict_get(modules, name) is not module:
            _p_tamper("replaced", "sys.modules[" + _c_str_repr(name) + "]")
            whole = False
    if whole:
        _S["modules_version"] = version


def _p_library_data(value: Any, depth: int) -> bool:
    """What a library function may store in a global it rebinds itself: plain data, the library's
    own functions, or a tuple of those (4.57's `_causal_conv1d_cache = (None, None)`). Anything else
    is the library's only when its own frame bound it, no code of the snippet's run meanwhile
    (`_p_trusted_binding`: babel's `_global_data = pickle.load(...)`)."""
    kind = type(value)
    if value is None or kind is bool or kind is int or kind is float or kind is str or kind is bytes:
        return True
    if kind is tuple and depth > 0:
        for item in value:  # noqa: SIM110  # a plain loop: no generator in the private namespace
            if not _p_library_data(item, depth - 1):
                return False
        return True
    return _p_compiled_in_target(value)


def _p_defined_in_target(value: Any) -> bool:
    """A function compiled in the target, or a class whose own functions all were; a new name bound to
    anything else (a class of the snippet's, whatever its `__module__` claims) is not the library's."""
    if _p_in(type, _c_mro(type(value))):
        return _p_class_in_target(value)
    return _p_compiled_in_target(value)


def _p_on_end(ident: int, args: Any) -> None:
    """The harness's end: one line with the outcome, then this process ends, here.

    The harness's ender is a function of a module the snippet can import, so being it is not enough: an
    outcome other than `os._exit`'s (whose stand-in the snippet calls, and which fails every check) is
    the harness's only when its ender was called by the very code that ran the snippet (`end_callers`),
    not by the snippet, nor by a C callable the snippet planted where the harness calls it (the `__str__`
    of the snippet's exception, which the harness describes before it ends)."""
    if type(args) is not tuple or len(args) != 4:
        return
    caller = _c_getframe(2)
    if caller is None or not _p_in(caller.f_code, _S["enders"]):
        _p_tamper("observer", "tried to end the check in the verifier's place")
        return
    status, error, description, exit_code = args
    if type(status) is not str or not _p_one_of(status, ("returned", "raised", "sys-exit", "os-exit")):
        return
    if not _p_one_of(status, ("os-exit",)):
        runner = caller.f_back
        if runner is None or not _p_in(runner.f_code, _S["end_callers"]):
            _p_tamper("observer", "tried to end the check in the verifier's place")
            return
        # ... and it says how the snippet's own run ended, which the observer followed: the code that runs the
        # snippet is a function the snippet can call too (its observer's `install` patched away), from inside
        # its run. Said, not refused: a tracer lost on the way leaves that end unseen, and the end says why (and
        # said only when nothing else has voided the run: the tampering that left that end unseen says enough).
        if _S["top_end"] != ("returned" if status == "returned" else "raised") and not _S["reported"]:
            _p_tamper("observer", "ended the check as " + status + " while the snippet's own run had not ended so")
    if not _S["restored"]:
        _p_tamper("observer", "ended the check without the verifier's modules restored")
        return
    code = exit_code if status == "os-exit" and type(exit_code) is int and 0 <= exit_code <= 255 else 0
    lock = _S["lock"]
    lock.acquire()  # held until the process is gone: nothing is written after the end
    try:
        try:
            if _c_gettrace() is not _S["trace"]:  # lost on the way (CPython drops a tracer that failed)
                _p_tamper("replaced", "sys.settrace (the verifier's call tracer, lost)")
            for label in _p_changed_since_restore():
                _p_tamper("replaced", label + " (while the verifier described the outcome)")
            _p_end_checks()
        except BaseException as error:  # said in the stream, which the harness then rejects
            _S["faults"] += 1
            _p_fault(error)
        number = None
        if error is not None:
            number = _c_dict_get(_S["refs"], id(error))
            if number is not None and _S["held"][number] is not error:
                number = None
        running = [0] * len(_S["slots"])
        for record in list(_S["frames"].values()):
            if record[1] >= 0:
                running[record[1]] += 1
        device = None
        if _S["probe"] is not None:
            device = {"allocated_bytes": _S["device_bytes"], "calls": _S["device_calls"]}
            if _S["device_shared"]:
                device["shared"] = _S["device_shared"]
            if _S["device_planted"]:
                device["planted"] = _S["device_planted"]
            _p_object_evidence(device)
        # The class of the exception that reached the top, named here by identity (a class's `__name__` and
        # `__module__` are its own to claim, and the harness's description reads them as it says).
        kind = type(error) if error is not None else None
        _p_emit({"e": "end", "status": status, "exit": code if status == "os-exit" else exit_code, "r": number,
                 "type": _p_name(kind) if kind is not None else None,
                 "qualified": _p_qualified(kind) if kind is not None else None,
                 "described": description if type(description) is dict else None,
                 "counts": _S["counts"], "running": running, "unwound": [len(each) for each in _S["unwound"]],
                 "device": device, "faults": _S["faults"], "searched": _S["searched"],
                 "duration": _c_clock() - _S["started"]})
    finally:
        _c_exit(code)
