# One image: the web server (default) or, with another command, the RQ worker.
#   docker build -t game-service .
#   docker run -p 8000:8000 game-service                                  # web, embedded SQLite
#   docker run -e GAMES_STORE=redis://redis:6379/0 game-service python -m service worker
# docker-compose.yml runs it three ways behind nginx: granian for the API, gevent for the
# live streams, and the worker (docs/operations.md "Serving").
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    GAMES_STORE=sqlite:////data/events.db

WORKDIR /app
COPY pyproject.toml README.md ./
COPY domain ./domain
COPY projections ./projections
COPY service ./service
COPY openapi.yaml ./
COPY clients/web ./clients/web
RUN pip install --no-cache-dir . \
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
