"""``python3 -m noj_solution_sdk.host --entry FILE``: tether's solution host
(``tether_sdk.solution.host``: lifecycle, answers and limits)."""

from tether_sdk.solution.host import main

if __name__ == "__main__":
    main()
