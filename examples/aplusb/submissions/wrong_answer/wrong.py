def add(a, b):
    if a > 1000:
        return a  # forgets b for big numbers
    return a + b
