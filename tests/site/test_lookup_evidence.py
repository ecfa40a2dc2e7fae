"""Evidence judged by what it is, never by names a stranger controls (red team, round three).

A frame confirms an entry when it is the installed library's: the documented file in the library's package
folder where Python installs packages (`site-packages`, `dist-packages`, a checkout's `src`, an egg). Other
packages ship copies of the library's files under a folder of the same name (optimum-habana's
`optimum/habana/transformers/generation/utils.py`, ipex-llm's `ipex_llm/transformers/`, a project's own
`transformers/` folder): their frames neither confirm an entry nor tell the release by their line numbers.
Asked of the real entries (as `errorkb lookup` reads them), and of the page's script and the hook alike."""

from __future__ import annotations

import pytest

from benchmarks.lookup_recall import project_known_lookup
from errorkb.lookup import Lookup

SITE = "/venv/lib/python3.11/site-packages"
TRACEBACK = "Traceback (most recent call last):\n"


def frame(path: str, line: int, function: str, code: str) -> str:
    return f'  File "{path}", line {line}, in {function}\n    {code}\n'


def in_update(folder: str) -> str:
    """layer-idx-out-of-range's traceback, its raising frame in `<folder>/cache_utils.py`'s `update`."""
    return (TRACEBACK + frame("/me/run.py", 3, "<module>", "out = model.generate(**batch)")
            + frame(f"{folder}/cache_utils.py", 1376, "update", "keys, values = self.layers[layer_idx].update(k, v)")
            + "IndexError: list index out of range\n")


def legacy_forward(folder: str) -> str:
    """legacy-tuple-layer-to-legacy-cache's traceback (require_frame), raised in `<folder>/models/llama/`."""
    return (TRACEBACK + frame("/me/run.py", 3, "<module>", "out = model(input_ids)")
            + frame(f"{folder}/models/llama/modeling_llama.py", 900, "forward",
                    "next_cache = next_decoder_cache.to_legacy_cache()")
            + "AttributeError: 'tuple' object has no attribute 'to_legacy_cache'\n")


def cache_position(folder: str) -> str:
    """forward-unexpected-cache-position (require_frame, any file below the library's folder), raised at the line
    4.46 raises it at: the egg's folder states 4.46.0, and a stated release the raising frame contradicts ties
    nothing (round thirteen)."""
    return (TRACEBACK + frame("/me/run.py", 3, "<module>", "out = model.generate(**batch)")
            + frame(f"{folder}/generation/utils.py", 3206, "_sample", "outputs = self(**model_inputs, return_dict=True)")
            + "TypeError: ChatGLMForConditionalGeneration.forward() got an unexpected keyword argument 'cache_position'\n")


# Folders named like the library's package that are not the installed library: another package's copy of it
# (real: optimum-habana, ipex-llm, intel-extension-for-transformers), a project's own folder, a folder at the root.
COPIES = [f"{SITE}/optimum/habana/transformers", f"{SITE}/ipex_llm/transformers",
          f"{SITE}/intel_extension_for_transformers/transformers", "/home/me/proj/transformers", "/transformers"]
# The installed library, as environments, checkouts and eggs place it, and as errorkb's captures print it.
INSTALLED = ["transformers", f"{SITE}/transformers", "/usr/local/lib/python3.10/dist-packages/transformers",
             "C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python310\\Lib\\site-packages\\transformers",
             "/home/me/code/transformers/src/transformers", f"{SITE}/transformers-4.46.0-py3.10.egg/transformers"]
SHAPES = {"update": (in_update, "layer-idx-out-of-range"), "legacy": (legacy_forward, "legacy-tuple-layer-to-legacy-cache"),
          "cache-position": (cache_position, "forward-unexpected-cache-position")}


@pytest.fixture(scope="module")
def kb() -> Lookup:
    return project_known_lookup()


def grades(kb: Lookup, text: str, release: str | None = None) -> dict[str, str]:
    return {m.known.id: m.grade.value for m in kb.answer(text, release).matches}


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("folder", COPIES, ids=["habana", "ipex", "itrex", "project", "root"])
def test_a_frame_in_a_copy_of_the_librarys_file_never_confirms(kb, shape, folder):
    """The same file and function as the entry documents, in another package's folder: a candidate, which
    says so; a frame of the installed library would confirm it."""
    make, entry = SHAPES[shape]
    assert grades(kb, make(folder)) == {entry: "candidate"}


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("folder", INSTALLED, ids=["relative", "site", "dist", "windows", "src", "egg"])
def test_a_frame_of_the_installed_library_still_confirms(kb, shape, folder):
    make, entry = SHAPES[shape]
    assert grades(kb, make(folder))[entry] == "confirmed"


