"""The shape of `accel/` (issue #31): only feature packages, `common/` and `comfy_compat.py` at its top; no
import circle between its modules; no import of another module's `_private` name (in `accel/` or from `nodes/`);
`common/` imports no feature package at module level.

Read from the source with `ast` (no ComfyUI, nothing imported): every relative `from ... import ...`, at module
level or inside a function (a lazy import that closes a circle is still a circle).
"""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
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
        defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        for sub in ast.walk(node) if not isinstance(node, defs) else ():
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


# Packages that compose features (their Options and Report sections): they may import the features they chain.
PRESETS = {"wan_level1"}
# TEMPORARY: imports of one feature package by another in packages other developers own (VAE, Multi-GPU); the lead
# removes this list once they are gone. (importer, imported) packages; an entry whose import is gone fails the test.
FEATURE_IMPORTS_TO_REMOVE = {("vae", "cuda_settings"), ("vae", "compile"), ("multigpu", "compile"),
                             ("multigpu", "attention")}


def _package_imports(mods: dict):
    """(importer package, imported package, where) for every relative import between packages of accel/, lazy
    imports included (a lazy import is still a dependency)."""
    for m in mods:
        src = m.split(".")[1] if m.count(".") >= 1 else None
        for target, name, line, _ in _imports(mods, m):
            full = f"{target}.{name}"
            subs = {t.split(".")[1] for t in (target, full) if t.startswith("accel.") and t.count(".") >= 1}
            dst = next((p for p in subs if (ROOT / "accel" / p).is_dir()), None)
            if src and dst and dst != src:
                yield src, dst, f"{mods[m][0].relative_to(ROOT)}:{line}: {full}"


def test_common_imports_no_feature():
    """common/ is what every feature shares: it imports none of them, not even lazily (a feature adds to common's
    registries instead, e.g. its lines for the report after a run: accel.common.live_report.register_after_run)."""
    found = [where for src, dst, where in _package_imports(_modules("accel")) if src == "common" and dst != "common"]
    assert not found, "accel/common/ imports a feature package:\n" + "\n".join(found)


def test_no_feature_imports_another():
    """A feature package imports common/, comfy_compat and kernels/, never another feature: what two features share
    belongs in common/ (or comfy_compat where it probes ComfyUI); a preset (PRESETS) composes features."""
    found = [where for src, dst, where in _package_imports(_modules("accel"))
             if src not in PRESETS | {"common"} and dst != "common" and (src, dst) not in FEATURE_IMPORTS_TO_REMOVE]
    assert not found, "a feature package imports another:\n" + "\n".join(found)
    used = {(src, dst) for src, dst, _ in _package_imports(_modules("accel"))}
    stale = sorted(FEATURE_IMPORTS_TO_REMOVE - used)
    assert not stale, f"FEATURE_IMPORTS_TO_REMOVE lists imports that are gone (remove them): {stale}"


# --- the contract's size: no function of accel/ takes more than MAX_PARAMETERS parameters ------------------------
#
# A function with more takes an Options dataclass (the feature's contract) or keyword arguments that build one.
# Counted: every parameter but a method's self / cls, *args and **kwargs one each.

MAX_PARAMETERS = 8


def _parameter_counts():
    for p in _py("accel"):
        for n in ast.walk(ast.parse(p.read_text())):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = n.args
                names = [x.arg for x in a.posonlyargs + a.args]
                count = len(names) + len(a.kwonlyargs) + (a.vararg is not None) + (a.kwarg is not None)
                if names[:1] in (["self"], ["cls"]):
                    count -= 1
                yield f"{p.relative_to(ROOT)}:{n.name}", n.lineno, count


def test_no_function_takes_more_than_eight_parameters():
    found = [f"{name} (line {line}): {n} parameters" for name, line, n in _parameter_counts() if n > MAX_PARAMETERS]
    assert not found, (f"functions of accel/ with more than {MAX_PARAMETERS} parameters (take the feature's Options "
                       "dataclass instead):\n" + "\n".join(found))


