"""``noj_solution_sdk.errors``: the capability error classes."""

from tether_sdk.solution.errors import *  # noqa: F401,F403
from tether_sdk.solution.errors import __all__  # noqa: F401
