"""``noj_evaluator_sdk.errors``: the error classes (see ``tether_sdk.errors``).
``SdkError`` is Neuro OJ's name of their common base."""

from tether_sdk.errors import *  # noqa: F401,F403
from tether_sdk.errors import TetherError as SdkError  # noqa: F401
from tether_sdk.errors import __all__ as _all

__all__ = _all + ["SdkError"]
