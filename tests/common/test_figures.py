"""Every figure from its file (issue #28).

`accel/common/figures.py` holds one row per measured figure: the result file under `bench/results/`, where in it, the
value and how it is written. These tests fail when
- a row's value differs from its file (or the file, key, row or column is gone);
- a Markdown doc cites a row (`<!--fig:ID-->` after the number) whose number is not the one written before it,
  or the text before a citation states a figure-like number that none of the cited rows holds;
- README.md or a node's help page (web/docs/) states a figure (a speed-up like 1.50x, a time in ms or s, GiB, dB,
  a cosine) that cites no row;
- the other docs state more uncited figures than they did (a ratchet: new figures must cite a row);
- a tooltip, description or reason string of the pack has a figure written into its source instead of taken
  from `accel.common.figures`;
- a `<!-- TODO(gpu): ID -->` names no figure awaiting a run.

No ComfyUI needed: accel/common/figures.py imports nothing from the pack and is loaded by path.
"""
import ast
import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load_figures():
    spec = importlib.util.spec_from_file_location("bench_figures", ROOT / "bench" / "figures.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


FIG = _load_figures()

NUM = r"\d+(?:\.\d+)?"
# a figure-like token: numbers (a range "1.21–1.31", "a vs b", "a / b") followed by a unit of a measurement
FIG_RE = re.compile(rf"(?<![\w.])((?:{NUM})(?:\s*(?:–|-|/|vs\.?|to)\s*{NUM})*)\s?(x|×|ms|s|GiB|dB)(?![\w²])")
COSINE_RE = re.compile(r"(?<![\w.])(0\.99\d*|1\.0000+)(?![\d.])")
MARK_RE = re.compile(r"<!--\s*fig:\s*([^>]*?)\s*-->")
NOFIG_RE = re.compile(r"<!--\s*nofig\s*-->")
TODO_RE = re.compile(r"<!--\s*TODO\(gpu\):\s*([\w.\-]+)[^>]*-->")

CLAUSE_ENDS = (". ", ".\n", "; ", ": ", "(", "\n- ", "\n  - ")
# the nodes' help pages (web/docs/<node id>.md, shown in the frontend's node help panel) are strict as README is
HELP_PAGES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "web" / "docs").glob("*.md"))
DOCS = ["README.md", "docs/nodes.md", "docs/results.md", "bench/README.md", *HELP_PAGES]
STRICT = {"README.md", *HELP_PAGES}  # every figure cites a row
# Uncited figure-like tokens still in the longer docs (each table there names its file; the rows are being moved
# to citations). This may only go down: a new figure in these docs cites a row.
RATCHET = {"docs/nodes.md": 73, "docs/results.md": 261, "bench/README.md": 228}


# --- reading a result file --------------------------------------------------------------------------------------

def _cell_number(cell):
    text = cell.strip().strip("*").strip()
    text = re.sub(r"\*\*", "", text)
    m = re.match(r"^(-?\d+(?:\.\d+)?(?:e-?\d+)?)\s*(?:x|×|ms|s)?$", text)
    if not m:
        raise ValueError(f"cell {cell!r} is not a number")
    return float(m.group(1))


def _md_tables(text):
    tables, current = [], []
    for line in text.splitlines():
        if line.strip().startswith("|"):
            current.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif current:
            tables.append(current)
            current = []
    if current:
        tables.append(current)
    return tables


def read_value(f):
    path = ROOT / FIG.RESULTS / f.file
    assert path.is_file(), f"{f.id}: {path} does not exist"
    kind, _, where = f.src.partition(":")
    if kind == "json":
        value = json.loads(path.read_text())
        for key in where.split("/"):
            value = value[int(key)] if isinstance(value, list) else value[key]
        return float(value)
    assert kind == "md", f"{f.id}: src {f.src!r} is neither json: nor md:"
    row_key, _, column = where.rpartition("|")
    cells = row_key.split("/")
    for table in _md_tables(path.read_text()):
        header = table[0]
        if column not in header:
            continue
        col = header.index(column)
        for row in table[2:]:
            if row[:len(cells)] == cells:
                return _cell_number(row[col])
    raise AssertionError(f"{f.id}: no table row {cells} with column {column!r} in {path}")


