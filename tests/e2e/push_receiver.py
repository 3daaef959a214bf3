#!/usr/bin/env python3
"""A stand-in for a Pyroscope ingest endpoint, for strobe agent's push test.

Usage: push_receiver.py OUT_DIR [PORT]. Listens on 127.0.0.1:PORT (0: any),
writes the port to OUT_DIR/port, and stores each POST as OUT_DIR/N.body with
its path and query and its Content-Type in OUT_DIR/N.meta (two lines),
answering 200.
"""
import os
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

out = sys.argv[1]
port = int(sys.argv[2]) if len(sys.argv) > 2 else 0


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        n = sum(1 for f in os.listdir(out) if f.endswith(".meta"))
        with open(os.path.join(out, "%d.body" % n), "wb") as f:
            f.write(body)
        tmp = os.path.join(out, "%d.meta.tmp" % n)
        with open(tmp, "w") as f:
            f.write(self.path + "\n" + self.headers.get("Content-Type", "") + "\n")
        os.rename(tmp, os.path.join(out, "%d.meta" % n))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


server = HTTPServer(("127.0.0.1", port), Handler)
with open(os.path.join(out, "port.tmp"), "w") as f:
    f.write(str(server.server_address[1]))
os.rename(os.path.join(out, "port.tmp"), os.path.join(out, "port"))
server.serve_forever()
