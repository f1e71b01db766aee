//go:build tools

// Package k6build pins the k6 release the load probes run on; load/install-k6.sh builds it.
package k6build

import _ "go.k6.io/k6/v2"
