package httpapi

import (
	"net/http"
	"strings"

	"github.com/gobridge-oss/gobridge/core/httpapi/console"
)

// withConsole serves the operator console under /console on the admin
// listener and passes every other request to api. The console's files
// are public (they hold no data); the API calls the page makes carry the
// admin key like any other client's.
func withConsole(api http.Handler) http.Handler {
	ui := console.Handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/console" || strings.HasPrefix(r.URL.Path, console.Prefix) {
			ui.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})
}
