#!/usr/bin/env python3
"""Seeds that make_seeds.sh cannot cut out of a binary: perf records, texts
users type, a recording in small pages, range-list and unwind parameters.
Usage: make_seeds.py walk | range_list DIR B64... | texts CORPUS |
       recording IN.db OUT"""
import base64
import os
import shutil
import sqlite3
import struct
import sys

SEP = b"\xf0\x5e\xc7\x10"  # fuzz_input.hpp's kSeparator


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def walk():
    # ip, sp, fp, then a stack copy: words that look like return addresses
    # into the module (mapped at 0x10000) and saved frame pointers.
    sp = 0x7FFC0000
    stack = b"".join(struct.pack("<Q", v) for v in
                     [0x10100, sp + 32, 0x10140, sp + 64, 0, 0, 0x10180, 0, 0, 0])
    sys.stdout.buffer.write(struct.pack("<QQQ", 0x120, sp, sp + 16) + stack)


def range_list(out_dir, *sections):
    # flags (bit 0 DWARF 5, bit 1 rnglistx, bit 2 4-byte addresses), the
    # base address, three list offsets, then the section.
    made = []
    v5 = [base64.b64decode(s) for s in sections[:2]]
    v4 = base64.b64decode(sections[2])
    for i, sec in enumerate(v5):
        made.append((f"v5_{i}", struct.pack("<BQIII", 1, 0x1000, 12, 12, 12) + sec))
    made.append(("v4", struct.pack("<BQIII", 0, 0x1000, 0, 0, 0) + v4))
    # Hand-made DWARF 5 lists: offset_pair, base_address, start_end,
    # start_length, and an index table for rnglistx.
    body = bytes([4, 0x10, 0x20]) + bytes([5]) + struct.pack("<Q", 0x2000) + bytes([4, 0, 8, 0])
    body += bytes([6]) + struct.pack("<QQ", 0x3000, 0x3010) + bytes([7]) + \
        struct.pack("<Q", 0x4000) + bytes([0x10, 0])
    header = struct.pack("<IHBBI", 8 + 4 * 2 + len(body), 5, 8, 0, 2)
    offsets = struct.pack("<II", 8, 8 + 4)
    made.append(("v5_hand", struct.pack("<BQIII", 1, 0x1000, 20, 24, 20) + header + offsets + body))
    made.append(("v5_index", struct.pack("<BQIII", 3, 0x1000, 0, 1, 0) + header + offsets + body))
    v4_hand = struct.pack("<QQ", 0x10, 0x20) + struct.pack("<QQ", 2**64 - 1, 0x5000) + \
        struct.pack("<QQ", 0, 8) + struct.pack("<QQ", 0, 0)
    made.append(("v4_hand", struct.pack("<BQIII", 0, 0x1000, 0, 16, 0) + v4_hand))
    made.append(("v4_addr4", struct.pack("<BQIII", 4, 0x1000, 0, 0, 0) +
                 struct.pack("<IIII", 0x10, 0x20, 0, 0)))
    for name, data in made:
        write(os.path.join(out_dir, "seed-" + name), data)


# ---- perf records (linux/perf_event.h) ---------------------------------
IP, TID, TIME, CPU, PERIOD, CALLCHAIN = 1, 2, 4, 128, 256, 32
REGS_USER, STACK_USER = 1 << 12, 1 << 13
FP_TYPE = IP | TID | TIME | CPU | PERIOD | CALLCHAIN
DWARF_TYPE = FP_TYPE | REGS_USER | STACK_USER
REGS_MASK = (1 << 6) | (1 << 7) | (1 << 8)  # BP, SP, IP


def pad8(b):
    return b + b"\0" * (-len(b) % 8)


def sample_id(pid, tid, time, cpu=0):
    return struct.pack("<IIQII", pid, tid, time, cpu, 0)


def record(type_, misc, body):
    return struct.pack("<IHH", type_, misc, 8 + len(body)) + body


