"""Fixtures of the Level-1 tests."""
import dataclasses

import pytest


@pytest.fixture
def eager_level1(mod, monkeypatch):
    """Level-1's compile with dynamo's eager backend."""
    P = mod("accel.wan_level1.preset")
    orig = P.WanLevel1Options.compile_options
    monkeypatch.setattr(P.WanLevel1Options, "compile_options",
                        lambda self, chain: dataclasses.replace(orig(self, chain), backend="eager"))
    return P
