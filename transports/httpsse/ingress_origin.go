package httpsse

import (
	"mime"
	"net/http"
	"slices"
	"strings"
)

// Browsers send a POST with one of these media types (or none) to any
// origin without asking first (no CORS preflight): the types an HTML
// form can post. They are what a cross-site request forgery uses.
var formMediaTypes = []string{"application/x-www-form-urlencoded", "multipart/form-data", "text/plain"}

// formContentType reports whether a browser could send a request with
// Content-Type ct without a preflight: a missing or malformed header, or
// a form media type.
func formContentType(ct string) bool {
	if strings.TrimSpace(ct) == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err != nil || slices.Contains(formMediaTypes, mt)
}

// originAllowed reports whether allow_origins lists origin (or "*").
func (r *Receiver) originAllowed(origin string) bool {
	return origin != "" && slices.ContainsFunc(r.cfg.AllowOrigins, func(o string) bool {
		return o == "*" || o == origin
	})
}

// admitBrowser decides on a request a browser sent, and says why when it
// refuses it. Browsers mark their requests with Origin (every cross-origin
// POST carries it) or Sec-Fetch-Site; a request with neither is not from
// a web page and is left to the bearer keys.
//
// An origin listed in allow_origins is admitted, with the CORS header
// that lets its page read the answer. Any other browser request is
// refused when it comes from another origin (a page of another site
// posting here), and, when the ingress has no bearer keys, also when its
// Content-Type is one a form can send: such a request needs no preflight,
// so nothing else stops a page from making it.
func (r *Receiver) admitBrowser(w http.ResponseWriter, req *http.Request) (string, bool) {
	origin := req.Header.Get("Origin")
	site := req.Header.Get("Sec-Fetch-Site")
	if origin == "" && site == "" {
		return "", true
	}
	if r.originAllowed(origin) {
		r.allowCORS(w, origin)
		return "", true
	}
	if origin != "" && !sameOrigin(origin, req) {
		return "cross-origin request refused; list the page's origin in allow_origins", false
	}
	if origin == "" && (site == "cross-site" || site == "same-site") {
		return "cross-site request refused; list the page's origin in allow_origins", false
	}
	if !r.keys.enabled() && formContentType(req.Header.Get("Content-Type")) {
		return "a browser may not post a form content type to an ingress without bearer_keys; list the page's origin in allow_origins", false
	}
	return "", true
}

// allowCORS sets the headers that let a page of an allowed origin read
// the answer.
func (r *Receiver) allowCORS(w http.ResponseWriter, origin string) {
	h := w.Header()
	if slices.Contains(r.cfg.AllowOrigins, "*") {
		h.Set("Access-Control-Allow-Origin", "*")
		return
	}
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
}

// preflight answers a CORS preflight for a POST: 204 with the allowed
// method and the request headers asked for when the origin is listed in
// allow_origins, else 403, so the browser never sends the POST.
func (r *Receiver) preflight(w http.ResponseWriter, req *http.Request) {
	origin := req.Header.Get("Origin")
	if !r.originAllowed(origin) {
		w.WriteHeader(http.StatusForbidden)
		return
	}
	r.allowCORS(w, origin)
	h := w.Header()
	h.Set("Access-Control-Allow-Methods", "POST")
	if asked := req.Header.Get("Access-Control-Request-Headers"); asked != "" && validHeaderValue(asked) {
		h.Set("Access-Control-Allow-Headers", asked)
	}
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
}
