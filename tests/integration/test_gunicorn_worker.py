"""The servers ``serve`` ships (service.running.serving) for real: gunicorn with the gevent worker
(service.running.gunicorn_worker) and granian. Requests of different connections take turns, even
when a request does no I/O at all, and the loaded app is frozen out of the collector's walks."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.busy_app import BUSY_MS

ROOT = Path(__file__).resolve().parents[2]
PIPELINED = 30


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: granian as ``serve --server granian`` runs it (service.running.serving.run), one worker
GRANIAN = ("from service.running.serving import run; from tests.helpers.busy_app import app; "
           "run('granian', lambda: app, '127.0.0.1', {port}, workers=1, connections=64)")


@pytest.fixture(params=["gevent", "granian"])
def busy_server(request):
    port = _free_port()
    if request.param == "gevent":
        command = [sys.executable, "-m", "gunicorn", "--workers", "1", "--bind", f"127.0.0.1:{port}",
                   "--worker-class", "service.running.gunicorn_worker.ProblemGeventWorker", "tests.helpers.busy_app:app"]
    else:  # threads: the interpreter switches between them every 5 ms
        command = [sys.executable, "-c", GRANIAN.format(port=port)]
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError as exc:
            if time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"{request.param} did not start") from exc
            time.sleep(0.1)
    yield port
    proc.terminate()
    proc.wait(10)


def _request(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: test\r\n\r\n".encode()


def test_a_connection_with_requests_queued_does_not_hold_the_worker(busy_server):
    """Connection A sends 30 requests at once (all in the socket before the first answer);
    connection B then sends one. Without turns, the worker's greenlet for A answers all 30
    (150 ms) before it looks at B; with turns B waits for a request or two of A's."""
    a = socket.create_connection(("127.0.0.1", busy_server))
    b = socket.create_connection(("127.0.0.1", busy_server))
    for sock in (a, b):  # both connections open and served once, so both greenlets exist
        sock.sendall(_request("/0"))
        _read_answers_until(sock, "/0")

    a.sendall(b"".join(_request(f"/a{i}") for i in range(PIPELINED)))
    time.sleep(BUSY_MS / 1000)  # A's greenlet is now working through its queue
    sent = time.monotonic()
    b.sendall(_request("/b"))
    b_answer = b""
    while b"/b" not in b_answer:
        b_answer += b.recv(65536)
    b_waited = time.monotonic() - sent
    a_answers = _read_answers_until(a, f"/a{PIPELINED - 1}")
    a.close()
    b.close()

    assert a_answers.count(b"HTTP/1.1 200") == PIPELINED
    # the order the worker served them in (each answer's serial), not the time: on a loaded box
    # 5 ms of CPU may take much longer, but B still comes before most of A's queue
    b_serial = _serials(b_answer)[-1]
    a_before_b = sum(serial < b_serial for serial in _serials(a_answers))
    assert a_before_b <= PIPELINED // 3, (
        f"B was served after {a_before_b} of A's {PIPELINED} queued requests ({b_waited * 1000:.0f} ms)")


def _serials(answers: bytes) -> list[int]:
    return [int(serial) for serial in re.findall(rb"\r\n\r\n(\d+) /", answers)]


def _read_answers_until(sock: socket.socket, last: str) -> bytes:
    data = b""
    while not data.endswith(last.encode()):
        chunk = sock.recv(65536)
        assert chunk, "the server closed the connection"
        data += chunk
    return data


def test_the_loaded_application_is_frozen_out_of_the_garbage_collectors_walks(busy_server):
    """A full collection walks every tracked object; the app's own (modules, schemas, rules)
    are frozen once it is loaded, so a collection in the middle of a request does not."""
    with socket.create_connection(("127.0.0.1", busy_server)) as sock:
        sock.sendall(_request("/frozen"))
        answer = b""
        while not answer.endswith(b"\r\n\r\n") and b"\r\n\r\n" not in answer:
            answer += sock.recv(65536)
        head, _, body = answer.partition(b"\r\n\r\n")
        length = int(next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")))
        while len(body) < length:
            body += sock.recv(65536)
    assert int(body) > 1000
