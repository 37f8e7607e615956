# One solution per language for TestSolutionVerdictsInEveryLanguage: the
# evaluator calls the function its argument names, like add, on a few
# cases; each add_* misbehaves in one way.


def add(a, b):
    return a + b


def add_wrong(a, b):
    return a - b


def add_crash(a, b):
    import os

    os.abort()


def add_throw(a, b):
    return [][a + b + 7]


def add_spin(a, b):
    while True:
        pass


def add_hog(a, b):
    keep = []
    for _ in range(64):
        keep.append(b"\x01" * (16 << 20))
    return len(keep)


def add_chatty(a, b):
    print("chatty: %d + %d" % (a, b))
    return a + b
