package httpsse

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gobridge-oss/gobridge/core/fault"
)

// classifyStatus turns a webhook answer into a send result: nil for 2xx;
// transient for 408 (TIMEOUT), 429 (THROTTLED), 502, 503, 504
// (UNAVAILABLE) and other 5xx (INTERNAL), carrying the Retry-After hint;
// permanent for everything else: 401 NOT_AUTHORIZED, 403 FORBIDDEN, 404
// and 410 NOT_FOUND, 409 ALREADY_EXISTS, any other status (redirects
// included, which are not followed) PROTOCOL_ERROR.
func classifyStatus(code int, h http.Header, now time.Time, maxWait time.Duration) error {
	if code >= 200 && code < 300 {
		return nil
	}
	msg := fmt.Sprintf("webhook answered %d %s", code, http.StatusText(code))
	var e *fault.BridgeError
	switch {
	case code == http.StatusRequestTimeout:
		e = fault.ErrTimeout
	case code == http.StatusTooManyRequests:
		e = fault.ErrThrottled
	case code == http.StatusBadGateway, code == http.StatusServiceUnavailable, code == http.StatusGatewayTimeout:
		e = fault.ErrUnavailable
	case code >= 500:
		e = fault.ErrInternal
	case code == http.StatusUnauthorized:
		e = fault.ErrNotAuthorized
	case code == http.StatusForbidden:
		e = fault.ErrForbidden
	case code == http.StatusNotFound, code == http.StatusGone:
		e = fault.ErrNotFound
	case code == http.StatusConflict:
		e = fault.ErrAlreadyExists
	case code >= 300 && code < 400:
		e = fault.ErrProtocolError
		msg += " (redirects are not followed; configure the final URL)"
	default:
		e = fault.ErrProtocolError
	}
	e = e.WithMessage(msg).With("status", code)
	if fault.IsRecoverable(e) {
		if d, ok := parseRetryAfter(h.Get("Retry-After"), now); ok {
			e = e.WithRetryAfter(min(d, maxWait))
		}
	}
	return e
}

// parseRetryAfter reads a Retry-After value: delay seconds or an HTTP
// date. A date in the past means no wait.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		if n > int64(24*time.Hour/time.Second) {
			n = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(n) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}

// classifyTransport turns a failed request into a transient error that
// names no more of the URL than scheme and host. ctx is the send's own
// context: when it ended, the request was cancelled rather than failed.
func classifyTransport(ctx context.Context, target *url.URL, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // url.Error would repeat the full URL
	}
	where := target.Scheme + "://" + target.Host
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fault.ErrTimeout.WithMessage("webhook " + where + " did not answer in time").Wrap(err)
	case ctx.Err() != nil:
		return fault.ErrUnavailable.WithMessage("webhook send to " + where + " cancelled").Wrap(err)
	default:
		return fault.ErrConnectionLost.WithMessage("webhook " + where + " unreachable").Wrap(err)
	}
}
