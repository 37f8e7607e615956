import os
import sys

import pytest

SDK_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_ROOT = os.path.dirname(os.path.dirname(SDK_DIR))
TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
for p in (SDK_DIR, TESTS_DIR):
    if p not in sys.path:
        sys.path.insert(0, p)

import fakejudge  # noqa: E402 - found through the path set just above


class Peers(list):
    """The peers a test started, in its tmp_path: each is closed (and its
    threads joined) after the test."""

    def __init__(self, tmp_path):
        super().__init__()
        self._dir = tmp_path

    def host(self, source, **kwargs):
        """The solution host on source (fakejudge.start_host)."""
        return self._keep(fakejudge.start_host(self._dir, source, **kwargs))

    def evaluator(self, source, env=None):
        """The evaluator script source (fakejudge.start_evaluator)."""
        return self._keep(fakejudge.start_evaluator(self._dir, source, env))

    def _keep(self, peer):
        self.append(peer)
        return peer


@pytest.fixture
def peers(tmp_path):
    started = Peers(tmp_path)
    yield started
    for p in started:
        p.close()
