"""Neuro OJ's solution SDK names, as a thin layer over ``tether_sdk.solution``.

``from noj_solution_sdk import register, call_capability`` and the error
classes; the host is ``python3 -m noj_solution_sdk.host --entry FILE`` (or
``python3 -m noj_solution_sdk``). Its protocol: docs/protocol/judge.md.
"""

from tether_sdk import solution as _solution
from tether_sdk.solution import *  # noqa: F401,F403 - the same names
from tether_sdk.solution import get_registry  # noqa: F401

__all__ = [name for name in _solution.__all__ if name != "get_registry"]
