def run():
    return "blocked"
