#!/usr/bin/env bash
# Finds or builds the pinned k6 and prints its path on the last line of stdout.
#
#   bash load/install-k6.sh          # or: npm run k6:install
#
# Order: a k6 on PATH at the pinned major is used as it is; else the cached build; else build
# the pinned release from its Go module (load/k6-build/go.mod + go.sum, checksums verified, no
# cgo) into the cache, which outlives the checkout so CI builds it once per machine.
set -euo pipefail
K6_VERSION="v2.2.0"
K6_MAJOR="v2"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache_root="${OCC_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/outbound-calling-conformance}"
cached="$cache_root/k6-$K6_VERSION/k6"

say() { printf 'install-k6: %s\n' "$*" >&2; }

if command -v k6 >/dev/null 2>&1; then
  found="$(command -v k6)"
  if "$found" version 2>/dev/null | grep -q "^k6 $K6_MAJOR\."; then
    say "using $("$found" version | head -1) from PATH"
    echo "$found"
    exit 0
  fi
  say "ignoring $found: not k6 $K6_MAJOR.x"
fi

if [ -x "$cached" ] && "$cached" version 2>/dev/null | grep -q "^k6 $K6_VERSION"; then
  echo "$cached"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  echo "install-k6: k6 $K6_MAJOR is not on PATH and there is no Go toolchain to build it: install Go 1.25 or newer (https://go.dev/doc/install) and run 'npm run k6:install', or put k6 $K6_MAJOR.x on PATH" >&2
  exit 3
fi
go_minor="$(go env GOVERSION | sed -E 's/^go1\.([0-9]+).*/\1/')"
if [ "${go_minor:-0}" -lt 25 ]; then
  echo "install-k6: k6 $K6_VERSION needs Go 1.25 or newer, found $(go env GOVERSION): upgrade Go, or put k6 $K6_MAJOR.x on PATH" >&2
  exit 3
fi

say "building k6 $K6_VERSION from its Go module (first time only, about 2 minutes on 2 cores)"
mkdir -p "$(dirname "$cached")"
tmp="$cached.tmp.$$"
# The proxy's version list is not needed: go.mod pins the version and go.sum verifies it.
if ! (cd "$here/k6-build" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -o "$tmp" go.k6.io/k6/v2) >&2; then
  rm -f "$tmp"
  echo "install-k6: building k6 $K6_VERSION failed (see the Go output above): check that the Go module proxy is reachable (GOPROXY=$(go env GOPROXY))" >&2
  exit 3
fi
mv "$tmp" "$cached"
say "built $("$cached" version | head -1) at $cached"
echo "$cached"