@pytest.mark.parametrize("fid", sorted(FIG.FIGURES))
def test_figure_matches_its_file(fid):
    f = FIG.FIGURES[fid]
    got = read_value(f) * f.scale
    assert abs(got - f.value) <= 1e-9 * max(1.0, abs(f.value)), (
        f"{fid}: accel/common/figures.py says {f.value}, {f.file} ({f.src}) holds {got}")
    assert f.config.strip(), f"{fid}: say what was measured (GPU, ComfyUI, configuration)"


def test_awaiting_ids_are_not_figures():
    assert not set(FIG.AWAITING_GPU) & set(FIG.FIGURES)


# --- the docs ----------------------------------------------------------------------------------------------------

def _segments(text):
    """(start, end, ids or None for nofig) per citation: the text a citation covers runs back to the previous
    citation, the start of its table cell, paragraph, list item or clause (". ", "; ", ": ", "("), whichever is
    nearest."""
    marks = sorted([(m.start(), m.end(), [i.strip() for i in m.group(1).split(",") if i.strip()])
                    for m in MARK_RE.finditer(text)] +
                   [(m.start(), m.end(), None) for m in NOFIG_RE.finditer(text)])
    out, prev_end = [], 0
    for start, end, ids in marks:
        line_start = text.rfind("\n", 0, start) + 1
        cell = text.rfind("|", line_start, start)
        para = text.rfind("\n\n", 0, start)
        clause = max(text.rfind(b, 0, start) + len(b) if text.rfind(b, 0, start) >= 0 else 0 for b in CLAUSE_ENDS)
        seg_start = max(prev_end, cell + 1 if cell >= 0 else 0, para + 2 if para >= 0 else 0, clause)
        out.append((seg_start, start, ids))
        prev_end = end
    return out


def _tokens(text):
    """Figure-like tokens: (start, end, [numbers])."""
    toks = []
    for m in FIG_RE.finditer(text):
        numbers = re.findall(NUM, m.group(1))
        if m.group(2) in ("x", "×") and not any("." in n for n in numbers):
            continue  # "2x H200": a count
        toks.append((m.start(), m.end(), numbers))
    for m in COSINE_RE.finditer(text):
        if not any(s <= m.start() < e for s, e, _ in toks):
            toks.append((m.start(), m.end(), [m.group(1)]))
    return toks


def _strip_comments_keep_offsets(text):
    return re.sub(r"<!--.*?-->", lambda m: " " * len(m.group(0)), text, flags=re.S)


def _check_doc(rel, root=ROOT):
    text = (root / rel).read_text()
    problems, uncited = [], []
    segments = _segments(text)
    for seg_start, seg_end, ids in segments:
        if ids is None:
            continue
        seg = _strip_comments_keep_offsets(text[seg_start:seg_end])
        numbers_in_seg = re.findall(NUM, seg)
        cited = []
        for fid in ids:
            if fid not in FIG.FIGURES:
                problems.append(f"{rel}: <!--fig:{fid}--> names no row of accel/common/figures.py")
                continue
            number = FIG.FIGURES[fid].number
            cited.append(number)
            if number not in numbers_in_seg:
                problems.append(f"{rel}: {fid} is {FIG.FIGURES[fid].text}, but the text it cites reads "
                                f"{seg.strip()[-80:]!r}")
        for _, _, numbers in _tokens(seg):
            for n in numbers:
                if n not in cited and ids:
                    problems.append(f"{rel}: {n} in {seg.strip()[-80:]!r} is cited by none of {ids}")
    covered = [(s, e) for s, e, _ in segments]
    plain = _strip_comments_keep_offsets(text)
    for start, end, numbers in _tokens(plain):
        if not any(s <= start and end <= e + 1 for s, e in covered):
            line = text.count("\n", 0, start) + 1
            uncited.append(f"{rel}:{line}: {plain[start:end]!r} cites no row (…{plain[max(0, start - 50):end]!r})")
    for m in TODO_RE.finditer(text):
        if m.group(1) not in FIG.AWAITING_GPU:
            problems.append(f"{rel}: TODO(gpu) {m.group(1)} is not in accel.common.figures.AWAITING_GPU")
    return problems, uncited


