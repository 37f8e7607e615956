state = {}


def new_game(lo, hi):
    state.update(lo=lo, hi=hi, last=None)


def guess():
    state["last"] = (state["lo"] + state["hi"]) // 2
    return state["last"]


def feedback(answer):
    if answer == "higher":
        state["lo"] = state["last"] + 1
    elif answer == "lower":
        state["hi"] = state["last"] - 1
