"""The figure test catches the deliberate changes it exists for.

Each case takes a file as the tree holds it (which the figure test passes: checked first), changes one thing the way
a careless edit or a misread run would, and asserts that bench/figure_check.py reports it. The kinds: a cited figure
replaced by an uncited or wrongly marked one, an edited number, an uncited figure in each long doc, an integer
speed-up, a percentage, seconds, a cosine below 0.99, a sentence naming another GPU, ComfyUI version or card size than
the row it cites, a range citing one row, a shared-host run cited without saying so, a figure written into a node
tooltip or a reason string, a row whose value differs from its file or whose setup lacks a field, a row the pack keeps
but no code quotes, an issue number or a work note in a user's doc, a stale docs/results.md.
"""
import dataclasses
from pathlib import Path

import pytest

import accel_harness as H

ROOT = Path(__file__).resolve().parents[2]
FC = H.lab_module("bench_figure_check", "bench/figure_check.py")
RESULTS_DOC = H.lab_module("bench_results_doc", "bench/results_doc.py")

LEVEL1_H100 = "**1.63x**<!--fig:wf.h100.80.level1.speedup-->"  # README: the users' workflow on an H100
APPEND = None  # the change is a new paragraph at the end of the file

# (kind, file, the text as the tree holds it or APPEND, the changed text)
DOC_MUTATIONS = [
    ("a cited figure replaced by a bare nofig", "README.md", LEVEL1_H100, "**1.93x**<!--nofig-->"),
    ("a measured ratio marked as a setting", "README.md", LEVEL1_H100, "**1.93x**<!--nofig:setting-->"),
    ("a nofig with an unknown reason", "README.md", LEVEL1_H100, "**1.63x**<!--nofig:measured-->"),
    ("an edited number in docs/sparse_attention.md", "docs/sparse_attention.md",
     "3.39x<!--fig:sparse_fa4.h100.720p.decay0.2.speedup-->", "3.49x<!--fig:sparse_fa4.h100.720p.decay0.2.speedup-->"),
    ("an edited number in a node's help page", "web/docs/AccelAttention.md",
     "**1.25x**<!--fig:sparse.h100.480p.decay0.2.speedup-->", "**1.35x**<!--fig:sparse.h100.480p.decay0.2.speedup-->"),
    ("an uncited figure in docs/nodes.md", "docs/nodes.md", APPEND, "Level-1 ran 1.71x faster on an H200."),
    ("an uncited figure in docs/results.md", "docs/results.md", APPEND, "Level-1 ran 1.71x faster on an H200."),
    ("an uncited figure in bench/README.md", "bench/README.md", APPEND, "Level-1 ran 1.71x faster on an H200."),
    ("an integer speed-up", "README.md", APPEND, "Sparse attention makes long videos 3x faster."),
    ("a percentage", "README.md", APPEND, "Accel VAE decodes 12% faster."),
    ("seconds", "README.md", APPEND, "The first run compiles in 21 s on an H200."),
    ("milliseconds", "docs/nodes.md", APPEND, "One attention call takes 31.5 ms on an H100."),
    ("a cosine below 0.99", "docs/nodes.md", APPEND, "FP8 attention keeps the final latent within cosine 0.985."),
    ("a cosine of 0.99 and more, uncited", "CHANGELOG.md", APPEND, "The exact chain stays within 0.99995 of stock."),
    ("a sentence naming an H100 citing an H200 row", "README.md", APPEND,
     "On an H100 Level-1 samples **1.50x**<!--fig:matrix.h200.140.level1.speedup--> faster."),
    ("a ComfyUI version mismatch", "README.md", APPEND,
     "On an H200 with ComfyUI 0.3.75 Level-1 samples **1.50x**<!--fig:matrix.h200.140.level1.speedup--> faster."),
    ("a whole-card row cited as a smaller card", "README.md", APPEND,
     "On an H200 as a 24 GB card Level-1 samples **1.50x**<!--fig:matrix.h200.140.level1.speedup--> faster."),
    ("a smaller card's row cited as the whole card", "README.md", APPEND,
     "On an H100 Level-1 samples **1.54x**<!--fig:matrix.h100.24.level1.speedup--> faster."),
    ("a range citing one row", "docs/results.md", APPEND,
     "On the H100 as 48 or 24 GB cards Level-1 gave 1.52–1.54x<!--fig:matrix.h100.48.level1.speedup-->."),
    ("a shared-host run cited without saying so", "README.md", APPEND,
     "On an H200 Qwen-Image samples **1.39x**<!--fig:family.h200.qwen.shipped.speedup--> faster."),
    ("a citation of no row", "README.md", LEVEL1_H100, "**1.63x**<!--fig:wf.h100.80.level1.speedup.typo-->"),
    ("a target written without its comparison", "bench/README.md", "≥ 3x<!--nofig:target-->", "3x<!--nofig:target-->"),
    ("an issue number in a user's doc", "docs/compat.md", APPEND, "This was fixed in issue #32."),
    ("a work note in a user's doc", "docs/sparse_attention.md", APPEND, "Still to measure: FA4 on an H200."),
    ("a TODO naming no figure awaiting a run", "docs/nodes.md", APPEND, "<!-- TODO(gpu): no.such.figure -->"),
]


