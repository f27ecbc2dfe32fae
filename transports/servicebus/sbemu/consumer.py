"""A receiver link reading a queue, a subscription or one of their sessions."""

import itertools

from proton import Condition

import codec


class Consumer:
    """A receiver link reading a queue, a subscription or one of their sessions."""

    def __init__(self, broker, link, store, rad):
        self.broker, self.link, self.store, self.rad = broker, link, store, rad
        self.session = None
        self.closed = False
        self.deadline = 0
        self.tags = itertools.count()

    @property
    def credit(self):
        return 0 if self.closed else self.link.credit

    def deliver(self, m):
        if self.rad:
            self.store.remove(m)
            dlv = self.link.delivery(str(next(self.tags)))
            self.link.send(m.encode())
            self.link.advance()
            dlv.settle()
            return
        token = self.store.lock(m, self)
        self.link.delivery(codec.guid_bytes(token).decode("ascii"))
        self.link.send(m.encode(token))
        self.link.advance()

    def pump(self):
        if self.session is not None:
            self.store.pump_session(self.session)
        elif not self.closed:
            self.store.pump()

    def session_granted(self, sess):
        """An accept-next-session request that waited got a session."""
        self.session = sess
        self.broker.open_session_link(self)

    def close(self, condition=None, description=None):
        """Detaches the link (session lock lost, accept-next timeout)."""
        if not self.closed:
            self.broker.drop_consumer(self)
            if condition:
                self.link.condition = Condition(condition, description)
            self.link.close()
