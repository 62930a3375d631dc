"""Comfy Registry packaging: `comfy node validate` and `comfy node pack` (comfy-cli, its own venv, offline),
the archive's contents, and that the archive itself loads in ComfyUI (main.py --quick-test-for-ci).

comfy-cli packs git-tracked files minus .comfyignore; the test stages this checkout's tracked and
untracked-but-not-ignored files in a scratch git repo, so it checks the working tree as it would be committed.
"""
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from accel_harness import comfy_root
from accel_harness.server import comfy_cli, find_comfy_cli

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(find_comfy_cli() is None or shutil.which("git") is None,
                                reason="comfy-cli (scripts/setup_testbed.sh --test-tools) or git missing")


def _registry_name() -> str:
    import tomllib
    return tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["name"]


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    """This checkout's files as git would commit them, in a scratch git repository."""
    root = tmp_path_factory.mktemp("pack") / "comfyui-accel"
    files = subprocess.run(["git", "-C", str(REPO), "ls-files", "-co", "--exclude-standard", "-z"],
                           capture_output=True, check=True).stdout.decode().split("\0")
    for f in filter(None, files):
        src = REPO / f
        if src.is_file():
            (root / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, root / f)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    return root


@pytest.fixture(scope="module")
def archive(staged, tmp_path_factory):
    home = tmp_path_factory.mktemp("cli-home")
    v = comfy_cli(["node", "validate"], cwd=staged, home=home, timeout=120)
    assert v.returncode == 0, f"comfy node validate failed:\n{v.stdout}\n{v.stderr}"
    # exec/eval/multi-statement lines the registry flags; comfy-cli 1.23 prints them on stderr, older ones on stdout
    assert "Security warnings" not in v.stdout + v.stderr, f"{v.stdout}\n{v.stderr}"
    p = comfy_cli(["node", "pack"], cwd=staged, home=home, timeout=120)
    assert p.returncode == 0, f"comfy node pack failed:\n{p.stdout}\n{p.stderr}"
    z = staged / "node.zip"
    assert z.exists(), p.stdout
    return z


def test_archive_has_the_pack_and_nothing_for_development(archive):
    names = zipfile.ZipFile(archive).namelist()
    for must in ("__init__.py", "pyproject.toml", "README.md", "nodes/__init__.py", "nodes/hardware_report.py",
                 "nodes/testing.py", "accel/__init__.py", "accel/common/hardware.py", "accel/cache/coefficients.json",
                 "kernels/__init__.py", "kernels/attention/registry.py", "workflows/hardware_report.json",
                 "web/accel_report.js"):
        assert must in names, f"{must} missing from the registry archive"
    # the nodes' help pages (the frontend fetches /extensions/<pack>/docs/<node id>.md from the web directory)
    pages = sorted(str(p.relative_to(REPO)) for p in (REPO / "web" / "docs").glob("*.md"))
    assert pages and not [p for p in pages if p not in names], "help pages missing from the registry archive"
    for prefix in ("tests/", "harness/", "bench/", "scripts/", ".ci/", ".testbed/", "test-artifacts/", ".git/"):
        bad = [n for n in names if n.startswith(prefix)]
        assert not bad, f"development content in the archive: {bad[:5]}"
    assert not [n for n in names if "__pycache__" in n or n.endswith((".pyc", ".zip", ".safetensors"))]


def test_archive_loads_in_comfyui(archive, tmp_path):
    base = tmp_path / "base"
    dest = base / "custom_nodes" / _registry_name()  # the folder the registry installs into: the node id
    dest.mkdir(parents=True)
    zipfile.ZipFile(archive).extractall(dest)
    r = subprocess.run([sys.executable, "main.py", "--quick-test-for-ci", "--cpu", "--base-directory", str(base),
                        "--database-url", "sqlite:///:memory:", "--disable-api-nodes", "--log-stdout"],
                       cwd=str(comfy_root()), capture_output=True, text=True, timeout=180,
                       env={**os.environ, "OMP_NUM_THREADS": "1"})
    log = r.stdout + r.stderr
    assert r.returncode == 0, log[-3000:]
    lines = [line for line in log.splitlines() if str(dest) in line]
    assert any("seconds" in line and "IMPORT FAILED" not in line for line in lines), log[-3000:]
    assert "accel: node module" not in log, log[-3000:]  # nodes/__init__.py logs each module that fails
