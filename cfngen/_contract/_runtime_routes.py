"""The HTTP side of the local Lambda runtime (_runtime_api.py): the Runtime API routes a
runtime process calls, and the control route the runner's workers hand their events to."""

from __future__ import annotations

import json
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cfngen._contract._runtime_api import RuntimeApi, _Runtime

PREFIX = "/2018-06-01/runtime"


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Quiet: a runtime killed mid-request (past its limit) resets its connection."""


class _Quiet(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go in separate writes: with Nagle's algorithm, the second waits for the
    # peer's delayed ACK, 40 ms a call on Linux.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _body(self) -> bytes:
        if "chunked" not in (self.headers.get("Transfer-Encoding") or "").lower():
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))
        # aws-lambda-go posts answers of unknown length, chunked, with trailers (which carry
        # an error met while reading the answer; the answer itself says enough).
        chunks: list[bytes] = []
        while True:
            size = int(self.rfile.readline(65537).split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                    pass
                return b"".join(chunks)
            chunks.append(self.rfile.read(size))
            self.rfile.readline(65537)

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def runtime_routes(api: RuntimeApi, runtime: _Runtime) -> type[BaseHTTPRequestHandler]:
    accepted = b'{"status":"OK"}'

    class Routes(_Quiet):
        def do_GET(self) -> None:
            if self.path != f"{PREFIX}/invocation/next":
                self._send(404, b'{"errorMessage":"no such route"}')
                return
            pending = api.next_event(runtime)
            if pending is None:
                self.close_connection = True
                self._send(410, b'{"errorMessage":"this runtime was replaced"}')
                return
            deadline = int((time.time() + pending.limit) * 1000)
            self._send(
                200,
                pending.event,
                {
                    "Lambda-Runtime-Aws-Request-Id": pending.id,
                    "Lambda-Runtime-Deadline-Ms": str(deadline),
                    "Lambda-Runtime-Invoked-Function-Arn": api.env.get("CFNGEN_FUNCTION_ARN", ""),
                    "Lambda-Runtime-Trace-Id": f"Root=1-{pending.id[:8]}",
                },
            )

        def do_POST(self) -> None:
            body = self._body()
            if self.path == f"{PREFIX}/init/error":
                runtime.init_error = _json(body)
                self._send(202, accepted)
                return
            parts = self.path[len(PREFIX) :].strip("/").split("/")
            if len(parts) == 3 and parts[0] == "invocation" and parts[2] in ("response", "error"):
                key = "response" if parts[2] == "response" else "error"
                value = _json(body) if key == "error" else _raw_json(body)
                if api.answered(runtime, parts[1], **{key: value}):
                    self._send(202, accepted)
                    return
            self._send(400, b'{"errorMessage":"no such invocation"}')

    return Routes


def control_routes(api: RuntimeApi) -> type[BaseHTTPRequestHandler]:
    class Routes(_Quiet):
        def do_POST(self) -> None:
            asked = json.loads(self._body())
            event = json.dumps(asked["event"]).encode("utf-8")
            result = api.invoke(event, float(asked["limit"]))
            self._send(200, json.dumps(result, default=str).encode("utf-8"))

    return Routes


def _json(body: bytes) -> dict[str, Any]:
    try:
        value = json.loads(body)
    except ValueError:
        return {"errorMessage": body.decode("utf-8", "replace")}
    return value if isinstance(value, dict) else {"errorMessage": str(value)}


def _raw_json(body: bytes) -> Any:
    try:
        return {"value": json.loads(body)}
    except ValueError:
        return {"not_json": body.decode("utf-8", "replace")}
