"""'message differs' points at the first character that stops fitting the template."""

from __future__ import annotations

import pytest

from errorkb.core.message import MessageTemplate, first_difference
from errorkb.verify.output import marked_difference
from tests.scaling import assert_linear

HEAD_DIM = MessageTemplate.parse("`head_dim` was provided as a list of length {len(num_heads)}, but the Cache "
                                 "currently has {len(self.layers)} layers")
GOOD = "`head_dim` was provided as a list of length 12, but the Cache currently has 28 layers"


@pytest.mark.parametrize(("message", "at"), [
    (GOOD, None),
    (GOOD.replace("length", "lenght"), GOOD.index("length") + 4),  # a typo inside a fixed piece
    (GOOD.replace("the Cache", "the cache"), GOOD.index("Cache")),  # a fixed piece after a value
    (GOOD.removesuffix("s"), len(GOOD) - 1),  # the message ends early: the caret stands after its end
    (GOOD + "!", len(GOOD)),  # the message goes on after the template ended
    ("ValueError: " + GOOD, 0),  # the first fixed piece must start the message
    ("", 0),
])
def test_the_first_difference_is_the_first_character_that_stops_fitting(message, at):
    assert first_difference(HEAD_DIM, message) == at


def test_a_template_with_only_a_placeholder_between_pieces_fits_anything_there():
    template = MessageTemplate.parse("{a} and {b}")
    assert first_difference(template, "x and y") is None
    assert first_difference(template, "x or y") == 2  # ' and ' never occurs: stops after its longest prefix ' '


def test_a_huge_hostile_message_is_answered_in_bounded_time():
    def run(size: int) -> None:
        assert first_difference(HEAD_DIM, "`head_dim` was provided as a list of length " + "a" * size) is not None

    assert_linear(run, 500_000)


def test_the_caret_stands_under_the_first_difference():
    actual = GOOD.replace("the Cache", "the cache")
    reason = ["message differs", f"  expected: {HEAD_DIM.source}", f"  actual:   {actual}"]
    marked = marked_difference(reason)
    assert marked[:3] == reason and len(marked) == 4
    assert marked[3].index("^") == marked[2].index("the cache") + 4
    assert marked[3].endswith("^ first difference (character 57: 'c')")


def test_a_difference_on_a_later_line_is_named_by_line_and_column():
    template = MessageTemplate.parse("first line\nsecond {x} line")
    reason = ["message differs", "  expected: first line", "second {x} line", "  actual:   first line", "second 1 lane"]
    marked = marked_difference(reason)
    assert first_difference(template, "first line\nsecond 1 lane") == len("first line\nsecond 1 l")
    assert marked[-1] == "  first difference: line 2, column 11 of the actual message"


def test_a_reason_of_another_shape_is_left_alone():
    assert marked_difference(["exited normally"]) == ["exited normally"]
    assert marked_difference(["message differs", "  expected: {unclosed", "  actual:   x"])[-1] == "  actual:   x"
