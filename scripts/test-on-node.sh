#!/usr/bin/env bash
# Runs booksync's unit suite (the servers it needs are started by the tests themselves: Temporal's, and a
# throwaway PostgreSQL for the ledger's second store; the ledger, the service contract, the emulator, the
# ingress, the command API, the workflows, the worker's bundle) on another
# Node.js line than the one the main suite runs on. better-sqlite3 13 loads one Node-API build on every
# line, so the same node_modules serve. Writes the vitest JSON report to $REPORT
# (default test/.artifacts/vitest-report-node<major>.json).
#
#   bash scripts/test-on-node.sh 22 [test files, instead of the unit suite]
set -euo pipefail
cd "$(dirname "$0")/.."
MAJOR="${1:-22}"
REPORT="${REPORT:-$PWD/test/.artifacts/vitest-report-node$MAJOR.json}"
UNIT_SUITE=(
  test/ledger/*.test.ts test/targets/ledger-mirror.test.ts
  test/targets/quickbooks/ test/targets/xero/xero-target.test.ts
  test/service/ test/emulator/ test/ingress/ test/command-api/ test/worker/ test/workflows/
  test/temporal/cli-source.test.ts test/config/
)
# Of the Xero adapter's folder, one file: the others wait out the double's rate limits (140 s of the 424 s this
# run took in CI) and test booksync's Xero mapping, which does not depend on the Node line; xero-target.test.ts
# runs the Xero SDK and the OAuth flow on this line.
# test/workflows/ also holds flow tests against the emulator and the ledger (bill payment, check deposit, payment
# link, reconciliation) that the unit suite has never run: left out, as they were before the move.
# Of the QuickBooks folder, check-deposits.test.ts is left out too: 38 s of the 175 s this run took in CI, booksync's
# own QuickBooks mapping against the double (no Node-line-dependent part the folder's other files do not run).
NOT_UNIT=(
  --exclude test/workflows/bill-payment.test.ts --exclude test/workflows/check-deposit.test.ts
  --exclude test/workflows/payment-link.test.ts --exclude test/workflows/reconciliation.test.ts
  --exclude test/targets/quickbooks/check-deposits.test.ts
)
if (($# > 1)); then UNIT_SUITE=("${@:2}"); NOT_UNIT=(); fi

eval "$(bash scripts/obtain-node.sh "$MAJOR")"
export PATH="$NODE_HOME/bin:$PATH"
echo "[node $MAJOR] $(node --version) from $NODE_HOME" >&2
mkdir -p "$(dirname "$REPORT")"
CI=true exec node_modules/.bin/vitest run "${UNIT_SUITE[@]}" "${NOT_UNIT[@]}" --reporter=default --reporter=json --outputFile.json="$REPORT"
