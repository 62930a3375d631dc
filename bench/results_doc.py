"""docs/results.md, written from its template bench/results_doc.md and the figure table bench/figures.py.

The template is the page as a reader sees it, with every measured number replaced by its row: `{{ID}}` is the
figure as the table writes it ("1.50x", "14.9 s"), `{{ID|num}}` the number alone (the first of a range:
`{{A|num}}–{{B}}<!--fig:A,B-->`). The citations stay in the template; tests/common/test_figures.py checks the
page like every other Markdown file and fails when it is not what this script writes.

    python3 bench/results_doc.py --write     # after editing the template or a row of the table
    python3 bench/results_doc.py --check     # exit 1 when docs/results.md is stale

Runs without ComfyUI (it only reads the table).
"""
from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "bench" / "results_doc.md"
PAGE = ROOT / "docs" / "results.md"
PLACEHOLDER = re.compile(r"\{\{\s*([\w.\-]+)\s*(\|num)?\s*\}\}")
HEADER = ("<!-- Written by bench/results_doc.py from bench/results_doc.md and the figure table bench/figures.py: "
          "edit those, then run `python3 bench/results_doc.py --write`. -->\n")


def _table():
    name = "bench_figures"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / "figures.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def render(template: str) -> str:
    table = _table()

    def fill(m: re.Match) -> str:
        fid = m.group(1)
        if fid not in table.FIGURES:
            raise KeyError(f"{{{{{fid}}}}} in bench/results_doc.md names no row of bench/figures.py")
        return table.num(fid) if m.group(2) else table.text(fid)

    return HEADER + PLACEHOLDER.sub(fill, template)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="write docs/results.md")
    mode.add_argument("--check", action="store_true", help="exit 1 when docs/results.md is not what --write writes")
    args = ap.parse_args(argv)
    page = render(TEMPLATE.read_text(encoding="utf-8"))
    if args.write:
        PAGE.write_text(page, encoding="utf-8")
        return 0
    if PAGE.read_text(encoding="utf-8") != page:
        print("docs/results.md is stale: run python3 bench/results_doc.py --write", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
