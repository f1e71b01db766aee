#!/usr/bin/env bash
# Finds or builds the pinned Toxiproxy server (Shopify's network-fault proxy, which the project's
# own tests and bench/network-faults.ts put between the suite and a target) and prints its path
# on the last line of stdout.
#
#   bash tools/install-toxiproxy.sh [--cached]
#
# --cached only looks: it never builds, so a test that needs the binary fails at once with one line
# naming the command to run, and makes no network request.
#
# Order: the cached build; else build the pinned release from its Go module (tools/toxiproxy/
# go.mod + go.sum, checksums verified, no cgo) into the cache, which outlives the checkout so CI
# builds it once per machine. .ci/run calls it beside the actionlint build, before npm test, so the
# tests need no network.
set -euo pipefail
VERSION="v2.12.0"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache_root="${OCC_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/outbound-calling-conformance}"
cached="$cache_root/toxiproxy-$VERSION/toxiproxy-server"

if [ -x "$cached" ] && "$cached" -version 2>/dev/null | head -1 | grep -q " ${VERSION#v}$"; then
  echo "$cached"
  exit 0
fi
if [ "${1:-}" = "--cached" ]; then
  echo "install-toxiproxy: toxiproxy-server $VERSION is not built in $cache_root: run 'bash tools/install-toxiproxy.sh' (.ci/run does, before npm test)" >&2
  exit 3
fi
if ! command -v go >/dev/null 2>&1; then
  echo "install-toxiproxy: there is no Go toolchain to build toxiproxy-server $VERSION: install Go 1.25 or newer (https://go.dev/doc/install) and run 'bash tools/install-toxiproxy.sh'" >&2
  exit 3
fi
printf 'install-toxiproxy: building toxiproxy-server %s from its Go module (first time only)\n' "$VERSION" >&2
mkdir -p "$(dirname "$cached")"
tmp="$cached.tmp.$$"
if ! (cd "$here/toxiproxy" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath \
  -ldflags "-X github.com/Shopify/toxiproxy/v2.Version=${VERSION#v}" -o "$tmp" github.com/Shopify/toxiproxy/v2/cmd/server) >&2; then
  rm -f "$tmp"
  echo "install-toxiproxy: building toxiproxy-server $VERSION failed (see the Go output above): check that the Go module proxy is reachable (GOPROXY=$(go env GOPROXY))" >&2
  exit 3
fi
mv "$tmp" "$cached"
echo "$cached"
