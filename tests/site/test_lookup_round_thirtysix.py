"""Round thirty-six (lookup37, session 61): the held-out part thirty-two (tests/corpus/README.md, h867–h880).

The part's one miss is no rule of the lookup's: h870 (ATH-MaaS/Ovis#31) reads `max_batch_size` from the `HybridCache`
Ovis1.6-Gemma2's remote code built, in the 4.45 era. 4.45 renamed the attribute `batch_size` in every static-shaped
cache (`StaticCache`, `SlidingWindowCache` through it, `HybridCache`, `MambaCache`) and 4.47 brought it back to all of
them (observed on 4.46.3 from the release environments). `static-cache-max-batch-size-property-removed` words only
`'StaticCache' object has no attribute 'max_batch_size'`, so the report's words match no wording. A rule that read
another class into the entry's wording would confirm on words alone (or offer every removed attribute of every class);
the classes that lost the attribute, and when, are the entry's data: an `also_seen_as` per class, landed with the
entry's data (session 61, lookup37's patch; the tests below failed before it), and its hostile twins keep
the data narrow: other objects that lack the attribute for other causes, and the releases where it exists.

The same class, looked for in the other entries that word one cache class for a change of a family (observed in the
release environments, no report yet): 4.51 made `dtype` private in `HybridCache`, `SlidingWindowCache` and
`HybridChunkedCache` as in `StaticCache` (4.51.3, 4.54.1, 4.57.6 print `'HybridCache' object has no attribute
'dtype'`), and `static-cache-dtype-removed` words `StaticCache` alone: the same data, the same tests. So do the
constructors: `HybridCache`, `SlidingWindowCache` and `HybridChunkedCache` take `max_batch_size` and refuse
`batch_size` exactly where `StaticCache` does (4.42.4 – 4.44.2 and 4.51.3 – 4.53.3 of the matrix's releases), which
`static-cache-batch-size-kwarg` and `static-cache-max-batch-size-required` word for `StaticCache` alone. Those wordings
name neither entry's `names`, so the data makes them candidates, not confirmed: offered is what the tests ask.
"""

from __future__ import annotations

import functools

import pytest

ENTRY = "static-cache-max-batch-size-property-removed"
# h870's words, as the thread's title printed them, and the exception line the rename prints for each class (4.46.3).
RENAMED = ["Run into 'HybridCache' object has no attribute 'max_batch_size' error when doing inference",
           "AttributeError: 'HybridCache' object has no attribute 'max_batch_size'",
           "AttributeError: 'SlidingWindowCache' object has no attribute 'max_batch_size'",
           "AttributeError: 'MambaCache' object has no attribute 'max_batch_size'"]


@functools.cache
def _project():
    from benchmarks import lookup_recall

    return lookup_recall.project_known_lookup()


def _answer(text: str, release: str | None = None) -> tuple[list[str], list[str]]:
    found = _project().answer(text, release)
    return [m.known.id for m in found.confirmed], [m.known.id for m in found.candidates]


@pytest.mark.parametrize("release", [None, "4.46.3"])
@pytest.mark.parametrize("text", RENAMED)
def test_the_rename_in_every_static_shaped_cache_is_the_entrys(text, release):
    """main: nothing (h870 missed): the words name a class the entry's wordings do not."""
    assert _answer(text, release) == ([ENTRY], [])


@pytest.mark.parametrize("text", RENAMED)
def test_where_the_attribute_exists_the_rename_is_not_the_cause(text):
    """4.44 and 4.47 – 5.19 have `max_batch_size` on these caches: never the entry, confirmed, there."""
    for release in ("4.44.2", "4.48.3"):
        assert ENTRY not in _answer(text, release)[0]


@pytest.mark.parametrize("text", [
    "AttributeError: 'DynamicCache' object has no attribute 'max_batch_size'",  # never had one: another cause
    "AttributeError: 'StaticLayer' object has no attribute 'max_batch_size'",  # a layer, not a cache (4.56)
    "AttributeError: 'KVCache' object has no attribute 'max_batch_size'",  # a class of the user's own
    "AttributeError: 'HybridCache' object has no attribute 'max_cache_len'",  # another attribute
], ids=["dynamic-cache", "static-layer", "own-class", "other-attribute"])
def test_other_objects_without_the_attribute_are_not_confirmed_as_the_rename(text):
    """The data names the classes the rename touched, by name: any other object lacks it for another cause."""
    for release in (None, "4.46.3"):
        assert ENTRY not in _answer(text, release)[0]


