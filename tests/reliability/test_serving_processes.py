"""Two servers on one machine keep out of each other's way: `python -m service serve` leaves no
file behind in the home directory of the user running it (gunicorn 25.1+ would open its control
socket there, one path for every server the user starts)."""

from __future__ import annotations

from tests.reliability.conftest import ROOT


def test_a_gevent_server_opens_no_control_socket_in_the_users_home(server_process, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "XDG_RUNTIME_DIR": ""}
    first = server_process(f"sqlite:///{tmp_path}/one.db", env=env)
    second = server_process(f"sqlite:///{tmp_path}/two.db", env=env)
    for server in (first, second):
        assert server.proc.poll() is None, server.log_tail()
    left = sorted(str(path.relative_to(home)) for path in home.rglob("*"))
    assert left == [], f"the servers left {left} in $HOME"
    assert not (ROOT / "gunicorn.ctl").exists(), "a control socket in the working directory"


def test_a_keep_alive_connection_idle_for_seconds_is_still_open_for_the_next_request(server_process, tmp_path):
    """A client (or nginx) that pauses a few seconds between requests reuses its connection:
    the server does not close it under the client's feet (gunicorn's default closes it after 2 s,
    and a request sent as it closes is reset: the soak counted one GET in a hundred)."""
    import socket
    import time

    server = server_process(f"sqlite:///{tmp_path}/kept.db")
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as connection:
        request = f"GET /health HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode()
        for pause in (0, 4):
            time.sleep(pause)
            connection.sendall(request)
            answer = b""
            while b"\r\n\r\n" not in answer:
                chunk = connection.recv(4096)
                assert chunk, f"the server closed the connection after {pause} s idle"
                answer += chunk
            assert answer.startswith(b"HTTP/1.1 200"), answer[:100]
            head, _, body = answer.partition(b"\r\n\r\n")
            length = int(next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")))
            while len(body) < length:
                body += connection.recv(4096)
