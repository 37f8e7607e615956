import os
import time

from hostile import protocol_out


def run():
    os.close(protocol_out())
    time.sleep(60)
