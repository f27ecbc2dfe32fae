package sqs

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// deleteAttempts is how often a failed delete is tried before the failure
// is reported: a delete that never succeeds only lets the message come
// back, a duplicate and never a loss.
const deleteAttempts = 3

// settler deletes and extends the messages of one queue in batches.
type settler struct {
	api     API
	url     string
	log     *slog.Logger
	deletes *batcher[receipt]
	extends *batcher[receipt]
	// pending holds a token per delete queued or under way. An acked
	// message leaves the in-flight count once its delete is queued; this
	// bounds how many such messages can wait for their deletes.
	pending chan struct{}
	// noBatchVisibility is set once the server showed it lacks
	// ChangeMessageVisibilityBatch; extensions then go one by one.
	noBatchVisibility atomic.Bool
	// ids are the entry IDs of batch calls, "0" to "9", shared by all
	// calls (the SDK only reads them).
	ids [maxBatch]*string
}

// entryIDs returns the entry IDs "0" to "9" of batch calls.
func entryIDs() (ids [maxBatch]*string) {
	for i := range ids {
		ids[i] = aws.String(strconv.Itoa(i))
	}
	return ids
}

func newSettler(api API, url string, window time.Duration, maxPending int, log *slog.Logger) *settler {
	s := &settler{api: api, url: url, log: log, pending: make(chan struct{}, maxPending), ids: entryIDs()}
	s.deletes = newBatcher(window, s.flushDeletes)
	s.extends = newBatcher(window, s.flushExtends)
	return s
}

// delete deletes one message, in a DeleteMessageBatch shared with
// others, and returns the outcome. It waits for room among the pending
// deletes first (or for ctx to end), then calls queued: from there on the
// delete is carried out whatever ctx does.
func (s *settler) delete(ctx context.Context, handle string, queued func()) error {
	select {
	case s.pending <- struct{}{}: // usually there is room: no full select
	default:
		select {
		case s.pending <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	queued()
	return s.deletes.do(ctx, receipt{handle: handle})
}

// deleted records the outcome of queued delete i and frees its room.
func (s *settler) deleted(errs []error, i int, err error) {
	errs[i] = err
	<-s.pending
}

// close stops the settler's flusher goroutines; requests made later are
// still carried out, on the goroutine that completes their batch.
func (s *settler) close() {
	s.deletes.close()
	s.extends.close()
}

// flushDeletes deletes items, trying entries that fail for a passing
// reason again, and records each item's outcome in errs exactly once.
func (s *settler) flushDeletes(ctx context.Context, items []receipt, errs []error) {
	idx := make([]int, len(items)) // positions in items of the entries to try
	for i := range idx {
		idx[i] = i
	}
	for attempt := 1; len(idx) > 0; attempt++ {
		in := &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(s.url), Entries: make([]types.DeleteMessageBatchRequestEntry, len(idx))}
		handles := make([]string, len(idx)) // one allocation for the pointers below
		for j, i := range idx {
			handles[j] = items[i].handle
			in.Entries[j] = types.DeleteMessageBatchRequestEntry{Id: s.ids[j], ReceiptHandle: &handles[j]}
		}
		out, err := s.api.DeleteMessageBatch(ctx, in)
		var retry []int
		if err != nil {
			err = classify("DeleteMessageBatch", err)
			if attempt < deleteAttempts && fault.IsRecoverable(err) {
				retry = idx
			} else {
				for _, i := range idx {
					s.deleted(errs, i, err)
				}
			}
		} else {
			var failed map[int]error
			for _, f := range out.Failed {
				if j, e := strconv.Atoi(aws.ToString(f.Id)); e == nil && j >= 0 && j < len(idx) {
					if failed == nil {
						failed = map[int]error{}
					}
					failed[j] = classifyCode("DeleteMessageBatch entry", aws.ToString(f.Code), smithyFault(f.SenderFault),
						entryError{aws.ToString(f.Code), aws.ToString(f.Message)})
				}
			}
			for j, i := range idx {
				ferr, bad := failed[j]
				switch {
				case !bad:
					s.deleted(errs, i, nil)
				case attempt < deleteAttempts && fault.IsRecoverable(ferr):
					retry = append(retry, i)
				default:
					s.log.Warn("sqs: delete failed; the message will come back", "queue", s.url, "err", ferr)
					s.deleted(errs, i, ferr)
				}
			}
		}
		idx = retry
		if len(idx) > 0 {
			t := time.NewTimer(time.Duration(attempt) * 100 * time.Millisecond)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				for _, i := range idx {
					s.deleted(errs, i, classify("DeleteMessageBatch", ctx.Err()))
				}
				return
			}
		}
	}
}

