"""A WSGI app for the server's own tests: each request burns ``BUSY_MS`` of CPU (no I/O,
like a request on the embedded store) and answers its path; ``/frozen`` answers how many
objects the garbage collector has been told to leave alone (``gc.get_freeze_count()``).
Every other answer starts with the request's serial number in this process, so a test can
tell the order in which requests were served without timing them."""

import gc
import itertools
import time

BUSY_MS = 5
_served = itertools.count(1)


def app(environ, start_response):
    until = time.perf_counter() + BUSY_MS / 1000
    while time.perf_counter() < until:
        pass
    path = environ["PATH_INFO"]
    body = (str(gc.get_freeze_count()) if path == "/frozen" else f"{next(_served)} {path}").encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]
