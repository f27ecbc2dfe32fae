package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	miniserver "github.com/truora/minidyn/server"
)

// maxBody bounds a request body: DynamoDB's largest request (a 25-item
// BatchWriteItem of 400 KB items) is about 16 MB.
const maxBody = 16 << 20

// handler passes requests to minidyn and answers the TTL calls, which
// minidyn lacks, from its own record of each table's setting.
type handler struct {
	mini *miniserver.Server

	mu  sync.Mutex
	ttl map[string]ttlSpec
}

type ttlSpec struct {
	AttributeName string
	Enabled       bool
}

func newHandler() *handler {
	return &handler{mini: miniserver.NewServer(), ttl: map[string]ttlSpec{}}
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	target := r.Header.Get("X-Amz-Target")
	switch target[strings.LastIndex(target, ".")+1:] {
	case "UpdateTimeToLive":
		var in struct {
			TableName               string
			TimeToLiveSpecification ttlSpec
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"__type": "SerializationException", "message": err.Error()})
			return
		}
		h.mu.Lock()
		h.ttl[in.TableName] = in.TimeToLiveSpecification
		h.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"TimeToLiveSpecification": in.TimeToLiveSpecification})
	case "DescribeTimeToLive":
		var in struct{ TableName string }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"__type": "SerializationException", "message": err.Error()})
			return
		}
		h.mu.Lock()
		spec, ok := h.ttl[in.TableName]
		h.mu.Unlock()
		desc := map[string]any{"TimeToLiveStatus": "DISABLED"}
		if ok && spec.Enabled {
			desc = map[string]any{"TimeToLiveStatus": "ENABLED", "AttributeName": spec.AttributeName}
		}
		writeJSON(w, http.StatusOK, map[string]any{"TimeToLiveDescription": desc})
	default:
		h.mini.ServeHTTP(w, r)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
