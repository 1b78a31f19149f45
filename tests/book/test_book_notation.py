"""One meaning per symbol, on every page and in every problem, and a notation table that lists
them all.

The table is the intro's "Notation" section. These tests read the MyST sources and the problem
notebooks (no build):

* every symbol in the table is listed once, and every one is used somewhere;
* every letter used in math anywhere (pages, solution and exercise notebooks) is in the table;
* the meanings the sources gave a second letter are gone: F as a FLOP count, V as bytes, W as a
  weight matrix, N as a vector or sequence length, s as a sequence length, B as a count of
  sequences, P as attention probabilities, T as a token count, and the tile section's m, k, n.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.book.site import ROOT, toc_pages

INTRO = ROOT / "book" / "intro.md"
PAGES = [ROOT / f"{page}.md" for page in toc_pages()]
NOTEBOOKS = sorted((ROOT / "solutions").glob("problem*/problem*.ipynb")) + sorted(
    (ROOT / "exercises").glob("problem*/problem*.ipynb")
)

GREEK = ("alpha", "beta", "gamma", "delta", "epsilon", "eta", "theta", "lambda", "mu", "pi")
GREEK += ("rho", "sigma", "tau", "phi", "chi", "psi", "omega", "Phi", "Sigma", "Delta")
"""Greek letters that would be symbols (\\phi, ...), as opposed to commands such as \\frac."""

LEGACY_MEANINGS = {
    r"\\frac\{F\}\{|(?<![A-Za-z])F\s*/\s*C|F_\\text\{model\}": "F as a count of FLOPs",
    r"\\frac\{V\}\{W\}|(?<![A-Za-z])V\s*/\s*W": "V as a count of bytes",
    r"(?<![A-Za-z])W\s*\[": "W as a weight matrix",
    r"\]?\[N\]|\[B,\s*N|N\s*\\gg|N\^2|\\lceil\s*N|\(2N|4N": "N as a vector or sequence length",
    r"(?<![A-Za-z\\])s\^2|s\s*\\times\s*s|L\s*\\?,?\s*s\s*\\?,?\s*h": "s as a sequence length",
    r"\[B,\s*S": "B as a count of sequences (attention's leading dimension is H)",
    r"softmax\}?\s*\(S\)|(?<![A-Za-z])P\s*V(?![A-Za-z])": "P as attention probabilities",
    r"6\s*\\?,?\s*P\s*\\?,?\s*T(?![A-Za-z_])": "T as a count of tokens",
    r"(?<![A-Za-z\\])[bt]_[mnk](?![A-Za-z])|\(m,\s*k\)": "the tile section's m, k, n",
}
"""Each pattern, searched in every piece of math, finds a meaning a letter had in the sources
besides the one the notation table gives it."""


def _math(markdown: str) -> list[str]:
    """Every piece of math in MyST markdown: $$…$$, $…$, {math}`…` and ```{math} blocks, with
    code (fenced and inline) left out."""
    text = re.sub(r"```\{code-cell\}.*?\n```", "", markdown, flags=re.S)
    blocks = re.findall(r"```\{math\}[^\n]*\n(.*?)\n```", text, flags=re.S)
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    roles = re.findall(r"\{math\}`([^`]*)`", text)
    text = re.sub(r"`[^`\n]*`", "", text)
    display = re.findall(r"\$\$(.*?)\$\$", text, flags=re.S)
    text = re.sub(r"\$\$.*?\$\$", "", text, flags=re.S)
    inline = re.findall(r"(?<![\\$])\$([^$\n]+?)\$", text)
    return blocks + roles + display + inline


def _letters(math: str) -> set[str]:
    """The symbols a piece of math uses: single letters and Greek letters (\\phi → φ-name)."""
    stripped = re.sub(
        r"\\(?:text|mathrm|operatorname|textrm|mathit|textbf)\s*\{[^{}]*\}", " ", math
    )
    greek = {name for name in re.findall(r"\\([A-Za-z]+)", stripped) if name in GREEK}
    stripped = re.sub(r"\\[A-Za-z]+", " ", stripped)
    return set(re.findall(r"(?<![A-Za-z])[A-Za-z](?![A-Za-z])", stripped)) | greek


def _sources() -> dict[str, str]:
    sources = {str(path.relative_to(ROOT)): path.read_text(encoding="utf-8") for path in PAGES}
    for path in NOTEBOOKS:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        sources[str(path.relative_to(ROOT))] = "\n\n".join(
            "".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown"
        )
    return sources


def _notation_table() -> list[tuple[str, str]]:
    """(symbol column, meaning) of every row of the intro's notation table."""
    text = INTRO.read_text(encoding="utf-8")
    section = text.split("(sec-notation)=", 1)[1].split("\n## ", 2)[1]
    rows = [line for line in section.splitlines() if line.startswith("| $")]
    assert rows, "book/intro.md: the Notation section has no table"
    return [tuple(cell.strip() for cell in row.strip("|").split("|")[:2]) for row in rows]


def _table_symbols() -> list[str]:
    """Each symbol the table defines, as written before any '=': ``B``, ``B^*``, ``T_math``."""
    symbols = []
    for column, _ in _notation_table():
        for math in re.findall(r"\$([^$]+)\$", column):
            head = math.split("=")[0]
            head = re.sub(r"\\(?:text|mathrm)\s*\{([^{}]*)\}", r"\1", head)
            symbols.append(re.sub(r"[\s{}\\]", "", head))
    return symbols


def _table_letters() -> set[str]:
    """The letters the table's symbols are built on (``T`` for ``T_math``)."""
    letters = set()
    for symbol in _table_symbols():
        base = symbol.split("_")[0].split("^")[0]
        letters |= {base} if base in GREEK else _letters(base)
    return letters


def test_the_table_defines_each_symbol_once():
    symbols = _table_symbols()
    repeated = sorted({symbol for symbol in symbols if symbols.count(symbol) > 1})
    assert not repeated, f"book/intro.md: the notation table defines {repeated} more than once"


def test_every_symbol_in_math_is_in_the_table():
    known = _table_letters()
    unknown = {}
    for name, source in _sources().items():
        for math in _math(source):
            for letter in _letters(math) - known:
                unknown.setdefault(letter, []).append(f"{name}: ${math.strip()[:60]}$")
    assert not unknown, "symbols not in the notation table (book/intro.md):\n" + "\n".join(
        f"  {letter}: {places[0]}" + (f" (+{len(places) - 1} more)" if len(places) > 1 else "")
        for letter, places in sorted(unknown.items())
    )


def test_every_symbol_in_the_table_is_used():
    used = set()
    for name, source in _sources().items():
        if name != "book/intro.md":
            for math in _math(source):
                used |= _letters(math)
    unused = sorted(_table_letters() - used)
    assert not unused, f"the notation table lists symbols no page or problem uses: {unused}"


@pytest.mark.parametrize("pattern", LEGACY_MEANINGS, ids=list(LEGACY_MEANINGS.values()))
def test_no_letter_keeps_a_second_meaning(pattern):
    found = [
        f"{name}: ${math.strip()[:70]}$"
        for name, source in _sources().items()
        for math in _math(source)
        if re.search(pattern, math)
    ]
    assert not found, f"{LEGACY_MEANINGS[pattern]}, against the notation table:\n" + "\n".join(
        found
    )


def test_the_finders_find_what_they_should():
    """The tests above can fail: their parsers see the old notation in a sample of it."""
    sample = (
        "$T_\\text{math} = F/C$ and $$I = \\frac{V}{W}$$ over $x, y \\in \\text{bf16}[N]$,"
        " {math}`Q \\in [B, S, d]` and ```python\n$Zeta$\n```"
    )
    maths = _math(sample)
    assert len(maths) == 4 and not any("Zeta" in m for m in maths)
    assert _letters("T_\\text{math} = \\phi\\, F / C") == {"T", "F", "C", "phi"}
    hits = {
        meaning for p, meaning in LEGACY_MEANINGS.items() if any(re.search(p, m) for m in maths)
    }
    assert hits == {
        "F as a count of FLOPs",
        "V as a count of bytes",
        "N as a vector or sequence length",
        "B as a count of sequences (attention's leading dimension is H)",
    }
