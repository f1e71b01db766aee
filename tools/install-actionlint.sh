#!/usr/bin/env bash
# Finds or builds the pinned actionlint (the GitHub Actions workflow linter npm test runs over
# examples/*.yml) and prints its path on the last line of stdout.
#
#   bash tools/install-actionlint.sh
#
# Order: the cached build; else build the pinned release from its Go module (tools/actionlint/
# go.mod + go.sum, checksums verified, no cgo) into the cache, which outlives the checkout so CI
# builds it once per machine. .ci/run calls it beside the k6 build, before npm test, so the tests
# need no network.
set -euo pipefail
VERSION="v1.7.12"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache_root="${OCC_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/outbound-calling-conformance}"
cached="$cache_root/actionlint-$VERSION/actionlint"

if [ -x "$cached" ] && "$cached" -version 2>/dev/null | head -1 | grep -q "^${VERSION#v}$"; then
  echo "$cached"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  echo "install-actionlint: there is no Go toolchain to build actionlint $VERSION: install Go 1.25 or newer (https://go.dev/doc/install) and run 'bash tools/install-actionlint.sh'" >&2
  exit 3
fi
printf 'install-actionlint: building actionlint %s from its Go module (first time only)\n' "$VERSION" >&2
mkdir -p "$(dirname "$cached")"
tmp="$cached.tmp.$$"
if ! (cd "$here/actionlint" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath \
  -ldflags "-X github.com/rhysd/actionlint.version=${VERSION#v}" -o "$tmp" github.com/rhysd/actionlint/cmd/actionlint) >&2; then
  rm -f "$tmp"
  echo "install-actionlint: building actionlint $VERSION failed (see the Go output above): check that the Go module proxy is reachable (GOPROXY=$(go env GOPROXY))" >&2
  exit 3
fi
mv "$tmp" "$cached"
echo "$cached"
