def solve(s):
    return " ".join(reversed(s.split()))