# --- the seam between nodes/ and accel/: no node names and one failure word below nodes/ ------------------------
#
# accel/ never names a node: errors take the title the node boundary sets (accel.common.errors.titled), runtime
# objects capture it when built. The failure choice is one `Policy` below nodes/; the words older versions used
# (Accel Attention's `sdpa`, Accel Compile's `eager` / `raise`) and the FP8 loader's `strict` boolean are parsed
# once, in nodes/_common.failure_policy.

FAILURE_NAMES = {"strict", "on_failure", "fallback"}
FAILURE_WORDS = {"sdpa", "eager", "raise", "fall back", "error"}
TORCH_OVERRIDES = {"_load_from_state_dict"}  # torch's own signature has `strict`
BUILTINS_WITH_STRICT = {"zip"}  # zip(..., strict=True): Python's length check, not a failure policy


def _py(top: str):
    return sorted((ROOT / top).rglob("*.py"))


def _name_of(node) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def test_accel_takes_no_node_title():
    """No `node=` / `node: str` parameter and no NODE / SAVE_NODE constant: the title comes from the boundary."""
    found = []
    for p in _py("accel"):
        rel = p.relative_to(ROOT)
        for i, line in enumerate(p.read_text().splitlines(), 1):
            if "node: str" in line or "node=" in line.replace("node_id=", "").replace("display_node=", ""):
                found.append(f"{rel}:{i}: {line.strip()}")
        for n in ast.walk(ast.parse(p.read_text())):
            if isinstance(n, (ast.Assign, ast.AnnAssign)):
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                    if isinstance(t, ast.Name) and (t.id == "NODE" or t.id.endswith("_NODE")):
                        found.append(f"{rel}:{n.lineno}: constant {t.id}")
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = n.args.args + n.args.kwonlyargs + n.args.posonlyargs
                found += [f"{rel}:{n.lineno}: {n.name}({a.arg}=...)" for a in args if a.arg in ("node", "node_name")]
    assert not found, ("accel/ names nodes; raise AccelError(input, problem, remedy) and let the node boundary title "
                       "it (runtime objects: current_title() when built):\n" + "\n".join(found))


def test_one_failure_policy_below_nodes():
    """Below nodes/: no parameter or keyword argument strict / on_failure / fallback, and no comparison of a policy
    with a failure word; in nodes/: no call passes those keywords on, and only _common.py maps the legacy words."""
    found = []
    for p in _py("accel") + _py("nodes"):
        rel = str(p.relative_to(ROOT))
        in_accel = rel.startswith("accel")
        tree = ast.parse(p.read_text())
        for n in ast.walk(tree):
            if in_accel and isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name not in TORCH_OVERRIDES:
                args = n.args.args + n.args.kwonlyargs + n.args.posonlyargs
                found += [f"{rel}:{n.lineno}: {n.name}({a.arg}=...)" for a in args if a.arg in FAILURE_NAMES]
            if isinstance(n, ast.Call) and not (isinstance(n.func, ast.Name) and n.func.id in BUILTINS_WITH_STRICT):
                found += [f"{rel}:{n.lineno}: call with {k.arg}=" for k in n.keywords if k.arg in FAILURE_NAMES]
            if in_accel and isinstance(n, ast.Compare):
                sides = [n.left, *n.comparators]
                words = [s.value for s in sides if isinstance(s, ast.Constant) and s.value in FAILURE_WORDS]
                names = [_name_of(s) for s in sides if _name_of(s) in FAILURE_NAMES | {"policy"}]
                if words and names:
                    found.append(f"{rel}:{n.lineno}: {names[0]} compared with {words[0]!r}")
        if rel != "nodes/_common.py" and "LEGACY_FAILURE_WORDS" in p.read_text():
            found.append(f"{rel}: maps legacy failure words (only nodes/_common.failure_policy does)")
    assert not found, ("failure dialects below the node boundary; take a `Policy` (accel.common.policy) and parse the "
                       "node's input with nodes/_common.failure_policy:\n" + "\n".join(found))
