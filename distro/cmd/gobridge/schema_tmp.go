package main

import "encoding/json"

// configSchema is temporary until config.Schema lands.
func configSchema(plugins map[string]map[string]json.RawMessage) ([]byte, error) {
	return json.MarshalIndent(plugins, "", "  ")
}
