# One image: the web server (default) or, with another command, the RQ worker.
#   docker build -t game-service .
#   docker run -p 8000:8000 game-service                                  # web, embedded SQLite
#   docker run -e GAMES_STORE=redis://redis:6379/0 game-service python -m service worker
# docker-compose.yml runs it three ways behind nginx: granian for the API, gevent for the
# live streams, and the worker (docs/operations.md "Serving").

# The builder: the full Python image has gcc and Python's headers. It builds the server's
# wheel with its rules engine compiled by mypyc (setup.py; GAMES_USE_MYPYC=1: fail rather than
# fall back to pure Python), and the wheels of its dependencies.
FROM python:3.11-bookworm AS builder
ENV PIP_NO_CACHE_DIR=1 \
    GAMES_USE_MYPYC=1
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY domain ./domain
COPY projections ./projections
COPY service ./service
RUN pip wheel --wheel-dir /wheels .

# The image: the same Python on the same Debian, without a compiler; only the built wheels.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    GAMES_STORE=sqlite:////data/events.db

WORKDIR /app
COPY clients/web ./clients/web
COPY --from=builder /wheels /wheels
RUN pip install --no-cache-dir --no-index --find-links /wheels /wheels/dynasty_games_server-*.whl \
    && rm -rf /wheels \
    && python -c "import domain, sys; print('rules engine:', domain.engine()); sys.exit(domain.engine() != 'compiled')" \
    && useradd --create-home --uid 10001 games \
    && mkdir -p /data \
    && chown games:games /data

USER 10001
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=2).status == 200 else 1)"]
# One container on one port serves the API and the live streams: gevent (GAMES_SERVER, else
# --server; a stream holds a greenlet, not a thread). On SQLite `serve` also runs the projector.
CMD ["python", "-m", "service", "serve", "--host", "0.0.0.0", "--port", "8000"]
