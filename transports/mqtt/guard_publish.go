package mqtt

import "fmt"

// PUBLISH property identifiers (MQTT v5 section 2.2.2.2).
const (
	propPayloadFormat   = 0x01
	propMessageExpiry   = 0x02
	propContentType     = 0x03
	propResponseTopic   = 0x08
	propCorrelationData = 0x09
	propSubscriptionID  = 0x0B
	propTopicAlias      = 0x23
	propUserProperty    = 0x26
)

// checkPublish validates a raw PUBLISH packet (hl is the length of its
// fixed header) and returns the bytes to hand to the client: raw itself,
// or a rebuilt packet whose user property list was trimmed to
// maxUserProps+1 entries.
func (g *guardConn) checkPublish(raw []byte, hl int) ([]byte, error) {
	flags := raw[0] & 0x0f
	qos := (flags >> 1) & 3
	switch {
	case qos == 3:
		return nil, malformed(publishType, "QoS 3")
	case qos == 0 && flags&0x08 != 0:
		return nil, malformed(publishType, "DUP flag on a QoS 0 message")
	}
	b := raw[hl:]
	if len(b) < 2 {
		return nil, malformed(publishType, "topic length missing")
	}
	tl := int(b[0])<<8 | int(b[1])
	pos := 2 + tl
	if pos > len(b) {
		return nil, malformed(publishType, "topic longer than the packet")
	}
	if tl == 0 {
		// This session announces Topic Alias Maximum 0, so every PUBLISH
		// must name its topic.
		return nil, malformed(publishType, "empty topic")
	}
	if qos > 0 {
		if pos+2 > len(b) {
			return nil, malformed(publishType, "packet identifier missing")
		}
		if b[pos] == 0 && b[pos+1] == 0 {
			return nil, malformed(publishType, "packet identifier 0")
		}
		pos += 2
	}
	plen, n, ok := readVarint(b[pos:])
	if !ok {
		return nil, malformed(publishType, "bad property length")
	}
	lenAt := pos
	pos += n
	if plen > len(b)-pos {
		return nil, malformed(publishType, "properties longer than the packet")
	}
	props := b[pos : pos+plen]
	users, _, err := walkPublishProps(props, nil, -1)
	if err != nil {
		return nil, err
	}
	keep := g.lim.maxUserProps + 1
	if users <= keep {
		return raw, nil
	}
	// Rebuild: fixed header, topic and packet id, trimmed properties,
	// payload.
	_, trimmed, _ := walkPublishProps(props, make([]byte, 0, len(props)), keep)
	payload := b[pos+plen:]
	rl := lenAt + varintLen(len(trimmed)) + len(trimmed) + len(payload)
	out := g.scratch[:0]
	out = append(out, raw[0])
	out = appendVarint(out, rl)
	out = append(out, b[:lenAt]...)
	out = appendVarint(out, len(trimmed))
	out = append(out, trimmed...)
	out = append(out, payload...)
	g.scratch = out
	return out, nil
}

// walkPublishProps checks a PUBLISH property block and returns the number
// of user properties. When keep >= 0 it also returns dst with every
// property appended except the user properties past the first keep.
func walkPublishProps(props []byte, dst []byte, keep int) (int, []byte, error) {
	users := 0
	var seen [0x2B]bool
	for i := 0; i < len(props); {
		start := i
		id := props[i]
		i++
		var ok bool
		switch id {
		case propPayloadFormat:
			ok = i < len(props) && props[i] <= 1
			i++
		case propMessageExpiry:
			i += 4
			ok = i <= len(props)
		case propContentType, propResponseTopic, propCorrelationData:
			i, ok = skipString(props, i)
		case propUserProperty:
			if i, ok = skipString(props, i); ok {
				i, ok = skipString(props, i)
			}
		case propSubscriptionID:
			var v, n int
			v, n, ok = readVarint(props[i:])
			ok = ok && v != 0
			i += n
		case propTopicAlias:
			return 0, nil, malformed(publishType, "topic alias, which this session does not accept")
		default:
			return 0, nil, malformed(publishType, fmt.Sprintf("property identifier %d is not allowed in PUBLISH", id))
		}
		if !ok || i > len(props) {
			return 0, nil, malformed(publishType, fmt.Sprintf("property identifier %d is truncated or invalid", id))
		}
		if id != propUserProperty && id != propSubscriptionID {
			if seen[id] {
				return 0, nil, malformed(publishType, fmt.Sprintf("property identifier %d appears twice", id))
			}
			seen[id] = true
		}
		if id == propUserProperty {
			users++
			if keep >= 0 && users > keep {
				continue
			}
		}
		if keep >= 0 {
			dst = append(dst, props[start:i]...)
		}
	}
	return users, dst, nil
}
