//go:build tools

// Package tools pins Toxiproxy, Shopify's network-fault proxy that the project's own tests and
// bench/network-faults.ts put between the suite and a target; tools/install-toxiproxy.sh builds
// its server from this module (go.sum verifies it).
package tools

import _ "github.com/Shopify/toxiproxy/v2/cmd/server"
