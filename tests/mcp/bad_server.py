#!/usr/bin/env python3
"""A scripted MCP server (stdio) for the fault tests: `bad_server.py MODE MARKER`.

It speaks the protocol properly except where MODE says otherwise:
  good        answers everything; its tool `work` echoes its `text` argument
  crash       exits (status 3, a word on stderr) when a tool is called
  hang        never answers a tool call
  garbage     writes a line that is not JSON when a tool is called
  huge        answers a tool call with 10 MB of text
  no-init     never answers `initialize`
  bad-schema  lists, besides `work`, a tool whose inputSchema is not an object schema
  env         its tool `work` answers with the value of the variable named in `text`
  image       its tool `work` answers with a PNG image whose base64 data is `text`
It starts a grandchild (`sleep`-like, MARKER in its command line) so that the tests can check
that nothing of it outlives luxe's `close`.
"""
import json
import os
import subprocess
import sys

MODE = sys.argv[1]
MARKER = sys.argv[2] if len(sys.argv) > 2 else "no-marker"

subprocess.Popen(
    [sys.executable, "-c", "import time; time.sleep(600)", MARKER],
    stdin=subprocess.DEVNULL,
    stdout=subprocess.DEVNULL,
    stderr=subprocess.DEVNULL,
)


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def tools():
    work = {
        "name": "work",
        "description": "Does the work.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
        "annotations": {"readOnlyHint": True},
    }
    listed = [work]
    if MODE == "bad-schema":
        listed.append({"name": "broken", "description": "x", "inputSchema": {"type": "string"}})
    return listed


for line in sys.stdin:
    message = json.loads(line)
    method = message.get("method")
    ident = message.get("id")
    if method == "initialize":
        if MODE == "no-init":
            continue
        send({"jsonrpc": "2.0", "id": ident, "result": {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "bad", "version": "0"},
        }})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": tools()}})
    elif method == "tools/call":
        text = message["params"].get("arguments", {}).get("text", "")
        if MODE == "crash":
            sys.stderr.write("the bad server crashes on purpose\n")
            sys.stderr.flush()
            os._exit(3)
        elif MODE == "hang":
            continue
        elif MODE == "garbage":
            sys.stdout.write("this is not JSON-RPC at all\n")
            sys.stdout.flush()
        elif MODE == "huge":
            big = "x" * (10 * 1024 * 1024)
            send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": big}]}})
        elif MODE == "env":
            value = os.environ.get(text, "(unset)")
            send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": value}]}})
        elif MODE == "image":
            image = {"type": "image", "mimeType": "image/png", "data": text}
            send({"jsonrpc": "2.0", "id": ident, "result": {"content": [image]}})
        else:
            send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": "worked: " + text}]}})
    elif ident is not None and method is not None:
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "no"}})
