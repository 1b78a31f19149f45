"""Page 9's claims about a whole model, recomputed by hand and read from the built page.

Each test works the number out from the model's shape and the catalog's H100 (989.5e12 FLOP/s
dense bf16, 3.35e12 bytes/s of HBM, 450e9 bytes/s one way on NVLink) without the page's cells,
and checks that the wording the review found wrong is gone.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from roofline_lib.fmt import format_number, format_quantity
from tests.book.test_book_numbers import _article, _rendered

pytestmark = pytest.mark.slow

PAGE = "book/09_inference"
C, W_HBM, W_NVLINK = 989.5e12, 3.35e12, 450e9
# Llama-3-70B (its config.json) over N = 8 chips
L, D, H, H_KV, d, F, V, N = 80, 8192, 64, 8, 128, 28672, 128256, 8
WEIGHTS_PER_LAYER_PER_CHIP = D * (H + 2 * H_KV) * d // N + H * d * D // N + 3 * D * F // N
LM_HEAD = D * math.ceil(V / N)


def _text(html: Path) -> str:
    return re.sub(r"\s+", " ", _article(html, PAGE).get_text())


def test_ttft_is_bounded_by_arithmetic_with_causal_attention(html: Path) -> None:
    """One 2,048-token prompt: 2·T per weight on each chip, causal attention
    2·(H/N)·d·S(S+1) per layer, the lm head on the last token only; over C. The norms and adds
    (about 1e-4 of it) do not reach the third digit."""
    S = 2048
    matmuls = 2 * S * L * WEIGHTS_PER_LAYER_PER_CHIP + 2 * LM_HEAD
    attention = L * 2 * (H // N) * d * S * (S + 1)
    shown = dict(_rendered(html, PAGE))
    assert shown["inf_ttft"] == format_quantity((matmuls + attention) / C, "s")
    assert shown["inf_ttft"] == "36.1 ms"
    text = _text(html)
    assert "TTFT ≥ 54" not in text and "lower bounds on the time to first token" not in text
    assert "roofline bound" in text and "per-operation estimate" in text


def test_the_inter_token_bound_reads_only_weights_and_kv_cache(html: Path) -> None:
    """B = 64 requests at S = 4,096: each chip reads its weights (its layers', B rows of the
    embedding table, its ⌈V/N⌉ rows of the lm head) and its KV heads' caches, and writes the new
    tokens' keys and values, all in bf16, over W_hbm: 8.39 ms (the review's figure), not the
    8.82 ms that also counted the activations."""
    B, S = 64, 4096
    weights = 2 * (L * WEIGHTS_PER_LAYER_PER_CHIP + B * D + LM_HEAD)
    kv = 2 * L * (H_KV // N) * d * 2 * (B * S + B)
    shown = dict(_rendered(html, PAGE))
    assert shown["inf_itl"] == format_quantity((weights + kv) / W_HBM, "s") == "8.39 ms"
    assert shown["inf_tokens_s"] == format_quantity(B / ((weights + kv) / W_HBM), "tokens/s")
    assert shown["inf_tokens_chip"] == format_quantity(B / ((weights + kv) / W_HBM) / N, "tokens/s")


def test_the_critical_batch_of_eight_chips_is_the_output_projections(html: Path) -> None:
    """X[B, Hd/N]·Y[Hd/N, D] in bf16 is compute-bound when 2·B·k·n / (2·(B·k + k·n + B·n)) ≥
    C/W, k = Hd/N = 1,024, n = D: B = I*·k·n / (k·n − I*·(k + n)) = 437, above 295 (I*) and the
    square matmul's 318; the page says which matmul sets it."""
    i_star, k, n = C / W_HBM, H * d // N, D
    shown = dict(_rendered(html, PAGE))
    assert shown["inf_crit"] == format_number(i_star * k * n / (k * n - i_star * (k + n)))
    assert shown["inf_crit"] == "437"
    assert shown["inf_narrow"] == "1,024"
    assert "is set on eight chips by the thinnest: the output projection" in _text(html)


def test_prefill_shards_are_compared_with_the_eight_way_all_reduce(html: Path) -> None:
    """An 8-way ring all-reduce sends φ = 2·7/8 of the partial sum: compute-bound from
    D/N ≥ φ·s·C/(2W) = 1.75·989.5e12/450e9 = 3,848; Hd/N = 1,024 and F/N = 3,584 are below."""
    shown = dict(_rendered(html, PAGE))
    assert shown["inf_dstar_allreduce"] == format_number(1.75 * 2 * C / (2 * W_NVLINK), 4)
    assert shown["inf_dstar_allreduce"] == "3,848"
    assert shown["inf_shard"] == "1,024" and shown["inf_shard_down"] == "3,584"
    text = _text(html)
    assert "2,199" not in text and "NVLink's critical" not in text


def test_the_fp8_row_says_its_all_reduces_stay_in_bf16(html: Path) -> None:
    text = _text(html)
    assert "fp8 everywhere" not in text
    assert "fp8 (all-reduces in bf16)" in text
    assert "keeps its all-reduces in bf16" in text


def test_real_servers_are_shown_below_their_bound_with_their_sources(html: Path) -> None:
    """The reality check: every published figure beside its bound, each share at most 100%, each
    row linking a pinned source (a commit, not a live page)."""
    article = _article(html, PAGE)
    section = article.find(id="how-far-real-servers-run-from-the-roofline")
    assert section is not None
    rows = section.find("table").find_all("tr")[1:]
    assert len(rows) == 4
    for row in rows:
        cells = [re.sub(r"\s+", " ", td.get_text()).strip() for td in row.find_all("td")]
        shares = [float(x) for x in re.findall(r"(\d+(?:\.\d+)?)%", cells[-1])]
        assert shares and all(0 < share <= 100 for share in shares), cells
        link = row.find("a")["href"]
        assert re.search(r"/blob/[0-9a-f]{40}/", link), link
    text = re.sub(r"\s+", " ", section.get_text())
    assert "24.5 ktokens/s" in text  # MLPerf: 'Tokens per second: 24524.9'
    assert "TTFT 109 ms" in text  # TensorRT-LLM: '| LLaMA 70B | 1 | 4 | 2048 | 109 |'