DTYPE = "static-cache-dtype-removed"
# The exception line each class prints from 4.51 to 4.57 (observed on 4.51.3, 4.54.1 and 4.57.6; Python adds its hint).
DTYPE_PRIVATE = ["AttributeError: 'HybridCache' object has no attribute 'dtype'",
                 "AttributeError: 'SlidingWindowCache' object has no attribute 'dtype'",
                 "AttributeError: 'HybridChunkedCache' object has no attribute 'dtype'. Did you mean: '_dtype'?"]


@pytest.mark.parametrize("release", [None, "4.51.3"])
@pytest.mark.parametrize("text", DTYPE_PRIVATE)
def test_the_private_dtype_in_every_static_shaped_cache_is_the_entrys(text, release):
    """main: nothing: the words name a class the entry's wordings do not."""
    assert _answer(text, release) == ([DTYPE], [])


@pytest.mark.parametrize("text", DTYPE_PRIVATE + ["AttributeError: 'DynamicCache' object has no attribute 'dtype'",
                                                  "AttributeError: 'KVCache' object has no attribute 'dtype'"])
def test_where_the_dtype_is_public_or_never_was_the_change_is_not_the_cause(text):
    """4.50 and older still had `dtype` on these caches, 5.x has none of the three classes, and a `DynamicCache` or a
    class of the user's own lacks it for another cause: never the entry, confirmed, there."""
    for release in ("4.49.0", "5.24.0") if "Hybrid" in text or "Sliding" in text else (None, "4.51.3"):
        assert DTYPE not in _answer(text, release)[0]


# The constructors' exception lines, each with a release of the matrix that prints it and releases that do not (the
# class takes `batch_size` there, or has no such constructor).
CONSTRUCTORS = [
    ("static-cache-batch-size-kwarg", "TypeError: HybridCache.__init__() got an unexpected keyword argument 'batch_size'",
     "4.44.2", ("4.49.0", "4.57.6")),
    ("static-cache-batch-size-kwarg",
     "TypeError: SlidingWindowCache.__init__() got an unexpected keyword argument 'batch_size'", "4.51.3",
     ("4.48.3", "4.57.6")),
    ("static-cache-batch-size-kwarg",
     "TypeError: HybridChunkedCache.__init__() got an unexpected keyword argument 'batch_size'", "4.53.3",
     ("4.44.2", "4.57.6")),
    ("static-cache-max-batch-size-required",
     "TypeError: HybridCache.__init__() missing 1 required positional argument: 'max_batch_size'", "4.42.4",
     ("4.57.6",)),
    ("static-cache-max-batch-size-required",
     "TypeError: HybridChunkedCache.__init__() missing 1 required positional argument: 'max_batch_size'", "4.52.4",
     ("4.44.2", "4.57.6")),
]


def _offered(text: str, release: str | None) -> list[str]:
    confirmed, candidates = _answer(text, release)
    return confirmed + candidates


@pytest.mark.parametrize("entry, text, release, _elsewhere", CONSTRUCTORS, ids=[t.split(".")[0][11:] + "-" + e[13:]
                                                                             for e, t, _r, _o in CONSTRUCTORS])
def test_the_same_constructor_in_every_static_shaped_cache_is_offered(entry, text, release, _elsewhere):
    """main: nothing offered: the words name a class the entry's wordings do not."""
    assert entry in _offered(text, release)


@pytest.mark.parametrize("entry, text, _release, elsewhere", CONSTRUCTORS + [
    ("static-cache-batch-size-kwarg", "TypeError: MyCache.__init__() got an unexpected keyword argument 'batch_size'",
     None, (None, "4.44.2"))], ids=[t.split(".")[0][11:] + "-" + e[13:] for e, t, _r, _o in CONSTRUCTORS] + ["own"])
def test_where_the_constructor_takes_the_argument_it_is_not_offered(entry, text, _release, elsewhere):
    """The releases where the class takes `batch_size` (or does not exist), and a class of the user's own."""
    for release in elsewhere:
        assert entry not in _offered(text, release)
