# A CPython process whose threads wait in known places, for strobe's frame
# walker: the main thread in a C read (os.read on a pipe nobody writes)
# under a Python callback run by C code (map), a worker in
# threading.Event.wait. A reporter thread prints, once both wait, one JSON
# line: each thread's native id and its frames, newest first, as CPython
# itself gives them (sys._current_frames: qualified name, file, line, and
# the code object's address), then the process waits to be killed. The
# innermost function's file is relative: "frames_helper.py".
import json
import os
import sys
import threading
import time

pipe_r, pipe_w = os.pipe()
started = threading.Event()
never = threading.Event()


def frames_of(frame):
    out = []
    while frame is not None:
        code = frame.f_code
        out.append({"qualname": code.co_qualname, "file": code.co_filename,
                    "line": frame.f_lineno, "code": id(code)})
        frame = frame.f_back
    return out


def worker_wait():
    never.wait()


def worker():
    started.set()
    worker_wait()


def report(main_id, worker_thread):
    time.sleep(0.3)
    current = sys._current_frames()
    threads = [
        {"tid": threading.main_thread().native_id, "frames": frames_of(current[main_id])},
        {"tid": worker_thread.native_id, "frames": frames_of(current[worker_thread.ident])},
    ]
    print(json.dumps({"threads": threads}), flush=True)


# inner's code names its file relatively, as code compiled at run time may.
exec(compile("def inner(_):\n    os.read(pipe_r, 1)\n", "frames_helper.py", "exec"))


def middle():
    return list(map(inner, [1]))


def outer():
    middle()


w = threading.Thread(target=worker, name="waiter")
w.start()
started.wait()
threading.Thread(target=report, args=(threading.get_ident(), w), name="reporter").start()
outer()
