package httpsse

import (
	"fmt"
	"net"
	"net/http"
	"path"
	"strings"
)

// accessDefaults fills the subscription limits and the replay buffer's
// byte bounds of c.
func (c *SSEConfig) accessDefaults() {
	setDefault(&c.MaxSubscribersPerChannel, DefaultMaxSubscribersPerChannel)
	setDefault(&c.MaxClientsPerAddress, DefaultMaxClientsPerAddress)
	setDefault(&c.ReplayBufferBytes, DefaultReplayBufferBytes)
	setDefault(&c.ReplayBufferTotalBytes, DefaultReplayBufferTotalBytes)
}

// validateAccess adds the problems of the subscription limits, the
// replay buffer's byte bounds and allowed_channels to ps. Every channel
// the configuration names must be one allowed_channels lets exist.
func (c SSEConfig) validateAccess(ps *problems) {
	for _, f := range []struct {
		field string
		v     int64
	}{
		{"max_subscribers_per_channel", int64(c.MaxSubscribersPerChannel)},
		{"max_clients_per_address", int64(c.MaxClientsPerAddress)},
		{"replay_buffer_bytes", c.ReplayBufferBytes},
		{"replay_buffer_total_bytes", c.ReplayBufferTotalBytes},
	} {
		if f.v < 0 {
			ps.add(f.field, "must not be negative, got %d", f.v)
		}
	}
	valid := true
	for i, p := range c.AllowedChannels {
		if err := checkChannelPattern(p); err != nil {
			ps.add(fmt.Sprintf("allowed_channels[%d]", i), "%v", err)
			valid = false
		}
	}
	if !valid || len(c.AllowedChannels) == 0 {
		return
	}
	if c.DefaultChannel != "" && !c.channelAllowed(c.DefaultChannel) {
		ps.add("default_channel", "%q is not matched by allowed_channels", c.DefaultChannel)
	}
	for name := range c.Channels {
		if !c.channelAllowed(name) {
			ps.add("channels", "%q is not matched by allowed_channels", name)
		}
	}
}

// checkChannelPattern validates an entry of allowed_channels: a channel
// name in which *, ? and [...] have their path.Match meaning.
func checkChannelPattern(p string) error {
	if err := checkChannel(p); err != nil {
		return err
	}
	if _, err := path.Match(p, ""); err != nil {
		return fmt.Errorf("%q is not a valid pattern: %v", p, err)
	}
	return nil
}

// channelAllowed reports whether the channel name may exist: any name
// when allowed_channels is empty, else a name one of its entries matches
// (path.Match: * and ? do not match a /).
func (c SSEConfig) channelAllowed(name string) bool {
	if len(c.AllowedChannels) == 0 {
		return true
	}
	for _, p := range c.AllowedChannels {
		if p == name {
			return true
		}
		if ok, err := path.Match(p, name); err == nil && ok {
			return true
		}
	}
	return false
}

// clientAddr is the address max_clients_per_address counts a request
// under: the connection's IPv4 address, or the /64 network of an IPv6
// one (a single host commonly holds a whole /64). Forwarding headers are
// not trusted, since any client can set them; behind a reverse proxy
// every client shares the proxy's address.
func clientAddr(req *http.Request) string {
	host, _, err := net.SplitHostPort(req.RemoteAddr)
	if err != nil {
		host = req.RemoteAddr
	}
	ip := net.ParseIP(host)
	switch {
	case ip == nil:
		return strings.ToLower(host)
	case ip.To4() != nil:
		return ip.To4().String()
	}
	return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
}
