#!/usr/bin/env python3
"""strobe top's interactive screen, driven through a pseudo-terminal.

Runs `strobe top --interval 300ms -F 999 -- fixture_shares` on a pty
(TERM=xterm), waits until the screen shows the fixture's hot function, then
presses l (rows by line) and q. Checks that the screen named work_six(),
that the line view named shares.cpp, that q ended the launched command
(status 143, as -d does in record) within a few seconds, and that the
terminal was given back (curses leaves the alternate screen).
Usage: top_pty_check.py STROBE FIXTURE
"""
import os
import pty
import select
import sys
import time


def main():
    strobe, fixture = sys.argv[1], sys.argv[2]
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm"
        os.environ["LINES"] = "40"
        os.environ["COLUMNS"] = "160"
        os.execv(strobe, [strobe, "top", "--interval", "300ms", "-F", "999", "--",
                          fixture, "100000", "15000"])  # ends within ~30 s if q fails
    out = b""

    def read_until(needle, seconds):
        nonlocal out
        end = time.time() + seconds
        while needle not in out and time.time() < end:
            r, _, _ = select.select([fd], [], [], 0.1)
            if r:
                try:
                    out += os.read(fd, 65536)
                except OSError:
                    break
        return needle in out

    failures = []
    if not read_until(b"work_six()", 30):
        failures.append("the screen never showed work_six()")
    os.write(fd, b"l")
    mark = len(out)
    if not read_until(b"shares.cpp:", 10):
        failures.append("after l, the screen never showed a shares.cpp:LINE row")
    os.write(fd, b"q")
    status = None
    end = time.time() + 15
    while time.time() < end:
        read_until(b"\0never", 0.2)  # drain the pty so the child is not blocked
        done, st = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            status = os.waitstatus_to_exitcode(st)
            break
    if status is None:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        failures.append("q did not end strobe top within 15 s")
    elif status != 143:
        failures.append(f"exit status {status}, expected 143 (the command got SIGTERM)")
    # ncurses' endwin on xterm leaves the alternate screen: ESC [ ? 1049 l.
    if b"\x1b[?1049l" not in out[mark:]:
        failures.append("the terminal was not restored (no rmcup after q)")
    for f in failures:
        print("FAIL:", f)
    if failures:
        print("output tail:", out[-2000:])
        return 1
    print("ok: screen, l, q and terminal restore")
    return 0


if __name__ == "__main__":
    sys.exit(main())
