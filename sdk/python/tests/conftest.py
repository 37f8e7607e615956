import os
import sys

import pytest

SDK_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_ROOT = os.path.dirname(os.path.dirname(SDK_DIR))
TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
for p in (SDK_DIR, TESTS_DIR):
    if p not in sys.path:
        sys.path.insert(0, p)


@pytest.fixture
def peers():
    """Peers started through this list are closed (and their threads joined) after the test."""
    started = []
    yield started
    for p in started:
        p.close()
