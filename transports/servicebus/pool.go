package servicebus

import (
	"context"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/messaging/azservicebus"
)

// clientPool lets the receivers and senders built by one set of factories
// share an SDK client, and so one AMQP connection, when their client
// settings are the same. A namespace then sees one connection and one set
// of token exchanges per bridge instead of one per component, and the
// bridge keeps one connection's reader and writer busy instead of several
// half-idle ones. Each component holds a reference; the last one to close
// closes the client.
type clientPool struct {
	mu      sync.Mutex
	clients map[ClientConfig]*pooledClient
	// open builds a client; NewClient outside tests.
	open func(ClientConfig) (*azservicebus.Client, error)
}

// pooledClient is a client and how many components hold it.
type pooledClient struct {
	client *azservicebus.Client
	refs   int
}

// newClientPool returns an empty pool that opens clients with NewClient.
func newClientPool() *clientPool {
	return &clientPool{clients: map[ClientConfig]*pooledClient{}, open: NewClient}
}

// acquire returns the client for cfg, opening it on first use, and the
// function that gives this reference back; it must be called once.
func (p *clientPool) acquire(cfg ClientConfig) (*azservicebus.Client, func(context.Context) error, error) {
	key := cfg.WithDefaults()
	p.mu.Lock()
	defer p.mu.Unlock()
	pc, ok := p.clients[key]
	if !ok {
		c, err := p.open(key)
		if err != nil {
			return nil, nil, err
		}
		pc = &pooledClient{client: c}
		p.clients[key] = pc
	}
	pc.refs++
	var once sync.Once
	release := func(ctx context.Context) error {
		var err error
		once.Do(func() { err = p.release(ctx, key, pc) })
		return err
	}
	return pc.client, release, nil
}

// release drops one reference to pc and closes its client after the last.
func (p *clientPool) release(ctx context.Context, key ClientConfig, pc *pooledClient) error {
	p.mu.Lock()
	pc.refs--
	last := pc.refs == 0
	if last && p.clients[key] == pc {
		delete(p.clients, key)
	}
	p.mu.Unlock()
	if !last {
		return nil
	}
	return classify("closing the client", pc.client.Close(ctx))
}
