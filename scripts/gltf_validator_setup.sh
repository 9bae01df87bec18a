#!/bin/sh
# Install the Khronos glTF validator (npm package "gltf-validator") into a
# local folder, for tools/gltf_validate.mjs and the glTF tests (docs/GLTF.md).
# Usage: scripts/gltf_validator_setup.sh [PREFIX]   (default: build/gltf-validator)
# The tests look for PREFIX/node_modules/gltf-validator through the
# environment variable HKS_GLTF_VALIDATOR_DIR (default: the same folder).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
prefix=${1:-"$here/build/gltf-validator"}
if ! command -v npm >/dev/null 2>&1; then
	echo "gltf_validator_setup: npm not found (apt-get install nodejs npm)" >&2
	exit 1
fi
mkdir -p "$prefix"
npm install --prefix "$prefix" --no-audit --no-fund --silent gltf-validator@2.0.0-dev.3.10 >/dev/null
echo "gltf-validator installed under $prefix/node_modules"
