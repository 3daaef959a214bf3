# Seeds of the cpython fuzz target (fuzz/cpython_fuzz.cpp), written to the
# folder given: real line tables of this interpreter's code objects, and,
# on 3.13+, its own _Py_DebugOffsets (the first bytes of _PyRuntime), and
# str data. Run with each CPython 3.11+ (make_seeds.sh does).
import ctypes
import struct
import sys

SEP = bytes([0xF0, 0x5E, 0xC7, 0x10])
out = sys.argv[1]
tag = f"{sys.version_info.major}{sys.version_info.minor}"

debug = b""
if sys.version_info >= (3, 13):
    runtime = ctypes.c_char.in_dll(ctypes.pythonapi, "_PyRuntime")
    debug = ctypes.string_at(ctypes.addressof(runtime), 584)


def sample(a, b):
    total = 0
    for i in range(a):
        if i % b:
            total += (i *
                      b)
    return [x for x in range(total) if x % 7]


for name, code in (("sample", sample.__code__), ("listcomp", sample.__code__.co_consts[-1]
                                                  if hasattr(sample.__code__.co_consts[-1], "co_code")
                                                  else sample.__code__),
                   ("module", compile("import os\nx = os.getpid()\n\n\n\ny = x * 2\n", "m.py", "exec"))):
    with open(f"{out}/seed-{name}-{tag}", "wb") as f:
        f.write(struct.pack("<i", code.co_firstlineno) + code.co_linetable + SEP + debug + SEP +
                "gr\u00fc\u00dfe \u4e2d".encode("utf-16-le"))
