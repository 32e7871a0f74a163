# Shared set-up for tools/run.sh and tools/test.sh (sourced, not run): install the Debian
# packages that are missing (as root, idempotent), then configure and build one CMake preset.
#   XD_PRESET   the preset to build (default: default); also --preset NAME on the command line
#   XD_JOBS     parallel build jobs (default: number of cores)
set -euo pipefail

XD_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
XD_PRESET="${XD_PRESET:-default}"
XD_JOBS="${XD_JOBS:-$(nproc)}"

# Everything the project builds or tests with, all from Debian 12.
XD_PACKAGES=(
  cmake ninja-build g++ pkg-config
  libgtest-dev libbenchmark-dev
  libboost-dev libboost-program-options-dev nlohmann-json3-dev
  libdnnl-dev libhwy-dev  # oneDNN matmul; Highway, the CPU fast kernels' vectors
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
  libze-dev clang-15 llvm-spirv-15 spirv-tools
  libclang-common-15-dev libtsan2 llvm  # fuzz preset (libFuzzer; llvm-symbolizer for reports), tsan preset
  libopenmpi-dev openmpi-bin  # libxdispatch_dist (core/distributed), its tests and bench/collectives
  pybind11-dev python3-dev libdlpack-dev python3-numpy python3-torch python3-pytest python3-matplotlib  # the Python module (python/)
)

xd_install_packages() {
  local missing=() p
  for p in "${XD_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]} == 0)); then return 0; fi
  echo "xdispatch: installing missing packages: ${missing[*]}"
  local sudo=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "xdispatch: run as root (or install: ${missing[*]})" >&2; return 1; }
    sudo="sudo"
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Usage: xd_build [TARGET...]: the preset's whole build, or only these targets (tools/run.sh builds
# xd_run_set, what it runs; tools/test.sh everything).
xd_build() {
  cd "$XD_ROOT"
  local targets=()
  (($# == 0)) || targets=(--target "$@")
  # Configure quietly, but show the project's own status lines ("-- xdispatch: ..."), which say
  # which optional parts were found and which were switched off for a missing package; show
  # everything when configuring fails.
  local log
  log="$(mktemp)"
  if ! cmake --preset "$XD_PRESET" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    return 1
  fi
  grep -E '^-- xdispatch: ' "$log" || true
  rm -f "$log"
  cmake --build --preset "$XD_PRESET" -j "$XD_JOBS" "${targets[@]}"
  xd_link_python_module
}

# After a build of the default preset as root, Debian's python3 imports the build tree's module:
# a .pth file in the local site directory names build/default/python (what an editable install
# does), so `python3 -c "import xdispatch"` works after the README's commands. An installed module
# (cmake --install, the .deb) or PYTHONPATH comes before it.
xd_link_python_module() {
  local pkg="$XD_ROOT/build/default/python"
  [[ "$XD_PRESET" == default && -f "$pkg/xdispatch/__init__.py" && $(id -u) -eq 0 && -x /usr/bin/python3 ]] || return 0
  local site
  site="$(/usr/bin/python3 -c 'import site; print(site.getsitepackages()[0])' 2>/dev/null)" || return 0
  [[ -n "$site" ]] || return 0
  mkdir -p "$site"
  if [[ "$(cat "$site/xdispatch-build.pth" 2>/dev/null)" != "$pkg" ]]; then
    echo "$pkg" >"$site/xdispatch-build.pth"
    echo "xdispatch: python3 imports xdispatch from $pkg ($site/xdispatch-build.pth)"
  fi
}

xd_parse_preset_arg() {
  while (($#)); do
    case "$1" in
      --preset) XD_PRESET="$2"; shift 2 ;;
      --preset=*) XD_PRESET="${1#*=}"; shift ;;
      *) echo "unknown argument: $1 (expected --preset NAME)" >&2; exit 2 ;;
    esac
  done
}

XD_BUILD_DIR() { echo "$XD_ROOT/build/$XD_PRESET"; }
