package mqtt

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/url"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// wsConn presents a WebSocket connection as a byte stream: MQTT packets
// travel in binary messages, which may split or join packets freely.
type wsConn struct {
	ws *websocket.Conn

	rmu sync.Mutex
	r   io.Reader // the message being read, nil between messages
	wmu sync.Mutex
}

// dialWebSocket opens ws:// (tlsCfg nil) or wss:// with the "mqtt"
// subprotocol.
func dialWebSocket(ctx context.Context, u *url.URL, tlsCfg *tls.Config) (net.Conn, error) {
	d := websocket.Dialer{
		Subprotocols:     []string{"mqtt"},
		TLSClientConfig:  tlsCfg,
		HandshakeTimeout: 0, // ctx bounds the handshake
		Proxy:            nil,
	}
	ws, resp, err := d.DialContext(ctx, u.String(), nil)
	if resp != nil && resp.Body != nil {
		_ = resp.Body.Close()
	}
	if err != nil {
		return nil, err
	}
	return &wsConn{ws: ws}, nil
}

func (c *wsConn) Read(p []byte) (int, error) {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	for {
		if c.r == nil {
			_, r, err := c.ws.NextReader()
			if err != nil {
				return 0, err
			}
			c.r = r
		}
		n, err := c.r.Read(p)
		if err == io.EOF {
			c.r = nil
			if n == 0 {
				continue
			}
			err = nil
		}
		return n, err
	}
}

func (c *wsConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := c.ws.WriteMessage(websocket.BinaryMessage, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (c *wsConn) Close() error                       { return c.ws.Close() }
func (c *wsConn) LocalAddr() net.Addr                { return c.ws.LocalAddr() }
func (c *wsConn) RemoteAddr() net.Addr               { return c.ws.RemoteAddr() }
func (c *wsConn) SetReadDeadline(t time.Time) error  { return c.ws.SetReadDeadline(t) }
func (c *wsConn) SetWriteDeadline(t time.Time) error { return c.ws.SetWriteDeadline(t) }
func (c *wsConn) SetDeadline(t time.Time) error {
	if err := c.ws.SetReadDeadline(t); err != nil {
		return err
	}
	return c.ws.SetWriteDeadline(t)
}
