"""Every figure the project states, checked against the lab's table (bench/figures.py), and the table against its files.

A figure is a number followed by x, %, s, ms, GiB, GB, MB or dB, or a cosine (0.9..., or any number a sentence or a
table column calls a cosine). In the Markdown a user or maintainer reads (`markdown_files()`), each one either cites a
row right after it, `1.50x<!--fig:ID-->` (a range or "a vs b" cites each: `1.52–1.54x<!--fig:A,B-->`), or is marked
as not a measurement with a reason from `NOFIG_REASONS`, `24 steps<!--nofig:setting-->`. A citation covers the text
back to the previous citation, the start of its table cell, list item, paragraph or clause. For each citation the
check reads what the text around it says (the sentence, then the paragraph or list item, then the heading; in a
table the cell, its row and column headers, then the table's caption and notes, then the heading) and compares:
- the GPU: the nearest of those that names a GPU names the row's GPU (a citation with no GPU anywhere around fails);
- the ComfyUI version: where one is named, it is the row's; a row measured on 0.3.75 says so;
- the card size ("24 GB card", "H100 80 GB"): where one is named, it is the row's; a row of a smaller card says so;
- a row of a run that shared its host with another benchmark is cited where the text says "shared".
A card size is a setting, not a figure: "N GB" followed by "card" or after a GPU name, "as" or "a".

Used by tests/common/test_figures.py (the tree) and tests/common/test_figure_mutations.py (deliberate changes that
must fail). Loaded by path; it imports no ComfyUI.
"""
from __future__ import annotations

import ast
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str, path: Path):
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


LAB = _load("bench_figures", ROOT / "bench" / "figures.py")
PACK = LAB.PACK

# Why a number with a unit is not a measurement: the reason the docs give in `<!--nofig:REASON-->`.
NOFIG_REASONS = {
    "setting": "a value someone chooses (steps, a threshold, a time limit, a resolution)",
    "target": "a goal to reach, written with >=, <=, at least or at most",
    "bound": "a tolerance a test asserts, written with >=, <=, at least or at most",
    "published": "a figure of a source linked in the same paragraph",
    "size": "a size read from shapes or files (GB of weights), not timed",
    "estimate": "a rough duration or size a user can expect, written with about or ~",
    "example": "the notation itself, in CONTRIBUTING.md or bench/README.md",
}
GPUS = ("H100", "H200", "B200", "A100", "L40S", "L40")
FULL_CARD = {"H100": 80, "H200": 141}
VERSIONS = ("0.33.0", "0.3.75")

NUM = r"\d+(?:\.\d+)?"
SUPERSCRIPTS = "¹²³⁴⁵⁶⁷⁸⁹⁰"
# a unit after a space or none; a speed-up's x follows its number directly ("3 x 4" is a product)
FIG_RE = re.compile(rf"(?<![\w.])((?:{NUM})(?:\s*(?:–|-|/|vs\.?|to)\s*{NUM})*)(?:\s?(%|ms|s|GiB|GB|MB|MiB|dB)|([x×]))"
                    rf"(?![A-Za-z0-9_²/])")
