"""``noj_evaluator_sdk.result``: accept, wrong_answer, runtime_error, system_error."""

from tether_sdk.evaluator.result import *  # noqa: F401,F403
from tether_sdk.evaluator.result import __all__  # noqa: F401
