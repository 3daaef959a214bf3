#!/usr/bin/env python3
"""libstrobe's HTTP endpoint under a misbehaving client.

An unmodified fixture runs under LD_PRELOAD=libstrobe.so with STROBE_HTTP.
1. A client asks for /debug/pprof/profile?seconds=3600 and disconnects: the
   profile is cancelled, so a legitimate profile request right after gets
   200 (not 429 for an hour).
2. 8 slowloris connections from another address (127.0.0.2), each sending
   one header line a second: legitimate requests from 127.0.0.1 are served
   meanwhile (symbols and a 1-second profile), and the server closes the
   slow connections once their time for the request is up (5 s).
3. Binding a non-loopback address prints a warning; loopback does not.
Usage: inproc_http_abuse_check.py BUILD_DIR
"""
import gzip
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

build = os.path.abspath(sys.argv[1])
# STROBE_ASAN_PRELOAD: the ASan runtime first, in a sanitizer build.
lib = os.environ.get("STROBE_ASAN_PRELOAD", "") + os.path.join(build, "libstrobe.so")
fixture = os.path.join(build, "tests", "fixtures", "fixture_shares")
failures = []


def fail(msg):
    print("FAIL: " + msg)
    failures.append(msg)


def start(addr, err_path):
    env = dict(os.environ, LD_PRELOAD=lib, STROBE_HTTP=addr)
    err = open(err_path, "w")
    proc = subprocess.Popen([fixture, "100000", "1000000"], env=env, stderr=err,
                            stdout=subprocess.DEVNULL)
    port = None
    for _ in range(100):
        with open(err_path) as f:
            m = re.search(r"^strobe: serving .* on port (\d+)$", f.read(), re.M)
        if m:
            port = int(m.group(1))
            break
        time.sleep(0.1)
    return proc, port


def get(port, path, timeout):
    """One GET from 127.0.0.1: (status, body), or (None, reason)."""
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        s.settimeout(timeout)
        s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path).encode())
        data = b""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        s.close()
    except OSError as e:
        return None, str(e)
    head, _, body = data.partition(b"\r\n\r\n")
    m = re.match(rb"HTTP/1\.[01] (\d+)", head)
    return (int(m.group(1)) if m else None), body


work = tempfile.mkdtemp()
err_path = os.path.join(work, "err")
proc, port = start("127.0.0.1:0", err_path)
try:
    if port is None:
        fail("no port announced")
        sys.exit(1)

    # 1. A long profile whose client goes away.
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET /debug/pprof/profile?seconds=3600 HTTP/1.1\r\nHost: x\r\n\r\n")
    time.sleep(0.5)
    s.close()
    time.sleep(0.5)
    status, body = get(port, "/debug/pprof/profile?seconds=1", timeout=10)
    if status != 200:
        fail("after a client left its 3600 s profile, a new profile got %r %r" % (status, body[:80]))
    else:
        try:
            gzip.decompress(body)
        except OSError as e:
            fail("the profile after the cancelled one is not gzip: %s" % e)

    # 2. Slowloris from 127.0.0.2.
    slow = []
    for _ in range(8):
        c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            c.bind(("127.0.0.2", 0))
        except OSError as e:
            print("note: cannot bind 127.0.0.2 (%s); the slow client shares 127.0.0.1" % e)
        c.connect(("127.0.0.1", port))
        c.sendall(b"GET /debug/pprof/symbol HTTP/1.1\r\n")
        slow.append(c)
    closed_at = {}
    stop = threading.Event()
    t_start = time.monotonic()

    def drip():
        n = 0
        while not stop.is_set() and len(closed_at) < len(slow):
            for i, c in enumerate(slow):
                if i in closed_at:
                    continue
                try:
                    c.sendall(b"X-Slow-%d: a\r\n" % n)
                except OSError:
                    closed_at[i] = time.monotonic() - t_start
            n += 1
            stop.wait(1.0)

    dripper = threading.Thread(target=drip)
    dripper.start()
    time.sleep(1.5)
    t = time.monotonic()
    status, body = get(port, "/debug/pprof/symbol", timeout=4)
    if status != 200 or b"num_symbols" not in body:
        fail("under slowloris, /debug/pprof/symbol got %r %r" % (status, body[:80]))
    status, body = get(port, "/debug/pprof/profile?seconds=1", timeout=6)
    if status != 200:
        fail("under slowloris, a 1 s profile got %r %r" % (status, body[:80]))
    served_in = time.monotonic() - t
    time.sleep(max(0.0, 9.0 - (time.monotonic() - t_start)))
    stop.set()
    dripper.join()
    # A connection is closed either at once (over the per-client limit) or
    # when its 5 s for the request run out; none may stay open.
    still_open = [i for i in range(len(slow)) if i not in closed_at]
    # The server may have closed without the send failing yet: check for EOF.
    for i in list(still_open):
        slow[i].setblocking(False)
        try:
            if slow[i].recv(4096) == b"":
                still_open.remove(i)
        except BlockingIOError:
            pass
        except OSError:
            still_open.remove(i)
    if still_open:
        fail("slow connections %s were still open after 9 s" % still_open)
    for c in slow:
        c.close()
    print("ok: under 8 slowloris connections both requests were served in %.1f s" % served_in)
finally:
    proc.kill()
    proc.wait()

with open(err_path) as f:
    if "warning" in f.read():
        fail("a loopback address printed a warning")

# 3. Non-loopback: a warning at start.
proc, port = start("0.0.0.0:0", err_path)
proc.kill()
proc.wait()
with open(err_path) as f:
    text = f.read()
want = ("strobe: warning: serving profiles on 0.0.0.0:%s, which other machines can reach: "
        "anyone who connects can profile this program and read its function names\n"
        "  hint: use 127.0.0.1:PORT (and an SSH tunnel) unless the network is trusted\n" % port)
if want not in text:
    fail("binding 0.0.0.0 did not warn as expected:\n" + text)

if failures:
    sys.exit(1)
print("ok: cancelled profile, slowloris, non-loopback warning")
