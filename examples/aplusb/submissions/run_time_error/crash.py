def add(a, b):
    print("about to crash")
    return a // (b - b)  # ZeroDivisionError
