def run():
    while True:
        pass
