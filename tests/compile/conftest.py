"""Fixtures the compile tests share: the compile package, and a dynamo reset around each test of a file that asks for
it (`pytestmark = pytest.mark.usefixtures("fresh_dynamo")`), so no dynamo state leaks between tests or files."""
import pytest


@pytest.fixture(scope="module")
def C(mod):
    return mod("accel.compile")


@pytest.fixture
def fresh_dynamo():
    import torch._dynamo

    torch._dynamo.reset()
    yield
    torch._dynamo.reset()
