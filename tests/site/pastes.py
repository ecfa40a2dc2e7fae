"""Real pastes: what terminals and tools wrap around an error (issue 11, item 4), generated from a
few tracebacks. tests/site/test_lookup_js.py runs the Python and the JavaScript lookup on every
one of them and compares the answers; tests/site/test_lookup.py asserts what they must find."""

from __future__ import annotations

import functools
import re

from tests.site.sitekb import MESSAGE, TRACEBACK

ENTRIES = [
    {"id": "head-dim-list-length", "title": "`head_dim` list does not have one value per layer", "exception": "ValueError",
     "message": "`head_dim` was provided as a list of length {len(num_heads)}, but the Cache currently has "
                "{len(self.layers)} layers", "url": "errors/transformers/head-dim-list-length/"},
    {"id": "get-max-length", "title": "`get_max_length` was removed", "exception": "AttributeError",
     "message": "'DynamicCache' object has no attribute 'get_max_length'",
     "wordings": [{"message": "'DynamicCache' object has no attribute 'get_max_length'", "exception": None},
                  {"message": "'{cls}' object has no attribute 'get_max_length'", "exception": None,
                   "releases": ">=4.49", "note": "subclasses and remote-code caches"}],
     "raises_in": ">=4.49", "last_good": "4.48.3", "replacement": "`get_max_cache_shape()`",
     "replacement_since": "4.45.0",
     "lines": {"path": "transformers/generation/utils.py",
               "by_release": {"4.48.3": 1590, "4.49.0": 1602, "4.50.0": 1602, "4.51.0": 1650}}},
    {"id": "hybrid-cache", "title": "HybridCache removed", "exception": "ImportError",
     "message": "cannot import name 'HybridCache' from 'transformers'", "raises_in": ">=5.0",
     "replacement": "`StaticCache`", "replacement_since": "4.56.0"},
    {"id": "device-assert", "title": "device-side assert", "exception": "torch.AcceleratorError",
     "message": "CUDA error: device-side assert triggered"},
    {"id": "generic", "title": "claims everything", "exception": "AttributeError",
     "message": "'{cls}' object has no attribute '{name}'"},
]

CHAIN = """Traceback (most recent call last):
  File "a.py", line 3, in <module>
    from transformers import HybridCache
ImportError: cannot import name 'HybridCache' from 'transformers'

{marker}

Traceback (most recent call last):
  File "/venv/lib/python3.11/site-packages/transformers/generation/utils.py", line 1602, in generate
    cache.get_max_length()
AttributeError: 'DynamicCache' object has no attribute 'get_max_length'. Did you mean: 'get_seq_length'?
"""
BASES = [
    MESSAGE, f"ValueError: {MESSAGE}", TRACEBACK,
    CHAIN.format(marker="During handling of the above exception, another exception occurred:"),
    CHAIN.format(marker="The above exception was the direct cause of the following exception:"),
    "torch.AcceleratorError: CUDA error: device-side assert triggered",
    "builtins.AttributeError: 'MyCache' object has no attribute 'get_max_length'",
    "AttributeError: 'list' object has no attribute 'get_seq_length'",
    "NameError: name 'x' is not defined. Did you mean: 'y'? Or did you forget to import 'x'?",
]
PREFIXES = ["", "[rank0]: ", "[rank1]:", "E   ", "E       ", "2025-01-01 12:00:00,123 - ERROR - ",
            "2025-01-01 12:00:00,123 - __main__ - ERROR - ", "trainer-1  | ", "web | [2025-01-01 12:00:00] ERROR: "]


def _prefixed(prefix: str, text: str) -> str:
    return "\n".join(prefix + line for line in text.split("\n"))


def _coloured(text: str) -> str:
    return (text.replace("Traceback", "\x1b[1;31mTraceback\x1b[0m").replace("Error: ", "Error\x1b[0m: \x1b[35m")
            .replace("ValueError", "\x1b[1;35mValueError"))


