"""Queues, topics, subscriptions, locks and sessions: the emulator's state.

Nothing here knows about proton. A consumer is any object with a `credit`
attribute and a `deliver(msg)` method (see consumer.Consumer); the broker
layer calls in when links open, close, grant credit or settle.
All of it runs on the one thread of the select loop (loop.py).
"""

import heapq
import itertools
import os
import time

from message import ACTIVE, DEFERRED, GONE, LOCKED, SCHEDULED


def now_ms():
    return int(time.time() * 1000)


class Refused(Exception):
    """An operation the broker refuses, with the AMQP condition to report."""

    def __init__(self, condition, description, status=400):
        Exception.__init__(self, description)
        self.condition, self.description, self.status = condition, description, status


def lock_lost():
    return Refused("com.microsoft:message-lock-lost",
                   "The lock supplied is invalid: it expired, or the message was already settled.", 410)


def new_token():
    """A lock token whose .NET-ordered bytes are ASCII, so proton can use them as a delivery tag."""
    return bytes(b & 0x7F for b in os.urandom(16))


class Session:
    """A message session of a session-enabled queue or subscription."""

    __slots__ = ("sid", "ready", "state", "owner", "lock_until", "locked")

    def __init__(self, sid):
        self.sid, self.ready, self.state = sid, [], None
        self.owner, self.lock_until, self.locked = None, 0, {}


