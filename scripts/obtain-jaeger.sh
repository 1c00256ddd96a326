#!/usr/bin/env bash
# Obtains Jaeger (v2, built on the OpenTelemetry Collector: an OTLP receiver and a trace store with a query
# API), for the test that exports booksync's traces to a real OTLP receiver
# (test/telemetry/trace-end-to-end.test.ts). Built from the Go module proxy: the module
# github.com/jaegertracing/jaeger@v1.76.0 is Jaeger v2.13.0. Its go.mod has a replace directive (sarama), which
# `go install module@version` refuses, so the module's source is downloaded (`go mod download`) and
# `go build ./cmd/jaeger` runs inside it, where the replace applies, as Jaeger's own release build does.
# Idempotent; cached outside the repository like the Temporal binaries (BOOKSYNC_CACHE, default
# ~/.cache/booksync) in jaeger-<module version>/. Needs Go 1.24+ the first time; about 11 minutes on two busy
# cores with Go's caches empty. Prints `export JAEGER_PATH=...` on stdout; progress goes to stderr.
#
#   eval "$(bash scripts/obtain-jaeger.sh)"
set -euo pipefail

CACHE="${BOOKSYNC_CACHE:-$HOME/.cache/booksync}"
VERSION="${JAEGER_MODULE_VERSION:-v1.76.0}"
MODULE=github.com/jaegertracing/jaeger
DIR="$CACHE/jaeger-$VERSION"
BIN="$DIR/jaeger"

say() { echo "[obtain-jaeger] $*" >&2; }
die() { echo "[obtain-jaeger] error: $*" >&2; exit 1; }

if [[ -x "$BIN" ]]; then
  printf 'export JAEGER_PATH=%q\n' "$BIN"
  exit 0
fi
command -v go >/dev/null 2>&1 || die "go not found: Jaeger is built with Go 1.24+ (https://go.dev/dl/)"
started=$SECONDS
mkdir -p "$DIR"
say "downloading $MODULE@$VERSION from the Go module proxy..."
src="$(go mod download -json "$MODULE@$VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
[[ -d "$src" ]] || die "go mod download did not give the module's directory"
say "building ./cmd/jaeger in $src (several minutes the first time)..."
tmp="$DIR/.jaeger.$$"
(cd "$src" && GOFLAGS=-mod=mod go build -trimpath -ldflags '-s -w' -o "$tmp" ./cmd/jaeger) >&2 &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
  sleep 15
  kill -0 "$pid" 2>/dev/null && say "  still building ($((SECONDS - started)) s)"
done
wait "$pid" || { rm -f "$tmp"; die "the build failed (see above)"; }
mv "$tmp" "$BIN"
say "built $BIN in $((SECONDS - started)) s"
printf 'export JAEGER_PATH=%q\n' "$BIN"
