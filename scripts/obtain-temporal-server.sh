#!/usr/bin/env bash
# Obtains a real Temporal server (not the dev server) to run on PostgreSQL, built from the Go module proxy:
#   - the server, `go install go.temporal.io/server/cmd/server@<version>` (installed as temporal-server);
#   - its SQL schema tool, `go install go.temporal.io/server/cmd/tools/sql@<version>` (temporal-sql-tool);
#   - the schema files the tool applies (schema/postgresql/v12/...), copied from the module's source in the
#     Go module cache (`go mod download -json` names its directory).
# The module's go.mod has no replace directive, so `go install module@version` builds it as released.
# Idempotent; cached outside the repository like the Temporal CLI (BOOKSYNC_CACHE, default
# ~/.cache/booksync) in temporal-server-<version>/. Needs Go 1.25+ (the module's go directive) the first time.
# Measured on two busy cores: about 9 min with Go's build cache empty, 4 min with it warm from the Temporal
# CLI's build (the server's dependency versions differ from the CLI's), 20 s with it warm from this build.
# Prints the paths as shell assignments on stdout; progress goes to stderr.
#
#   eval "$(bash scripts/obtain-temporal-server.sh)"
#     # sets TEMPORAL_SERVER_PATH, TEMPORAL_SQL_TOOL_PATH and TEMPORAL_SERVER_SCHEMA_DIR
#
# TEMPORAL_SERVER_VERSION overrides the pinned version (v1.29.1, the newest v1.29 patch).
set -euo pipefail

CACHE="${BOOKSYNC_CACHE:-$HOME/.cache/booksync}"
VERSION="${TEMPORAL_SERVER_VERSION:-v1.29.1}"
MODULE=go.temporal.io/server
DIR="$CACHE/temporal-server-$VERSION"
SERVER="$DIR/temporal-server"
SQL_TOOL="$DIR/temporal-sql-tool"
SCHEMA="$DIR/schema"

say() { echo "[obtain-temporal-server] $*" >&2; }
die() { echo "[obtain-temporal-server] error: $*" >&2; exit 1; }

emit() {
  printf 'export TEMPORAL_SERVER_PATH=%q TEMPORAL_SQL_TOOL_PATH=%q TEMPORAL_SERVER_SCHEMA_DIR=%q\n' \
    "$SERVER" "$SQL_TOOL" "$SCHEMA"
}

cached() {
  [[ -x "$SERVER" && -x "$SQL_TOOL" && -f "$SCHEMA/postgresql/v12/temporal/schema.sql" \
    && -f "$SCHEMA/postgresql/v12/visibility/schema.sql" ]]
}

if cached; then
  emit
  exit 0
fi

command -v go >/dev/null 2>&1 || die "go not found: the Temporal server is built with 'go install' (Go 1.25+, https://go.dev/dl/)"
started=$SECONDS
mkdir -p "$DIR"
work="$(mktemp -d "$DIR/.build-XXXXXX")"
trap 'rm -rf "$work"' EXIT

# `go install -v` names each package as it compiles (on stderr), `go: downloading` each module. Both go to a
# log read by the loop below, which reports every 25 modules and 100 packages, and at least every 10 s a
# "still building" line with the last package compiled. Anything else (errors) is shown if the build fails.
go_install() { # <what> <package>
  local what="$1" pkg="$2" log="$work/$1.log" code=0
  say "building the $what ($pkg@$VERSION) with 'go install' from the Go module proxy..."
  : >"$log"
  GOBIN="$work" GOFLAGS="${GOFLAGS:--trimpath}" go install -v -ldflags '-s -w' "$pkg@$VERSION" >>"$log" 2>&1 &
  local pid=$! seen=0 downloads=0 packages=0 last=$SECONDS current="" line total finished
  while :; do
    finished=0
    kill -0 "$pid" 2>/dev/null || finished=1
    total=$(wc -l <"$log")
    if ((total > seen)); then
      while IFS= read -r line; do
        if [[ $line == "go: downloading "* ]]; then
          downloads=$((downloads + 1))
          if ((downloads % 25 == 0)); then
            say "  downloaded $downloads modules ($((SECONDS - started)) s)"; last=$SECONDS
          fi
        elif [[ $line =~ ^[A-Za-z0-9._~+-]+(/[A-Za-z0-9._~+-]+)*$ ]]; then
          packages=$((packages + 1)) current=$line
          if ((packages % 100 == 0)); then
            say "  compiled $packages packages ($((SECONDS - started)) s), now $line"; last=$SECONDS
          fi
        fi
      done < <(sed -n "$((seen + 1)),${total}p" "$log")
      seen=$total
    fi
    ((finished)) && break
    if ((SECONDS - last >= 10)); then
      say "  still building the $what... ($((SECONDS - started)) s, $downloads modules downloaded, $packages packages compiled${current:+, last $current})"
      last=$SECONDS
    fi
    sleep 1
  done
  wait "$pid" || code=$?
  if ((code != 0)); then
    grep -v -E '^go: downloading |^[A-Za-z0-9._~+-]+(/[A-Za-z0-9._~+-]+)*$' "$log" | tail -n 30 >&2 || true
    die "go install $pkg@$VERSION exited with code $code (see above)"
  fi
  say "  the $what is built ($((SECONDS - started)) s, $packages packages compiled)"
}

go_install "Temporal server" "$MODULE/cmd/server"
go_install "SQL schema tool" "$MODULE/cmd/tools/sql"
[[ -x "$work/server" && -x "$work/sql" ]] || die "go install left no server or sql binary in $work"

# The schema files are not in the binaries: take them from the module's source, which `go install` has just
# put in the module cache.
moddir="$(cd "$work" && go mod download -json "$MODULE@$VERSION" \
  | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
[[ -n "$moddir" && -d "$moddir/schema/postgresql/v12" ]] \
  || die "no schema/postgresql/v12 in the module source ($moddir)"
mkdir -p "$work/schema"
cp -R "$moddir/schema/postgresql" "$work/schema/"
chmod -R u+w "$work/schema"

rm -rf "$SCHEMA"
mv "$work/schema" "$SCHEMA"
mv "$work/sql" "$SQL_TOOL"
mv "$work/server" "$SERVER"
"$SERVER" --help >/dev/null 2>&1 || die "$SERVER does not run"
say "Temporal server $VERSION ready in $((SECONDS - started)) s: $DIR"
emit
