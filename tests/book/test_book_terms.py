"""One term per idea in the Chinese edition, as the glossary decides (book/13_glossary.md): the
book's catalogs, the library's words (roofline_lib/words_zh_cn.py), the exercises' checks
(locales/zh_CN/LC_MESSAGES/checks.po) and the problems' own Chinese (statements and titles in
solutions/ and roofline_grader/checks/) all write it the same way."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from roofline_lib.words_zh_cn import ZH_CN
from tests.book.site import ROOT

MESSAGES = ROOT / "locales" / "zh_CN" / "LC_MESSAGES"
CHECKS = ROOT / "roofline_grader" / "checks"
_HAN = re.compile("[\u4e00-\u9fff]")

ONE_WAY = {
    # collectives by their English names, glossed in Chinese in parentheses where first used
    "AllReduce": ("全归约",),
    "ReduceScatter": ("归约散射",),
    "AllGather": ("全收集",),
    "FlashAttention": ("flash attention", "Flash attention", "Flash Attention", "flash 注意力"),
}
"""The term the edition writes, and the variants it must not (except as the term's gloss)."""

ONLY_AS = {
    "操作": ("操作数", "集合通信操作"),  # an operation is 算子; 操作数 is an operand
    "斜线": ("斜线阴影",),  # the roofline's slope is 斜坡; 斜线阴影 is hatching
    "取整": ("向下取整", "向上取整"),  # a rounded figure is 四舍五入; 取整 is floor or ceiling
    "query": (),  # a query is 查询, its English only in a gloss: 查询（query）
    "embedding": (),  # 嵌入（embedding）, likewise
    "prompt": (),  # 提示词（prompt）, likewise
}
"""A word and the only phrases it may stand in: elsewhere it is the other word of a pair the
glossary decides (算子 for an operation, 斜坡, 四舍五入, 查询, 嵌入, 提示词). Quotations of the guide keep
its words."""

COUNTED_OPERATION = re.compile("[一两三四五这那每该]个运算|运算(是|处于)|的运算，")
"""运算 is arithmetic (浮点运算, 运算次数, 以 bf16 进行运算); an operation one counts or classifies
is 算子 (一个算子, 算子处于计算受限)."""

_QUOTED = re.compile("“[^”]*”|`[^`]*`|（[^）]*）")
"""A quotation (of a source, in its words), code (a glued value's name) or a gloss in parentheses
(查询（query）): left as written."""

BOUND = {
    "network-bound": ("网络受限", "通信受限"),
    "communication-bound": ("通信受限", "网络受限"),
}
"""An English regime and (its Chinese, the other regime's Chinese): 通信受限 (comms-bound, from
memory or a link) is not 网络受限 (network-bound, a link), as the English tells them apart."""


def translations() -> Iterator[tuple[str, str, str]]:
    """(where, English, Chinese) for every translation the edition shows."""
    for po in [*sorted((MESSAGES / "book").glob("*.po")), MESSAGES / "checks.po"]:
        with po.open("rb") as stream:
            for message in read_po(stream):
                if message.id and message.string:
                    yield po.stem, str(message.id), str(message.string)
    for english, chinese in ZH_CN.items():
        yield "words_zh_cn", english, chinese
    # the problems' statements, titles and hints keep their Chinese beside the English
    for path in [*sorted(ROOT.glob("solutions/*/*.ipynb")), *sorted(CHECKS.glob("problem*.py"))]:
        for line in path.read_text(encoding="utf-8").splitlines():
            if _HAN.search(line):
                yield path.name, "", line


def test_the_translations_are_read() -> None:
    where = {place for place, _, _ in translations()}
    assert {"checks", "words_zh_cn", "13_glossary", "05_network"} <= where


@pytest.mark.parametrize("term", sorted(ONE_WAY))
def test_a_term_is_written_one_way(term: str) -> None:
    slips = []
    for place, _, chinese in translations():
        text = chinese
        for variant in ONE_WAY[term]:
            text = text.replace(f"{term}（{variant}）", term)  # the gloss on first use
        slips += [
            f"{place}: {variant} in {chinese[:80]!r}"
            for variant in ONE_WAY[term]
            if variant in text
        ]
    assert slips == [], "\n".join(slips)


@pytest.mark.parametrize("word", sorted(ONLY_AS))
def test_a_word_of_a_pair_stands_only_where_the_glossary_allows(word: str) -> None:
    slips = []
    for place, english, chinese in translations():
        if chinese == english:  # the glossary's English column, English on purpose
            continue
        text = _QUOTED.sub("", chinese)
        for phrase in ONLY_AS[word]:
            text = text.replace(phrase, "")
        if word in text:
            at = chinese.find(word)
            slips.append(f"{place}: {word} in {chinese[max(0, at - 30) : at + 30]!r}")
    assert slips == [], "\n".join(slips)


def test_an_operation_is_a_suanzi_and_arithmetic_is_yunsuan() -> None:
    slips = [
        f"{place}: {chinese[max(0, m.start() - 30) : m.end() + 20]!r}"
        for place, _, chinese in translations()
        for m in COUNTED_OPERATION.finditer(chinese)
    ]
    assert slips == [], "\n".join(slips)


def test_billions_are_never_written_b_beside_the_batch_b() -> None:
    """B is the batch on every page: 700 亿 or × 10⁹ parameters, never "70 B"."""
    billions = re.compile(r"(\d|`) B(?=[，。、；）\s]|$)")
    slips = [
        f"{place}: {chinese[:80]!r}"
        for place, _, chinese in translations()
        if billions.search(chinese)
    ]
    assert slips == [], "\n".join(slips)


def test_a_problem_is_named_with_a_space_before_a_chinese_word() -> None:
    """习题 1 的矩阵乘法, not 习题 1的: a number is spaced from the Chinese around it."""
    slips = [
        f"{place}: {chinese[:80]!r}"
        for place, _, chinese in translations()
        if re.search("习题 \\d+[\u4e00-\u9fff]", chinese)
    ]
    assert slips == [], "\n".join(slips)


def test_network_bound_and_communication_bound_stay_apart() -> None:
    slips = []
    for place, english, chinese in translations():
        for regime, (right, other) in BOUND.items():
            mentions = [r for r in BOUND if r in english.lower()]
            if chinese == english:  # the glossary's English column, English on purpose
                continue
            if mentions == [regime] and (right not in chinese or other in chinese):
                slips.append(f"{place}: {regime} as {chinese[:80]!r}")
    assert slips == [], "\n".join(slips)


def test_the_glossary_decides_the_terms() -> None:
    glossary = (ROOT / "book" / "13_glossary.md").read_text(encoding="utf-8")
    assert "| all-reduce | AllReduce（全归约） |" in glossary
    assert "| network-bound | 网络受限 |" in glossary
    assert "| communication-bound | 通信受限 |" in glossary
    for english, chinese in (
        ("operation", "算子"),
        ("slope", "斜坡"),
        ("rounding", "四舍五入"),
        ("query", "查询"),
        ("embedding", "嵌入"),
        ("prompt", "提示词"),
    ):
        assert f"| {english} | {chinese} |" in glossary


def test_this_module_reads_the_files_it_names() -> None:
    assert Path(MESSAGES / "checks.po").is_file()
