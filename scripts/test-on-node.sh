#!/usr/bin/env bash
# Runs booksync's unit tier (`vitest run --project unit`: in-process tests, no server, no child process) on
# another Node.js line than the one the main suite runs on. better-sqlite3 13 loads one Node-API build on every
# line, so the same node_modules serve. Writes the vitest JSON report to $REPORT
# (default test/.artifacts/vitest-report-node<major>.json).
#
#   bash scripts/test-on-node.sh 22 [vitest arguments, instead of --project unit]
set -euo pipefail
cd "$(dirname "$0")/.."
MAJOR="${1:-22}"
REPORT="${REPORT:-$PWD/test/.artifacts/vitest-report-node$MAJOR.json}"
SELECTION=(--project unit)
if (($# > 1)); then SELECTION=("${@:2}"); fi

eval "$(bash scripts/obtain-node.sh "$MAJOR")"
export PATH="$NODE_HOME/bin:$PATH"
echo "[node $MAJOR] $(node --version) from $NODE_HOME" >&2
mkdir -p "$(dirname "$REPORT")"
CI=true exec node_modules/.bin/vitest run "${SELECTION[@]}" --reporter=default --reporter=json --outputFile.json="$REPORT"