PASTES = [_prefixed(prefix, base) for base in BASES for prefix in PREFIXES]
PASTES += [f(base) for base in BASES for f in (
    _coloured, lambda t: t.replace("\n", "\r\n"), lambda t: t.replace("\n", "\r"), lambda t: "\ufeff" + t,
    lambda t: t.replace(" ", "\u00a0", 3), lambda t: t.replace("\n", "\u2028"))]
PASTES += ["", "   ", "\ufeff", "garbage", "\x1b[31m", "E   ", "[rank0]: ", "x" * 100 + "\n" + MESSAGE,
           "unicode → ünïcödé 🚀 " + MESSAGE, MESSAGE + " 🚀" * 3]


# -- one traceback in the shapes other tools print it (issue 19: a diagnosis holds on paste shapes not seen) --
# `shaped(traceback, shape)` re-prints a traceback as Python prints it (frames `File "p", line n, in f`, each
# with its source line, then the exception) the way a notebook, pytest, a logger or Windows shows the same
# error: the paths made absolute as installed, every frame and failing line kept. What the lookup reads of
# a shaped paste (its frames, their functions and failing lines, the exception) must be what it reads of
# the plain one; tests/site/test_lookup_shapes.py holds every entry's verified before to that.

_PY_FRAME = re.compile(r'^  File "([^"]*)", line ([0-9]+), in (.*)$')
_POSITION = re.compile(r"^[ \t]*[~^]+[ \t]*$")


def parsed(traceback: str) -> tuple[list[tuple[str, int, str, str]], str]:
    """(path, line, function, source line) of each frame, outermost first, and the exception's lines."""
    lines = traceback.rstrip("\n").split("\n")
    found: list[tuple[str, int, str, str]] = []
    last, index = -1, 0
    while index < len(lines):
        frame = _PY_FRAME.match(lines[index])
        if frame:
            code = ""
            if index + 1 < len(lines) and lines[index + 1].startswith("    ") and not _PY_FRAME.match(lines[index + 1]):
                index += 1
                code = lines[index].strip()
                while index + 1 < len(lines) and _POSITION.match(lines[index + 1]):
                    index += 1
            found.append((frame.group(1), int(frame.group(2)), frame.group(3), code))
            last = index
        index += 1
    return found, "\n".join(lines[last + 1:])


def installed(path: str, windows: bool = False) -> str:
    """A frame's path as a user's machine prints it: the snippet in a project, the rest installed."""
    name = path.rsplit("/", 1)[-1]
    if windows:
        return f"C:\\Users\\me\\proj\\{name}" if path.startswith("snippets/") else \
            "C:\\Users\\me\\venv\\Lib\\site-packages\\" + path.replace("/", "\\")
    return f"/home/me/proj/{name}" if path.startswith("snippets/") else f"/home/me/venv/lib/python3.11/site-packages/{path}"


def _python(frames, exception, windows=False):
    out = ["Traceback (most recent call last):"]
    for path, line, function, code in frames:
        out.append(f'  File "{installed(path, windows)}", line {line}, in {function}')
        out += [f"    {code}"] if code else []
    return "\n".join(out) + "\n" + exception + "\n"


def _coloured_313(frames, exception):
    """Python 3.13's coloured traceback (ANSI), carets under the failing line."""
    out = ["\x1b[1;35mTraceback\x1b[0m \x1b[1;35m(most recent call last)\x1b[0m:"]
    for path, line, function, code in frames:
        out.append(f'  File \x1b[35m"{installed(path)}"\x1b[0m, line \x1b[35m{line}\x1b[0m, in \x1b[35m{function}\x1b[0m')
        out += [f"    \x1b[31m{code}\x1b[0m", "    \x1b[1;31m^^^^^^^^\x1b[0m"] if code else []
    name, _, message = exception.partition(": ")
    return "\n".join(out) + f"\n\x1b[1;35m{name}\x1b[0m: \x1b[35m{message}\x1b[0m\n"


def _context(line: int, code: str, arrow: str) -> list[str]:
    """A notebook's lines around the failing one, the failing one marked."""
    return [f"{line - 1:>6}     total = 0", f"{arrow}{line:<5} {code}", f"{line + 1:>6}     return total", ""]


