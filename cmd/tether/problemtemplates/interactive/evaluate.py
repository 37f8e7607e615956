"""An interactive problem: the evaluator keeps a secret and answers guesses.

For each game it calls new_game(limit) once, then guess() repeatedly,
telling the solution after each wrong guess whether the secret is
"higher" or "lower" (feedback(word)). The solution keeps its state between
calls: the same process serves the whole run (unless a call times out:
runtime_config.solution.on_call_timeout "restart" starts a fresh one).
"""

import random

from tether_sdk.evaluator import SolutionRunner, SolutionTimeoutError, JudgeSystemError, result

GAMES = 5
LIMIT = 1000
MAX_GUESSES = 10  # enough for a binary search of 1..1000


def play(runner, secret):
    runner.call("new_game", LIMIT)
    for _ in range(MAX_GUESSES):
        g = runner.call("guess")
        if g == secret:
            return True
        runner.call("feedback", "higher" if secret > g else "lower")
    return False


def main():
    rng = random.Random(2024)  # fixed, so that every submission sees the same games
    runner = SolutionRunner()
    won = 0
    for _ in range(GAMES):
        try:
            if play(runner, rng.randint(1, LIMIT)):
                won += 1
        except SolutionTimeoutError:
            result.time_limit_exceeded("a call took longer than call_timeout_ms", won=won)
            return
        except JudgeSystemError as e:
            result.runtime_error(str(e), won=won)
            return
    if won == GAMES:
        result.accept(100.0, won=won)
    else:
        result.wrong_answer("won %d of %d games" % (won, GAMES), score=100.0 * won / GAMES, won=won)


main()
