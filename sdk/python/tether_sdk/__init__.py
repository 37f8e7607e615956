"""tether_sdk: the Python side of tether's dual protocol (standard library only).

Two halves share one codec and one frame format:

* ``tether_sdk.evaluator`` -- for the problem setter's trusted ``evaluate.py``:
  ``SolutionRunner``, ``register_capability``, ``result``, ``configure_logging``.
* ``tether_sdk.solution`` -- the solution host (``python3 -m
  tether_sdk.solution.host --entry FILE``), ``register`` and ``call_capability``.

``noj_evaluator_sdk`` and ``noj_solution_sdk`` are thin layers with Neuro OJ's
public names over these two. Nothing here starts a thread or touches stdio on
import; that happens on first use.
"""

__version__ = "0.1.0"
