"""Every figure from its file, and every figure the project states from the table.

The figure table is bench/figures.py (the lab's rows) plus accel/common/figures.py (the rows pack code quotes at run
time); the checks are bench/figure_check.py (CONTRIBUTING.md, "Figures"). These tests fail when
- a row's value differs from its file (or the file, key, row or column is gone), or its setup lacks a field;
- accel/ keeps a row no pack code quotes, or pack code quotes a row it does not hold;
- a Markdown file a user or maintainer reads (every tracked *.md but bench/results/**) states a figure that cites no
  row and is not marked as no measurement with a known reason, cites a number its row does not hold, or cites a row
  where the text names another GPU, ComfyUI version or card size, or does not say the run shared its host;
- docs/results.md is not what bench/results_doc.py writes from its template;
- a user's doc names an issue number or holds a work note;
- a tooltip, description, reason string or workflow note has a figure written into its source.
tests/common/test_figure_mutations.py shows each of these failing on a deliberate change.

No ComfyUI needed: the table and the checks import nothing from the pack and are loaded by path.
"""
from pathlib import Path

import pytest

import accel_harness as H

ROOT = Path(__file__).resolve().parents[2]
FC = H.lab_module("bench_figure_check", "bench/figure_check.py")
RESULTS_DOC = H.lab_module("bench_results_doc", "bench/results_doc.py")

# Numbers in the pack's strings that are not measurements: (file, token) -> a reason of FC.NOFIG_REASONS.
NOT_MEASUREMENTS = {
    ("accel/wan_level1/preset.py", "0.99999"): "bound",  # the bound tests/level1/test_level1.py asserts
    ("accel/cache/calibrate.py", "30%"): "setting",  # the share of steps the suggested threshold aims to skip
    ("accel/cache/configure.py", "10x"): "published",  # how far the published coefficient sets' scales differ
    ("nodes/cache.py", "10%"): "setting",  # the threshold input's meaning (0.1 = 10%)
}


@pytest.mark.parametrize("fid", sorted(FC.LAB.FIGURES))
def test_figure_matches_its_file(fid):
    problems = FC.check_row(FC.LAB.FIGURES[fid])
    assert not problems, "\n".join(problems)


def test_every_pack_row_is_measured_somewhere_and_the_pack_holds_no_table():
    """accel/common/figures.py keeps only what pack code quotes; bench/figures.py says how each was measured."""
    assert set(FC.PACK.FIGURES) <= set(FC.LAB.FIGURES)
    problems = FC.check_pack_table()
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("rel", FC.markdown_files())
def test_markdown_figures_cite_their_rows(rel):
    problems = FC.check_doc(rel, (ROOT / rel).read_text(encoding="utf-8"))
    assert not problems, ("CONTRIBUTING.md, Figures:\n" + "\n".join(problems))


def test_every_markdown_file_is_checked():
    """The exemptions are the result files themselves and the template docs/results.md is written from."""
    checked = set(FC.markdown_files())
    for rel in ("README.md", "CONTRIBUTING.md", "bench/README.md", "docs/results.md", "docs/nodes.md",
                "docs/sparse_attention.md", "docs/compat.md", "web/docs/AccelWanLevel1.md"):
        assert rel in checked, rel
    every = {str(p.relative_to(ROOT)) for p in ROOT.rglob("*.md") if ".testbed" not in p.parts
             and not any(part.startswith(".") for part in p.relative_to(ROOT).parts)}
    unchecked = {f for f in every - checked if not f.startswith(FC.EXEMPT) and not f.startswith("tests/")}
    assert not unchecked, f"Markdown the figure test does not read: {sorted(unchecked)}"


def test_results_page_is_written_from_the_table():
    page = RESULTS_DOC.render(RESULTS_DOC.TEMPLATE.read_text(encoding="utf-8"))
    assert (ROOT / "docs" / "results.md").read_text(encoding="utf-8") == page, (
        "docs/results.md is stale: python3 bench/results_doc.py --write")


def test_not_measurements_give_known_reasons():
    assert set(NOT_MEASUREMENTS.values()) <= set(FC.NOFIG_REASONS)


@pytest.mark.parametrize("path", FC.string_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_figure_written_into_a_string(path):
    """Node descriptions (class docstrings of nodes/), tooltips, reason strings and workflow notes take their figures
    from accel.common.figures; developer docstrings in accel/ and kernels/ are not shown to users and are not
    checked."""
    rel = str(path.relative_to(ROOT))
    found = FC.check_strings(rel, path.read_text(encoding="utf-8"), set(NOT_MEASUREMENTS))
    assert not found, "write these with accel.common.figures (text/num/span), or remove them:\n" + "\n".join(found)


@pytest.mark.parametrize("path", sorted(ROOT.glob("nodes/*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_node_descriptions_and_tooltips_quote_no_figures(path):
    """Descriptions and tooltips stay short and do not go stale: a measured figure belongs in the node's help page
    (web/docs/<node id>.md, cited as in README), so nodes/ does not format figures from accel.common.figures either."""
    import ast
    tree = ast.parse(path.read_text())
    imports = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
               and ((n.module or "").endswith("figures") or any(a.name == "figures" for a in n.names))]
    assert not imports, (f"{path.relative_to(ROOT)}:{imports[0].lineno} imports accel.common.figures: "
                         "quote it in web/docs/")