def sample(pid, tid, time, ip, chain, regs=None, stack=None):
    body = struct.pack("<QIIQIIQ", ip, pid, tid, time, 0, 0, 1000000)
    body += struct.pack("<Q", len(chain)) + b"".join(struct.pack("<Q", a) for a in chain)
    if regs is not None:
        body += struct.pack("<Q", 2) + b"".join(struct.pack("<Q", r) for r in regs)
        body += struct.pack("<Q", len(stack)) + stack + struct.pack("<Q", len(stack))
    return record(9, 2, body)


def mmap2(pid, tid, addr, length, pgoff, name, time):
    body = struct.pack("<IIQQQIIQQII", pid, tid, addr, length, pgoff, 8, 1, 1234, 0, 5, 2)
    return record(10, 2, body + pad8(name.encode() + b"\0") + sample_id(pid, tid, time))


def comm(pid, tid, name, time, exec_=False):
    return record(3, 1 << 13 if exec_ else 0,
                  struct.pack("<II", pid, tid) + pad8(name.encode() + b"\0") +
                  sample_id(pid, tid, time))


def task(type_, pid, ppid, tid, ptid, time):
    return record(type_, 0, struct.pack("<IIIIQ", pid, ppid, tid, ptid, time) +
                  sample_id(pid, tid, time))


def ring_input(sample_type, regs_mask, flags, records, tail=0):
    data = b"".join(records)
    head = tail + len(data)
    return struct.pack("<QQBQQ", sample_type, regs_mask, flags, head, tail) + data


def perf_records(corpus):
    kernel = 0xFFFFFFFF81000000
    ctx_kernel, ctx_user = 2**64 - 128, 2**64 - 512
    recs = [
        comm(100, 100, "app", 10, exec_=True),
        mmap2(100, 100, 0x400000, 0x10000, 0, "/usr/bin/app", 11),
        mmap2(100, 100, 0x7F0000000000, 0x200000, 0x1000, "/usr/lib/libc.so.6", 12),
        sample(100, 100, 20, 0x401000, [ctx_user, 0x401000, 0x401200, 0x7F0000001000]),
        sample(100, 100, 21, kernel, [ctx_kernel, kernel, kernel + 64, ctx_user, 0x401010]),
        task(7, 100, 100, 101, 100, 22),
        comm(100, 101, "worker", 23),
        sample(100, 101, 24, 0x401020, [ctx_user, 0x401020, 0x401300]),
        record(2, 0, struct.pack("<QQ", 1, 5) + sample_id(100, 101, 25)),
        record(5, 0, struct.pack("<QQQ", 26, 1, 1) + sample_id(100, 101, 26)),
        record(8, 0, struct.pack("<IIQ", 100, 102, 5000) + sample_id(100, 102, 27)),
        task(4, 100, 100, 101, 100, 28),
    ]
    write(os.path.join(corpus, "perf_records", "seed-fp"), ring_input(FP_TYPE, 0, 1, recs))
    # The same, starting near the end of a 1 KB data area, so records wrap.
    data = b"".join(recs)
    size = 64
    while size < len(data):
        size *= 2
    tail = size - 24
    wrapped = bytearray(size)
    for i, b in enumerate(data):
        wrapped[(tail + i) % size] = b
    write(os.path.join(corpus, "perf_records", "seed-wrapped"),
          struct.pack("<QQBQQ", FP_TYPE, 0, 0, tail + len(data), tail) + bytes(wrapped))
    stack = b"".join(struct.pack("<Q", v) for v in [0x401200, 0x7FFC0100, 0x401300, 0])
    dwarf = [
        mmap2(200, 200, 0x400000, 0x10000, 0, "/usr/bin/app", 1),
        sample(200, 200, 2, 0x401000, [ctx_user, 0x401000], [0x7FFC0010, 0x7FFC0000, 0x401000],
               stack),
    ]
    write(os.path.join(corpus, "perf_records", "seed-dwarf"),
          ring_input(DWARF_TYPE, REGS_MASK, 0, dwarf))