func (s *settler) flushExtends(ctx context.Context, items []receipt, errs []error) {
	if !s.noBatchVisibility.Load() {
		in := &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(s.url), Entries: make([]types.ChangeMessageVisibilityBatchRequestEntry, len(items))}
		for i, it := range items {
			in.Entries[i] = types.ChangeMessageVisibilityBatchRequestEntry{Id: s.ids[i], ReceiptHandle: aws.String(it.handle), VisibilityTimeout: it.vis}
		}
		out, err := s.api.ChangeMessageVisibilityBatch(ctx, in)
		if err == nil {
			failed := map[int]error{}
			for _, f := range out.Failed {
				if i, e := strconv.Atoi(aws.ToString(f.Id)); e == nil && i >= 0 && i < len(items) {
					failed[i] = classifyCode("ChangeMessageVisibilityBatch entry", aws.ToString(f.Code), smithyFault(f.SenderFault),
						entryError{aws.ToString(f.Code), aws.ToString(f.Message)})
				}
			}
			for i := range items {
				errs[i] = failed[i]
			}
			return
		}
		if cerr := classify("ChangeMessageVisibilityBatch", err); !callRefused(err) {
			for i := range items {
				errs[i] = cerr
			}
			return
		}
		// A refusal of the call as a whole: the server may not know it.
		// Try one by one, and keep doing so once that works.
		ok := s.extendEach(ctx, items, errs)
		if ok {
			s.noBatchVisibility.Store(true)
			s.log.Info("sqs: ChangeMessageVisibilityBatch refused; extending one message per call", "queue", s.url, "err", err)
		}
		return
	}
	s.extendEach(ctx, items, errs)
}

// extendEach changes visibility one message per call and reports whether
// any call succeeded.
func (s *settler) extendEach(ctx context.Context, items []receipt, errs []error) bool {
	anyOK := false
	for i, it := range items {
		err := s.changeVisibility(ctx, it.handle, it.vis)
		anyOK = anyOK || err == nil
		errs[i] = err
	}
	return anyOK
}

func (s *settler) changeVisibility(ctx context.Context, handle string, secs int32) error {
	_, err := s.api.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(s.url), ReceiptHandle: aws.String(handle), VisibilityTimeout: secs})
	return classify("ChangeMessageVisibility", err)
}

// visibilitySeconds rounds d up to whole seconds within SQS's 0..12h.
func visibilitySeconds(d time.Duration) int32 {
	if d <= 0 {
		return 0
	}
	if d > MaxVisibility {
		d = MaxVisibility
	}
	return int32((d + time.Second - 1) / time.Second)
}

// callRefused reports whether a server turned a call down as such (an
// unknown action answered with a client error, or an unsupported
// operation) rather than failing it for a passing reason.
func callRefused(err error) bool {
	var api smithy.APIError
	if errors.As(err, &api) && api.ErrorCode() != "" {
		switch fault.CodeOf(classify("", err)) {
		case fault.CodeNotSupported, fault.CodeProtocolError:
			return true
		}
		return false
	}
	// No error code: the answer was not SQS's (goaws answers an unknown
	// action with a bare 400).
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		switch re.HTTPStatusCode() {
		case 400, 404, 405, 501:
			return true
		}
	}
	return false
}
