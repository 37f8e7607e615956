low, high, last = 1, 1, 1


def new_game(limit):
    global low, high
    low, high = 1, limit


def guess():
    global last
    last = (low + high) // 2
    return last


def feedback(word):
    global low, high
    if word == "higher":
        low = last + 1
    else:
        high = last - 1
