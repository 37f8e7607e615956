"""``noj_evaluator_sdk.errors``: the error classes (see ``tether_sdk.errors``)."""

from tether_sdk.errors import *  # noqa: F401,F403
from tether_sdk.errors import __all__  # noqa: F401