COUNT_RE = re.compile(r"\s+(?:H100|H200|B200|A100|GPUs?\b)")  # "2x H200": a count, not a speed-up
COSINE_RE = re.compile(r"(?<![\w.])(0\.9\d+|1\.0000+)(?!\d|\.\d)")
COSINE_WORD_RE = re.compile(r"cosine[^;:\n|]{0,40}?(?<![\w.])(0\.\d+)(?!\d|\.\d)", re.I)
MARK_RE = re.compile(r"<!--\s*fig:\s*([^>]*?)\s*-->")
NOFIG_RE = re.compile(r"<!--\s*nofig(?::\s*([\w-]*))?\s*-->")
TODO_RE = re.compile(r"<!--\s*TODO\(gpu\):\s*([\w.\-]+)[^>]*-->")
COMMENT_RE = re.compile(r"<!--.*?-->", re.S)
FENCE_RE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.S | re.M)
GPU_RE = re.compile(r"\b(" + "|".join(GPUS) + r")s?\b")
VERSION_RE = re.compile(r"(?<![\w.])(0\.3\.75|0\.33(?:\.0)?)(?![\w.]|\.\d)")
CARD_RE = re.compile(r"(?<![\w.])((?:\d+(?:\s*,\s*|\s+or\s+|\s+and\s+|\s*/\s*))*\d+)\s?GB(?![A-Za-z0-9_])")
CARD_BEFORE_RE = re.compile(r"(?:\b(?:H100|H200|as|is|a|an)\s+|\(|\|\s*)$")
CARD_AFTER_RE = re.compile(rf"^[{SUPERSCRIPTS}]*\"?\s*(?:cards?\b|columns?\b|H100\b|H200\b|\||,|\)|:|$)")
COMPARE_RE = re.compile(r"(?:≥|≤|>=|<=|>|<|at least|at most|below|above|under|over)\s*\**\s*$", re.I)
CLAUSE_ENDS = (". ", ".\n", "; ", ": ", "(", "\n- ", "\n  - ")
SHARED_RE = re.compile(r"\bshar(?:ed|es|ing)\b[^.;|]{0,30}?\b(?:host|machine|CPU)\b|\banother benchmark\b", re.I)
ISSUE_RE = re.compile(r"(?<![\w&/])#\d+\b|\bissues?\s+#?\d+\b", re.I)
WORK_NOTE_RE = re.compile(r"\bthis version\b|\bTODO\b(?!\(gpu\))|still to measure|\bstop \d+\b", re.I)


# --- the files ---------------------------------------------------------------------------------------------------

# Markdown a user or maintainer reads. Not checked: bench/results/** (the result files themselves: a row reads its
# value from there, so their figures are the measurements, not claims about them) and the template of docs/results.md
# (bench/results_doc.md: its output, docs/results.md, is checked).
EXEMPT = ("bench/results/", "bench/results_doc.md")
USER_DOCS = ("README.md", "CHANGELOG.md", "docs/", "web/docs/")  # no issue numbers, no work notes


def markdown_files(root: Path = ROOT) -> list[str]:
    try:
        out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.md"], cwd=root,
                             capture_output=True, text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        out = [str(p.relative_to(root)) for p in root.rglob("*.md")]
    return sorted(f for f in set(out) if not f.startswith(EXEMPT) and not f.startswith((".", "tests/"))
                  and (root / f).is_file())


# --- the table against its files ------------------------------------------------------------------------------------

def _cell_number(cell: str) -> float:
    text = re.sub(r"\*\*", "", cell.strip().strip("*").strip())
    m = re.match(r"^(-?\d+(?:\.\d+)?(?:e-?\d+)?)\s*(?:x|×|ms|s)?$", text)
    if not m:
        raise ValueError(f"cell {cell!r} is not a number")
    return float(m.group(1))


def md_tables(text: str) -> list[list[list[str]]]:
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


def read_value(f, root: Path = ROOT) -> float:
    path = root / PACK.RESULTS / f.file
    if not path.is_file():
        raise AssertionError(f"{f.id}: {path.relative_to(root)} does not exist")
    kind, _, where = f.src.partition(":")
    if kind == "json":
        value = json.loads(path.read_text())
        for key in where.split("/"):
            value = value[int(key)] if isinstance(value, list) else value[key]
        return float(value)
    if kind != "md":
        raise AssertionError(f"{f.id}: src {f.src!r} is neither json: nor md:")
    row_key, _, column = where.rpartition("|")
    cells = row_key.split("/")
    for table in md_tables(path.read_text()):
        if column in table[0]:
            col = table[0].index(column)
            for row in table[2:]:
                if row[:len(cells)] == cells:
                    return _cell_number(row[col])
    raise AssertionError(f"{f.id}: no table row {cells} with column {column!r} in {path.relative_to(root)}")