def bpf_record(kind, flags, pid, tid, time, sections, period=0, ip=0):
    # src/bpf/sample_record.h: a 48-byte header, then (kind, 0, size)
    # sections padded to 8 bytes.
    body = b"".join(struct.pack("<HHI", k, 0, len(d)) + pad8(d) for k, d in sections)
    size = 48 + len(body)
    return struct.pack("<HHIQIIIIQQ", kind, flags, size, time, pid, tid, 0, len(sections),
                       period, ip) + body


def bpf_records(corpus):
    words = lambda *v: b"".join(struct.pack("<Q", x) for x in v)
    regs = words(*range(17))
    build_id = struct.pack("<i", 1) + bytes(range(20)) + struct.pack("<Q", 0x1234)
    recs = [
        bpf_record(1, 0, 7, 7, 1000, [(1, words(0xffffffff81000100)), (2, words(0x401234, 0x401500))],
                   1001001, 0x401234),
        bpf_record(1, 8, 7, 8, 2000, [(2, words(0x401234)), (4, regs), (5, bytes(40))], 1001001,
                   0x401234),
        bpf_record(1, 0, 7, 7, 3000, [(3, build_id), (6, words(0x7f00, 12))], 1001001, 0x401234),
        bpf_record(2, 0x20, 7, 7, 4000, [(2, words(0x401234))]),
        bpf_record(3, 0, 7, 7, 5000, []),
    ]
    write(os.path.join(corpus, "bpf_records", "seed-records"), b"".join(recs))


def texts(corpus):
    seeds = {
        "perf_map": {
            "v8": "7f1c3a000040 7c LazyCompile:~main /app/index.js:1\n"
                  "0x7f1c3a0000c0 0x40 Builtin:ArgumentsAdaptorTrampoline\n"
                  "7f1c3a000100 20 Stub:CEntryStub\r\n",
            "kallsyms": "ffffffff81000000 T _stext\nffffffff81000100 t do_one_initcall\n"
                        "ffffffffc0000000 t ext4_readpage\t[ext4]\n0000000000000000 A fixed\n",
            "hidden": "0000000000000000 T _stext\n0000000000000000 t schedule\n",
        },
        "demangle": {
            "cxx": "_ZN5tiny4workEm", "template": "_ZN4tiny5twiceImEET_S1_",
            "clone": "_ZN4tinyL3mixEm.part.0.constprop.0",
            "rust": "_ZN4core3fmt5write17h0123456789abcdefE",
            "rust_v0": "_RNvCs1234_5crate4main", "versioned": "memcpy@@GLIBC_2.14",
            "lambda": "_ZZ4mainENKUlvE_clEv",
        },
        "symbolize_input": {
            "hex": "\x07" + "0x401000\n401010\n  0x10\n-5\n+0x20\nzz\n0xffffffffffffffff\n",
            "json": "\x3f" + "0x0\n0x1\n",
        },
        "user_values": {
            "duration": "1h30m", "decimal": "2.5", "ms": "250ms", "pids": "123,456,123",
            "dwarf": "dwarf,8192", "auto": "auto", "format": "pprof", "path": "out.speedscope.json",
            "signal": "SIGUSR2",
            "env": SEP.decode("latin-1").join(
                ["out-%p.pb.gz", "pprof", "127.0.0.1:0", "USR1", "999", "64", "wall", "timer"]),
        },
    }
    for target, files in seeds.items():
        for name, text in files.items():
            write(os.path.join(corpus, target, "seed-" + name), text.encode("latin-1"))
    perf_records(corpus)
    bpf_records(corpus)


def recording(src, out):
    tmp = out + ".tmp"
    shutil.copy(src, tmp)
    db = sqlite3.connect(tmp)
    db.execute("PRAGMA journal_mode=DELETE")
    db.execute("PRAGMA page_size=512")
    db.execute("VACUUM")
    db.close()
    os.replace(tmp, out)


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "walk":
        walk()
    elif mode == "range_list":
        range_list(*sys.argv[2:])
    elif mode == "texts":
        texts(sys.argv[2])
    elif mode == "recording":
        recording(sys.argv[2], sys.argv[3])