@pytest.mark.parametrize("rel", DOCS)
def test_doc_citations_match(rel):
    problems, uncited = _check_doc(rel)
    assert not problems, "\n".join(problems)
    if rel in STRICT:
        assert not uncited, (f"figures in {rel} must cite a row of accel/common/figures.py (CONTRIBUTING.md, "
                             "Figures):\n" + "\n".join(uncited))
    else:
        assert len(uncited) <= RATCHET[rel], (
            f"{rel} has {len(uncited)} uncited figures, at most {RATCHET[rel]} allowed: cite a row for new ones\n"
            + "\n".join(uncited[-20:]))


def test_checker_catches_a_wrong_number(tmp_path):
    """The checker itself: a wrong cited number, an uncited figure and an unknown id are found."""
    (tmp_path / "x.md").write_text("Level-1 **1.49x**<!--fig:matrix.h200.140.level1.speedup--> on an H200.\n\n"
                                   "Attention 1.46x on an H200.\n\n"
                                   "Level-1 **1.50x**<!--fig:no.such.row-->.\n")
    problems, uncited = _check_doc("x.md", root=tmp_path)
    assert any("1.50x" in p and "matrix.h200.140.level1.speedup" in p for p in problems), problems
    assert any("1.49" in p for p in problems), problems
    assert any("no.such.row" in p for p in problems), problems
    assert any("1.46x" in u for u in uncited), uncited


# --- the pack's strings -------------------------------------------------------------------------------------------

STRING_FILES = sorted(p for p in [*ROOT.glob("nodes/*.py"), *ROOT.glob("accel/*.py"), *ROOT.glob("accel/*/*.py")]
                      if p.name != "figures.py")
# Numbers in strings that are settings, limits or estimates, not measurements: (file, the token).
NOT_MEASUREMENTS = {("accel/wan_level1/preset.py", "0.99999")}  # the bound tests/level1/test_level1.py asserts


def _string_constants(tree, with_docstrings):
    docstrings = set()
    if not with_docstrings:
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
                first = node.body[0]
                if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                    docstrings.add(id(first.value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node


@pytest.mark.parametrize("path", STRING_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_figure_written_into_a_string(path):
    """Node descriptions (class docstrings of nodes/), tooltips and reason strings take their figures from
    accel.common.figures; developer docstrings in accel/ are not shown to users and are not checked."""
    rel = str(path.relative_to(ROOT))
    tree = ast.parse(path.read_text())
    found = []
    for node in _string_constants(tree, with_docstrings=rel.startswith("nodes/")):
        for start, end, _ in _tokens(node.value):
            token = node.value[start:end]
            if (rel, token) not in NOT_MEASUREMENTS:
                found.append(f"{rel}:{node.lineno}: {token!r} in {node.value[max(0, start - 60):end + 20]!r}")
    assert not found, "write these with accel.common.figures (text/num/span), or remove them:\n" + "\n".join(found)


@pytest.mark.parametrize("path", sorted(ROOT.glob("nodes/*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_node_descriptions_and_tooltips_quote_no_figures(path):
    """Descriptions and tooltips stay short and do not go stale: a measured figure belongs in the node's help page
    (web/docs/<node id>.md, cited as in README), so nodes/ does not format figures from accel.common.figures either."""
    tree = ast.parse(path.read_text())
    imports = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
               and ((n.module or "").endswith("figures") or any(a.name == "figures" for a in n.names))]
    assert not imports, f"{path.relative_to(ROOT)}:{imports[0].lineno} imports accel.common.figures: quote it in web/docs/"