def check_row(row, root: Path = ROOT) -> list[str]:
    problems = []
    try:
        got = read_value(row, root) * row.scale
    except (AssertionError, KeyError, IndexError, ValueError, TypeError) as e:
        return [f"{row.id}: {e}"]
    if abs(got - row.value) > 1e-9 * max(1.0, abs(row.value)):
        problems.append(f"{row.id}: the table says {row.value}, {row.file} ({row.src}) holds {got}")
    s = getattr(row, "setup", None)
    if s is None:
        return problems + [f"{row.id}: no setup says how it was measured (bench/figures.py, about())"]
    if s.gpu not in GPUS or s.comfyui not in (*VERSIONS, "") or not isinstance(s.card, int) or not s.text.strip():
        problems.append(f"{row.id}: setup fields {s.gpu!r}, {s.comfyui!r}, {s.card!r}: a GPU of {GPUS}, a ComfyUI "
                        f"version of {VERSIONS} or '', the card's GB and the configuration in words")
    elif s.card > FULL_CARD.get(s.gpu, s.card) or s.gpu not in s.text:
        problems.append(f"{row.id}: setup card {s.card} GB or GPU {s.gpu} does not fit its text {s.text[:60]!r}")
    return problems


def pack_quotes(root: Path = ROOT) -> dict[str, list[str]]:
    """Figure ids the pack's code names in a string: id -> files."""
    quoted: dict[str, list[str]] = {}
    for path in sorted([*root.glob("accel/**/*.py"), *root.glob("nodes/*.py"), *root.glob("kernels/**/*.py")]):
        if path.name == "figures.py" and path.parent.name == "common":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in LAB.FIGURES:
                quoted.setdefault(node.value, []).append(str(path.relative_to(root)))
    return quoted


def check_pack_table(root: Path = ROOT) -> list[str]:
    """accel/ keeps only the rows its code quotes; every quoted id is a row there."""
    quoted = pack_quotes(root)
    problems = [f"{fid}: accel/common/figures.py holds it but no pack code quotes it: move it to bench/figures.py"
                for fid in PACK.FIGURES if fid not in quoted]
    problems += [f"{fid}: {', '.join(files)} quote(s) it, but it is a row of bench/figures.py: the pack never "
                 "imports the lab, so make it a row of accel/common/figures.py" for fid, files in quoted.items()
                 if fid not in PACK.FIGURES]
    problems += [f"{fid}: awaiting a GPU run, but already a row" for fid in LAB.AWAITING_GPU if fid in LAB.FIGURES]
    return problems


# --- the Markdown -----------------------------------------------------------------------------------------------------

def _blank(text: str, pattern: re.Pattern) -> str:
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def tokens(text: str) -> list[tuple[int, int, list[str]]]:
    """Figure-like tokens of `text` (comments and fenced code already blanked): (start, end, [numbers])."""
    toks = []
    for m in FIG_RE.finditer(text):
        numbers = re.findall(NUM, m.group(1))
        unit = m.group(2) or m.group(3)
        if unit in ("x", "×") and COUNT_RE.match(text, m.end()):
            continue
        if unit == "GB" and (CARD_BEFORE_RE.search(text, 0, m.start()) or CARD_AFTER_RE.match(text[m.end():])):
            continue  # a card size: a setting the field check reads
        toks.append((m.start(), m.end(), numbers))
    taken = [(s, e) for s, e, _ in toks]
    for m in [*COSINE_RE.finditer(text), *COSINE_WORD_RE.finditer(text)]:
        start, end = m.start(1), m.end(1)
        if not any(s <= start < e for s, e in taken):
            toks.append((start, end, [m.group(1)]))
            taken.append((start, end))
    return sorted(toks)


def _segments(text: str) -> list[tuple[int, int, list[str] | None, str | None]]:
    """(start, end, ids, None) per citation and (start, end, None, reason) per nofig mark: the text a mark covers runs
    back to the previous mark, the start of its table cell, list item, paragraph or clause, whichever is nearest."""
    marks = sorted([(m.start(), m.end(), [i.strip() for i in m.group(1).split(",") if i.strip()], None)
                    for m in MARK_RE.finditer(text)]
                   + [(m.start(), m.end(), None, m.group(1) or "") for m in NOFIG_RE.finditer(text)])
    out, prev_end = [], 0
    for start, end, ids, reason in marks:
        line_start = text.rfind("\n", 0, start) + 1
        cell = text.rfind("|", line_start, start)
        para = text.rfind("\n\n", 0, start)
        clause = max((text.rfind(b, 0, start) + len(b) if text.rfind(b, 0, start) >= 0 else 0) for b in CLAUSE_ENDS)
        seg_start = max(prev_end, cell + 1 if cell >= 0 else 0, para + 2 if para >= 0 else 0, clause)
        out.append((seg_start, start, ids, reason))
        prev_end = end
    return out


