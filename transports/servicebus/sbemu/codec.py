"""AMQP 1.0 encoding helpers for the emulator's message path.

Messages are kept as their encoded sections. Only the sections the broker
has to read (header, message annotations, properties) are decoded, once,
when the message arrives; the rest (application properties, body, footer)
is stored as bytes and sent back unchanged. Each delivery only encodes a
new header and the broker's annotations in front of those bytes.
"""

import struct

from proton import Data, Described, ulong

HEADER, DELIVERY_ANN, MESSAGE_ANN, PROPERTIES, APP_PROPS = 0x70, 0x71, 0x72, 0x73, 0x74
DATA, SEQUENCE, VALUE, FOOTER = 0x75, 0x76, 0x77, 0x78
BODY_CODES = (DATA, SEQUENCE, VALUE)

# Width of the size field, by the high nibble of a format code (AMQP 1.0
# part 1, 1.2): 0x4-0x9 are fixed widths, 0xa-0xf carry a size.
_FIXED = {0x4: 0, 0x5: 1, 0x6: 2, 0x7: 4, 0x8: 8, 0x9: 16}


class CodecError(Exception):
    """The bytes are not a well-formed AMQP message."""


def skip(buf, pos):
    """Returns the offset just past the AMQP value that starts at pos."""
    if pos >= len(buf):
        raise CodecError("truncated value")
    code = buf[pos]
    pos += 1
    if code == 0x00:  # described: descriptor, then value
        return skip(buf, skip(buf, pos))
    nib = code >> 4
    if nib in _FIXED:
        end = pos + _FIXED[nib]
    elif nib in (0xA, 0xC, 0xE):
        if pos >= len(buf):
            raise CodecError("truncated size")
        end = pos + 1 + buf[pos]
    elif nib in (0xB, 0xD, 0xF):
        if pos + 4 > len(buf):
            raise CodecError("truncated size")
        end = pos + 4 + struct.unpack_from(">I", buf, pos)[0]
    else:
        raise CodecError("unknown format code 0x%02x" % code)
    if end > len(buf):
        raise CodecError("value runs past the end")
    return end


# Format codes a value may use (decimals left out: not every client decodes them).
_KNOWN = frozenset([0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x50, 0x51, 0x52, 0x53, 0x54, 0x55,
                    0x56, 0x60, 0x61, 0x70, 0x71, 0x72, 0x73, 0x80, 0x81, 0x82, 0x83, 0x98,
                    0xA0, 0xA1, 0xA3, 0xB0, 0xB1, 0xB3, 0xC0, 0xC1, 0xD0, 0xD1, 0xE0, 0xF0])


def walk(buf, pos, depth=0):
    """Like skip, but checks every nested value too; returns the offset past it.

    skip trusts the sizes of lists, maps and arrays. walk looks inside them,
    so that a value the emulator copies into a new message (a batch member)
    is one every client can decode again.
    """
    if depth > 32:
        raise CodecError("values nested too deep")
    if pos >= len(buf):
        raise CodecError("truncated value")
    code = buf[pos]
    if code == 0x00:
        return walk(buf, walk(buf, pos + 1, depth + 1), depth + 1)
    return _walk_body(buf, code, pos + 1, depth)


def _walk_body(buf, code, p, depth):
    """Checks the encoding after format code `code`, starting at p."""
    if code not in _KNOWN:
        raise CodecError("unsupported format code 0x%02x" % code)
    nib = code >> 4
    if nib in _FIXED:
        end = p + _FIXED[nib]
        if end > len(buf):
            raise CodecError("truncated value")
        return end
    width = 1 if nib in (0xA, 0xC, 0xE) else 4
    if p + width > len(buf):
        raise CodecError("truncated size")
    start = p + width
    end = start + (buf[p] if width == 1 else struct.unpack_from(">I", buf, p)[0])
    if end > len(buf):
        raise CodecError("value runs past the end")
    if nib in (0xA, 0xB):
        return end
    if end < start + width:
        raise CodecError("compound too short for its count")
    count = buf[start] if width == 1 else struct.unpack_from(">I", buf, start)[0]
    q = start + width
    if nib in (0xC, 0xD):
        if code in (0xC1, 0xD1) and count % 2:
            raise CodecError("map with an odd number of elements")
        for _ in range(count):
            q = walk(buf, q, depth + 1)
    elif count:
        if q < end and buf[q] == 0x00:  # described elements
            q = walk(buf, q + 1, depth + 1)
        if q >= end:
            raise CodecError("array without an element constructor")
        elem, q = buf[q], q + 1
        for _ in range(count):
            q = _walk_body(buf, elem, q, depth + 1)
    else:
        return end
    if q != end:
        raise CodecError("compound size does not match its elements")
    return end


