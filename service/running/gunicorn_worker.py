"""gunicorn's gevent worker: requests take turns, and gunicorn's own errors are problem+json.

**Turns.** A greenlet of gevent runs until it waits for I/O. A keep-alive connection whose
client sends its next request before the last answer is out never waits (the request is
already in the socket), and with the embedded store a request does no network I/O at
all: one busy connection could then hold the whole worker for hundreds of milliseconds
while the others queue. So each request starts by yielding once, for one turn of the
event loop (``gevent.sleep(TURN)``: a timer, so the loop also polls the sockets of the
other connections, which ``sleep(0)`` skips): the requests of a worker are answered in
turn, as with the Redis store where every request yields on its round trips.

**Garbage collection.** Once the application is loaded, its objects (modules, schemas,
the games' rules: about 80,000) are moved out of the collector's sight (``gc.freeze()``):
each full collection would otherwise walk them all again, 40 to 100 ms during which no
request of the worker moves.

**Memory.** Every ``TRIM_EVERY`` seconds the worker hands the C heap's free pages back to the
system (``job_runtime.give_back_free_memory``, glibc's ``malloc_trim``), as the lane workers'
sweep does: the buffers its requests churn through (orjson's, hiredis's) otherwise leave the
worker's RSS creeping up for hours with nothing held.

gunicorn refuses a request line over ``limit_request_line`` (414), header fields over
``limit_request_fields`` / ``limit_request_field_size`` (431) and malformed requests (400)
before the application sees them, with an HTML page. This worker class writes the same
status as ``application/problem+json`` instead, so a client parses every error one way.
``python -m service serve`` and the Dockerfile use it:
``--worker-class service.running.gunicorn_worker.ProblemGeventWorker``.
"""

from __future__ import annotations

import gc
import json
import socket
import threading
import time

import gevent
from gunicorn import util
from gunicorn.workers.ggevent import GeventWorker
from gunicorn.workers.gthread import ThreadWorker

from service.api.problems import problem_type
from service.background.job_runtime import give_back_free_memory

#: seconds a request yields for before it is handled: one turn of the event loop
TURN = 1e-6
#: seconds between two hand-backs of the C heap's free pages (a few milliseconds each, the loop held)
TRIM_EVERY = 30.0


def _give_back_memory_forever(every: float = TRIM_EVERY) -> None:
    while True:
        time.sleep(every)
        give_back_free_memory()


def start_giving_back_memory() -> None:
    """In this worker process: a thread (a greenlet, under gevent's patching) that trims the heap."""
    threading.Thread(target=_give_back_memory_forever, name="give-back-memory", daemon=True).start()

CODES = {400: "bad_request", 403: "forbidden", 414: "uri_too_long", 417: "expectation_failed",
         431: "request_header_fields_too_large", 500: "internal_error", 501: "not_implemented"}


def write_problem(sock, status_int, reason, mesg):
    code = CODES.get(status_int, "error")
    body = json.dumps({"type": problem_type(code), "title": reason, "status": status_int,
                       "detail": mesg or reason, "code": code}).encode()
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: application/problem+json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode("latin-1")
    util.write_nonblock(sock, head + body)
    _linger(sock)


def _linger(sock, limit: int = 1 << 20, seconds: float = 1.0) -> None:
    """Read what the client is still sending before gunicorn closes the socket: closing
    with unread input resets the connection, and the client would lose the answer."""
    try:
        sock.shutdown(socket.SHUT_WR)
        sock.settimeout(seconds)
        read = 0
        while read < limit:
            chunk = sock.recv(65536)
            if not chunk:
                return
            read += len(chunk)
    except OSError:
        return


class ProblemGeventWorker(GeventWorker):
    def init_process(self):
        util.write_error = write_problem  # this worker process only
        super().init_process()

    def load_wsgi(self):
        super().load_wsgi()
        gc.freeze()  # see the module's docstring
        start_giving_back_memory()

    def handle_request(self, listener_name, req, sock, addr):
        gevent.sleep(TURN)  # take turns (see the module's docstring)
        return super().handle_request(listener_name, req, sock, addr)


class ProblemThreadWorker(ThreadWorker):
    """gunicorn's threaded worker with the same problem+json errors and ``gc.freeze``.
    Requests need no turns here: threads are preempted (the interpreter switches every
    5 ms)."""

    def init_process(self):
        util.write_error = write_problem  # this worker process only
        super().init_process()

    def load_wsgi(self):
        super().load_wsgi()
        gc.freeze()
        start_giving_back_memory()
