//go:build tools

// Package tools pins actionlint, the GitHub Actions workflow linter that npm test runs over
// examples/*.yml; tools/install-actionlint.sh builds it from this module (go.sum verifies it).
package tools

import _ "github.com/rhysd/actionlint/cmd/actionlint"