def split_sections(buf):
    """Splits an encoded message into [(code, start, end)], in order."""
    out, pos, last = [], 0, 0
    while pos < len(buf):
        if buf[pos] != 0x00:
            raise CodecError("section is not a described type")
        if buf[pos + 1:pos + 2] == b"\x53":
            code = buf[pos + 2]
        elif buf[pos + 1:pos + 2] == b"\x80":
            code = struct.unpack_from(">Q", buf, pos + 2)[0]
        else:
            raise CodecError("unsupported section descriptor")
        if not HEADER <= code <= FOOTER or code < last or (
                code == last and code not in (DATA, SEQUENCE)) or (
                last in BODY_CODES and code in BODY_CODES and code != last):
            raise CodecError("unexpected section 0x%x" % code)
        last = code
        end = skip(buf, pos)
        _check_section(code, buf, pos + (3 if buf[pos + 1] == 0x53 else 10))
        out.append((code, pos, end))
        pos = end
    return out


# Format codes allowed where the AMQP message format fixes a type, so that
# what the emulator stores is something every client can decode again.
_NUL, _BOOL, _UINT = {0x40}, {0x40, 0x41, 0x42, 0x56}, {0x40, 0x43, 0x52, 0x70}
_STR, _SYM, _BIN, _TS = {0x40, 0xA1, 0xB1}, {0x40, 0xA3, 0xB3}, {0x40, 0xA0, 0xB0}, {0x40, 0x83}
_ID = {0x40, 0x44, 0x53, 0x80, 0x98, 0xA0, 0xB0, 0xA1, 0xB1}
_LISTS, _MAPS = {0x45, 0xC0, 0xD0}, {0x40, 0xC1, 0xD1}
_HEADER_FIELDS = [_BOOL, {0x40, 0x50}, _UINT, _BOOL, _UINT]
_PROPERTY_FIELDS = [_ID, _BIN, _STR, _STR, _STR, _ID, _SYM, _SYM, _TS, _TS, _STR, _UINT, _STR]
_KEYS = {APP_PROPS: {0xA1, 0xB1}, MESSAGE_ANN: {0xA3, 0xB3, 0x44, 0x53, 0x80},
         DELIVERY_ANN: {0xA3, 0xB3, 0x44, 0x53, 0x80}, FOOTER: {0xA3, 0xB3, 0x44, 0x53, 0x80}}


def _check_section(code, buf, pos):
    """Raises CodecError when a section's value has a type its section does not allow."""
    c = buf[pos]
    if code in (HEADER, PROPERTIES, SEQUENCE):
        if c not in _LISTS:
            raise CodecError("section 0x%x is not a list" % code)
        if code != SEQUENCE:
            fields = _HEADER_FIELDS if code == HEADER else _PROPERTY_FIELDS
            for i, item in enumerate(_items(buf, pos)):
                if i >= len(fields) or buf[item] not in fields[i]:
                    raise CodecError("field %d of section 0x%x has type 0x%02x" % (i, code, buf[item]))
    elif code == DATA:
        if c not in (0xA0, 0xB0):
            raise CodecError("data section is not binary")
    elif code in _KEYS:
        if c not in _MAPS:
            raise CodecError("section 0x%x is not a map" % code)
        for i, item in enumerate(_items(buf, pos)):
            if i % 2 == 0 and buf[item] not in _KEYS[code]:
                raise CodecError("section 0x%x has a key of type 0x%02x" % (code, buf[item]))


def _items(buf, pos):
    """Offsets of the elements of the list or map encoded at pos."""
    c = buf[pos]
    if c in (0x40, 0x45):
        return []
    if c in (0xC0, 0xC1):
        count, p = buf[pos + 2], pos + 3
    else:
        count, p = struct.unpack_from(">I", buf, pos + 5)[0], pos + 9
    out = []
    for _ in range(count):
        out.append(p)
        p = skip(buf, p)
    return out


def decode(raw):
    """Decodes one encoded AMQP value (a section) into Python objects."""
    d = Data()
    d.decode(raw)
    d.rewind()
    d.next()
    obj = d.get_object()
    return obj.value if isinstance(obj, Described) else obj