class Store:
    """A queue, a subscription or a dead-letter queue: what a receiver reads."""

    def __init__(self, ns, entity, path, cfg, dlq=True):
        self.ns, self.entity, self.path = ns, entity, path
        self.lock_ms = int(cfg.get("lock_ms") or 30000)
        self.max_dc = int(cfg.get("max_delivery_count") or 10) if dlq else 0
        self.requires_session = bool(cfg.get("requires_session")) and dlq
        self.ready, self.sessions, self.all = [], {}, {}
        self.consumers, self.rr, self.waiters = [], 0, []
        self.dlq = Store(ns, entity, path + "/$DeadLetterQueue", cfg, dlq=False) if dlq else None

    # -- arrival and delivery --------------------------------------------

    def add(self, m):
        m.store = self
        self.all[m.seq] = m
        self.make_ready(m)

    def make_ready(self, m):
        m.token, m.consumer = None, None
        if m.deferred:  # a deferred message stays deferred whatever happens to its lock
            m.state = DEFERRED
            return
        m.state = ACTIVE
        if self.requires_session:
            sess = self.session(m.session_id)
            heapq.heappush(sess.ready, (m.seq, m))
            if sess.owner is not None:
                self.pump_session(sess)
            elif self.waiters:
                self.grant_waiters()
        else:
            heapq.heappush(self.ready, (m.seq, m))
            if self.consumers:
                self.pump()

    def remove(self, m):
        self.all.pop(m.seq, None)
        m.state = GONE

    def _pop(self, heap, now):
        """The next deliverable message of heap, dropping expired ones."""
        while heap:
            _, m = heapq.heappop(heap)
            if m.state != ACTIVE or m.store is not self:
                continue
            if m.expired(now):
                self.remove(m)
                continue
            return m
        return None

    def pump(self):
        """Hands ready messages to consumers with credit, round robin."""
        now = now_ms()
        while self.ready:
            c = self._next_consumer()
            if c is None:
                return
            m = self._pop(self.ready, now)
            if m is None:
                return
            c.deliver(m)

    def _next_consumer(self):
        n = len(self.consumers)
        for i in range(n):
            c = self.consumers[(self.rr + i) % n]
            if c.credit > 0:
                self.rr = (self.rr + i + 1) % n
                return c
        return None

    def pump_session(self, sess):
        c, now = sess.owner, now_ms()
        while c is not None and c.credit > 0 and sess.ready:
            m = self._pop(sess.ready, now)
            if m is None:
                return
            c.deliver(m)

    def lock(self, m, consumer):
        """Locks m for consumer (peek-lock) and returns the lock token."""
        token = new_token()
        m.state, m.token, m.consumer = LOCKED, token, consumer
        self.ns.locks[token] = m
        if self.requires_session and consumer is not None:
            sess = self.sessions[m.session_id]
            sess.locked[token] = m
            m.locked_until = sess.lock_until
        else:
            m.locked_until = now_ms() + self.lock_ms
            heapq.heappush(self.ns.expiries, (m.locked_until, token))
        return token

    def unlock(self, m):
        self.ns.locks.pop(m.token, None)
        if self.requires_session and m.session_id in self.sessions:
            self.sessions[m.session_id].locked.pop(m.token, None)
        m.token = m.consumer = None

    # -- outcomes ----------------------------------------------------------

    def fail(self, m, props=None):
        """A delivery that did not succeed (abandon, lock expiry): count it, maybe dead-letter."""
        m.count += 1
        m.set_app_properties(props)
        if self.max_dc and m.count >= self.max_dc:
            self.dead_letter(m, "MaxDeliveryCountExceeded",
                             "Message could not be consumed after %d delivery attempts." % self.max_dc)
        else:
            self.make_ready(m)

    def dead_letter(self, m, reason, description, props=None):
        target = self.dlq or self
        self.remove(m)
        d = m.copy()
        d.deferred = False
        d.set_app_properties(props)
        d.set_app_properties({"DeadLetterReason": reason or "",
                              "DeadLetterErrorDescription": description or ""})
        d.dl_source = self.path
        target.add(d)

    def defer(self, m, props=None):
        m.set_app_properties(props)
        m.deferred = True
        m.state = DEFERRED

    # -- sessions ------------------------------------------------------------

    def session(self, sid):
        sess = self.sessions.get(sid)
        if sess is None:
            sess = self.sessions[sid] = Session(sid)
        return sess

    def accept_session(self, consumer, sid, any_session):
        """Locks session sid (or, with any_session, the first free one with messages) for consumer."""
        if any_session:
            sess = next((s for s in self.sessions.values() if s.owner is None and s.ready), None)
            if sess is None:
                return None
        else:
            sess = self.session(sid)
            if sess.owner is not None:
                raise Refused("com.microsoft:session-cannot-be-locked",
                              "The session %r is locked by another receiver." % sid)
        sess.owner = consumer
        self.renew_session(sess)
        return sess

    def renew_session(self, sess):
        sess.lock_until = now_ms() + self.lock_ms
        for m in sess.locked.values():
            m.locked_until = sess.lock_until
        heapq.heappush(self.ns.session_expiries, (sess.lock_until, next(self.ns.counter), self, sess.sid))
        return sess.lock_until

    def release_session(self, sess, expired):
        """Frees sess; its unsettled messages return, counted as failed if the lock expired."""
        sess.owner = None
        for m in sorted(sess.locked.values(), key=lambda x: x.seq):
            self.unlock(m)
            if expired:
                self.fail(m)
            else:
                self.make_ready(m)
        sess.locked.clear()
        if not sess.ready and sess.state is None and sess.sid in self.sessions:
            del self.sessions[sess.sid]
        self.grant_waiters()

    def grant_waiters(self):
        while self.waiters:
            sess = self.accept_session(self.waiters[0], None, True)
            if sess is None:
                return
            self.waiters.pop(0).session_granted(sess)

    # -- inspection -------------------------------------------------------

    def stats(self):
        counts, now = {ACTIVE: 0, LOCKED: 0, DEFERRED: 0}, now_ms()
        for m in self.all.values():
            if not (m.state == ACTIVE and m.expired(now)):
                counts[m.state] = counts.get(m.state, 0) + 1
        scheduled = len(self.entity.scheduled) if self.entity.targets[:1] == [self] else 0
        return {"active": counts[ACTIVE], "locked": counts[LOCKED], "deferred": counts[DEFERRED],
                "scheduled": scheduled, "dead-letter": len(self.dlq.all) if self.dlq else 0,
                "consumers": len(self.consumers), "sessions": len(self.sessions)}

    def peek(self, from_seq, count):
        now = now_ms()
        pool = [m for s, m in self.all.items() if s >= from_seq and not m.expired(now)]
        if self.entity.targets[:1] == [self]:
            pool += [m for s, m in self.entity.scheduled.items() if s >= from_seq]
        return sorted(pool, key=lambda m: m.seq)[:count]


