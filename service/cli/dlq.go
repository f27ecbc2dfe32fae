package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// dlqClient talks to the admin API.
type dlqClient struct {
	base string
	key  string
	http *http.Client
}

const dlqUsage = `usage: gobridge dlq [-admin URL] [-key KEY] <action> [args]

actions:
  list [-route R] [-category C] [-since T] [-until T] [-limit N] [-cursor C]
  show ID
  redrive ID                    send one entry through its route again
  redrive -route R [-category C] [-since T] [-until T] [-limit N]
  delete ID
  purge -route R [-category C] [-since T] [-until T] | purge -all

The admin URL defaults to $GOBRIDGE_ADMIN_URL or http://127.0.0.1:8081, the
key to $GOBRIDGE_ADMIN_KEY. Times are RFC 3339. Output is the API's JSON.
`

// cmdDLQ runs one DLQ action against the admin API.
func cmdDLQ(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("dlq", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, dlqUsage) }
	admin := fs.String("admin", envOr("GOBRIDGE_ADMIN_URL", "http://127.0.0.1:8081"), "admin API base URL")
	key := fs.String("key", os.Getenv("GOBRIDGE_ADMIN_KEY"), "admin API key")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	rest := fs.Args()
	if len(rest) == 0 {
		fs.Usage()
		return exitUsage
	}
	c := &dlqClient{base: strings.TrimRight(*admin, "/") + "/api/v1/admin/dlq", key: *key,
		http: &http.Client{Timeout: 60 * time.Second}}
	action, rest := rest[0], rest[1:]
	filters := flag.NewFlagSet("dlq "+action, flag.ContinueOnError)
	filters.SetOutput(stderr)
	route := filters.String("route", "", "route ID")
	category := filters.String("category", "", "DLQ category (max_retries, permanent, expired, ...)")
	since := filters.String("since", "", "oldest last failure (RFC 3339)")
	until := filters.String("until", "", "newest last failure (RFC 3339)")
	limit := filters.Int("limit", 0, "most entries")
	cursor := filters.String("cursor", "", "page cursor from a previous list")
	all := filters.Bool("all", false, "purge: every entry")
	if err := filters.Parse(rest); err != nil {
		return exitUsage
	}
	ids := filters.Args()
	filter := map[string]any{"route": *route, "category": *category, "since": *since, "until": *until}
	var (
		method, u string
		body      any
	)
	switch {
	case action == "list":
		q := url.Values{}
		for k, v := range map[string]string{"route": *route, "category": *category, "since": *since, "until": *until, "cursor": *cursor} {
			if v != "" {
				q.Set(k, v)
			}
		}
		if *limit > 0 {
			q.Set("limit", fmt.Sprint(*limit))
		}
		method, u = http.MethodGet, c.base+"?"+q.Encode()
	case action == "show" && len(ids) == 1:
		method, u = http.MethodGet, c.base+"/"+url.PathEscape(ids[0])
	case action == "delete" && len(ids) == 1:
		method, u = http.MethodDelete, c.base+"/"+url.PathEscape(ids[0])
	case action == "redrive" && len(ids) == 1:
		method, u = http.MethodPost, c.base+"/"+url.PathEscape(ids[0])+"/redrive"
	case action == "redrive" && len(ids) == 0 && *route != "":
		filter["limit"] = *limit
		method, u, body = http.MethodPost, c.base+"/redrive", filter
	case action == "purge" && len(ids) == 0 && (*route != "" || *category != "" || *all):
		if *all {
			filter = map[string]any{}
		}
		filter["confirm"] = true
		method, u, body = http.MethodPost, c.base+"/purge", filter
	default:
		fs.Usage()
		return exitUsage
	}
	status, out, err := c.do(ctx, method, u, body)
	if err != nil {
		fmt.Fprintf(stderr, "gobridge dlq %s: %v\n", action, err)
		return exitFailed
	}
	_, _ = stdout.Write(out)
	if status >= 300 {
		return exitFailed
	}
	return exitOK
}

// do sends one request and returns the status and the indented body.
func (c *dlqClient) do(ctx context.Context, method, u string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return 0, nil, err
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return resp.StatusCode, nil, err
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, raw, "", "  ") != nil {
		return resp.StatusCode, raw, nil
	}
	pretty.WriteByte('\n')
	return resp.StatusCode, pretty.Bytes(), nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