def _ipython8(frames, exception, owner="Layer"):
    """Jupyter, VS Code, Kaggle (IPython 8): `Cell In[4], line 17`, `File ~/...py:480, in Owner.update(args)`."""
    name = exception.split(":", 1)[0]
    out = ["-" * 75, f"{name:<42}Traceback (most recent call last)"]
    for path, line, function, code in frames:
        if function == "<module>" and path.startswith("snippets/"):
            out.append(f"Cell In[4], line {line}")
        else:
            qualified = f"{owner}.{function}" if owner and not function.startswith("<") else function
            out.append(f"File {installed(path).replace('/home/me', '~')}:{line}, in {qualified}(self, *args, **kwargs)")
        out += _context(line, code, "---> ")
    return "\n".join(out) + "\n" + exception + "\n"


def _ipython7(frames, exception, windows=False):
    """Colab (IPython 7): `<ipython-input-4-...> in <module>()`, `/usr/.../x.py in update(self, ...)`."""
    name = exception.split(":", 1)[0]
    out = ["-" * 75, f"{name:<42}Traceback (most recent call last)"]
    for path, line, function, code in frames:
        if function == "<module>" and path.startswith("snippets/"):
            out.append("<ipython-input-4-ce37cf25e494> in <module>()")
        else:
            where = installed(path, windows) if windows else \
                installed(path).replace("/home/me/venv/lib/python3.11/site-packages", "/usr/local/lib/python3.10/dist-packages")
            out.append(f"{where} in {function}(self, *args, **kwargs)")
        out += _context(line, code, "--> ")
    return "\n".join(out) + "\n" + exception + "\n"


def _pytest_short(frames, exception):
    """pytest --tb=short: `path:line: in function`, the source line, `E   ` before the exception."""
    out = []
    for path, line, function, code in frames:
        out.append(f"{installed(path)}:{line}: in {function}")
        out += [f"    {code}"] if code else []
    return "\n".join(out + ["E   " + one for one in exception.split("\n")]) + "\n"


def _pytest_long(frames, exception):
    """pytest's default (long) entries: the function's arguments, its source with `>` at the failing line,
    `E       ` before the exception, then `path:line: ` (the last: `path:line: ExceptionName`)."""
    name = exception.split(":", 1)[0].rsplit(".", 1)[-1]
    out = ["_" * 30 + " test_it " + "_" * 30]
    for index, (path, line, function, code) in enumerate(frames):
        last = index == len(frames) - 1
        out += ["", "self = <object at 0x7f3a2c1b5e10>, args = (1, 2)", ""] if index else [""]
        out += [f"    def {function.strip('<>')}(self, *args):", "        total = 0", f">       {code}"]
        if last:
            out += ["E       " + one for one in exception.split("\n")] + ["", f"{installed(path)}:{line}: {name}"]
        else:
            out += ["", f"{installed(path)}:{line}: ", "_ " * 40]
    return "\n".join(out) + "\n"


def _worker(frames, exception):
    """Ray's tag on every line of a worker's output (vLLM, Ray Train): the prefix takes the indentation off."""
    return "\n".join("(RayWorkerWrapper pid=4077176) " + one for one in _python(frames, exception).split("\n"))


def _comfyui(frames, exception):
    """ComfyUI's error report as pasted in its issues: the message first (without the exception's name), then
    the frames, unindented."""
    out = ["Error occurred when executing KSampler:", "", exception.partition(": ")[2], ""]
    for path, line, function, code in frames:
        out.append(f'File "{installed(path)}", line {line}, in {function}')
        out += [code, "^" * min(len(code), 30)] if code else []
    return "\n".join(out) + "\n"


def _logged(frames, exception):
    return "\n".join("2025-03-01 10:00:00,123 - ERROR - " + one for one in _python(frames, exception).split("\n"))


