"""Every test runs the pack inside a real ComfyUI (0.3.75 test bed, or COMFYUI_PATH).

No tests/__init__.py on purpose: ComfyUI ships a package named `tests`.
"""
import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "harness"))

import pytest  # noqa: E402

import accel_harness as H  # noqa: E402


@pytest.fixture(scope="session")
def comfy(tmp_path_factory):
    """ComfyUI imported headless; returns this session's base dir (models/, output/, ...)."""
    base = H.bootstrap(tmp_path_factory.mktemp("comfy"))
    import torch

    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    return base


@pytest.fixture(scope="session")
def pack(comfy):
    """The pack as ComfyUI's own loader imported it (fails the run on any import failure)."""
    return H.load_pack()


@pytest.fixture(scope="session")
def mod(pack):
    """mod('accel.common.hardware') -> that module of the loaded pack (one copy of every module)."""
    return H.pack_module


@pytest.fixture(scope="session")
def M(comfy):
    from accel_harness import models

    return models


# --- shared by the FP8 tests ---------------------------------------------------------------------------

@pytest.fixture(scope="session")
def F(mod):
    return mod("accel.fp8")


@pytest.fixture(scope="session")
def AccelError(mod):
    return mod("accel.common.errors").AccelError


@pytest.fixture(scope="session")
def ddir(comfy):
    """models/diffusion_models of this session's ComfyUI base dir."""
    return comfy / "models" / "diffusion_models"


@pytest.fixture(scope="session")
def bf16_sd(M):
    """The tiny Wan 2.1 T2V state dict (official key layout, seed 0, bf16)."""
    import torch

    return M.wan_state_dict(size="tiny", seed=0, dtype=torch.bfloat16)


# --- shared by the attention tests -----------------------------------------------------------------------

@pytest.fixture
def stats(mod):
    """accel.attention.override's call counters, fresh for one test (its once-per-reason log lines reset too)."""
    import collections

    A = mod("accel.attention.override")
    A.STATS = collections.Counter()
    A.log.reset_once("attention")
    A.log.reset_once("attention-unavailable")
    yield A.STATS
    A.STATS = None


# --- shared by the step-cache tests --------------------------------------------------------------------

@pytest.fixture(scope="session")
def sc(mod):
    return mod("accel.cache")


@pytest.fixture(scope="session")
def cc(mod):
    return mod("accel.cache.coefficients")



# --- what kind of test each one is (pytest.ini lists the markers; scripts/test.sh runs `fast` and `full`) ------

# a test that takes one of these fixtures starts a live ComfyUI server
_SERVER_FIXTURES = {"server", "live_info"}
# folders / files whose every test is of one kind
_KIND_OF_FILE = {"test_browser.py": "browser", "test_live_server.py": "live_server", "test_packaging.py": "packaging",
                 "test_bench_scripts.py": "bench", "test_bench_e2e.py": "bench",
                 "test_bench_reliability.py": "bench"}
_KINDS = ("live_server", "browser", "packaging", "bench")


def pytest_collection_modifyitems(config, items):
    for item in items:
        kind = _KIND_OF_FILE.get(item.path.name)
        if kind:
            item.add_marker(kind)
        if _SERVER_FIXTURES & set(getattr(item, "fixturenames", ())) and kind != "browser":
            item.add_marker("live_server")
        if not any(item.get_closest_marker(k) for k in _KINDS):
            item.add_marker("unit")
