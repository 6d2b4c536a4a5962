# Sourced by the offline tests: the tree, the binary under test, a scratch
# directory removed at exit, and how a test fails or notes a figure.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
BLKMAP=${BLKMAP:-$top/blkmap}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "# $*"; }