class Context:
    """What the text around a position says, innermost first: the levels the field checks read."""

    def __init__(self, text: str):
        self.text = text
        self.headings = [(m.start(), m.group(0)) for m in re.finditer(r"^#{1,6} .*$", text, re.M)]

    def _heading(self, pos):
        before = [h for s, h in self.headings if s < pos]
        return before[-1] if before else ""

    def _block(self, pos):
        """The paragraph or list item around pos, and the paragraph (a list: with the paragraph leading it in)."""
        t = self.text
        para = max(t.rfind("\n\n", 0, pos), 0)
        item = max(t.rfind("\n- ", 0, pos), t.rfind("\n  - ", 0, pos), t.rfind("\n* ", 0, pos))
        start = max(para, item)
        ends = [i for i in (t.find("\n\n", pos), t.find("\n- ", pos), t.find("\n  - ", pos)) if i >= 0]
        para_end = t.find("\n\n", pos)
        para_end = len(t) if para_end < 0 else para_end
        if t[para:para + 4].lstrip().startswith(("- ", "* ")):  # a list: its lead-in paragraph says what it lists
            para = max(t.rfind("\n\n", 0, max(para - 1, 0)), 0)
        return start, t[start:min(ends) if ends else len(t)], t[para:para_end]

    def _sentence(self, pos, block_text, block_start):
        rel = pos - block_start
        starts = [m.end() for m in re.finditer(r"[.!?](?:\*\*)?\s+(?=[A-Z*(`\[])", block_text) if m.end() <= rel]
        ends = [m.start() + 1 for m in re.finditer(r"[.!?](?:\*\*)?\s+(?=[A-Z*(`\[])", block_text) if m.start() >= rel]
        return block_text[starts[-1] if starts else 0:ends[0] if ends else len(block_text)]

    def _table(self, pos):
        t = self.text
        line_start = t.rfind("\n", 0, pos) + 1
        line_end = t.find("\n", pos)
        line_end = len(t) if line_end < 0 else line_end
        line = t[line_start:line_end].replace("\\|", "  ")  # an escaped pipe is text, not a cell border
        if not line.lstrip().startswith("|"):
            return None
        lines = t.replace("\\|", "  ").split("\n")
        idx = t.count("\n", 0, pos)
        top = idx
        while top > 0 and lines[top - 1].lstrip().startswith("|"):
            top -= 1
        bottom = idx
        while bottom + 1 < len(lines) and lines[bottom + 1].lstrip().startswith("|"):
            bottom += 1
        header = [c.strip() for c in lines[top].strip().strip("|").split("|")]
        col = line[:pos - line_start].count("|") - (1 if line.lstrip().startswith("|") else 0)
        cells = line.strip().strip("|").split("|")
        cell = cells[col] if 0 <= col < len(cells) else ""
        row_head = cells[0] if cells else ""
        col_head = header[col] if 0 <= col < len(header) else ""
        caption_end = sum(len(x) + 1 for x in lines[:top])
        caption = t[max(t.rfind("\n\n", 0, max(caption_end - 2, 0)), 0):caption_end]
        notes_start = sum(len(x) + 1 for x in lines[:bottom + 1])
        notes_end = t.find("\n\n", notes_start + 1)
        notes = t[notes_start:notes_end if notes_end >= 0 else len(t)]
        return [cell, row_head + " | " + col_head, caption + "\n" + notes]

    def levels(self, pos: int) -> tuple[bool, list[str]]:
        """(in a table, the levels innermost first)."""
        table = self._table(pos)
        if table is not None:
            return True, [*table, self._heading(pos)]
        block_start, block, para = self._block(pos)
        return False, [self._sentence(pos, block, block_start), block, para, self._heading(pos)]


