# Sourced by the bench/gpu_*.sh scripts after `set -uo pipefail`, with the script's own arguments:
# "$1" is STAGE, an install tree (cmake --install) whose lib/ also holds the shared libraries the
# GPU machine lacks (docs/performance.md says how to make it), and "$2" is OUT, where results go
# (created). Sets stage, out, bin (STAGE/bin) and here (the repository root), puts STAGE/lib on
# LD_LIBRARY_PATH and the OpenCL program cache under OUT/cache unless XD_CACHE_DIR names one, and
# defines section TITLE, a log heading. OCL_ICD_VENDORS must reach the vendor's OpenCL driver.
if [ $# -lt 2 ] || [ ! -d "$1" ]; then
  echo "usage: ${0##*/} STAGE OUT  (STAGE: an existing install tree)" >&2
  exit 2
fi
stage=$(cd "$1" && pwd)
out=$2
mkdir -p "$out"
export LD_LIBRARY_PATH="$stage/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export XD_CACHE_DIR="${XD_CACHE_DIR:-$out/cache}"
bin=$stage/bin
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
section() { printf '\n=== %s\n' "$*"; }
