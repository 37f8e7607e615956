# Forgets its state: always guesses the middle of the first interval.
def new_game(lo, hi):
    global LO, HI
    LO, HI = lo, hi


def guess():
    return (LO + HI) // 2


def feedback(answer):
    pass
