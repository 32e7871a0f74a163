#!/usr/bin/env bash
# The install as its users get it (docs/packaging.md), one CTest test per step:
#   package_test.sh STEP BUILD_DIR SOURCE_DIR WORK_DIR
# install      cmake --install into WORK/stage, then move it to WORK/moved (what every later
#              step uses: an install that no longer lives where it was installed)
# relocated    the moved xd-info runs without LD_LIBRARY_PATH, loads its own plugins and shows
#              nothing from the build tree; with one installed plugin removed, nothing stands in
# find-package an application using find_package(xdispatch) builds and runs
# pkg-config   the same with `pkg-config --cflags --libs xdispatch`
# subdirectory an application that add_subdirectory()s the source tree builds and runs
# plugin       examples/out_of_tree_plugin builds against the moved install, is loaded through
#              XD_PLUGIN_PATH, through xd::load_plugin, and from the plugin folder once
#              installed there, and passes xd-conform --backend toy
# deb          cpack -G DEB makes a package whose unpacked xd-info runs
set -euo pipefail
step=$1 build=$2 src=$3 work=$4
moved=$work/moved
fail() { echo "FAIL: $*" >&2; exit 1; }
# Nothing may reach the build tree or the moved install by environment. WORK may lie inside the
# build tree (CTest puts it there), so "from the build tree" means from its lib/ folder, where the
# build's libxdispatch and plugins are.
clean_env=(env -u LD_LIBRARY_PATH -u XD_PLUGIN_PATH -u XD_BACKEND -u XD_DEVICES -u XD_FALLBACK)

case "$step" in
install)
  rm -rf "$work"
  mkdir -p "$work"
  cmake --install "$build" --prefix "$work/stage" >"$work/install.log"
  mv "$work/stage" "$moved"
  for f in bin/xd-info bin/xd-conform bin/xd-bench include/xd/xd.hpp include/xd/plugin_abi.h \
           lib/cmake/xdispatch/xdispatchConfig.cmake lib/cmake/xdispatch/xdispatchConfigVersion.cmake \
           lib/cmake/xdispatch/xdispatch-targets.cmake lib/cmake/xdispatch/xdispatchPlugin.cmake \
           lib/pkgconfig/xdispatch.pc lib/xdispatch/plugins/libxd_plugin_cpu.so share/xdispatch/golden/manifest.json; do
    [[ -e "$moved/$f" ]] || fail "the install lacks $f"
  done
  ;;
relocated)
  out=$("${clean_env[@]}" "$moved/bin/xd-info" 2>&1) || fail "the moved xd-info failed: $out"
  echo "$out"
  grep -q "$moved/lib/xdispatch/plugins/libxd_plugin_cpu.so" <<<"$out" || fail "the cpu plugin was not loaded from the moved install"
  if grep -F "$build/lib/" <<<"$out"; then fail "the moved install shows files of the build tree $build"; fi
  # Each output is captured before grep reads it: under pipefail, `producer | grep -q` fails at
  # random when grep exits at its first match and the producer dies of SIGPIPE.
  dynamic=$(readelf -d "$moved/bin/xd-info")
  grep -q 'R.*PATH.*\$ORIGIN' <<<"$dynamic" || fail "xd-info has no \$ORIGIN RPATH"
  # The installed golden cases are xd-conform's default, found relative to the moved executable.
  "${clean_env[@]}" "$moved/bin/xd-conform" --golden --backend cpu --op add --dtype f32 || fail "xd-conform --golden (installed set)"
  version=$("${clean_env[@]}" "$moved/bin/xd-info" --version)
  grep -q "^xd-info (xdispatch) " <<<"$version" || fail "xd-info --version"
  # The installed Python module (where the build has one) finds the moved library and plugins.
  module=$(find "$moved" -name '_xdispatch*.so' | head -1)
  if [[ -n "$module" ]]; then
    out=$(cd / && "${clean_env[@]}" PYTHONPATH="$(dirname "$(dirname "$module")")" /usr/bin/python3 -c \
      'import xdispatch as xd; print(xd.__file__); print([r["path"] for r in xd.load_report()]); print(xd.add(xd.ones(2), xd.ones(2)).tolist())') ||
      fail "the installed Python module: $out"
    echo "$out"
    grep -q "^$moved/" <<<"$out" || fail "the Python module was not imported from the install"
    if grep -F "$build/lib/" <<<"$out"; then fail "the installed Python module reached into the build tree"; fi
    grep -q "^\[2.0, 2.0\]$" <<<"$out" || fail "1 + 1 from Python"
  fi
  # Remove one installed plugin: nothing may stand in for it (the build tree has the same one).
  victim=$(ls "$moved/lib/xdispatch/plugins" | grep -v '^libxd_plugin_cpu.so$' | head -1 || true)
  [[ -n "$victim" ]] || victim=libxd_plugin_cpu.so
  mkdir -p "$work/removed"
  mv "$moved/lib/xdispatch/plugins/$victim" "$work/removed/"
  out=$("${clean_env[@]}" "$moved/bin/xd-info" 2>&1) || true
  mv "$work/removed/$victim" "$moved/lib/xdispatch/plugins/"
  echo "$out"
  if grep -F "$victim" <<<"$out"; then fail "with $victim removed, a $victim still appears"; fi
  if grep -F "$build/lib/" <<<"$out"; then fail "with $victim removed, the build tree stood in"; fi
  ;;
