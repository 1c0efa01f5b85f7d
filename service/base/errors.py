"""Errors of the use cases. ``service.api.errors`` maps them (and the domain's) to HTTP."""


class ServiceError(Exception):
    status = 400
    code = "bad_request"
    title = "Bad request"

    def __init__(self, detail: str, **extra):
        super().__init__(detail)
        self.detail = detail
        self.extra = extra


class NotFound(ServiceError):
    status, code, title = 404, "not_found", "Not found"


class Unauthorized(ServiceError):
    status, code, title = 401, "unauthorized", "Unauthorized"


class Forbidden(ServiceError):
    status, code, title = 403, "forbidden", "Forbidden"


class Conflict(ServiceError):
    status, code, title = 409, "conflict", "Conflict"


class Unprocessable(ServiceError):
    status, code, title = 422, "unprocessable", "Unprocessable request"


class TooManyRequests(ServiceError):
    """A quota is used up (``retry_after``: seconds, sent as the Retry-After header)."""

    status, code, title = 429, "too_many_requests", "Too Many Requests"


class NotReplicated(ServiceError):
    """A write reached the store's master but fewer replicas than the durability setting asks
    for confirmed it in time (Redis ``WAIT``): not acknowledged. It may stand; a retry with the
    same Idempotency-Key answers with it once it is confirmed, and never makes a second move."""

    status, code, title = 503, "not_replicated", "Not replicated"

    def __init__(self, wanted: int, confirmed: int, timeout: float):
        super().__init__(f"the store's replicas did not confirm the write in time ({confirmed} of {wanted} "
                         f"within {timeout:g} s); retry with the same Idempotency-Key",
                         retry_after=1)
        self.wanted = wanted
        self.confirmed = confirmed
