#!/usr/bin/env bash
# Obtains a pinned Tryton (trytond 8.2 with the accounting modules booksync pushes to) into a Python virtualenv
# from PyPI, cached outside the repository (BOOKSYNC_CACHE, default ~/.cache/booksync). Idempotent: a
# virtualenv whose stamp matches the pinned requirements is reused. PostgreSQL comes from Debian
# (`apt-get install postgresql`); Tryton is never run on SQLite here (its SQLite backend accepts unbalanced
# moves). Prints TRYTON_VENV=... on stdout; progress goes to stderr.
#
#   eval "$(bash scripts/obtain-tryton.sh)"
set -euo pipefail

CACHE="${BOOKSYNC_CACHE:-$HOME/.cache/booksync}"
REQUIREMENTS=(
  'trytond==8.2.1'
  'trytond_account==8.2.*'
  'trytond_account_invoice==8.2.*'
  'trytond_party==8.2.*'
  'trytond_company==8.2.*'
  'trytond_currency==8.2.*'
  'psycopg[binary]>=3.1,<4'
  'psycopg_pool>=3.2,<4'
)
say() { echo "[obtain-tryton] $*" >&2; }

if [[ -n "${TRYTON_VENV:-}" ]]; then
  [[ -x "$TRYTON_VENV/bin/trytond" ]] || { say "error: TRYTON_VENV=$TRYTON_VENV has no bin/trytond"; exit 1; }
  echo "TRYTON_VENV=$TRYTON_VENV"; exit 0
fi
stamp="$(printf '%s\n' "${REQUIREMENTS[@]}" | sha256sum | cut -c1-12)"
venv="$CACHE/tryton-8.2-$stamp"
if [[ -x "$venv/bin/trytond" && -f "$venv/.complete" ]]; then
  echo "TRYTON_VENV=$venv"; exit 0
fi
command -v python3 >/dev/null 2>&1 || { say "error: python3 is needed (3.9 or newer)"; exit 1; }
started=$SECONDS
say "creating a virtualenv for Tryton 8.2 in $venv (from PyPI, once)..."
rm -rf "$venv"
mkdir -p "$CACHE"
python3 -m venv "$venv"
"$venv/bin/pip" install --disable-pip-version-check --progress-bar off "${REQUIREMENTS[@]}" 2>&1 \
  | awk '/^(Collecting|Successfully installed)/ { print "[obtain-tryton]   " $0 > "/dev/stderr" }'
[[ -x "$venv/bin/trytond" ]] || { say "error: pip did not install trytond (see above)"; exit 1; }
touch "$venv/.complete"
say "Tryton ready in $((SECONDS - started)) s: $venv"
echo "TRYTON_VENV=$venv"