_SCALARS = {
    0x40: lambda b, p: None, 0x41: lambda b, p: True, 0x42: lambda b, p: False,
    0x43: lambda b, p: 0, 0x44: lambda b, p: 0, 0x56: lambda b, p: b[p] != 0,
    0x50: lambda b, p: b[p], 0x52: lambda b, p: b[p], 0x53: lambda b, p: b[p],
    0x70: lambda b, p: struct.unpack_from(">I", b, p)[0],
    0x80: lambda b, p: struct.unpack_from(">Q", b, p)[0],
    0x83: lambda b, p: struct.unpack_from(">q", b, p)[0],
    0xA1: lambda b, p: bytes(b[p + 1:p + 1 + b[p]]).decode(),
    0xB1: lambda b, p: bytes(b[p + 4:p + 4 + struct.unpack_from(">I", b, p)[0]]).decode(),
}


def list_fields(raw, n):
    """The first n fields of the list inside a section (None past its end).

    Handles the scalar types headers and properties use; raises CodecError
    on anything else so the caller can fall back to decode().
    """
    pos = 3 if raw[1] == 0x53 else 10
    code = raw[pos]
    if code == 0x45:
        return [None] * n
    if code == 0xC0:
        count, pos = raw[pos + 2], pos + 3
    elif code == 0xD0:
        count, pos = struct.unpack_from(">I", raw, pos + 5)[0], pos + 9
    else:
        raise CodecError("section is not a list")
    out = []
    for _ in range(min(n, count)):
        fn = _SCALARS.get(raw[pos])
        if fn is None:
            raise CodecError("no fast path for 0x%02x" % raw[pos])
        out.append(fn(raw, pos + 1))
        pos = skip(raw, pos)
    return out + [None] * (n - len(out))


def is_empty_map(raw):
    """Whether the map inside a section has no entries."""
    pos = 3 if raw[1] == 0x53 else 10
    code = raw[pos]
    return code == 0x40 or (code == 0xC1 and raw[pos + 2] == 0) or (
        code == 0xD1 and raw[pos + 5:pos + 9] == b"\0\0\0\0")


def encode_section(code, value):
    """Encodes value (Python objects proton understands) as a section."""
    d = Data()
    d.put_object(Described(ulong(code), value))
    return d.encode()


def map_entries(raw):
    """Returns (element count, entry bytes) of the map inside a section."""
    start = 3 if raw[1] == 0x53 else 10
    code = raw[start]
    if code == 0x40:
        return 0, b""
    if code == 0xC1:
        return raw[start + 2], raw[start + 3:]
    if code == 0xD1:
        return struct.unpack_from(">I", raw, start + 5)[0], raw[start + 9:]
    raise CodecError("annotations are not a map")


# Encoders for the few types the broker writes itself.

def sym(s):
    b = s.encode()
    return (b"\xa3" + bytes([len(b)]) if len(b) < 256 else b"\xb3" + struct.pack(">I", len(b))) + b


def string(s):
    b = s.encode()
    return (b"\xa1" + bytes([len(b)]) if len(b) < 256 else b"\xb1" + struct.pack(">I", len(b))) + b


def long(v):
    return b"\x81" + struct.pack(">q", v)


def timestamp(ms):
    return b"\x83" + struct.pack(">q", ms)


def uuid(b16):
    return b"\x98" + b16


def uint(v):
    return b"\x70" + struct.pack(">I", v)


def int32(v):
    return b"\x71" + struct.pack(">i", v)


def boolean(v):
    return b"\x41" if v else b"\x42"


NULL = b"\x40"


def list32(items):
    body = b"".join(items)
    return b"\xd0" + struct.pack(">II", len(body) + 4, len(items)) + body


def map32(count, body):
    return b"\xd1" + struct.pack(">II", len(body) + 4, count) + body


def section(code, value):
    return b"\x00\x53" + bytes([code]) + value


def header(durable, priority, ttl, first_acquirer, delivery_count):
    """Encodes a header section with every field set."""
    return section(HEADER, list32([
        boolean(durable), b"\x50" + bytes([priority & 0xFF]),
        uint(ttl) if ttl else NULL, boolean(first_acquirer), uint(delivery_count)]))


def guid_bytes(b16):
    """Reorders RFC 4122 UUID bytes into .NET GUID byte order (and back)."""
    return bytes([b16[3], b16[2], b16[1], b16[0], b16[5], b16[4], b16[7], b16[6]]) + b16[8:]
