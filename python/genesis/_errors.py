"""The exception that carries the C library's error message."""

from . import _lib

_NAMES = {
    -1: "GENESIS_ERR_INVALID_ARG", -2: "GENESIS_ERR_NOMEM", -3: "GENESIS_ERR_IO",
    -4: "GENESIS_ERR_PARSE", -5: "GENESIS_ERR_DATA", -6: "GENESIS_ERR_MODEL_FORMAT",
    -7: "GENESIS_ERR_VERSION", -8: "GENESIS_ERR_DIVERGED", -9: "GENESIS_ERR_UNSUPPORTED",
    -10: "GENESIS_ERR_CUDA", -11: "GENESIS_ERR_CUBLAS", -12: "GENESIS_ERR_CUDNN",
    -13: "GENESIS_ERR_STATE", -14: "GENESIS_ERR_CANCELLED", -15: "GENESIS_ERR_INTERNAL",
}


class GenesisError(RuntimeError):
    """A call into libgenesis failed. `status` is the genesis_status code (negative),
    `status_name` its enum name, and the message is genesis_errmsg()'s text (or
    genesis_status_str()'s when the library left none)."""

    def __init__(self, status, message):
        self.status = status
        self.status_name = _NAMES.get(status, f"status {status}")
        super().__init__(message)


def check(status, ctx):
    """Raise GenesisError for a failed status, with the context's message."""
    if status == _lib.OK:
        return
    lib = _lib.load()
    msg = b""
    if ctx is not None:
        msg = lib.genesis_errmsg(ctx) or b""
    text = msg.decode("utf-8", "replace") or lib.genesis_status_str(status).decode()
    raise GenesisError(status, text)
