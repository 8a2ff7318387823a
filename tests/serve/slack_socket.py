"""A local Slack Socket Mode endpoint: hello, `events_api` envelopes, acks read back, unacked envelopes re-sent.

It speaks the recorded shapes in `tests/fixtures/webhooks/slack/socket_mode/` (their origin in the README there):
each connection is greeted with `hello`, then gets every envelope not yet acknowledged (a re-sent one with a new
envelope id and `retry_attempt` counted up, as Slack does) and each new one the test queues. `hang_up_after_next`
closes the socket right after sending the next envelope, without reading its acknowledgement; a queued control
message (the recorded `disconnect`) asks the client to move to a new connection.
"""

from __future__ import annotations

import copy
import json
import threading
import uuid
from collections.abc import Callable
from typing import Any

from websockets.exceptions import ConnectionClosed
from websockets.sync.server import Server, ServerConnection, serve

from tests.serve.conftest import fixture

JSON = dict[str, Any]


def envelope(payload: JSON) -> JSON:
    """The recorded `events_api` envelope around an Events API payload, with a fresh envelope id."""
    wrapped = fixture("slack/socket_mode/events_api.message.json")
    wrapped.update({"envelope_id": str(uuid.uuid4()), "payload": copy.deepcopy(payload)})
    return wrapped


class SocketModeServer:
    """Serves ws://127.0.0.1:PORT/link/ on a thread; the test waits on its state with `wait_for`."""

    def __init__(self) -> None:
        self.queued: list[JSON] = []
        self.unacked: dict[str, JSON] = {}  # envelope id -> the envelope sent and not acknowledged
        self.acked: list[str] = []  # envelope ids, in the order their acknowledgements arrived
        self.sent: list[JSON] = []
        self.connections = 0
        self.hang_up_after_next = False
        self._changed = threading.Condition()
        self._server: Server = serve(self._session, "127.0.0.1", 0)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self._server.socket.getsockname()[1]}/link/?ticket=test-ticket&app_id=A111"

    def send(self, *envelopes: JSON) -> None:
        with self._changed:
            self.queued.extend(envelopes)
            self._changed.notify_all()

    def wait_for(self, condition: Callable[[SocketModeServer], bool], timeout: float = 60.0) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: condition(self), timeout=timeout)

    def _session(self, ws: ServerConnection) -> None:
        with self._changed:
            self.connections += 1
            retries = []
            for old in self.unacked.values():  # Slack sends what was not acknowledged again, under a new id
                again = {**old, "envelope_id": str(uuid.uuid4()), "retry_attempt": int(old["retry_attempt"]) + 1}
                retries.append({**again, "retry_reason": "timeout"})
            self.unacked.clear()
            self.queued[:0] = retries
            self._changed.notify_all()
        ws.send(json.dumps(fixture("slack/socket_mode/hello.json")))
        try:
            while True:
                with self._changed:
                    self._changed.wait_for(lambda: bool(self.queued), timeout=0.05)
                    outgoing, self.queued = self.queued, []
                    hang_up = self.hang_up_after_next and bool(outgoing)
                for item in outgoing:
                    if "envelope_id" in item:  # an envelope, not a control message such as `disconnect`
                        with self._changed:
                            self.unacked[item["envelope_id"]] = item
                            self.sent.append(item)
                    ws.send(json.dumps(item))
                    if hang_up:  # the rest waits for the next connection
                        with self._changed:
                            self.hang_up_after_next = False
                            self.queued[:0] = outgoing[1:]
                        ws.close()
                        return
                self._read_acks(ws)
        except ConnectionClosed:
            return

    def _read_acks(self, ws: ServerConnection) -> None:
        while True:
            try:
                raw = ws.recv(timeout=0)
            except TimeoutError:
                return
            message = json.loads(raw)
            with self._changed:
                if message.get("envelope_id") in self.unacked:
                    del self.unacked[message["envelope_id"]]
                self.acked.append(str(message.get("envelope_id")))
                self._changed.notify_all()

    def stop(self) -> None:
        self._server.shutdown()
        self._thread.join(timeout=10)