def _card_mentions(text: str) -> set[int]:
    sizes = set()
    for m in CARD_RE.finditer(text):
        before, after = text[:m.start()], text[m.end():]
        if CARD_BEFORE_RE.search(before) or CARD_AFTER_RE.match(after) or "card" in after[:12]:
            sizes.update(int(n) for n in re.findall(r"\d+", m.group(1)))
    if re.search(r"whole (?:card|GPU)", text):
        sizes.add(0)  # the whole card, whatever its size
    return sizes


def _field_problems(rel: str, ids: list[str], segment: str, context: tuple[bool, list[str]]) -> list[str]:
    in_table, levels = context
    problems = []
    for fid in ids:
        row = LAB.FIGURES.get(fid)
        s = getattr(row, "setup", None)
        if s is None:
            continue
        named = next((set(g for g in GPU_RE.findall(lv)) for lv in levels if GPU_RE.search(lv)), None)
        if named is None:
            problems.append(f"{rel}: {fid} (measured on an {s.gpu}) is cited where no GPU is named")
        elif s.gpu not in named:
            problems.append(f"{rel}: {fid} was measured on an {s.gpu}, the text around it names {sorted(named)}")
        versions = next((set(v for v in VERSION_RE.findall(lv)) for lv in levels if VERSION_RE.search(lv)), None)
        if s.comfyui and versions and not any(s.comfyui.startswith(v) for v in versions):
            problems.append(f"{rel}: {fid} was measured on ComfyUI {s.comfyui}, the text around it names "
                            f"{sorted(versions)}")
        elif s.comfyui == "0.3.75" and not versions:
            problems.append(f"{rel}: {fid} was measured on ComfyUI 0.3.75: say so where it is cited")
        # a smaller card is said where the row is cited (the nearest level naming a size names it); a whole-card row
        # fails where the text it cites, its cell or its table headers name another size
        full = FULL_CARD.get(s.gpu)
        near = [segment, *levels[:2]] if in_table else [segment]
        cards = next((_card_mentions(lv) for lv in (near if s.card == full else levels) if _card_mentions(lv)), set())
        if cards and not ({s.card, 0} & cards if s.card == full else s.card in cards):
            where = "the whole card" if s.card == full else f"a {s.card} GB card"
            problems.append(f"{rel}: {fid} was measured on {where} ({s.gpu}), the text around it names "
                            f"{sorted(c for c in cards if c)} GB")
        elif not cards and s.card != full:
            problems.append(f"{rel}: {fid} was measured on a {s.card} GB card: say so where it is cited")
        if s.shared and not any(SHARED_RE.search(lv) for lv in levels):
            problems.append(f"{rel}: {fid} comes from a run that shared its host with another benchmark: say so")
    return problems


def _nofig_problems(rel: str, text: str, start: int, end: int, reason: str, toks) -> list[str]:
    if reason not in NOFIG_REASONS:
        return [f"{rel}: <!--nofig{':' + reason if reason else ''}--> needs a reason of {sorted(NOFIG_REASONS)}: "
                f"{text[max(0, end - 60):end].strip()!r}"]
    covered = [(s, e, n) for s, e, n in toks if start <= s and e <= end + 1]
    if not covered:
        return [f"{rel}: <!--nofig:{reason}--> marks no figure: {text[max(0, end - 60):end].strip()!r}"]
    problems = []
    s, e, numbers = covered[-1]
    token = text[s:e]
    if reason in ("setting", "size") and (re.search(r"\d\.\d+\s?[x×]$", token) or COSINE_RE.fullmatch(token)):
        problems.append(f"{rel}: {token!r} reads as a measured ratio or cosine, not a {reason}: cite a row")
    if reason in ("target", "bound") and not COMPARE_RE.search(text[max(0, s - 14):s]):
        problems.append(f"{rel}: a {reason} is written with >=, <=, at least or at most before it: {token!r}")
    if reason == "estimate" and not re.search(r"(?:about|~|roughly|around)\s*\**\s*$", text[max(0, s - 12):s], re.I):
        problems.append(f"{rel}: an estimate is written with about or ~ before it: {token!r}")
    if reason == "published":
        block = text[max(text.rfind("\n\n", 0, s), 0):text.find("\n\n", e) if text.find("\n\n", e) >= 0 else None]
        if "http" not in block:
            problems.append(f"{rel}: {token!r} marked published, but its paragraph links no source")
    if reason == "example" and rel not in ("CONTRIBUTING.md", "bench/README.md"):
        problems.append(f"{rel}: examples of the notation belong in CONTRIBUTING.md or bench/README.md: {token!r}")
    return problems


