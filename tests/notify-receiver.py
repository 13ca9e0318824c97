#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A receiver for tfd's --ping and --notify tests (tests/bats/37-notify.bats).

Listens on 127.0.0.1 on a port the kernel picks, writes that port to
PORTFILE once it listens, and appends one JSON line per request to LOG:
{"method", "path", "body", "type"}. --statuses 500,200 answers the
requests with those statuses in turn (then 200); --hang never answers
(each connection is held open until the receiver ends)."""

import argparse
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("portfile")
    ap.add_argument("log")
    ap.add_argument("--statuses", default="")
    ap.add_argument("--hang", action="store_true")
    args = ap.parse_args()
    statuses = [int(s) for s in args.statuses.split(",") if s]
    lock = threading.Lock()
    forever = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def handle_any(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
            with lock:
                with open(args.log, "a", encoding="utf-8") as f:
                    f.write(json.dumps({"method": self.command, "path": self.path,
                                        "body": body,
                                        "type": self.headers.get("Content-Type")}) + "\n")
                status = statuses.pop(0) if statuses else 200
            if args.hang:
                forever.wait()
                return
            self.send_response(status)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"OK")

        do_GET = do_POST = do_HEAD = handle_any

        def log_message(self, format, *a):
            pass

    class Server(ThreadingHTTPServer):
        def handle_error(self, request, client_address):
            pass  # a client that closed first (tfd dropped the request)

    server = Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with open(args.portfile + ".tmp", "w", encoding="ascii") as f:
        f.write(str(server.server_address[1]))
    import os
    os.rename(args.portfile + ".tmp", args.portfile)
    server.serve_forever()


if __name__ == "__main__":
    main()