def test_a_copy_raising_where_the_entry_requires_the_librarys_frame_says_what_would_confirm(kb):
    answer = kb.answer(cache_position(f"{SITE}/ipex_llm/transformers"))
    assert any("another package or folder" in hint for hint in answer.matches[0].missing)


INVALID = ("ValueError: Invalid `cache_implementation` (offloaded). Choose one of: ['static', 'offloaded_static', "
           "'sliding_window', 'hybrid', 'mamba', 'quantized', 'static']\n")


def validate(folder: str) -> str:
    return (TRACEBACK + frame(f"{folder}/generation/configuration_utils.py", 726, "validate", "raise ValueError(")
            + INVALID)


def test_a_copys_line_numbers_never_tell_the_librarys_release(kb):
    """Line 726 is where 4.46.3's `GenerationConfig.validate` raises; a copy's line 726 says nothing of it."""
    installed = kb.answer(validate(f"{SITE}/transformers")).matches[0]
    assert installed.release is not None and installed.release.releases == ("4.46.3",)
    copied = kb.answer(validate(f"{SITE}/optimum/habana/transformers")).matches[0]
    assert copied.release is None


EVIDENCE_PASTES = [make(folder) for make, _ in SHAPES.values() for folder in (*COPIES, *INSTALLED)] + \
    [validate(f"{SITE}/transformers"), validate(f"{SITE}/optimum/habana/transformers")]


@pytest.mark.parametrize("release", [None, "4.46.0"])
def test_copies_of_the_librarys_files_are_read_alike_in_the_page_the_cli_and_the_hook(release):
    from tests.site.test_lookup_js import _same_in_page_cli_and_hook, real_index

    python = _same_in_page_cli_and_hook(real_index.__wrapped__(), EVIDENCE_PASTES, release)
    if release is None:
        copies = [p for index, p in enumerate(python[:-2]) if index % (len(COPIES) + len(INSTALLED)) < len(COPIES)]
        assert copies and all(one[1] == "candidate" for p in copies for one in p["found"])


# -- a line that names the library's release and others ------------------------------------------------------
# key-cache-removed (>=4.56) has another cause of its words on <4.56: the release alone tells them apart.
KEY_CACHE = "AttributeError: 'DynamicCache' object has no attribute 'key_cache'\n"
SEVERAL_ON_A_LINE = [
    "It worked with transformers 4.57.1 but after downgrading to 4.46.0 I get:\n" + KEY_CACHE,
    "transformers 4.57.1 -> 4.46.0 breaks my script:\n" + KEY_CACHE,
    "Same with transformers==4.57.1 and v4.46.0.\n" + KEY_CACHE,
    "- `transformers` version: 4.57.1 (also fails on 4.46.0)\n" + KEY_CACHE,
]
ONE_ON_A_LINE = [
    "transformers==4.57.1\n" + KEY_CACHE,
    "- `transformers` version: 4.57.1\n- Platform: Linux-5.15.0-x86_64-with-glibc2.35\n- Python version: 3.10.12\n"
    "- PyTorch version (GPU?): 2.4.0+cu121 (True)\n" + KEY_CACHE,
    "Package      Version\n------------ -------\ntorch        2.4.0\ntransformers 4.57.1\n" + KEY_CACHE,
    "Installed transformers v4.57.1 from PyPI, on python3.10:\n" + KEY_CACHE,  # `python3.10` is a word, no release
]


@pytest.mark.parametrize("paste", SEVERAL_ON_A_LINE, ids=["downgraded", "arrow", "v-prefix", "template"])
def test_a_line_naming_the_librarys_release_and_another_is_held_to_both(kb, paste):
    """The line says the library ran on two releases; the error's words tell the causes apart only by which."""
    assert grades(kb, paste) == {"key-cache-removed": "candidate"}
    assert set(kb.answer(paste).matches[0].release.releases) >= {"4.57.1", "4.46.0"}


@pytest.mark.parametrize("paste", ONE_ON_A_LINE, ids=["pinned", "template", "pip-list", "words"])
def test_one_release_on_its_line_still_tells_the_causes_apart(kb, paste):
    assert grades(kb, paste) == {"key-cache-removed": "confirmed"}


