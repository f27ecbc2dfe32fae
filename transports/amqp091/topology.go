package amqp091

import (
	amqp "github.com/rabbitmq/amqp091-go"
)

// declareTopology declares t on a fresh channel of conn: exchanges, then
// queues, then bindings. The first failure closes the channel (the broker
// does) and is returned, naming the object.
func declareTopology(conn *amqp.Connection, t Topology) error {
	if len(t.Exchanges)+len(t.Queues)+len(t.Bindings) == 0 {
		return nil
	}
	ch, err := conn.Channel()
	if err != nil {
		return classify(err, "open topology channel")
	}
	defer func() { _ = ch.Close() }()
	for _, e := range t.Exchanges {
		args, _ := toTable(e.Arguments) // validated
		if err := ch.ExchangeDeclare(e.Name, e.Type, boolOr(e.Durable, true), e.AutoDelete, e.Internal, false, args); err != nil {
			return classify(err, "declare exchange "+e.Name)
		}
	}
	for _, q := range t.Queues {
		if err := declareQueue(ch, q); err != nil {
			return err
		}
	}
	for _, b := range t.Bindings {
		args, _ := toTable(b.Arguments)
		if b.Queue != "" {
			err = ch.QueueBind(b.Queue, b.RoutingKey, b.Exchange, false, args)
		} else {
			err = ch.ExchangeBind(b.DestinationExchange, b.RoutingKey, b.Exchange, false, args)
		}
		if err != nil {
			return classify(err, "bind "+b.Exchange+" -> "+b.Queue+b.DestinationExchange)
		}
	}
	return nil
}

func declareQueue(ch *amqp.Channel, q QueueSpec) error {
	args, _ := toTable(q.queueArguments())
	if _, err := ch.QueueDeclare(q.Name, boolOr(q.Durable, true), q.AutoDelete, q.Exclusive, false, args); err != nil {
		return classify(err, "declare queue "+q.Name)
	}
	return nil
}
