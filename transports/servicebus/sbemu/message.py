"""The emulator's stored message and its encoding for a delivery."""

import copy
import struct

from proton import symbol

import codec

# Message states, as the x-opt-message-state annotation numbers them.
ACTIVE, DEFERRED, SCHEDULED = 0, 1, 2
LOCKED, GONE = 10, 11

# Annotations the broker owns: dropped from what a sender supplies.
BROKER_ANNOTATIONS = frozenset([
    "x-opt-sequence-number", "x-opt-enqueued-time", "x-opt-locked-until",
    "x-opt-lock-token", "x-opt-enqueue-sequence-number", "x-opt-deadletter-source",
    "x-opt-message-state", "x-opt-scheduled-enqueue-time"])

BATCH_FORMAT = 0x80013700


class Msg:
    """One message in one queue or subscription (a topic copies it per subscription)."""

    __slots__ = ("seq", "durable", "priority", "ttl", "ann_count", "ann_body", "props", "app",
                 "tail", "session_id", "scheduled_at", "enqueued", "count",
                 "state", "deferred", "token", "locked_until", "dl_source", "store", "consumer",
                 "size")

    def __init__(self):
        self.seq = 0
        self.durable, self.priority, self.ttl = False, 4, 0
        self.ann_count, self.ann_body = 0, b""
        self.props = self.app = self.tail = b""
        self.session_id = None
        self.scheduled_at = None
        self.enqueued = 0
        self.count = 0
        self.state = ACTIVE
        self.deferred = False
        self.token = None
        self.locked_until = 0
        self.dl_source = None
        self.store = self.consumer = None
        self.size = 0

    def copy(self):
        """A copy for another subscription of the same topic."""
        m = Msg()
        for k in Msg.__slots__:
            setattr(m, k, getattr(self, k))
        return m

    def expired(self, now):
        return self.ttl and self.enqueued + self.ttl <= now

    def set_app_properties(self, values):
        """Adds or replaces application properties (dead-letter reason, properties-to-modify)."""
        if not values:
            return
        props = codec.decode(self.app) if self.app else {}
        props = dict(props or {})
        for k, v in values.items():
            props[str(k)] = copy.copy(v)
        self.app = codec.encode_section(codec.APP_PROPS, props)

    def encode(self, token=None):
        """The message as a receiver gets it: broker annotations, lock token, delivery count."""
        ours = [codec.sym("x-opt-sequence-number"), codec.long(self.seq),
                codec.sym("x-opt-enqueue-sequence-number"), codec.long(self.seq),
                codec.sym("x-opt-enqueued-time"), codec.timestamp(self.enqueued)]
        if token is not None:
            ours += [codec.sym("x-opt-locked-until"), codec.timestamp(self.locked_until)]
        if self.scheduled_at is not None:
            ours += [codec.sym("x-opt-scheduled-enqueue-time"), codec.timestamp(self.scheduled_at)]
        if self.dl_source is not None:
            ours += [codec.sym("x-opt-deadletter-source"), codec.string(self.dl_source)]
        state = DEFERRED if self.deferred else self.state
        if state in (DEFERRED, SCHEDULED):
            ours += [codec.sym("x-opt-message-state"), codec.int32(state)]
        parts = [codec.header(self.durable, self.priority, self.ttl, self.count == 0, self.count)]
        if token is not None:
            parts.append(codec.section(codec.DELIVERY_ANN, codec.map32(
                2, codec.sym("x-opt-lock-token") + codec.uuid(token))))
        parts.append(codec.section(codec.MESSAGE_ANN, codec.map32(
            self.ann_count + len(ours), self.ann_body + b"".join(ours))))
        parts += [self.props, self.app, self.tail]
        return b"".join(parts)


def parse(buf, strict=False):
    """Parses one encoded message into a Msg (no sequence number yet).

    strict also checks every nested value: for messages the broker cut out
    of a batch body, which no client encoder has vouched for.
    """
    m = Msg()
    m.size = len(buf)
    for code, start, end in codec.split_sections(buf):
        raw = buf[start:end]
        if strict and code != codec.DATA and codec.walk(buf, start) != end:
            raise codec.CodecError("section 0x%x is not one value" % code)
        if code == codec.HEADER:
            h = _fields(raw, 3)
            m.durable = bool(h[0])
            m.priority = 4 if h[1] is None else int(h[1])
            m.ttl = int(h[2] or 0)
        elif code == codec.MESSAGE_ANN:
            if not codec.is_empty_map(raw):
                _annotations(m, codec.decode(raw) or {})
        elif code == codec.PROPERTIES:
            m.props = raw
            m.session_id = _fields(raw, 11)[10]
        elif code == codec.APP_PROPS:
            m.app = raw
        elif code != codec.DELIVERY_ANN:
            m.tail = buf[start:]
            break
    return m


def _fields(raw, n):
    try:
        return codec.list_fields(raw, n)
    except codec.CodecError:
        return (list(codec.decode(raw) or []) + [None] * n)[:n]


def _annotations(m, anns):
    kept = {}
    for k, v in anns.items():
        if k == "x-opt-scheduled-enqueue-time" and v is not None:
            m.scheduled_at = int(v)
        elif str(k) not in BROKER_ANNOTATIONS:
            kept[k if isinstance(k, symbol) or not isinstance(k, str) else symbol(k)] = v
    if kept:
        m.ann_count, m.ann_body = codec.map_entries(codec.encode_section(codec.MESSAGE_ANN, kept))


def parse_transfer(buf):
    """Parses what a sender transferred: one message, or a batch.

    A batch (message format 0x80013700) carries one encoded message per
    Data section. Proton does not expose the message format of a transfer,
    so a transfer is taken for a batch when its body is only Data sections
    and every one of them holds a well-formed AMQP message with a body.
    """
    sections = codec.split_sections(buf)
    body = [(s, e) for code, s, e in sections if code in codec.BODY_CODES]
    if body and all(code == codec.DATA for code, _, _ in sections if code in codec.BODY_CODES):
        try:
            inner = []
            for s, e in body:
                payload = _binary_payload(buf, s, e)
                if payload is None or payload[:2] != b"\x00\x53":
                    raise codec.CodecError("not a batch")
                m = parse(payload, strict=True)
                if _section_code(m.tail) not in codec.BODY_CODES:
                    raise codec.CodecError("a batched message has a body")
                inner.append(m)
            return inner
        except (codec.CodecError, IndexError, struct.error, UnicodeDecodeError):
            pass
    try:
        return [parse(buf)]
    except (IndexError, struct.error, UnicodeDecodeError) as e:
        raise codec.CodecError("malformed message: %s" % e)


def _section_code(raw):
    """The section code of the section raw starts with (None when empty)."""
    if len(raw) < 3:
        return None
    return raw[2] if raw[1] == 0x53 else struct.unpack_from(">Q", raw, 2)[0]


def _binary_payload(buf, start, end):
    """The bytes of the binary value inside a Data section."""
    pos = start + (3 if buf[start + 1] == 0x53 else 10)
    code = buf[pos]
    if code == 0xA0:
        return buf[pos + 2:end]
    if code == 0xB0:
        return buf[pos + 5:end]
    return None
