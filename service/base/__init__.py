"""What every layer of the service shares and that imports nothing else of it: the errors its use
cases raise (``errors``, mapped to HTTP by ``service.api.errors``) and the configuration read from the
environment (``config``). May import only the domain.
"""
