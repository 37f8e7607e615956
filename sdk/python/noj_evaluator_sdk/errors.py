"""``noj_evaluator_sdk.errors``: the error classes by Neuro OJ's names (see
``tether_sdk.errors``). ``SdkError`` is Neuro OJ's name of their common base,
``SystemError`` and ``ConnectionError`` of ``JudgeSystemError`` and
``JudgeConnectionError``."""

from tether_sdk.errors import *  # noqa: F401,F403
from tether_sdk.errors import JudgeConnectionError as ConnectionError  # noqa: F401,A004 - Neuro OJ's name
from tether_sdk.errors import JudgeSystemError as SystemError  # noqa: F401,A004 - Neuro OJ's name
from tether_sdk.errors import TetherError as SdkError  # noqa: F401
from tether_sdk.errors import __all__ as _all

__all__ = _all + ["SdkError", "SystemError", "ConnectionError"]
