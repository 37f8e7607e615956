def new_game(limit):
    while True:
        pass


def guess():
    return 1


def feedback(word):
    pass