find-package)
  rm -rf "$work/fp"
  cmake -S "$src/tests/package/consumer" -B "$work/fp" -G Ninja -DCMAKE_PREFIX_PATH="$moved" >/dev/null
  cmake --build "$work/fp"
  out=$("${clean_env[@]}" "$work/fp/consumer") || fail "consumer failed: $out"
  echo "$out"
  grep -q "^row loaded cpu $moved/lib/xdispatch/plugins/libxd_plugin_cpu.so" <<<"$out" || fail "no cpu row from the install"
  grep -q "^sum 3$" <<<"$out" || fail "1 + 2 was not 3"
  ;;
pkg-config)
  rm -rf "$work/pc" && mkdir -p "$work/pc"
  export PKG_CONFIG_PATH="$moved/lib/pkgconfig"
  flags=$(pkg-config --cflags --libs xdispatch)
  libdir=$(pkg-config --variable=libdir xdispatch)
  [[ "$(pkg-config --modversion xdispatch)" == "$(sed -n 's/^Version: //p' "$moved/lib/pkgconfig/xdispatch.pc")" ]] || fail "modversion"
  [[ -d "$(pkg-config --variable=plugindir xdispatch)" ]] || fail "plugindir is not a folder"
  # shellcheck disable=SC2086
  g++ -std=c++20 "$src/tests/package/consumer/main.cpp" -o "$work/pc/consumer" $flags -Wl,-rpath,"$libdir"
  out=$("${clean_env[@]}" "$work/pc/consumer") || fail "consumer failed: $out"
  echo "$out"
  grep -q "^sum 3$" <<<"$out" || fail "1 + 2 was not 3"
  ;;
subdirectory)
  rm -rf "$work/sub"
  cmake -S "$src/tests/package/subdir_consumer" -B "$work/sub" -G Ninja -DXD_SOURCE_DIR="$src" \
    -DCMAKE_BUILD_TYPE=Release >"$work/sub.log" || { cat "$work/sub.log"; fail "configure"; }
  cmake --build "$work/sub" --target consumer -j "${XD_JOBS:-2}" >"$work/sub-build.log" || { tail -50 "$work/sub-build.log"; fail "build"; }
  "${clean_env[@]}" "$work/sub/consumer" || fail "the add_subdirectory consumer failed"
  ;;
plugin)
  rm -rf "$work/toy"
  cmake -S "$moved/share/xdispatch/examples/out_of_tree_plugin" -B "$work/toy" -G Ninja -DCMAKE_PREFIX_PATH="$moved" \
    -DCMAKE_INSTALL_PREFIX="$moved" >/dev/null
  cmake --build "$work/toy"
  plugin=$work/toy/libxd_plugin_toy.so
  [[ -f "$plugin" ]] || fail "no $plugin"
  # Hidden visibility: only the entry points (libstdc++'s header templates keep default
  # visibility and may show up too; they are namespace std, _ZNSt/_ZZNSt/_ZSt).
  nm -D --defined-only "$plugin" | awk '{print $3}' | grep -v '^_Z[NZ]*St' | sort >"$work/toy-exports"
  [[ "$(cat "$work/toy-exports")" == $'xd_plugin_init\nxd_plugin_query' ]] || fail "exports: $(cat "$work/toy-exports")"
  "${clean_env[@]}" "$work/toy/toy_app" || fail "toy_app (xd::load_plugin)"
  "${clean_env[@]}" XD_PLUGIN_PATH="$plugin" "$moved/bin/xd-conform" --backend toy --quick || fail "xd-conform --backend toy"
  cmake --install "$work/toy" >/dev/null
  out=$("${clean_env[@]}" "$moved/bin/xd-info" 2>&1)
  rm -f "$moved/lib/xdispatch/plugins/libxd_plugin_toy.so"
  grep -q "loaded.*toy.*$moved/lib/xdispatch/plugins/libxd_plugin_toy.so" <<<"$out" || { echo "$out"; fail "installed toy not loaded"; }
  ;;
deb)
  rm -rf "$work/deb" && mkdir -p "$work/deb"
  (cd "$work/deb" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/deb" >"$work/deb/cpack.log") ||
    { cat "$work/deb/cpack.log"; fail "cpack"; }
  deb=$(ls "$work"/deb/xdispatch_*.deb)
  dpkg-deb --info "$deb"
  info=$(dpkg-deb --info "$deb")
  grep -q "Depends: .*libc6" <<<"$info" || fail "no shlibdeps Depends"
  dpkg-deb -x "$deb" "$work/deb/root"
  "${clean_env[@]}" "$work/deb/root/usr/bin/xd-info" | tee "$work/deb/xd-info.txt"
  grep -q "loaded.*cpu.*$work/deb/root/usr/lib/xdispatch/plugins/libxd_plugin_cpu.so" "$work/deb/xd-info.txt" || fail "the packaged cpu plugin did not load"
  ;;
*) echo "unknown step $step" >&2; exit 2 ;;
esac
echo "package $step: ok"
