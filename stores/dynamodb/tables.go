package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// Key and TTL attribute names, the same in every table.
const (
	attrPK  = "pk"
	attrSK  = "sk"
	attrTTL = "ttl"
)

// tableSpec is the key schema one table must have.
type tableSpec struct {
	name   string
	skType types.ScalarAttributeType // of the sort key sk; "" for none
	ttl    bool                      // the ttl attribute removes items
}

func (s tableSpec) schema() string {
	if s.skType != "" {
		return "partition key pk (S), sort key sk (" + string(s.skType) + ")"
	}
	return "partition key pk (S)"
}

// specs are the key schemas: the outbox sorts by a string sequence (see
// ids.go), the DLQ by its counter's numbers, the lease table has no sort
// key.
func (n tableNames) specs() []tableSpec {
	return []tableSpec{
		{n.outbox, types.ScalarAttributeTypeS, true},
		{n.dlq, types.ScalarAttributeTypeN, true},
		{n.lease, "", false},
	}
}

// activeWait bounds how long a created table may take to become active.
const activeWait = 2 * time.Minute

// ensureTables checks each table's key schema, creating missing tables
// when c.CreateTables is set. A missing table, or one with another key
// schema, is an INVALID_CONFIG problem that names it.
func ensureTables(ctx context.Context, api *dynamodb.Client, c Config, s *Store) error {
	ctx = withOp(ctx, opSetup)
	var errs []error
	for _, spec := range c.tables().specs() {
		desc, err := api.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(spec.name)})
		switch {
		case isNotFound(err) && c.CreateTables:
			if err := createTable(ctx, api, c, spec); err != nil {
				errs = append(errs, err)
				continue
			}
			s.log.Info("dynamodb store: created table", "table", spec.name, "billing_mode", c.BillingMode)
		case isNotFound(err):
			errs = append(errs, fault.ErrInvalidConfig.WithMessage(fmt.Sprintf(
				"dynamodb store: table %s does not exist; create it with %s, or set create_tables: true", spec.name, spec.schema())))
		case err != nil:
			errs = append(errs, classify("DescribeTable "+spec.name, err))
		default:
			if err := checkSchema(spec, desc.Table); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

func isNotFound(err error) bool {
	var rnf *types.ResourceNotFoundException
	return errors.As(err, &rnf)
}

// checkSchema compares a described table with spec.
func checkSchema(spec tableSpec, t *types.TableDescription) error {
	want := map[string]types.KeyType{attrPK: types.KeyTypeHash}
	if spec.skType != "" {
		want[attrSK] = types.KeyTypeRange
	}
	types_ := map[string]types.ScalarAttributeType{}
	if t != nil {
		for _, d := range t.AttributeDefinitions {
			types_[aws.ToString(d.AttributeName)] = d.AttributeType
		}
	}
	ok := t != nil && len(t.KeySchema) == len(want)
	if ok {
		for _, k := range t.KeySchema {
			name := aws.ToString(k.AttributeName)
			if want[name] != k.KeyType {
				ok = false
			}
		}
		// Emulators may leave the attribute definitions out.
		if len(types_) > 0 && (types_[attrPK] != types.ScalarAttributeTypeS || (spec.skType != "" && types_[attrSK] != spec.skType)) {
			ok = false
		}
	}
	if !ok {
		return fault.ErrInvalidConfig.WithMessage(fmt.Sprintf(
			"dynamodb store: table %s has another key schema; the store needs %s", spec.name, spec.schema()))
	}
	return nil
}

func createTable(ctx context.Context, api *dynamodb.Client, c Config, spec tableSpec) error {
	in := &dynamodb.CreateTableInput{
		TableName: aws.String(spec.name),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String(attrPK), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String(attrPK), KeyType: types.KeyTypeHash}},
	}
	if spec.skType != "" {
		in.AttributeDefinitions = append(in.AttributeDefinitions,
			types.AttributeDefinition{AttributeName: aws.String(attrSK), AttributeType: spec.skType})
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String(attrSK), KeyType: types.KeyTypeRange})
	}
	if c.BillingMode == BillingProvisioned {
		in.BillingMode = types.BillingModeProvisioned
		in.ProvisionedThroughput = &types.ProvisionedThroughput{
			ReadCapacityUnits: aws.Int64(c.ReadCapacity), WriteCapacityUnits: aws.Int64(c.WriteCapacity)}
	} else {
		in.BillingMode = types.BillingModePayPerRequest
	}
	_, err := api.CreateTable(ctx, in)
	var inUse *types.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) { // another bridge created it first
		return fault.ErrInvalidConfig.WithMessage("dynamodb store: cannot create table " + spec.name).Wrap(classify("CreateTable", err))
	}
	if err := waitActive(ctx, api, spec.name); err != nil {
		return err
	}
	if !spec.ttl {
		return nil
	}
	_, err = api.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName: aws.String(spec.name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{
			AttributeName: aws.String(attrTTL), Enabled: aws.Bool(true)},
	})
	var api2 smithy.APIError
	if err != nil && !(errors.As(err, &api2) && api2.ErrorCode() == "ValidationException") { // already enabled
		return fault.ErrInvalidConfig.WithMessage("dynamodb store: cannot enable TTL on table " + spec.name).Wrap(classify("UpdateTimeToLive", err))
	}
	return nil
}

// waitActive polls until table name is active. A description without a
// status (emulators leave it out) counts as active.
func waitActive(ctx context.Context, api *dynamodb.Client, name string) error {
	ctx, cancel := context.WithTimeout(ctx, activeWait)
	defer cancel()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		out, err := api.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err == nil && out.Table != nil && (out.Table.TableStatus == "" || out.Table.TableStatus == types.TableStatusActive) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fault.ErrUnavailable.WithMessage("dynamodb store: table " + name + " did not become active").Wrap(ctx.Err())
		case <-tick.C:
		}
	}
}