@pytest.mark.parametrize("release", [None, "4.57.1"])
def test_releases_on_a_stated_line_are_read_alike_in_the_page_the_cli_and_the_hook(release):
    from tests.site.test_lookup_js import _same_in_page_cli_and_hook, real_index

    python = _same_in_page_cli_and_hook(real_index.__wrapped__(), [*SEVERAL_ON_A_LINE, *ONE_ON_A_LINE], release)
    expect = ["candidate"] * len(SEVERAL_ON_A_LINE) + ["confirmed"] * len(ONE_ON_A_LINE)
    if release is None:  # given (installed), the one release is known: the paste's lines do not count
        assert [p["found"][0][1] for p in python] == expect
    else:
        assert all(p["found"][0][1] == "confirmed" for p in python)


# -- the failing line uses the documented name: as code, not in a comment ------------------------------------
# key-cache-removed has another cause of its words: without a release, only the user's failing line using
# `key_cache` ties the paste to it. A comment on the line is no use of the name.
def failing(code: str) -> str:
    return TRACEBACK + frame("/me/run.py", 3, "<module>", code) + KEY_CACHE


COMMENTED = [failing("k = cache.layers[0].keys  # was cache.key_cache[0]"),
             failing("k = cache.layers[0].keys#key_cache"),
             failing("k = cache.layers[0].keys  # 'key_cache' removed")]
USED = [failing("k = cache.key_cache[0]"), failing("k = getattr(cache, 'key_cache')  # the old name"),
        failing("n = '#'.join(names) + str(cache.key_cache)")]


@pytest.mark.parametrize("paste", COMMENTED, ids=["comment", "no-space", "quoted-in-comment"])
def test_a_name_in_the_failing_lines_comment_is_no_use_of_it(kb, paste):
    assert grades(kb, paste) == {"key-cache-removed": "candidate"}


@pytest.mark.parametrize("paste", USED, ids=["attribute", "getattr", "hash-in-string"])
def test_a_name_the_failing_lines_code_uses_still_confirms(kb, paste):
    assert grades(kb, paste) == {"key-cache-removed": "confirmed"}


def test_a_failing_lines_comment_is_read_alike_in_the_page_the_cli_and_the_hook():
    from tests.site.test_lookup_js import _same_in_page_cli_and_hook, real_index

    python = _same_in_page_cli_and_hook(real_index.__wrapped__(), [*COMMENTED, *USED], None)
    assert [p["found"][0][1] for p in python] == ["candidate"] * len(COMMENTED) + ["confirmed"] * len(USED)


# -- numbers that contradict the entry's cause ---------------------------------------------------------------
# static-cache-overflow: the cache writes at its length or past it; torch's bounds check prints any index outside
# the buffer, so a smaller one (a negative index) is another error worded alike, whatever the frames.
def index_copy(index: int, size: int) -> str:
    return (TRACEBACK + frame("/me/run.py", 3, "<module>", "out = model.generate(**batch)")
            + frame(f"{SITE}/transformers/cache_utils.py", 480, "update", "self.keys.index_copy_(2, cache_position, k)")
            + f"IndexError: index_copy_(): index {index} is out of bounds for dimension 2 with size {size}\n")


# The device's own wording holds no numbers: the relation does not concern it (the kernel's assertion, r164).
DEVICE = ('/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:175: operator(): block: [0,0,0], thread: [124,0,0] '
          'Assertion `idx >= 0 && idx < self_dim_size && "index_copy_(): index out of bounds"` failed.\n')


@pytest.mark.parametrize(("index", "size"), [(-4097, 4096), (-1, 0)])
def test_an_index_below_the_caches_length_is_no_overflow(kb, index, size):
    assert grades(kb, index_copy(index, size)) == {}
    assert [one.match.known.id for one in kb.answer(index_copy(index, size)).ruled_out] == ["static-cache-overflow"]


@pytest.mark.parametrize(("index", "size"), [(4096, 4096), (5000, 4096)])
def test_an_index_at_or_past_the_caches_length_still_confirms(kb, index, size):
    assert grades(kb, index_copy(index, size)) == {"static-cache-overflow": "confirmed"}


def test_a_relation_does_not_concern_a_wording_without_its_placeholders(kb):
    assert grades(kb, DEVICE) == {"static-cache-overflow": "candidate"}


def test_numbers_against_the_cause_are_read_alike_in_the_page_the_cli_and_the_hook():
    from tests.site.test_lookup_js import _same_in_page_cli_and_hook, real_index

    pastes = [index_copy(-4097, 4096), index_copy(4096, 4096), DEVICE]
    python = _same_in_page_cli_and_hook(real_index.__wrapped__(), pastes, None)
    assert [[one[1] for one in p["found"]] for p in python] == [[], ["confirmed"], ["candidate"]]


