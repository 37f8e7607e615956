"""Guess the number: an interactive problem whose solution keeps state.

For each game the evaluator calls ``new_game(lo, hi)``, then repeatedly
``guess()`` and ``feedback(answer)`` with "higher", "lower" or "correct".
A game is won when the secret is found within the binary-search bound.
The solution must remember its interval between calls. The three functions
are declared in problem.json, so each call is checked against them.
"""

import math
import random

from tether_sdk.evaluator import JudgeSystemError, SolutionTimeoutError, result, solution

GAMES = [(1, 100), (1, 1), (-50, 50), (0, 10**6), (1, 2**40)]


def play(rng, lo, hi):
    secret = rng.randint(lo, hi)
    budget = math.ceil(math.log2(hi - lo + 1)) + 1
    solution.new_game(lo, hi)
    for _ in range(budget):
        g = solution.guess()
        if type(g) is not int or not lo <= g <= hi:
            return "guess %r is outside [%d, %d]" % (g, lo, hi)
        if g == secret:
            solution.feedback("correct")
            return None
        solution.feedback("higher" if secret > g else "lower")
    return "secret %d not found in %d guesses" % (secret, budget)


def main():
    rng = random.Random(20240601)
    won, failures = 0, []
    for lo, hi in GAMES:
        try:
            failure = play(rng, lo, hi)
        except SolutionTimeoutError:
            failure = "a call timed out"
        except JudgeSystemError as e:
            result.runtime_error(str(e))
            return
        if failure is None:
            won += 1
        else:
            failures.append("[%d, %d]: %s" % (lo, hi, failure))
    if won == len(GAMES):
        result.accept(100.0, games=won)
    else:
        result.wrong_answer(score=100.0 * won / len(GAMES), games=won, failures=failures)


main()
