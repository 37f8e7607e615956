# Ignores the feedback and counts up: runs out of guesses.
n = 0


def new_game(limit):
    global n
    n = 0


def guess():
    global n
    n += 1
    return n


def feedback(word):
    pass