def _rich(frames, exception, width=100):
    """rich's traceback (`rich.traceback.install()`, `Console.print_exception()`: CLIs, Gradio, Lightning, trl
    scripts), printed by rich itself (a dependency) with no colours: a box titled `Traceback (most recent call
    last)`, each frame `path:line in function` (folded at the box's edge, mid-path when the path is long), a
    numbered excerpt of its source with `❱` at the failing line, then `ExceptionType: message` below the box.
    rich shows the path and the excerpt only for a file it can read: here each one holds its failing line."""
    import io
    import linecache
    from unittest import mock

    from rich.console import Console
    from rich.traceback import Frame, Stack, Trace, Traceback

    name, _, message = exception.partition(": ")
    sources: dict[str, list[str]] = {}
    for path, line, _function, code in frames:
        source = sources.setdefault(installed(path), [])
        source += ["\n"] * max(line - len(source), 0)
        source[line - 1] = "    " + code + "\n"
    saved = {path: linecache.cache.get(path) for path in sources}
    linecache.cache.update({path: (0, None, lines, path) for path, lines in sources.items()})
    try:
        trace = Trace(stacks=[Stack(exc_type=name, exc_value=message,
                                    frames=[Frame(installed(path), line, function, code)
                                            for path, line, function, code in frames])])
        console = Console(file=io.StringIO(), width=width, color_system=None, force_terminal=False)
        with mock.patch("rich.traceback.os.path.exists", lambda path: path in sources):
            console.print(Traceback(trace, width=width))
        return console.file.getvalue()
    finally:
        for path, before in saved.items():
            linecache.cache.pop(path, None) if before is None else linecache.cache.__setitem__(path, before)


# A notebook's traceback copied from its rendered output keeps the links the notebook drew, as Markdown
# (GitHub shows them so): the frame's location links to the file, and VS Code links each numbered line of the
# excerpt too. Real reports: VS Code's `File [~/x.py:115](https://vscode-remote+.../x.py:115), in f(...)` and
# `---> [28](vscode-notebook-cell:?execution_count=4&line=28) code` (transformers#24841, #38727, #32226),
# Jupyter Lab's `File [~/x.py:1520](http://localhost:8080/lab/tree/x.py#line=1519), in f(...)` (IPEX#555,
# ipex-llm#11744) and, for a script's traceback, `File "[/x.py", line 390](http://127.0.0.1:8976/lab/tree/
# x.py#line=389), in forward` (RAD#3), Colab's `[/usr/.../x.py](https://...colab.googleusercontent.com/
# outputframe.html?vrz=...#) in f(...)` (unsloth#1907, corpus h172).
_NOTEBOOK_FILE = re.compile(r"^File (\S+?):([0-9]+), in ", re.M)
_NOTEBOOK_LINE = re.compile(r"^(---> |[ \t]+)([0-9]+)(?= )", re.M)
_NOTEBOOK_CELL = re.compile(r"^Cell In\[4\], line ([0-9]+)", re.M)
_COLAB_FILE = re.compile(r"^(\S+\.py) in ", re.M)
_SCRIPT_FILE = re.compile(r'^([ \t]*)File "([^"\n]+)", line ([0-9]+)', re.M)