# -- the import's own location: the library that was imported ----------------------------------------------
# `cannot import name 'SinkCache' from 'transformers' (<path>)`: Python names where the module it imported lies.
# A project's folder named like the library, or a namespace package (`unknown location`: a folder without the
# library's files), is not the installed library: the name's removal is not what the paste shows.
def sink_import(location: str) -> str:
    return (TRACEBACK + frame("/me/run.py", 1, "<module>", "from transformers import SinkCache")
            + f"ImportError: cannot import name 'SinkCache' from 'transformers' ({location})\n")


ELSEWHERE = ["unknown location", "/home/me/proj/transformers/__init__.py",
             "C:\\Users\\me\\proj\\transformers\\__init__.py", "/srv/app/vendor/transformers/__init__.py"]
INSTALLED_AT = [f"{SITE}/transformers/__init__.py",
                "F:\\ComfyUI\\python_embeded\\Lib\\site-packages\\transformers\\__init__.py",
                "/home/me/code/transformers/src/transformers/__init__.py"]


@pytest.mark.parametrize("location", ELSEWHERE, ids=["namespace", "project", "windows-project", "vendored"])
def test_an_import_from_a_folder_that_is_not_the_installed_library_never_confirms(kb, location):
    answer = kb.answer(sink_import(location))
    assert [(m.known.id, m.grade.value) for m in answer.matches] == [("import-sinkcache-removed", "candidate")]
    assert any("where transformers is installed" in hint for hint in answer.matches[0].missing)


@pytest.mark.parametrize("location", INSTALLED_AT, ids=["site", "windows", "src"])
def test_an_import_from_the_installed_library_still_confirms(kb, location):
    assert grades(kb, sink_import(location)) == {"import-sinkcache-removed": "confirmed"}


def test_an_imports_location_is_read_alike_in_the_page_the_cli_and_the_hook():
    from tests.site.test_lookup_js import _same_in_page_cli_and_hook, real_index

    python = _same_in_page_cli_and_hook(real_index.__wrapped__(), [sink_import(one) for one in
                                                                   (*ELSEWHERE, *INSTALLED_AT)], None)
    assert [p["found"][0][1] for p in python] == ["candidate"] * len(ELSEWHERE) + ["confirmed"] * len(INSTALLED_AT)


# A release of the same major version named anywhere else in the paste, without the library's name ("With 4.46.0
# it fails", a report's two lines): most likely the library's own; held to it too. Other packages' releases of
# another major version (torch 2.4.0, Python 3.10.12, CUDA 12.1) are not.
SEVERAL_IN_THE_PASTE = [
    "transformers 4.57.1 works.\nWith 4.46.0 it fails:\n" + KEY_CACHE,
    "- `transformers` version: 4.57.1\n\nSame on 4.46.0 and 4.47.1.\n" + KEY_CACHE,
]
ONE_IN_THE_PASTE = [
    "- `transformers` version: 4.57.1\n- Python version: 3.10.12\n- PyTorch version (GPU?): 2.4.0+cu121 (True)\n"
    "- CUDA: 12.1\n" + KEY_CACHE,
]


@pytest.mark.parametrize("paste", SEVERAL_IN_THE_PASTE, ids=["two-lines", "template-and-prose"])
def test_a_release_of_the_same_major_elsewhere_in_the_paste_is_held_too(kb, paste):
    assert grades(kb, paste) == {"key-cache-removed": "candidate"}


@pytest.mark.parametrize("paste", ONE_IN_THE_PASTE, ids=["environment"])
def test_other_packages_releases_leave_the_stated_one_alone(kb, paste):
    assert grades(kb, paste) == {"key-cache-removed": "confirmed"}


def test_releases_of_the_same_major_are_read_alike_in_the_page_the_cli_and_the_hook():
    from tests.site.test_lookup_js import _same_in_page_cli_and_hook, real_index

    python = _same_in_page_cli_and_hook(real_index.__wrapped__(), [*SEVERAL_IN_THE_PASTE, *ONE_IN_THE_PASTE], None)
    assert [p["found"][0][1] for p in python] == ["candidate"] * len(SEVERAL_IN_THE_PASTE) + ["confirmed"]


@pytest.mark.parametrize("text", [
    "[Bug] cannot import name 'SinkCache' from 'transformers' (peft 0.13)",  # a title's own parenthesis
    "ImportError: cannot import name 'SinkCache' from 'transformers' (/venv/lib/python3.11/site-packag\n"
    "es/transformers/__init__.py)",  # wrapped at a terminal's width: the path cannot tell
])
def test_a_location_that_cannot_be_judged_withholds_nothing(kb, text):
    assert grades(kb, text) == {"import-sinkcache-removed": "confirmed"}


