"""The catalogue of mistakes (roofline_lib.mistakes): the grader's class report and the book's
questions word a constant factor the same way."""

from __future__ import annotations

import math

import pytest

from roofline_lib.mistakes import (
    GENERIC_FACTORS,
    Mistake,
    describe_factor,
    factor_mistakes,
    factor_words,
    known_mistakes,
)


def test_the_class_report_uses_the_library_catalogue() -> None:
    from roofline_grader.outputs import classreport

    assert classreport.describe_factor is describe_factor


@pytest.mark.parametrize("ratio", GENERIC_FACTORS)
def test_every_generic_factor_has_words_of_its_own(ratio: float) -> None:
    assert factor_words(ratio) != "off by one constant factor"
    assert describe_factor(ratio).endswith(factor_words(ratio))


def test_a_question_lists_its_own_mistakes_first_then_the_generic_factors() -> None:
    sparse = Mistake(0.5, "You used the sparse peak.")
    mistakes = known_mistakes(1.0, [sparse])
    assert mistakes[0] == sparse
    # the generic ×1/2 is the sparse peak's value: listed once, with the specific hint
    assert [m.value for m in mistakes].count(0.5) == 1
    assert any("bits and bytes" in m.hint and m.value == 8.0 for m in mistakes)


def test_no_mistake_is_within_the_tolerance_of_the_answer_or_of_another() -> None:
    rtol = 0.01
    mistakes = known_mistakes(3.0, [Mistake(3.01, "too close"), Mistake(6.0, "double")], rtol)
    values = [3.0, *(m.value for m in mistakes)]
    assert "too close" not in [m.hint for m in mistakes]
    for i, a in enumerate(values):
        for b in values[:i]:
            assert not math.isclose(a, b, rel_tol=2 * rtol)
    assert len(factor_mistakes(3.0)) == len(GENERIC_FACTORS)


@pytest.mark.parametrize("answer", [0.0, -1.0, math.inf, math.nan])
def test_an_answer_must_be_positive_and_finite(answer: float) -> None:
    with pytest.raises(ValueError, match="answer must be a positive finite number"):
        known_mistakes(answer)