def check_doc(rel: str, text: str) -> list[str]:
    """Every problem of one Markdown file's figures (citations, marks, uncited figures, fields, TODOs)."""
    body = _blank(text, FENCE_RE)
    plain = _blank(body, COMMENT_RE)
    toks = tokens(plain)
    ctx = Context(plain)
    problems = []
    segments = _segments(body)
    for start, end, ids, reason in segments:
        if ids is None:
            problems += _nofig_problems(rel, plain, start, end, reason, toks)
            continue
        seg = plain[start:end]
        numbers_in_seg = re.findall(NUM, seg)
        cited = []
        for fid in ids:
            if fid not in LAB.FIGURES:
                problems.append(f"{rel}: <!--fig:{fid}--> names no row of bench/figures.py or accel/common/figures.py")
                continue
            number = LAB.FIGURES[fid].number
            cited.append(number)
            if number not in numbers_in_seg:
                problems.append(f"{rel}: {fid} is {LAB.FIGURES[fid].text}, the text it cites reads "
                                f"{seg.strip()[-80:]!r}")
        for s, e, numbers in toks:
            if start <= s and e <= end + 1:
                problems += [f"{rel}: {n} in {seg.strip()[-80:]!r} is cited by none of {ids}"
                             for n in numbers if n not in cited]
        problems += _field_problems(rel, [i for i in ids if i in LAB.FIGURES], seg, ctx.levels(end))
    covered = [(s, e) for s, e, _, _ in segments]
    for start, end, _ in toks:
        if not any(s <= start and end <= e + 1 for s, e in covered):
            line = text.count("\n", 0, start) + 1
            problems.append(f"{rel}:{line}: {plain[start:end]!r} cites no row and is marked as no measurement "
                            f"(…{plain[max(0, start - 50):end]!r})")
    for m in TODO_RE.finditer(text):
        if m.group(1) not in LAB.AWAITING_GPU:
            problems.append(f"{rel}: TODO(gpu) {m.group(1)} is not in bench/figures.py AWAITING_GPU")
    if rel.startswith(USER_DOCS):
        for m in [*ISSUE_RE.finditer(plain), *WORK_NOTE_RE.finditer(plain)]:
            line = text.count("\n", 0, m.start()) + 1
            problems.append(f"{rel}:{line}: {m.group(0)!r}: a user reads no issue numbers and no work notes")
    return problems


# --- the pack's strings -----------------------------------------------------------------------------------------------

def string_files(root: Path = ROOT) -> list[Path]:
    return sorted(p for p in [*root.glob("nodes/*.py"), *root.glob("accel/**/*.py"), *root.glob("kernels/**/*.py"),
                              root / "scripts" / "workflow_defs.py", root / "scripts" / "workflow_parts.py"]
                  if p.is_file() and not (p.name == "figures.py" and p.parent.name == "common"))


def check_strings(rel: str, source: str, not_measurements: set = frozenset()) -> list[str]:
    """Tooltips, descriptions, reason strings and workflow notes take their figures from accel/common/figures.py
    (`text(id)`): a figure written into a string fails. Developer docstrings in accel/ and kernels/ are not shown to
    users and are not checked; class docstrings of nodes/ are node descriptions and are."""
    tree = ast.parse(source)
    docstrings = set()
    if not rel.startswith("nodes/"):
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
                first = node.body[0]
                if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                    docstrings.add(id(first.value))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            for start, end, _ in tokens(node.value):
                token = node.value[start:end]
                if (rel, token) not in not_measurements:
                    found.append(f"{rel}:{node.lineno}: {token!r} in {node.value[max(0, start - 60):end + 20]!r}")
    return found
