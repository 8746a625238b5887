"""The presigned S3 `ResponseURL`, played on 127.0.0.1: an HTTPS server that records every PUT.

HTTPS, because crhelper (and S3) speak nothing else: the server's certificate is made here,
once per process, and trusted while handlers run (`trusted()`: SSL_CERT_FILE for the standard
library and urllib3, REQUESTS_CA_BUNDLE for requests). Each request gets its own URL; a URL made
with `expired=True` answers 403 as S3 does once the presigned URL has expired.
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import http.server
import ssl
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field

_EXPIRED = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code>'
    b"<Message>Request has expired</Message></Error>"
)


@dataclass
class Put:
    """One PUT the receiver got."""

    headers: dict[str, str]
    body: bytes
    at: float
    status: int


@dataclass
class Slot:
    """What one request's URL received."""

    token: str
    expired: bool = False
    #: Answer 503 to this many PUTs first (S3 having a bad moment).
    unavailable: int = 0
    puts: list[Put] = field(default_factory=list)


@functools.cache
def certificate() -> tuple[str, str]:
    """(certificate file, key file) of a self-signed certificate for 127.0.0.1 and localhost."""
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "cfngen local ResponseURL")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    from cfngen._files import scratch_folder

    folder = scratch_folder("cfngen-cr-cert-")
    cert_file = folder / "cert.pem"
    key_file = folder / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return str(cert_file), str(key_file)


class Receiver:
    """`with Receiver() as receiver:` a running HTTPS server; `receiver.url(slot)`."""

    def __init__(self) -> None:
        self._slots: dict[str, Slot] = {}
        self._lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_PUT(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                token = self.path.split("?")[0].rsplit("/", 1)[-1]
                slot = receiver._slots.get(token)
                status = 404 if slot is None else 403 if slot.expired else 200
                if slot is not None and status == 200 and slot.unavailable > 0:
                    slot.unavailable -= 1
                    status = 503
                if slot is not None:
                    with receiver._lock:
                        slot.puts.append(
                            Put(
                                {k.lower(): v for k, v in self.headers.items()},
                                body,
                                time.monotonic(),
                                status,
                            )
                        )
                payload = _EXPIRED if status == 403 else b""  # S3's words
                self.send_response(status)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        cert_file, key_file = certificate()
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert_file, key_file)
        self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
        self.cert_file = cert_file
        # One receiver per unit of work: a short poll, so that closing it costs no half second.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def __enter__(self) -> Receiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def slot(self, *, expired: bool = False, unavailable: int = 0) -> Slot:
        token = uuid.uuid4().hex
        slot = Slot(token, expired, unavailable)
        self._slots[token] = slot
        return slot

    def url(self, slot: Slot) -> str:
        port = self._server.server_address[1]
        # Shaped like a presigned S3 URL (the query is not checked: moto does not check either).
        return (
            f"https://127.0.0.1:{port}/cloudformation-custom-resource-response/{slot.token}"
            "?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=7200&X-Amz-Signature=cfngen"
        )

    @contextlib.contextmanager
    def trusted(self) -> Iterator[None]:
        """Handlers in this process trust the receiver's certificate while inside."""
        import urllib.request

        from cfngen._contract._environ import patched_environ

        names = ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")
        with patched_environ(dict.fromkeys(names, self.cert_file)):
            # urllib's shared opener keeps the SSL context of its first use (3.12+): afresh.
            urllib.request.install_opener(None)
            try:
                yield
            finally:
                urllib.request.install_opener(None)