# The same links in real reports (verbatim, cut to a frame or two), and what the lookup must read of each:
# Colab (unsloth#1907), VS Code (transformers#32226, #38727: its cell's frame is the user's, no library's) and
# Jupyter Lab printing a script's traceback (RAD#3); then brackets that are no link.
NOTEBOOK_LINKS = [
    ("[/usr/local/lib/python3.11/dist-packages/torch/nn/modules/module.py](https://hcusakf9od-496ff2e9c6d22116-0-colab."
     "googleusercontent.com/outputframe.html?vrz=colab_20250514-060044_RC00_758624382#) in __getattr__(self, name)\n"
     "   1926             if name in modules:\n   1927                 return modules[name]\n"
     "-> 1928         raise AttributeError(\n   1929             f\"'{type(self).__name__}' object has no attribute "
     "'{name}'\"\n   1930         )\n\nAttributeError: 'MistralModel' object has no attribute 'max_seq_length'",
     [("torch/nn/modules/module.py", 1928, "__getattr__", "raise AttributeError(")]),
    ("File [~/.cache/huggingface/modules/transformers_modules/glm-4v-9b/modeling_chatglm.py:563](https://vscode-remote+"
     "qs-002d5930-002d228138-002etensorboard-002dnj-002edevops-002exiaohongshu-002ecom.vscode-resource.vscode-cdn.net/mnt/"
     "nj-aigc/usr/aihao/workspace/TheChosenOne/~/.cache/huggingface/modules/transformers_modules/glm-4v-9b/"
     "modeling_chatglm.py:563), in SelfAttention.forward(self, hidden_states, attention_mask, rotary_pos_emb, kv_cache, "
     "use_cache)\n    561 # adjust key and value for inference\n    562 if kv_cache is not None:\n"
     "--> 563     cache_k, cache_v = kv_cache\n    564     key_layer = torch.cat((cache_k, key_layer), dim=2)\n"
     "    565     value_layer = torch.cat((cache_v, value_layer), dim=2)\n\nValueError: too many values to unpack "
     "(expected 2)",
     [("~/.cache/huggingface/modules/transformers_modules/glm-4v-9b/modeling_chatglm.py", 563, "SelfAttention.forward",
       "cache_k, cache_v = kv_cache")]),
    ("Cell In[4], [line 28](vscode-notebook-cell:?execution_count=4&line=28)\n     [25](vscode-notebook-cell:?"
     "execution_count=4&line=25) # if isinstance(past_key_values, SinkCache):\n---> [28](vscode-notebook-cell:?"
     "execution_count=4&line=28) outputs = model.generate(**inputs, do_sample=False, max_new_tokens=256, "
     "past_key_values=past_key_values)\n", []),
    ('  File "[/home/rima/anaconda3/envs/llava/lib/python3.10/site-packages/transformers/models/gpt2/modeling_gpt2.py",'
     ' line 390](http://127.0.0.1:8976/lab/tree/RAD/anaconda3/envs/llava/lib/python3.10/site-packages/transformers/'
     'models/gpt2/modeling_gpt2.py#line=389), in forward\n    attn_outputs = self.attn(\n',
     [("transformers/models/gpt2/modeling_gpt2.py", 390, "forward", "attn_outputs = self.attn(")]),
    ("IndexError: [0](x) and [1](2), not links\n", []),
]


def _vscode_links(frames, exception):
    text = _ipython8(frames, exception)
    text = _NOTEBOOK_FILE.sub(lambda m: f"File [{m.group(1)}:{m.group(2)}](https://vscode-remote+ssh-002dremote"
                              f"-002bbox.vscode-resource.vscode-cdn.net{m.group(1).lstrip('~')}:{m.group(2)}), in ",
                              text)
    text = _NOTEBOOK_CELL.sub(lambda m: f"Cell In[4], [line {m.group(1)}](vscode-notebook-cell:?execution_count=4"
                              f"&line={m.group(1)})", text)
    return _NOTEBOOK_LINE.sub(lambda m: f"{m.group(1)}[{m.group(2)}](vscode-notebook-cell:?execution_count=4"
                              f"&line={m.group(2)})", text)


def _lab_links(frames, exception):
    return _NOTEBOOK_FILE.sub(lambda m: f"File [{m.group(1)}:{m.group(2)}](http://localhost:8888/lab/tree"
                              f"{m.group(1).lstrip('~')}#line={int(m.group(2)) - 1}), in ", _ipython8(frames, exception))


def _colab_links(frames, exception):
    return _COLAB_FILE.sub(lambda m: f"[{m.group(1)}](https://ab12cd-496ff2e9c6d22116-0-colab.googleusercontent"
                           f".com/outputframe.html?vrz=colab_20250514-060044_RC00_758624382#) in ",
                           _ipython7(frames, exception))


def _script_links(frames, exception):
    return _SCRIPT_FILE.sub(lambda m: f'{m.group(1)}File "[{m.group(2)}", line {m.group(3)}](http://127.0.0.1:8976/'
                            f'lab/tree{m.group(2)}#line={int(m.group(3)) - 1})', _python(frames, exception))

