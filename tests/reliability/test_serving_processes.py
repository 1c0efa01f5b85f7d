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
