"""STACK and CHANGE_SET documents served from a local URL, as CloudFormation serves them.

For these targets CloudFormation sends no targetModel but a `payload` URL (a presigned S3
URL), and cloudformation-cli-python-lib downloads the document with `requests` before the
handler runs. Serving the document from 127.0.0.1 makes that download path run as in
production: a hook that reads `targetModel` itself, or a library bug there, shows up.
The standard library's server is enough: one GET per document, on the loopback only.
"""

from __future__ import annotations

import http.server
import json
import os
import threading
import uuid
from collections.abc import Mapping
from typing import Any


class PayloadServer:
    """A context manager: while open, `publish(document)` returns a URL that serves it."""

    def __init__(self) -> None:
        self._documents: dict[str, bytes] = {}
        self._server: http.server.ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> PayloadServer:
        documents = self._documents

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = documents.get(self.path.lstrip("/"))
                if body is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:  # not the handler's output
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="cfngen-payloads", daemon=True
        )
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def publish(self, document: Mapping[str, Any]) -> str:
        if self._server is None:
            raise RuntimeError("the payload server is not running")
        key = uuid.uuid4().hex
        self._documents[key] = json.dumps(document).encode("utf-8")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/{key}"


class _Payloads:
    """STACK and CHANGE_SET documents served from the process that runs the handlers (the
    runner's worker): a server started in cfngen's own process would not see what a worker
    publishes."""

    def __init__(self) -> None:
        self._server: PayloadServer | None = None
        self._pid = 0

    def publish(self, document: Mapping[str, Any]) -> str:
        if self._server is None or self._pid != os.getpid():
            self._server = PayloadServer().__enter__()
            self._pid = os.getpid()
        return self._server.publish(document)

    def close(self) -> None:
        if self._server is not None and self._pid == os.getpid():
            self._server.__exit__()
        self._server = None
