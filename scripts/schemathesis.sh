#!/usr/bin/env bash
# Runs schemathesis (PyPI) against the emulator's OpenAPI document.
#
#   scripts/schemathesis.sh --install-only
#   scripts/schemathesis.sh <base-url> <api-key> [max-examples]
#
# Installs schemathesis into a venv under ~/.cache/booksync/schemathesis the first time (pip, PyPI).
# Checks: not_a_server_error and response_schema_conformance; max examples per operation bounded
# (default 20) so a run finishes in minutes. Exit status: schemathesis's (0 = no failure found).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${SCHEMATHESIS_VENV:-$HOME/.cache/booksync/schemathesis}"
st="$venv/bin/st"

if [[ ! -x "$st" ]]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check schemathesis
fi
if [[ "${1:-}" == "--install-only" ]]; then
  "$st" --version
  exit 0
fi

base_url="${1:?base URL of the emulator}"
api_key="${2:?API key of a seeded organization}"
max_examples="${3:-20}"
schema="$root/docs/openapi.json"

version="$("$st" --version | grep -oE '[0-9]+\.[0-9]+' | head -1)"
major="${version%%.*}"
common=(
  "$schema"
  --url "$base_url"
  --header "Authorization: Bearer $api_key"
  --checks not_a_server_error,response_schema_conformance
)
# Reproducible runs: a fixed seed, no example database left behind in the working folder.
if [[ "$major" -ge 4 ]]; then
  exec "$st" run "${common[@]}" --max-examples "$max_examples" --seed 20260504 \
    --generation-database none --phases examples,fuzzing --workers 1
else
  exec "$st" run "${common[@]}" --hypothesis-max-examples "$max_examples" --hypothesis-seed 20260504 \
    --hypothesis-database none --workers 1
fi
