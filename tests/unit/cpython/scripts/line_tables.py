# Prints, for code objects of this file's functions (chosen for their line
# tables: long and negative line deltas, multi-line expressions, code with
# no location), one JSON line each: the raw co_linetable, co_firstlineno
# and the start line CPython itself gives each code unit (co_positions),
# for strobe's line-table decoder to be checked against.
import json
import sys


def short():
    return 1


def loops(n):
    total = 0
    for i in range(n):
        if i % 3 == 0:
            total += i
        else:
            total -= 1
    return total


def spread(a,
           b):
    x = (a +
         b +
         a *
         b)
    try:
        y = x // b
    except ZeroDivisionError:
        y = 0
    finally:
        x += 1
    return [
        v
        for v in range(x)
        if v > y
    ]


def far_jump():
    a = 1
    # The lines below are far apart: deltas beyond one varint chunk.
































































    b = 2


































































































































    return a + b


class Holder:
    def method(self):
        def inner():
            return self
        return inner


def walk(code):
    yield code
    for c in code.co_consts:
        if hasattr(c, "co_linetable"):
            yield from walk(c)


for f in (short, loops, spread, far_jump, Holder.method, sys.modules[__name__]):
    code = f.__code__ if hasattr(f, "__code__") else compile(open(__file__).read(), __file__, "exec")
    for c in walk(code):
        lines = [p[0] if p[0] is not None else -1 for p in c.co_positions()]
        print(json.dumps({"qualname": c.co_qualname, "first_line": c.co_firstlineno,
                          "table": c.co_linetable.hex(), "lines": lines}))
