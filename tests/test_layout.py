"""The shape of `accel/` (issue #31): only feature packages, `common/` and `comfy_compat.py` at its top; no
import circle between its modules; no import of another module's `_private` name (in `accel/` or from `nodes/`);
`common/` imports no feature package at module level.

Read from the source with `ast` (no ComfyUI, nothing imported): every relative `from ... import ...`, at module
level or inside a function (a lazy import that closes a circle is still a circle).
"""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ALLOWED_LOOSE = {"__init__.py", "comfy_compat.py"}


def _modules(top: str) -> dict:
    """dotted name (relative to the pack root) -> (path, is_package) for every module under `top`."""
    out = {}
    for p in sorted((ROOT / top).rglob("*.py")):
        parts = list(p.relative_to(ROOT).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_pkg else parts)] = (p, is_pkg)
    return out


def _resolve(name: str, is_pkg: bool, level: int, module) -> str:
    base = name.split(".")
    if not is_pkg:
        base = base[:-1]
    base = base[:len(base) - (level - 1)] if level > 1 else base
    return ".".join(base + (module.split(".") if module else []))


def _imports(mods: dict, name: str):
    """(target module or package, imported name, line, at module level) of every relative import in `name`."""
    path, is_pkg = mods[name]
    tree = ast.parse(path.read_text(), str(path))
    top_level = set()
    for node in tree.body:
        for sub in ast.walk(node) if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else ():
            top_level.add(id(sub))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            target = _resolve(name, is_pkg, node.level, node.module)
            for alias in node.names:
                yield target, alias.name, node.lineno, id(node) in top_level


def _edges(mods: dict) -> dict:
    edges = {m: set() for m in mods}
    for m in mods:
        for target, name, _, _ in _imports(mods, m):
            dep = f"{target}.{name}" if f"{target}.{name}" in mods else target
            if dep in mods and dep != m:
                edges[m].add(dep)
    return edges


def _cycles(edges: dict) -> list:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_accel_top_holds_only_packages_common_and_compat():
    loose = sorted(p.name for p in (ROOT / "accel").glob("*.py") if p.name not in ALLOWED_LOOSE)
    assert not loose, (f"loose modules in accel/: {loose}; put each in its feature's package, or in accel/common/ "
                       "when every feature uses it")
    assert (ROOT / "accel" / "common" / "__init__.py").exists()
    for d in (ROOT / "accel").iterdir():
        if d.is_dir() and d.name != "__pycache__":
            assert (d / "__init__.py").exists(), f"accel/{d.name}/ is not a package (no __init__.py)"


def test_no_import_circle_in_accel():
    cycles = _cycles(_edges(_modules("accel")))
    assert not cycles, "import circles in accel/ (move what both sides need to where it belongs):\n" + "\n".join(
        " <-> ".join(c) for c in cycles)


def test_no_private_name_imports():
    mods = {**_modules("accel"), **_modules("nodes"), **_modules("kernels")}
    found = []
    for m in mods:
        for target, name, line, _ in _imports(mods, m):
            if name.startswith("_") and not name.startswith("__") and target.split(".")[0] in ("accel", "kernels") \
                    and target != m:
                found.append(f"{mods[m][0].relative_to(ROOT)}:{line}: {name} from {target}")
    assert not found, ("imports of another module's private name (drop the underscore where the name is used "
                       "outside its module):\n" + "\n".join(found))


def test_common_imports_no_feature_at_module_level():
    mods = _modules("accel")
    features = {m.split(".")[1] for m in mods if m.count(".") >= 1 and m.split(".")[1] not in ("common", "comfy_compat")}
    found = []
    for m in (m for m in mods if m.startswith("accel.common")):
        for target, name, line, top in _imports(mods, m):
            full = f"{target}.{name}"
            hit = [f for f in features if target.startswith(f"accel.{f}") or full == f"accel.{f}"]
            if top and hit:
                found.append(f"{mods[m][0].relative_to(ROOT)}:{line}: {full}")
    assert not found, "accel/common/ imports a feature package at module level:\n" + "\n".join(found)
