#!/usr/bin/env python3
"""A scripted streamable-HTTP MCP server for the GET stream and DELETE tests:
`http_server.py MODE`, serving http://127.0.0.1:PORT/mcp (the port is said on stderr as
`listening on port PORT`).

It names its session `s-1`, and says on stdout, one line each, every request it gets
(`POST initialize`, `GET`, `DELETE s-1`...). MODE:
  listen   GET opens a stream of server messages; the tool `grow` adds the tool `grown`,
           says `notifications/tools/list_changed` on every open GET stream (never in the
           POST's answer), then answers
  no-get   GET is answered 405 (no stream offered); `grow` adds its tool, telling no one
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE = sys.argv[1]
LOCK = threading.Lock()
TOOLS = [{"name": "work", "description": "Works.", "inputSchema": {"type": "object"}}]
STREAMS = []


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body=None, headers=()):
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        method, ident = message.get("method"), message.get("id")
        say(f"POST {method or 'answer'}")
        if ident is None or method is None:
            return self.answer(202)
        if method == "initialize":
            result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {"listChanged": True}},
                      "serverInfo": {"name": "scripted", "version": "0"}}
            return self.answer(200, {"jsonrpc": "2.0", "id": ident, "result": result},
                               [("Mcp-Session-Id", "s-1")])
        if method == "tools/list":
            with LOCK:
                tools = list(TOOLS)
            return self.answer(200, {"jsonrpc": "2.0", "id": ident, "result": {"tools": tools}})
        if method == "tools/call":
            if message["params"]["name"] == "grow":
                with LOCK:
                    TOOLS.append({"name": "grown", "description": "Grown.", "inputSchema": {"type": "object"}})
                    changed = json.dumps({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
                    for stream in STREAMS:
                        stream.write(f"data: {changed}\n\n".encode())
                        stream.flush()
            result = {"content": [{"type": "text", "text": "done"}]}
            return self.answer(200, {"jsonrpc": "2.0", "id": ident, "result": result})
        return self.answer(200, {"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "no"}})

    def do_GET(self):
        say("GET " + self.headers.get("Mcp-Session-Id", "no-session"))
        if MODE == "no-get":
            return self.answer(405, None, [("Allow", "POST, DELETE")])
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        with LOCK:
            STREAMS.append(self.wfile)
        try:
            while True:
                time.sleep(0.2)
                with LOCK:
                    self.wfile.write(b": still here\n\n")
                    self.wfile.flush()
        except OSError:
            with LOCK:
                STREAMS.remove(self.wfile)

    def do_DELETE(self):
        say("DELETE " + self.headers.get("Mcp-Session-Id", "no-session"))
        self.answer(200)


# A tools/call tool to grow the listing: offered from the start.
TOOLS.append({"name": "grow", "description": "Adds a tool.", "inputSchema": {"type": "object"}})
server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
sys.stderr.write(f"listening on port {server.server_address[1]}\n")
sys.stderr.flush()
server.serve_forever()
