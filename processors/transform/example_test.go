package transform_test

import (
	"context"
	"fmt"

	"github.com/gobridge-oss/gobridge/core/messaging"
	"github.com/gobridge-oss/gobridge/processors/transform"
)

func ExampleNew() {
	tr, err := transform.New(transform.Config{
		Name:         "my-transform",
		DropUnmapped: true,
		Mappings: []transform.FieldMapping{
			transform.SimpleMapping("$.user.name", "username"),
			transform.TransformedMapping("$.user.age", "userAge", transform.TransformInt),
			{Source: "$.metadata.token", Target: "auth.token",
				Transform: transform.TransformBase64Encode, Required: true},
			{Source: "$.user.locale", Target: "locale", DefaultValue: "en"},
		},
	})
	if err != nil {
		panic(err)
	}
	env := messaging.NewEnvelope("users.updated",
		[]byte(`{"user":{"name":"ann","age":"42"},"metadata":{"token":"s3cret"},"id":9007199254740993}`))
	err = tr.Process(context.Background(), env, func(_ context.Context, e *messaging.Envelope) error {
		fmt.Println(string(e.PayloadView()))
		return nil
	})
	fmt.Println("error:", err)
	// Output:
	// {"username":"ann","userAge":42,"auth":{"token":"czNjcmV0"},"locale":"en"}
	// error: <nil>
}

func ExampleConfig_keepUnmapped() {
	tr, _ := transform.New(transform.Config{Mappings: []transform.FieldMapping{
		transform.TransformedMapping("$.total", "total", transform.TransformString),
		transform.SimpleMapping("$.lines[0].sku", "summary.first_sku"),
	}})
	env := messaging.NewEnvelope("orders.created",
		[]byte(`{"id":12345678901234567890,"total":19.90,"lines":[{"sku":"A-1"}]}`))
	_ = tr.Process(context.Background(), env, func(context.Context, *messaging.Envelope) error { return nil })
	fmt.Println(string(env.PayloadView()))
	// Output:
	// {"id":12345678901234567890,"total":"19.90","lines":[{"sku":"A-1"}],"summary":{"first_sku":"A-1"}}
}