# -- a complete traceback without the library rules out what the library's call raises ----------------------
# offloading-without-cuda: the runtime's words, raised beneath the library's offloaded `Cache.update`. A whole
# traceback (marker to exception line, nothing cut) whose frames are all the app's and the runtime's cannot be
# that error: the library's call would be on the stack (corpus h304, Wan2GP#1680).
CUDA = "AssertionError: Torch not compiled with CUDA enabled\n"
TORCH = f"{SITE}/torch/cuda/__init__.py"
APP_FRAMES = (frame("/app/wgp.py", 49, "<module>", "from shared.attention import get_attention_modes")
              + frame("/app/shared/attention.py", 9, "<module>", "major, minor = torch.cuda.get_device_capability(None)")
              + frame(TORCH, 471, "_lazy_init", 'raise AssertionError("Torch not compiled with CUDA enabled")'))
LIBRARY_FRAME = frame(f"{SITE}/transformers/cache_utils.py", 1373, "update", "self.prefetch(layer_idx + 1)")
WHOLE = TRACEBACK + APP_FRAMES + CUDA
# The same frames, but the paste does not show the whole stack: the library's frame may be the part left out.
CUT = {"no-marker": APP_FRAMES + CUDA,
       "last-frames": frame(TORCH, 471, "_lazy_init", 'raise AssertionError("x")') + CUDA,
       "dots": TRACEBACK + frame("/app/wgp.py", 49, "<module>", "main()") + "    ...\n"
       + frame(TORCH, 471, "_lazy_init", 'raise AssertionError("x")') + CUDA,
       "elided": TRACEBACK + frame("/app/wgp.py", 49, "<module>", "main()") + "  [Previous line repeated 2 more times]\n"
       + frame(TORCH, 471, "_lazy_init", 'raise AssertionError("x")') + CUDA,
       "gap": TRACEBACK + frame("/app/wgp.py", 49, "<module>", "main()") + "\n"
       + frame(TORCH, 471, "_lazy_init", 'raise AssertionError("x")') + CUDA,
       "bare": CUDA}


def test_a_complete_traceback_without_the_library_rules_out_an_error_raised_in_its_call(kb):
    answer = kb.answer(WHOLE)
    assert "offloading-without-cuda" not in {m.known.id for m in answer.matches}
    assert any(r.match.known.id == "offloading-without-cuda" and "complete traceback" in r.reason
               for r in answer.ruled_out)


@pytest.mark.parametrize("shape", sorted(CUT))
def test_a_traceback_that_may_leave_the_library_out_keeps_the_entry(kb, shape):
    assert grades(kb, CUT[shape]).get("offloading-without-cuda") == "candidate"


def test_the_librarys_frame_on_the_stack_keeps_the_entry(kb):
    with_library = TRACEBACK + frame("/me/run.py", 3, "<module>", "model.generate(**batch)") + LIBRARY_FRAME + \
        frame(TORCH, 471, "_lazy_init", 'raise AssertionError("x")') + CUDA
    assert grades(kb, with_library).get("offloading-without-cuda") == "confirmed"


# Kinds whose error the user's code (or the runtime, for any caller) raises: a stack without the library is theirs.
OWN_KINDS = {
    "removed": (failing("k = cache.key_cache[0]"), "key-cache-removed"),
    "runtime": (TRACEBACK + frame("/me/run.py", 9, "<module>", "out = model.language_model.generate(x)")
                + frame(f"{SITE}/torch/nn/modules/module.py", 1940, "__getattr__", "raise AttributeError(")
                + "AttributeError: 'GPT2InferenceModel' object has no attribute 'generate'\n",
                "remote-model-without-generation-mixin"),
}


@pytest.mark.parametrize("kind", sorted(OWN_KINDS))
def test_an_error_the_users_code_raises_still_confirms_without_the_library(kb, kind):
    paste, entry = OWN_KINDS[kind]
    assert grades(kb, paste).get(entry) == "confirmed"


def test_a_complete_traceback_without_the_library_is_read_alike_in_the_page_the_cli_and_the_hook():
    from tests.site.test_lookup_js import _same_in_page_cli_and_hook, real_index

    pastes = [WHOLE, *CUT.values(), *(paste for paste, _ in OWN_KINDS.values())]
    python = _same_in_page_cli_and_hook(real_index.__wrapped__(), pastes, None)
    assert "offloading-without-cuda" not in [one[0] for one in python[0]["found"]]
    assert all("offloading-without-cuda" in [one[0] for one in p["found"]] for p in python[1:1 + len(CUT)])
