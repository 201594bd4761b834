#!/usr/bin/env bash
# Runs a command with the Docker image's Node first on PATH, so that CI and `npm run verify:image`
# prove the code on the Node that ships rather than on the machine's own:
#   bash scripts/with-image-node.sh npm test
# The version is read from the Dockerfile's NODE_IMAGE (one place to bump it). The binary comes from
# the npm registry's node-linux-<arch> package (npm checks its integrity), and is kept outside the
# clone in $NODE_CACHE_DIR (default ~/.cache/campaign-service), so later runs reuse it offline.
# Everything started under the command (npm, vitest's forked workers, spawned servers) finds this
# node first: npm's own script runs on `#!/usr/bin/env node`, the workers on process.execPath.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)

[ "$#" -gt 0 ] || { echo "usage: $0 <command> [args...]" >&2; exit 2; }

VERSION=$(sed -nE 's/^ARG NODE_IMAGE=node:([0-9]+\.[0-9]+\.[0-9]+)-.*/\1/p' "$ROOT/Dockerfile")
[ -n "$VERSION" ] || { echo "with-image-node: no exact ARG NODE_IMAGE=node:X.Y.Z-... in the Dockerfile" >&2; exit 1; }

case "$(uname -m)" in
  x86_64) ARCH=x64 ;;
  aarch64 | arm64) ARCH=arm64 ;;
  *) echo "with-image-node: no node-linux package for $(uname -m)" >&2; exit 1 ;;
esac

CACHE_DIR=${NODE_CACHE_DIR:-$HOME/.cache/campaign-service}
PREFIX="$CACHE_DIR/node-$VERSION-linux-$ARCH"
BIN="$PREFIX/node_modules/node-linux-$ARCH/bin"

if [ "$("$BIN/node" --version 2>/dev/null)" != "v$VERSION" ]; then
  echo "with-image-node: installing Node $VERSION from the npm registry into $PREFIX" >&2
  mkdir -p "$CACHE_DIR"
  # Installed beside the cache entry, then moved into place: an interrupted download never
  # leaves a half-written binary that a later run would trust.
  STAGING=$(mktemp -d "$CACHE_DIR/.node-$VERSION.XXXXXX")
  trap 'rm -rf "$STAGING"' EXIT
  npm install --no-save --no-package-lock --no-audit --no-fund --loglevel=error --prefix "$STAGING" "node-linux-$ARCH@$VERSION" >&2
  [ "$("$STAGING/node_modules/node-linux-$ARCH/bin/node" --version)" = "v$VERSION" ] ||
    { echo "with-image-node: the installed binary is not Node $VERSION" >&2; exit 1; }
  rm -rf "$PREFIX"
  mv "$STAGING" "$PREFIX"
  trap - EXIT
fi

export PATH="$BIN:$PATH" IMAGE_NODE_VERSION="$VERSION"
echo "with-image-node: $(command -v node) $(node --version)" >&2
exec "$@"