def _mutated(rel, old, new):
    path = ROOT / rel
    text = path.read_text(encoding="utf-8") if path.exists() else "# Changelog\n"
    if old is APPEND:
        return text, text.rstrip("\n") + "\n\n" + new + "\n"
    assert text.count(old) >= 1, f"{rel} no longer holds {old!r}: update this case"
    return text, text.replace(old, new, 1)


@pytest.mark.parametrize("kind, rel, old, new", DOC_MUTATIONS, ids=[m[0] for m in DOC_MUTATIONS])
def test_a_deliberate_change_to_the_docs_fails(kind, rel, old, new):
    before, after = _mutated(rel, old, new)
    assert not FC.check_doc(rel, before), f"{rel} must pass as the tree holds it"
    assert FC.check_doc(rel, after), f"{kind}: the figure test did not notice"


STRING_MUTATIONS = [
    ("a figure in a node tooltip", "nodes/wan_level1.py", '"about 1.50x faster than stock"'),
    ("a figure in a node description", "nodes/vae.py", '"""Accel VAE: decodes 1.31x faster."""'),
    ("a figure in a reason string of accel/", "accel/common/defaults.py", '"FA3 measured 16% faster here"'),
]


@pytest.mark.parametrize("kind, rel, literal", STRING_MUTATIONS, ids=[m[0] for m in STRING_MUTATIONS])
def test_a_figure_written_into_the_pack_fails(kind, rel, literal):
    source = (ROOT / rel).read_text(encoding="utf-8")
    assert not [f for f in FC.check_strings(rel, source) if "1.50x" in f or "1.31x" in f or "16%" in f]
    changed = source + f"\n\n_MUTATION = {literal}\n"
    if literal.startswith('"""'):
        changed = source + f"\n\nclass _Mutation:\n    {literal}\n"
    assert FC.check_strings(rel, changed), f"{kind}: the figure test did not notice"


def test_a_row_whose_value_differs_from_its_file_fails():
    row = FC.LAB.FIGURES["matrix.h200.140.level1.speedup"]
    assert not FC.check_row(row)
    assert FC.check_row(dataclasses.replace(row, value=row.value + 0.01))
    assert FC.check_row(dataclasses.replace(row, src="json:chains/level1/no_such_key"))


def test_a_row_without_its_setup_fields_fails():
    row = FC.LAB.FIGURES["matrix.h200.140.level1.speedup"]
    assert FC.check_row(dataclasses.replace(row, setup=dataclasses.replace(row.setup, gpu="")))
    assert FC.check_row(dataclasses.replace(row, setup=dataclasses.replace(row.setup, comfyui="0.33")))
    assert FC.check_row(dataclasses.replace(row, setup=dataclasses.replace(row.setup, card=200)))
    assert FC.check_row(dataclasses.replace(row, setup=None))


def test_a_pack_row_no_code_quotes_fails(monkeypatch):
    assert not FC.check_pack_table()
    extra = dataclasses.replace(FC.PACK.FIGURES["attn.h100.wan14B_480p.fa3"], id="attn.h100.unquoted")
    monkeypatch.setitem(FC.PACK.FIGURES, extra.id, extra)
    assert any("attn.h100.unquoted" in p for p in FC.check_pack_table())


def test_a_lab_row_quoted_by_pack_code_fails(monkeypatch):
    """Pack code quoting a row of bench/figures.py would import the lab: the row belongs in accel/."""
    monkeypatch.delitem(FC.PACK.FIGURES, "attn.h100.wan14B_480p.fa3")
    assert any("attn.h100.wan14B_480p.fa3" in p for p in FC.check_pack_table())


def test_a_stale_results_page_fails():
    template = RESULTS_DOC.TEMPLATE.read_text(encoding="utf-8")
    page = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    assert RESULTS_DOC.render(template) == page
    edited = page.replace("{}".format(FC.LAB.text("matrix.h200.140.level1.speedup")), "1.55x", 1)
    assert edited != page and RESULTS_DOC.render(template) != edited


def test_the_list_covers_the_audit():
    """The audit's 14 kinds of change, and more: each is a case above."""
    assert len(DOC_MUTATIONS) + len(STRING_MUTATIONS) + 5 >= 14
