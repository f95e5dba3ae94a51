"""A request whose parameters are not its method's gets an error response.

pygls structures each message as it reads it; when a request's parameters do not fit its
method's type (a position at line -1, a document that is a number), it logs the traceback,
shows the user an "Error in server: Invalid Params" message and never answers the request,
so the client waits for ever. The protocol says to answer it: a ``ResponseError`` with code
``InvalidParams`` (-32602) for that request's id. :class:`RulesProtocol` does that, saying
which parameter is wrong, and leaves every other message to pygls.
"""

from __future__ import annotations

import logging
from typing import Any

from cattrs import transform_error
from cattrs.errors import ClassValidationError
from cattrs.v import format_exception
from lsprotocol import types
from pygls.protocol import LanguageServerProtocol

#: What :meth:`RulesProtocol.structure_message` gives for a request it has answered with an
#: error: :meth:`RulesProtocol.handle_message` drops it.
ANSWERED = object()

log = logging.getLogger(__name__)


def _reason(exc: BaseException, kind: Any) -> str:
    """A validator's own words (``Position.line should be in range [0:2147483647], but was
    -1.``); cattrs' for the rest (``invalid value for type, expected str``)."""
    return str(exc).rstrip(".") if type(exc) is ValueError else format_exception(exc, kind)


def invalid_params(method: str, exc: ClassValidationError) -> str:
    """The message of the error response: the method, then each wrong parameter with its
    path, as ``textDocument/hover: invalid params: Position.line should be in range
    [0:2147483647], but was -1 @ params.position``."""
    reasons = transform_error(exc, path="request", format_exception=_reason)
    return f"{method}: invalid params: " + "; ".join(
        r.replace("@ request.", "@ ") for r in reasons)


class RulesProtocol(LanguageServerProtocol):
    """pygls' protocol, with an error response for a request whose parameters do not fit."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        """As pygls, except a request (``id`` and ``method``) of a known method whose
        parameters do not structure: answered at once with ``InvalidParams``."""
        method = data.get("method")
        kind = self.get_message_type(method) if isinstance(method, str) else None
        msg_id = data.get("id")
        # an id that is not a number or a string cannot be answered by it: pygls' way
        answerable = isinstance(msg_id, (int, str)) and not isinstance(msg_id, bool)
        if "jsonrpc" not in data or "error" in data or kind is None or not answerable:
            return super().structure_message(data)
        assert isinstance(msg_id, (int, str))
        try:
            return self._converter.structure(data, kind)
        except ClassValidationError as exc:
            message = invalid_params(str(method), exc)
            log.warning("request %r: %s", msg_id, message)
            self._send_response(msg_id, error=types.ResponseError(
                code=types.ErrorCodes.InvalidParams, message=message))
            return ANSWERED

    def handle_message(self, message: Any) -> None:
        """As pygls, but a request already answered with an error is not handled."""
        if message is ANSWERED:
            return
        super().handle_message(message)


__all__ = ["ANSWERED", "RulesProtocol", "invalid_params"]
