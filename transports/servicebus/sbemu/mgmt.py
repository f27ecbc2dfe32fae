"""Request/response operations: $cbs tokens, <entity>/$management and $sbemu."""

import uuid

from proton import UNDESCRIBED, Array, Data, Message, int32, timestamp

import message
from store import Refused


def _elems(v):
    """The items of an AMQP array or list, whatever proton decoded it to."""
    if v is None:
        return []
    if isinstance(v, Array):
        return list(v.elements)
    return list(v)


def _tokens(body):
    return [u.bytes if hasattr(u, "bytes") else bytes(u) for u in _elems(body.get("lock-tokens"))]


def _timestamps(values):
    return Array(UNDESCRIBED, Data.TIMESTAMP, *[timestamp(v) for v in values])


def reply(req, status, description, body=None):
    """The response to req, correlated by its message-id."""
    return Message(correlation_id=req.id, body=body,
                   properties={"status-code": int32(status), "status-description": description})


class Management:
    """Runs the management operations the azservicebus SDK sends."""

    def __init__(self, ns):
        self.ns = ns
        self.ops = {
            "com.microsoft:renew-lock": self.renew_lock,
            "com.microsoft:peek-message": self.peek,
            "com.microsoft:schedule-message": self.schedule,
            "com.microsoft:cancel-scheduled-message": self.cancel,
            "com.microsoft:receive-by-sequence-number": self.receive_deferred,
            "com.microsoft:update-disposition": self.update_disposition,
            "com.microsoft:renew-session-lock": self.renew_session_lock,
            "com.microsoft:get-session-state": self.get_session_state,
            "com.microsoft:set-session-state": self.set_session_state,
            "com.microsoft:get-message-sessions": self.get_message_sessions,
            "sbemu:stats": self.stats,
            "sbemu:raise": self.fail,
        }

    def cbs(self, req, path):
        """Accepts every token (the emulator does not authenticate), for entities that exist."""
        path = path.rsplit("/$management", 1)[0]
        if path not in self.ns.entities and path not in self.ns.stores:
            return reply(req, 404, "The messaging entity %r could not be found." % path)
        return reply(req, 202, "Accepted")

    def handle(self, path, req):
        """Runs the operation req asks for on the entity at path."""
        op = (req.properties or {}).get("operation")
        fn = self.ops.get(op)
        if fn is None:
            return reply(req, 501, "operation %r is not supported by the emulator" % (op,))
        body = req.body if isinstance(req.body, dict) else {}
        try:
            status, result = fn(path, body)
        except Refused as e:
            return reply(req, e.status, e.description)
        except (KeyError, TypeError, ValueError) as e:
            return reply(req, 400, "bad request: %s" % e)
        if status == 204:
            return reply(req, 204, "No Content")
        return reply(req, status, "OK", result)

    def _store(self, path):
        st = self.ns.stores.get(path.lower())
        if st is None:
            raise Refused("amqp:not-found", "no queue or subscription named %r" % path, 404)
        return st

    def _entity(self, path):
        e = self.ns.entities.get(path.lower())
        if e is None:
            raise Refused("amqp:not-found", "no queue or topic named %r" % path, 404)
        return e

    def renew_lock(self, path, body):
        return 200, {"expirations": _timestamps([self.ns.renew(t) for t in _tokens(body)])}

    def peek(self, path, body):
        msgs = self._store(path).peek(int(body.get("from-sequence-number") or 0),
                                      int(body.get("message-count") or 1))
        if not msgs:
            return 204, None
        return 200, {"messages": [{"message": m.encode()} for m in msgs]}

    def schedule(self, path, body):
        entity = self._entity(path)
        msgs = [message.parse(bytes(item["message"])) for item in _elems(body.get("messages"))]
        return 200, {"sequence-numbers": Array(UNDESCRIBED, Data.LONG, *entity.send(msgs))}

    def cancel(self, path, body):
        self._entity(path).cancel([int(s) for s in _elems(body.get("sequence-numbers"))])
        return 200, {}

    def receive_deferred(self, path, body):
        st = self._store(path)
        peek_lock = int(body.get("receiver-settle-mode") or 0) == 1
        out = []
        for s in _elems(body.get("sequence-numbers")):
            m = st.all.get(int(s))
            if m is None or m.state != message.DEFERRED:
                raise Refused("com.microsoft:message-not-found",
                              "no deferred message with sequence number %d" % s, 404)
            if peek_lock:
                token = st.lock(m, None)
                out.append({"message": m.encode(token), "lock-token": uuid.UUID(bytes=token)})
            else:
                st.remove(m)
                out.append({"message": m.encode()})
        return 200, {"messages": out}

    def update_disposition(self, path, body):
        outcome = {"completed": "complete", "abandoned": "abandon", "suspended": "dead-letter",
                   "defered": "defer", "deferred": "defer"}.get(body.get("disposition-status"))
        if outcome is None:
            raise Refused("amqp:invalid-field", "unknown disposition-status", 400)
        for t in _tokens(body):
            self.ns.settle(t, outcome, body.get("deadletter-reason"),
                           body.get("deadletter-description"), body.get("properties-to-modify"))
        return 200, {}

    def _session(self, path, body):
        st = self._store(path)
        if not st.requires_session:
            raise Refused("amqp:not-allowed", "%s does not use sessions" % path, 400)
        return st, st.session(body["session-id"])

    def renew_session_lock(self, path, body):
        st, sess = self._session(path, body)
        if sess.owner is None:
            raise Refused("com.microsoft:session-lock-lost", "the session lock was lost", 410)
        return 200, {"expiration": timestamp(st.renew_session(sess))}

    def get_session_state(self, path, body):
        _, sess = self._session(path, body)
        return 200, {"session-state": sess.state}

    def set_session_state(self, path, body):
        _, sess = self._session(path, body)
        state = body.get("session-state")
        sess.state = bytes(state) if state is not None else None
        return 200, {}

    def get_message_sessions(self, path, body):
        st = self._store(path)
        ids = sorted(s.sid for s in st.sessions.values() if s.ready or s.locked or s.state is not None)
        skip, top = int(body.get("skip") or 0), int(body.get("top") or len(ids))
        ids = ids[skip:skip + top]
        if not ids:
            return 204, None
        return 200, {"sessions-ids": ids}

    def fail(self, path, body):
        """Raises, to let tests check that a handler bug does not stop the emulator."""
        raise RuntimeError("sbemu:raise was asked to fail")

    def stats(self, path, body):
        target = body.get("entity") or path
        if target.lower() in self.ns.entities and self.ns.entities[target.lower()].is_topic:
            e = self.ns.entities[target.lower()]
            return 200, {"scheduled": len(e.scheduled), "sequence": e.seq}
        return 200, self._store(target).stats()
