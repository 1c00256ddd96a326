#!/usr/bin/env bash
# Obtains real Temporal servers:
#   - the Temporal CLI (dev server with SQLite persistence and the Web UI): TEMPORAL_CLI_PATH, PATH, the cache,
#     the official release download where the internet is reachable, else a build from the Go module proxy
#     (decided in src/temporal/cli-source.ts, run through scripts/obtain-temporal-cli.ts);
#   - Temporal's Java time-skipping test server, resolved from Maven Central, with a loopback-only launcher
#     (TEMPORAL_TEST_SERVER_PATH, PATH, the cache, else a build).
# Idempotent; results are cached outside the repository (BOOKSYNC_CACHE, default ~/.cache/booksync).
# Prints the paths as shell assignments on stdout; progress goes to stderr.
#
#   eval "$(bash scripts/obtain-temporal.sh)"   # sets TEMPORAL_CLI_PATH and TEMPORAL_TEST_SERVER_PATH
#   bash scripts/obtain-temporal.sh --cli-only | --test-server-only
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${BOOKSYNC_CACHE:-$HOME/.cache/booksync}"
want_cli=1
want_ts=1
case "${1:-}" in
  --cli-only) want_ts=0 ;;
  --test-server-only) want_cli=0 ;;
  "") ;;
  *) echo "usage: $0 [--cli-only|--test-server-only]" >&2; exit 2 ;;
esac

say() { echo "[obtain-temporal] $*" >&2; }
die() { echo "[obtain-temporal] error: $*" >&2; exit 1; }

obtain_cli() {
  # One implementation of the CLI's order of preference (explicit path, PATH, cache, the release download
  # where the internet is reachable, a Go build where only the registries are): src/temporal/cli-source.ts.
  local tsx="$HERE/../node_modules/.bin/tsx"
  [[ -x "$tsx" ]] || die "node_modules/.bin/tsx is missing: run 'npm install' first"
  "$tsx" "$HERE/obtain-temporal-cli.ts" || exit 1
}

obtain_test_server() {
  if [[ -n "${TEMPORAL_TEST_SERVER_PATH:-}" ]]; then
    [[ -x "$TEMPORAL_TEST_SERVER_PATH" ]] || die "TEMPORAL_TEST_SERVER_PATH=$TEMPORAL_TEST_SERVER_PATH is not an executable file"
    echo "$TEMPORAL_TEST_SERVER_PATH"; return
  fi
  if command -v temporal-test-server >/dev/null 2>&1; then
    command -v temporal-test-server; return
  fi
  local version
  version="$(sed -n 's:.*<temporal.test.server.version>\(.*\)</temporal.test.server.version>.*:\1:p' "$HERE/temporal/pom.xml")"
  local dir="$CACHE/temporal-test-server-$version"
  local launcher="$dir/temporal-test-server"
  # The launcher source is part of the repo; rebuild when it changes.
  local stamp
  stamp="$(sha256sum "$HERE/temporal/LoopbackTestServer.java" | cut -c1-16)"
  if [[ -x "$launcher" && -f "$dir/classes/$stamp.stamp" ]]; then
    echo "$launcher"; return
  fi
  command -v mvn >/dev/null 2>&1 || die "no Java test server: set TEMPORAL_TEST_SERVER_PATH or install Maven and a JDK 17+"
  command -v javac >/dev/null 2>&1 || die "javac not found: a JDK 17+ is needed to build the test server launcher"
  say "resolving io.temporal:temporal-test-server:$version from Maven Central..."
  local started=$SECONDS
  mkdir -p "$dir"
  mvn -q -B -f "$HERE/temporal/pom.xml" dependency:copy-dependencies \
    -DoutputDirectory="$dir/lib" -DincludeScope=runtime >&2 || die "maven could not resolve the test server"
  rm -rf "$dir/classes" && mkdir -p "$dir/classes"
  javac -d "$dir/classes" -cp "$dir/lib/*" "$HERE/temporal/LoopbackTestServer.java" >&2
  touch "$dir/classes/$stamp.stamp"
  cat >"$launcher" <<EOF
#!/usr/bin/env sh
# Temporal's time-skipping test server on 127.0.0.1:<port>. Started by @temporalio/testing as an existing-path executable.
exec java \${TEMPORAL_TEST_SERVER_JAVA_OPTS:--Xss512k -XX:+UseSerialGC -XX:TieredStopAtLevel=1} -cp "$dir/classes:$dir/lib/*" LoopbackTestServer "\$@"
EOF
  chmod +x "$launcher"
  say "test server ready in $((SECONDS - started)) s: $launcher"
  echo "$launcher"
}

if [[ $want_cli == 1 ]]; then
  cli="$(obtain_cli)"
  "$cli" --version >/dev/null 2>&1 || die "$cli does not run"
  printf 'export TEMPORAL_CLI_PATH=%q\n' "$cli"
fi
if [[ $want_ts == 1 ]]; then
  ts="$(obtain_test_server)"
  printf 'export TEMPORAL_TEST_SERVER_PATH=%q\n' "$ts"
fi
