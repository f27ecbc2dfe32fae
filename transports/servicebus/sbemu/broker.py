"""The proton event handler: connections, links, transfers and dispositions."""

import functools
import itertools
import sys
import traceback

from proton import Condition, Delivery, Described, Link, Message, Terminus, symbol, ulong

import codec
import message
from consumer import Consumer
from mgmt import Management
from store import Refused, now_ms

SESSION_FILTER = symbol("com.microsoft:session-filter")
SESSION_FILTER_CODE = ulong(0x137000000C)
LOCKED_UNTIL_PROP = symbol("com.microsoft:locked-until-utc")
TIMEOUT_PROP = symbol("com.microsoft:timeout")
SENDER_CREDIT = 1000
ACCEPT_SESSION_WAIT_MS = 60000
TICK_SECONDS = 0.05
DOTNET_EPOCH_TICKS = 621355968000000000


def guarded(fn):
    """Keeps a bug in one handler from stopping the emulator: log it, fail the link or connection."""
    @functools.wraps(fn)
    def run(self, event):
        try:
            fn(self, event)
        except Exception:  # noqa: BLE001 - anything else would kill the emulator
            self.log("internal error in %s: %s" % (fn.__name__, _one_line(traceback.format_exc())))
            endpoint = event.link or event.connection
            if endpoint is not None:
                endpoint.condition = Condition("amqp:internal-error", "emulator bug: see its log")
                endpoint.close()
    return run


def _one_line(text):
    """A traceback on one line, so that a log reader keeps it whole."""
    return " | ".join(line.strip() for line in text.strip().splitlines())


def _dotnet_ticks(ms):
    return ms * 10000 + DOTNET_EPOCH_TICKS


