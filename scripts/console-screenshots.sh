#!/usr/bin/env bash
# The console's screenshots in docs/bookkeeping.md, taken from the real console: runs its browser test (a real Temporal
# dev server, worker, ingress and emulator, headless Chromium) with BOOKSYNC_SCREENSHOTS_DIR=docs/console, where
# every page it visits is saved.
#
#   bash scripts/console-screenshots.sh
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p docs/console
BOOKSYNC_SCREENSHOTS_DIR=docs/console bash scripts/with-node.sh npx vitest run test/console/console-browser.test.ts
ls docs/console  # docs/bookkeeping.md shows overview, sync-errors, receivables and close
