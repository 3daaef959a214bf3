# A fixed amount of Python work for bench/python/overhead.sh: the same
# three functions as tests/fixtures/python/shares.py (pure Python loops,
# sorting strings, zlib), each run a fixed number of times, so that the CPU
# the interpreter takes says what sampling it cost.
# Usage: fixed_work.py [ROUNDS]
import random
import sys
import zlib

DATA = bytes(random.Random(7).getrandbits(8) for _ in range(1 << 16))


def spin():
    x = 1
    for i in range(20000):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
    return x


def churn():
    return len(sorted(str(i * 7919 % 1009) for i in range(3000)))


def squeeze():
    return len(zlib.compress(DATA, 6))


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    for _ in range(rounds):
        spin()
        churn()
        squeeze()


main()
