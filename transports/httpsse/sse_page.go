package httpsse

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html/template"
	"net/http"
	"strings"
)

// The demo page is a static document: the sender's subscription path and
// default channel travel in data attributes, so the script and the style
// never change and the Content-Security-Policy can allow exactly them by
// their digests, and nothing else (no other script, no other server).
const (
	demoPageScript = `
const q = new URLSearchParams(location.search);
const cfg = document.body.dataset;
const channel = q.get('channel') || cfg.channel;
const status = document.getElementById('status');
const list = document.getElementById('events');
const setStatus = (state, text) => { status.dataset.state = state; status.textContent = text; };
const show = (cls, parts) => {
  const li = document.createElement('li');
  li.className = cls;
  for (const [tag, text] of parts) {
    const el = document.createElement(tag);
    el.textContent = text;
    li.append(el, ' ');
  }
  list.prepend(li);
};
document.getElementById('channel').value = channel || '';
if (q.has('access_token')) {
  const key = document.createElement('input');
  key.type = 'hidden'; key.name = 'access_token'; key.value = q.get('access_token');
  document.getElementById('pick').append(key);
}
if (channel) {
  const sub = new URLSearchParams({channel: channel});
  if (q.has('access_token')) sub.set('access_token', q.get('access_token'));
  setStatus('connecting', 'connecting to ' + channel + '…');
  const es = new EventSource(cfg.path + '?' + sub);
  es.onopen = () => setStatus('open', 'subscribed to ' + channel);
  es.onerror = () => setStatus(es.readyState === EventSource.CLOSED ? 'closed' : 'connecting',
    es.readyState === EventSource.CLOSED ? 'refused: check the channel (and the key)' : 'reconnecting…');
  es.onmessage = (e) => {
    let env;
    try { env = JSON.parse(e.data); } catch { env = {payload: e.data}; }
    const body = 'payload_base64' in env ? 'base64:' + env.payload_base64 : JSON.stringify(env.payload ?? null);
    show('event', [['b', '#' + e.lastEventId], ['span', env.subject || ''], ['code', body]]);
  };
  es.addEventListener('gobridge.gap', (e) => show('gap', [['b', 'gap'], ['code', e.data]]));
}
`
	demoPageStyle = `
body { font: 15px/1.4 system-ui, sans-serif; margin: 2em auto; max-width: 60em; padding: 0 1em; }
#status[data-state=open] { color: #075; } #status[data-state=closed] { color: #a00; }
ol { padding: 0; list-style: none; } li { border-bottom: 1px solid #ddd; padding: .3em 0; }
li.gap { color: #a60; } code { white-space: pre-wrap; word-break: break-all; }
`
)

// demoPageTemplate is the page; html/template escapes the two values the
// configuration supplies.
var demoPageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en">
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>gobridge: server-sent events</title>
<style>{{.Style}}</style>
<body data-path="{{.Path}}" data-channel="{{.Channel}}">
<h1>gobridge: server-sent events</h1>
<form id="pick" method="get"><label>channel <input id="channel" name="channel" required></label> <button>subscribe</button></form>
<p id="status" data-state="idle">pick a channel</p>
<ol id="events"></ol>
<script>{{.Script}}</script>
</body>
</html>
`))

// demoPage is the rendered page and the headers it is served with.
type demoPage struct {
	body []byte
	csp  string
}

// newDemoPage renders the page for cfg's subscription path and default
// channel.
func newDemoPage(cfg SSEConfig) (demoPage, error) {
	var buf bytes.Buffer
	err := demoPageTemplate.Execute(&buf, struct {
		Path, Channel string
		Style         template.CSS
		Script        template.JS
	}{cfg.Path, cfg.DefaultChannel, template.CSS(demoPageStyle), template.JS(demoPageScript)})
	if err != nil {
		return demoPage{}, fmt.Errorf("render the demo page: %w", err)
	}
	digest := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	return demoPage{
		body: buf.Bytes(),
		csp: "default-src 'none'; script-src " + digest(demoPageScript) + "; style-src " + digest(demoPageStyle) +
			"; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
	}, nil
}

// ServeHTTP writes the page. It needs no key: the page holds nothing but
// the subscription path, and subscribing still asks for one.
func (p demoPage) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", p.csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache")
	_, _ = w.Write(p.body)
}

// demoPagePattern is the ServeMux pattern that matches the page's path
// and nothing below it.
func demoPagePattern(p string) string {
	if strings.HasSuffix(p, "/") {
		return "GET " + p + "{$}"
	}
	return "GET " + p
}

// validateDemoPage adds the problems of demo_page to ps: a plain path
// without wildcards that does not end with / (except / itself) and is not
// the subscription path or below it.
func (c SSEConfig) validateDemoPage(ps *problems) {
	p := c.DemoPage
	if p == "" {
		return
	}
	if err := checkPath(p, ""); err != nil {
		ps.add("demo_page", "%v", err)
		return
	}
	switch {
	case p != "/" && strings.HasSuffix(p, "/"):
		ps.add("demo_page", "%q must not end with / (only / itself may)", p)
	case p == c.Path || strings.HasPrefix(p, c.Path+"/"):
		ps.add("demo_page", "%q is taken by the subscription path %q", p, c.Path)
	}
}