class Entity:
    """A queue or a topic: what a sender writes to."""

    def __init__(self, ns, name, cfg):
        self.ns, self.name = ns, name
        self.seq, self.scheduled = 0, {}
        subs = cfg.get("subscriptions") or []
        self.is_topic = bool(subs)
        if self.is_topic:
            self.targets = [Store(ns, self, "%s/Subscriptions/%s" % (name, s["name"]), s) for s in subs]
        else:
            self.targets = [Store(ns, self, name, cfg)]

    def send(self, msgs):
        """Accepts messages from a sender: enqueues them, or keeps them until their scheduled time."""
        for m in msgs:
            if m.session_id is None and any(t.requires_session for t in self.targets):
                raise Refused("amqp:not-allowed",
                              "%s requires sessions: the message has no SessionId." % self.name)
        now, seqs = now_ms(), []
        for m in msgs:
            self.seq += 1
            m.seq = self.seq
            seqs.append(m.seq)
            if m.scheduled_at is not None and m.scheduled_at > now:
                m.state = SCHEDULED
                self.scheduled[m.seq] = m
                heapq.heappush(self.ns.schedule, (m.scheduled_at, next(self.ns.counter), m.seq, self))
            else:
                self.enqueue(m, now)
        return seqs

    def enqueue(self, m, now):
        m.enqueued = now
        for i, store in enumerate(self.targets):
            store.add(m if i == len(self.targets) - 1 else m.copy())

    def cancel(self, seqs):
        for s in seqs:
            self.scheduled.pop(s, None)


class Namespace:
    """Every entity, plus the timers that drive lock expiry and scheduling."""

    def __init__(self, entities):
        self.locks, self.expiries, self.session_expiries, self.schedule = {}, [], [], []
        self.counter = itertools.count()
        self.entities, self.stores = {}, {}
        for cfg in entities:
            e = Entity(self, cfg["name"], cfg)
            self.entities[e.name.lower()] = e
            for st in e.targets:
                self.stores[st.path.lower()] = st
                self.stores[st.dlq.path.lower()] = st.dlq

    def settle(self, token, outcome, reason=None, description=None, props=None):
        """Applies a receiver's outcome to the message locked under token."""
        m = self.locks.get(token)
        if m is None or m.state != LOCKED:
            raise lock_lost()
        store = m.store
        store.unlock(m)
        if outcome == "complete":
            store.remove(m)
        elif outcome == "abandon":
            store.fail(m, props)
        elif outcome == "release":
            store.make_ready(m)
        elif outcome == "defer":
            store.defer(m, props)
        elif outcome == "dead-letter":
            store.dead_letter(m, reason, description, props)

    def renew(self, token):
        m = self.locks.get(token)
        if m is None or m.state != LOCKED:
            raise lock_lost()
        if m.store.requires_session and m.consumer is not None:
            return m.locked_until
        m.locked_until = now_ms() + m.store.lock_ms
        heapq.heappush(self.expiries, (m.locked_until, token))
        return m.locked_until

    def tick(self, on_session_lost):
        """Expires message and session locks, enqueues scheduled messages that are due."""
        now = now_ms()
        if len(self.expiries) > 2 * len(self.locks) + 10000:
            # Settled messages leave their expiry behind; drop them now and then.
            self.expiries = [(m.locked_until, t) for t, m in self.locks.items()
                             if m.state == LOCKED and not (m.store.requires_session and m.consumer is not None)]
            heapq.heapify(self.expiries)
        while self.expiries and self.expiries[0][0] <= now:
            at, token = heapq.heappop(self.expiries)
            m = self.locks.get(token)
            if m is not None and m.locked_until == at and m.state == LOCKED:
                m.store.unlock(m)
                m.store.fail(m)
        while self.session_expiries and self.session_expiries[0][0] <= now:
            at, _, store, sid = heapq.heappop(self.session_expiries)
            sess = store.sessions.get(sid)
            if sess is not None and sess.owner is not None and sess.lock_until == at:
                owner = sess.owner
                store.release_session(sess, expired=True)
                on_session_lost(owner)
        while self.schedule and self.schedule[0][0] <= now:
            _, _, seq, entity = heapq.heappop(self.schedule)
            m = entity.scheduled.pop(seq, None)
            if m is not None:
                entity.enqueue(m, now)