class Broker:
    """Serves the emulated namespace to AMQP clients."""

    def __init__(self, ns, max_message_size, log=None):
        self.ns, self.max_size = ns, max_message_size
        self.mgmt = Management(ns)
        self.log = log or (lambda msg: sys.stderr.write(msg + "\n"))
        self.waiting = []  # consumers waiting for accept-next-session

    # -- timers ---------------------------------------------------------------

    def tick(self):
        """Runs every TICK_SECONDS: lock and session expiry, scheduling, accept-next timeouts."""
        try:
            self.ns.tick(lambda c: c.close("com.microsoft:session-lock-lost", "the session lock expired"))
            now = now_ms()
            for c in [c for c in self.waiting if c.deadline <= now]:
                self.waiting.remove(c)
                if c in c.store.waiters:
                    c.store.waiters.remove(c)
                self.refuse(c.link, "com.microsoft:timeout", "no session became available in time")
        except Exception:  # noqa: BLE001 - the timer must keep running
            self.log("internal error in tick: %s" % _one_line(traceback.format_exc()))

    # -- connections and sessions ------------------------------------------------

    @guarded
    def on_connection_remote_open(self, event):
        event.connection.sbemu_replies = {}
        event.connection.open()

    @guarded
    def on_connection_remote_close(self, event):
        self.cleanup(event.connection)
        event.connection.close()

    @guarded
    def on_session_remote_open(self, event):
        event.session.open()

    @guarded
    def on_session_remote_close(self, event):
        event.session.close()

    def cleanup(self, conn):
        """Forgets every link of a connection that is gone."""
        link = conn.link_head(0)
        while link:
            self.detached(link)
            link = link.next(0)

    # -- links --------------------------------------------------------------------

    @guarded
    def on_link_remote_open(self, event):
        link = event.link
        link.snd_settle_mode = link.remote_snd_settle_mode
        link.rcv_settle_mode = link.remote_rcv_settle_mode
        link.source.copy(link.remote_source)
        link.target.copy(link.remote_target)
        try:
            if link.is_receiver:
                self.attach_incoming(link)
            else:
                self.attach_outgoing(link)
        except Refused as e:
            self.refuse(link, e.condition, e.description)

    @guarded
    def on_link_remote_close(self, event):
        self.detached(event.link)
        event.link.close()

    on_link_remote_detach = on_link_remote_close

    def refuse(self, link, condition, description):
        """Answers an attach with a null terminus, then detaches with the error."""
        (link.source if link.is_sender else link.target).type = Terminus.UNSPECIFIED
        link.sbemu_role = None
        link.open()
        link.condition = Condition(condition, description)
        link.close()

    def attach_incoming(self, link):
        """The client sends: to an entity, or a request to $cbs / $management / $sbemu."""
        path = _path(link.remote_target.address)
        if path == "$cbs":
            link.sbemu_role = ("cbs", None)
        elif path == "$sbemu" or path.endswith("/$management"):
            link.sbemu_role = ("mgmt", path.rsplit("/$management", 1)[0])
        else:
            entity = self.ns.entities.get(path)
            if entity is None:
                raise Refused("amqp:not-found", "no queue or topic named %r" % link.remote_target.address)
            link.sbemu_role = ("send", entity)
            link.max_message_size = self.max_size
        link.open()
        link.flow(SENDER_CREDIT)

    def attach_outgoing(self, link):
        """The client receives: replies, or messages of a queue or subscription."""
        path = _path(link.remote_source.address)
        if path in ("$cbs", "$sbemu") or path.endswith("/$management"):
            link.sbemu_role = ("reply", None)
            link.connection.sbemu_replies[link.remote_target.address] = link
            link.open()
            return
        store = self.ns.stores.get(path)
        if store is None:
            raise Refused("amqp:not-found", "no queue or subscription named %r" % link.remote_source.address)
        c = Consumer(self, link, store, link.remote_snd_settle_mode == Link.SND_SETTLED)
        link.sbemu_role = ("consume", c)
        filters = _filters(link.remote_source.filter)
        if SESSION_FILTER not in filters:
            if store.requires_session:
                raise Refused("amqp:not-allowed", "%s requires sessions: accept a session to receive" % path)
            store.consumers.append(c)
            link.open()
            return
        if not store.requires_session:
            raise Refused("amqp:not-allowed", "%s does not use sessions" % path)
        sid = filters[SESSION_FILTER]
        sess = store.accept_session(c, sid, sid is None)
        if sess is not None:
            c.session = sess
            self.open_session_link(c)
            return
        props = link.remote_properties or {}
        # The timer runs every TICK_SECONDS: answer up to one tick early rather
        # than late, so the client gets com.microsoft:timeout before its own
        # deadline (which the SDK sets just after the timeout it sends).
        wait = int(props.get(TIMEOUT_PROP) or ACCEPT_SESSION_WAIT_MS)
        c.deadline = now_ms() + max(0, wait - int(TICK_SECONDS * 1000))
        store.waiters.append(c)
        self.waiting.append(c)

    def open_session_link(self, c):
        if c in self.waiting:
            self.waiting.remove(c)
        link, sess = c.link, c.session
        link.source.filter.clear()
        link.source.filter.put_object({SESSION_FILTER: Described(SESSION_FILTER_CODE, sess.sid)})
        link.properties = {LOCKED_UNTIL_PROP: _dotnet_ticks(sess.lock_until)}
        link.open()
        c.pump()

    def detached(self, link):
        role = getattr(link, "sbemu_role", None)
        if role is None:
            return
        link.sbemu_role = None
        kind, obj = role
        if kind == "reply":
            replies = link.connection.sbemu_replies
            if replies.get(link.remote_target.address) is link:
                del replies[link.remote_target.address]
        elif kind == "consume":
            self.drop_consumer(obj)

    def drop_consumer(self, c):
        if c.closed:
            return
        c.closed = True
        c.link.sbemu_role = None
        if c in self.waiting:
            self.waiting.remove(c)
        if c in c.store.waiters:
            c.store.waiters.remove(c)
        if c in c.store.consumers:
            c.store.consumers.remove(c)
        if c.session is not None and c.session.owner is c:
            c.store.release_session(c.session, expired=False)

    @guarded
    def on_link_flow(self, event):
        link = event.link
        role = getattr(link, "sbemu_role", None)
        if link.is_sender and role and role[0] == "consume":
            c = role[1]
            c.pump()
            if link.drain_mode and link.credit > 0:
                link.drained()

    # -- transfers and dispositions ----------------------------------------------------

    @guarded
    def on_delivery(self, event):
        dlv = event.delivery
        link = dlv.link
        if link.is_receiver:
            if dlv.readable and not dlv.partial:
                data = link.recv(dlv.pending)
                link.advance()
                self.received(link, dlv, data)
                if link.credit < SENDER_CREDIT // 2:
                    link.flow(SENDER_CREDIT - link.credit)
        elif dlv.updated or dlv.remote_state or dlv.settled:
            self.settled(dlv)

    def received(self, link, dlv, data):
        role = getattr(link, "sbemu_role", None)
        kind, obj = role if role else (None, None)
        try:
            if kind == "send":
                obj.send(message.parse_transfer(data))
            elif kind in ("cbs", "mgmt"):
                req = Message()
                req.decode(data)
                if kind == "cbs":
                    resp = self.mgmt.cbs(req, _path((req.properties or {}).get("name")))
                else:
                    resp = self.mgmt.handle(obj, req)
                self.respond(link.connection, req.reply_to, resp)
            else:
                raise Refused("amqp:not-allowed", "link is not usable")
            dlv.update(Delivery.ACCEPTED)
        except Refused as e:
            dlv.local.condition = Condition(e.condition, e.description)
            dlv.update(Delivery.REJECTED)
        except codec.CodecError as e:
            dlv.local.condition = Condition("amqp:decode-error", str(e))
            dlv.update(Delivery.REJECTED)
        dlv.settle()

    def respond(self, conn, reply_to, resp):
        link = conn.sbemu_replies.get(reply_to)
        if link is None:
            self.log("no reply link for %r" % (reply_to,))
            return
        dlv = link.delivery(str(next(_reply_tags)))
        link.send(resp.encode())
        link.advance()
        dlv.settle()

    def settled(self, dlv):
        """A receiver settled (or reported the outcome of) a message it got from us."""
        if dlv.local_state:
            return
        state = dlv.remote_state
        outcome = {Delivery.ACCEPTED: "complete", Delivery.RELEASED: "release",
                   Delivery.REJECTED: "dead-letter", Delivery.MODIFIED: "abandon"}.get(state)
        if outcome is None:
            if dlv.settled:
                dlv.settle()
            return
        reason = description = props = None
        if state == Delivery.REJECTED:
            info = _condition_info(dlv.remote.condition)
            reason = info.pop("DeadLetterReason", None)
            description = info.pop("DeadLetterErrorDescription", None)
            props = info
        elif state == Delivery.MODIFIED:
            props = dlv.remote.annotations
            if dlv.remote.undeliverable:
                outcome = "defer"
        token = codec.guid_bytes(dlv.tag.encode("latin-1"))
        try:
            self.ns.settle(token, outcome, reason, description, props)
            dlv.update(state)
        except Refused as e:
            dlv.local.condition = Condition(e.condition, e.description)
            dlv.update(Delivery.REJECTED)
        dlv.settle()


_reply_tags = itertools.count()


def _path(address):
    """Normalises an address to an entity path: no scheme/host, lower case."""
    a = (address or "").strip()
    if "://" in a:
        a = a.split("://", 1)[1].split("/", 1)[1] if "/" in a.split("://", 1)[1] else ""
    return a.strip("/").lower()


def _filters(data):
    data.rewind()
    if not data.next():
        return {}
    obj = data.get_object()
    if not isinstance(obj, dict):
        return {}
    out = {}
    for k, v in obj.items():
        out[symbol(k)] = v.value if isinstance(v, Described) else v
    return out


def _condition_info(cond):
    info = getattr(cond, "info", None) if cond is not None else None
    return {str(k): v for k, v in (info or {}).items()}
