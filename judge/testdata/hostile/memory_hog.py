def run():
    hog = []
    while True:
        hog.append(bytearray(16 << 20))