# A traceback quoted in Markdown, `> ` before every line, as a reply on GitHub or an e-mail quotes it
# (kaistAI/LangBridge#6, whose lines an editor also padded with spaces to one width; transformers PR#34797's
# `> ValueError: ...`, corpus h016; CacheGen#2's `> Traceback`, h166).
def _quoted(frames, exception, pad=0):
    return "\n".join(("> " + one).ljust(pad) for one in _python(frames, exception).split("\n"))

def _grouped(frames, exception):
    """The traceback as one sub-exception of an exception group (Python 3.11's `ExceptionGroup`, asyncio's
    `TaskGroup`: `unhandled errors in a TaskGroup`): the group's own frames under `+ Exception Group
    Traceback`, its line, then the sub-exception, every line behind the group's margin `| `, as Python's
    traceback module prints it (`_ExceptionPrintContext.emit`), the separators `+-+---- 1 ----` and `+-----`."""
    head = ["  + Exception Group Traceback (most recent call last):",
            '  |   File "/home/me/proj/serve.py", line 40, in main',
            "  |     async with asyncio.TaskGroup() as group:",
            '  |   File "/usr/lib/python3.11/asyncio/taskgroups.py", line 147, in __aexit__',
            "  |     raise me from None",
            "  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)",
            "  +-+---------------- 1 ----------------"]
    body = ["    | " + one if one else "    |" for one in _python(frames, exception).rstrip("\n").split("\n")]
    return "\n".join(head + body + ["    +------------------------------------"]) + "\n"


def _wrapped(frames, exception, width, indent=False):
    """A plain traceback whose frame lines a terminal or a web form broke at `width` columns (mid-path,
    mid-word), the rest of each line on the next, at its start or (`indent`) under the frame line's indent."""
    out = []
    for line in _python(frames, exception).split("\n"):
        if not line.lstrip().startswith("File "):
            out.append(line)
            continue
        lead = line[:len(line) - len(line.lstrip())] if indent else ""
        out.append(line[:width])
        rest = line[width:]
        while rest:
            out.append(lead + rest[:width - len(lead)])
            rest = rest[width - len(lead):]
    return "\n".join(out)


SHAPES = {
    "python": _python,
    "windows": lambda frames, exception: _python(frames, exception, windows=True),
    "python-3.13-colours": _coloured_313,
    "ipython-8": _ipython8,
    "ipython-8-plain-names": lambda frames, exception: _ipython8(frames, exception, owner=""),
    "ipython-7-colab": _ipython7,
    "ipython-7-windows": lambda frames, exception: _ipython7(frames, exception, windows=True),
    "pytest-short": _pytest_short,
    "pytest-long": _pytest_long,
    "logged": _logged,
    "ray-worker": _worker,
    "comfyui": _comfyui,
    "rich": _rich,
    "rich-80": lambda frames, exception: _rich(frames, exception, width=80),
    "wrapped-80": lambda frames, exception: _wrapped(frames, exception, 80),
    "wrapped-100-indented": lambda frames, exception: _wrapped(frames, exception, 100, indent=True),
    "wrapped-120": lambda frames, exception: _wrapped(frames, exception, 120),
    "ipython-8-vscode-links": _vscode_links,
    "ipython-8-lab-links": _lab_links,
    "ipython-7-colab-links": _colab_links,
    "python-lab-links": _script_links,
    "quoted": _quoted,
    "quoted-padded": lambda frames, exception: _quoted(frames, exception, pad=140),
    "exception-group": _grouped,
}


@functools.cache
def shaped(traceback: str, shape: str) -> str:
    """`traceback` as `shape` prints it. Kept per (traceback, shape): rich highlights the whole source file
    of each frame (thousands of lines up to a failing line such as 2564: 35 ms a traceback), and one
    entry's traceback is shaped alike for both releases and the rich check in tests/site/test_lookup_shapes.py
    and again in tests/site/test_lookup_js.py. A string in, a string out: nothing to share by mistake."""
    frames, exception = parsed(traceback)
    return SHAPES[shape](frames, exception)
