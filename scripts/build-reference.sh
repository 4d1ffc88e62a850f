#!/usr/bin/env bash
# Builds the Go reference implementations pinned in reference/go.mod (op-node, op-batcher, op-supernode and
# op-geth's geth) into reference/bin/ (git-ignored). Gentle on a shared machine: one package at a time, niced.
# Prints one line per binary with its build time and a final total; the module and build caches make re-runs fast.
set -euo pipefail
cd "$(dirname "$0")/../reference"
if ! command -v go >/dev/null; then
  echo "build-reference: no Go toolchain on this machine; the reference tests will skip" >&2
  exit 0
fi
mkdir -p bin
jobs="${REFERENCE_BUILD_JOBS:-1}"
declare -A pkgs=(
  [op-node]=github.com/ethereum-optimism/optimism/op-node/cmd
  [op-batcher]=github.com/ethereum-optimism/optimism/op-batcher/cmd
  [op-supernode]=github.com/ethereum-optimism/optimism/op-supernode/cmd
  [geth]=github.com/ethereum/go-ethereum/cmd/geth
)
# The module zip lacks one generated file: op-core/superchain embeds superchain-configs.zip (the built-in
# network registry, git-ignored upstream and made by upstream's own build) and init() checks it against the sha256
# pinned in a committed file. The module cache stays untouched: the build runs from reference/vendor/ (git-ignored,
# made from the checksummed modules of go.sum), where an empty registry (no named networks; the tests pass
# --rollup.config) and its sha256 are added.
superchain_dir=vendor/github.com/ethereum-optimism/optimism/op-core/superchain
if [ ! -f vendor/modules.txt ] || [ go.mod -nt vendor/modules.txt ] || [ ! -f "$superchain_dir/superchain-configs.zip" ]; then
  rm -rf vendor
  # -e: go mod vendor stops at the missing embed otherwise; the file is added right after.
  GOFLAGS=-mod=mod nice -n 15 go mod vendor -e 2>&1 | grep -v 'superchain-configs.zip: no matching files' || true
  python3 - "$superchain_dir/superchain-configs.zip" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for name, data in (("chains.json", b"{}"), ("dictionary", b"")):
        z.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)
PY
  chmod u+w "$superchain_dir/superchain-configs.zip.sha256"
  (cd "$superchain_dir" && sha256sum superchain-configs.zip > superchain-configs.zip.sha256)
fi
total_start=$(date +%s)
for name in op-node op-batcher op-supernode geth; do
  start=$(date +%s)
  nice -n 15 go build -p "$jobs" -trimpath -mod=vendor -o "bin/$name" "${pkgs[$name]}"
  echo "build-reference: $name built in $(($(date +%s) - start)) s"
done
echo "build-reference: all four in $(($(date +%s) - total_start)) s ($(go version | cut -d' ' -f3), $(go list -m -f '{{.Path}} {{.Version}}' github.com/ethereum-optimism/optimism))"
