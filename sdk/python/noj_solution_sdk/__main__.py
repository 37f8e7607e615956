"""``python3 -m noj_solution_sdk``: the same as ``python3 -m noj_solution_sdk.host``."""

from tether_sdk.solution.host import main

if __name__ == "__main__":
    main()
