"""The catalogue of mistakes (roofline_lib.mistakes): the grader's class report and the book's
questions word a constant factor the same way, and a question's answer key holds only what it
lists, with a tolerance that tells every listed value apart."""

from __future__ import annotations

import math
import re

import pytest

from roofline_lib.mistakes import (
    GENERIC_FACTORS,
    Convention,
    Mistake,
    answer_key,
    describe_factor,
    erratum,
    factor_words,
    fraction_for_percent,
)


def test_the_class_report_uses_the_library_catalogue() -> None:
    from roofline_grader.outputs import classreport

    assert classreport.describe_factor is describe_factor


@pytest.mark.parametrize("ratio", GENERIC_FACTORS)
def test_every_generic_factor_has_words_of_its_own(ratio: float) -> None:
    assert factor_words(ratio) != "off by one constant factor"
    assert describe_factor(ratio).endswith(factor_words(ratio))


def test_an_answer_key_keeps_what_the_question_lists_and_nothing_else() -> None:
    sparse = Mistake(2.0, "You used the sparse peak.")
    exact = Convention(1.05, "with every byte counted")
    key = answer_key(1.0, 0.01, [sparse], [exact])
    assert key.mistakes == (sparse,) and key.conventions == (exact,)
    assert key.answer == 1.0 and key.rtol == 0.01


@pytest.mark.parametrize(
    ("listed", "name"),
    [
        ([Mistake(298.0, "the guide's figure")], "mistakes[0]"),
        ([Mistake(500.0, "far"), Mistake(501.0, "too close to the other")], "mistakes[1]"),
    ],
)
def test_a_value_the_tolerance_cannot_tell_apart_is_refused_with_the_rtol_that_would(
    listed: list[Mistake], name: str
) -> None:
    # 295 and 298 differ by 1 %: a 1 % tolerance ticks both, so the key is refused
    with pytest.raises(ValueError, match=rf"{re.escape(name)} = .* use rtol below"):
        answer_key(295.0, 0.01, listed)


def test_the_guides_298_is_separated_from_295_at_a_tighter_tolerance() -> None:
    key = answer_key(295.37, 0.004, [erratum(298.51, "a peak rounded up to 10¹⁵")])
    assert key.mistakes[0].hint.startswith("That is the sources' figure, an erratum")


def test_a_convention_is_checked_like_a_mistake() -> None:
    with pytest.raises(ValueError, match=r"conventions\[0\] = 1\.001 is within rtol"):
        answer_key(1.0, 0.01, conventions=[Convention(1.001, "rounded")])


def test_a_percentage_answered_as_a_fraction_gets_its_hint() -> None:
    mistake = fraction_for_percent(81.6)
    assert mistake.value == pytest.approx(0.816)
    assert "percentage" in mistake.hint


@pytest.mark.parametrize("answer", [0.0, -1.0, math.inf, math.nan])
def test_an_answer_must_be_positive_and_finite(answer: float) -> None:
    with pytest.raises(ValueError, match="answer must be a positive finite number"):
        answer_key(answer, 0.01)


@pytest.mark.parametrize("rtol", [0.0, -0.1, 0.5, math.nan])
def test_rtol_must_be_a_fraction_below_one_half(rtol: float) -> None:
    with pytest.raises(ValueError, match="rtol must be in"):
        answer_key(1.0, rtol)


@pytest.mark.parametrize("value", [0.0, -2.0, math.inf])
def test_a_listed_value_must_be_positive_and_finite(value: float) -> None:
    with pytest.raises(ValueError, match=r"mistakes\[0\] must be a positive finite number"):
        answer_key(1.0, 0.01, [Mistake(value, "nonsense")])
