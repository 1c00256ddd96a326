#!/usr/bin/env bash
# Runs a command on a Node.js that booksync supports (22 or newer). The `node` on PATH when it is one;
# otherwise (a machine with Node 20, which reached its end of life in April 2026) Node 24 from the npm
# registry, obtained once by scripts/obtain-node.sh and cached. npm's start, test and bench scripts go
# through here, so `npm start` and `npm test` work the same on either kind of machine.
#
#   bash scripts/with-node.sh vitest run
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
MINIMUM=22
major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if ((major < MINIMUM)); then
  eval "$(bash "$here/obtain-node.sh" 24)"
  echo "[booksync] node $(node --version 2>/dev/null || echo 'not found') is older than booksync needs ($MINIMUM+): using $("$NODE_HOME/bin/node" --version) from $NODE_HOME" >&2
  export PATH="$NODE_HOME/bin:$PATH"
fi
# npm puts node_modules/.bin on PATH for its scripts; run from elsewhere, find the project's own tools.
export PATH="$PATH:$(cd "$here/.." && pwd)/node_modules/.bin"
exec "$@"
