"""A select loop that drives proton's AMQP engine directly.

Proton's Container wraps every engine event in Python objects and routes it
through a chain of handlers; most of those events (transport, local state,
selectable bookkeeping) mean nothing to the broker. This loop reads and
writes the sockets itself and wraps only the events the broker handles,
which roughly halves the emulator's CPU per message.
"""

import select
import socket
import time

import cproton as pn
from proton import Collector, Connection, Event, Transport

# Engine events the broker handles, and the handler method for each.
HANDLED = {
    pn.PN_CONNECTION_REMOTE_OPEN: "on_connection_remote_open",
    pn.PN_CONNECTION_REMOTE_CLOSE: "on_connection_remote_close",
    pn.PN_SESSION_REMOTE_OPEN: "on_session_remote_open",
    pn.PN_SESSION_REMOTE_CLOSE: "on_session_remote_close",
    pn.PN_LINK_REMOTE_OPEN: "on_link_remote_open",
    pn.PN_LINK_REMOTE_CLOSE: "on_link_remote_close",
    pn.PN_LINK_REMOTE_DETACH: "on_link_remote_detach",
    pn.PN_LINK_FLOW: "on_link_flow",
    pn.PN_DELIVERY: "on_delivery",
}
READ_SIZE = 64 * 1024


class Peer:
    """One accepted socket and the proton transport and connection bound to it."""

    def __init__(self, sock, collector):
        self.sock = sock
        self.transport = Transport(Transport.SERVER)
        self.transport.sasl().allowed_mechs("ANONYMOUS")
        self.connection = Connection()
        self.connection.collect(collector)
        self.transport.bind(self.connection)


class Loop:
    """Serves the broker on a listening socket until the process ends."""

    def __init__(self, broker, host, port, tick_seconds):
        self.broker, self.tick_seconds = broker, tick_seconds
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind((host, port))
        self.listener.listen(64)
        self.listener.setblocking(False)
        self.collector = Collector()
        self.peers = {}

    def port(self):
        return self.listener.getsockname()[1]

    def run(self):
        next_tick = time.monotonic() + self.tick_seconds
        while True:
            self.dispatch()
            timeout = max(0.0, next_tick - time.monotonic())
            readers, writers = [self.listener], []
            now = time.time()
            for p in list(self.peers.values()):
                t = p.transport._impl
                deadline = pn.pn_transport_tick(t, int(now * 1000))
                if deadline:
                    timeout = min(timeout, max(0.0, deadline / 1000.0 - now))
                if pn.pn_transport_capacity(t) > 0:
                    readers.append(p.sock)
                if pn.pn_transport_pending(t) > 0:
                    writers.append(p.sock)
                if pn.pn_transport_closed(t):
                    self.drop(p)
            readable, writable, _ = select.select(readers, writers, [], timeout)
            for s in readable:
                if s is self.listener:
                    self.accept()
                elif s in self.peers:
                    self.read(self.peers[s])
            for s in writable:
                if s in self.peers:
                    self.write(self.peers[s])
            if time.monotonic() >= next_tick:
                next_tick = time.monotonic() + self.tick_seconds
                self.broker.tick()

    def dispatch(self):
        """Runs the broker's handler for every pending engine event it cares about."""
        col = self.collector._impl
        impl = pn.pn_collector_peek(col)
        while impl:
            name = HANDLED.get(pn.pn_event_type(impl))
            if name is not None:
                getattr(self.broker, name)(Event.wrap(impl))
            pn.pn_collector_pop(col)
            impl = pn.pn_collector_peek(col)

    def accept(self):
        try:
            sock, _ = self.listener.accept()
        except OSError:
            return
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setblocking(False)
        self.peers[sock] = Peer(sock, self.collector)

    def read(self, p):
        t = p.transport._impl
        try:
            data = p.sock.recv(min(READ_SIZE, max(pn.pn_transport_capacity(t), 1)))
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if data:
            pn.pn_transport_push(t, data)
        else:
            pn.pn_transport_close_tail(t)

    def write(self, p):
        t = p.transport._impl
        pending = pn.pn_transport_pending(t)
        if pending <= 0:
            return
        _, out = pn.pn_transport_peek(t, pending)
        try:
            n = p.sock.send(out)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            pn.pn_transport_close_head(t)
            pn.pn_transport_close_tail(t)
            return
        pn.pn_transport_pop(t, n)

    def drop(self, p):
        """Forgets a peer whose transport is closed in both directions."""
        del self.peers[p.sock]
        self.broker.cleanup(p.connection)
        self.dispatch()
        p.transport.unbind()
        try:
            p.sock.close()
        except OSError:
            pass
