#!/usr/bin/env bash
# Builds and runs the consumer engines against vkcollectives as an engine would take it:
#   run.sh <source dir> <build dir of the project>
# 1. installed (cmake --install of the project's build) and found by find_package and by pkg-config,
#    with examples/ (the .spv modules through manifest.json, the GLSL headers) built against it too;
# 2. add_subdirectory'd, as a shared library of a few modules.
# Each engine runs on lavapipe. Also checks that no library defines a symbol named vk[A-Z]*.
set -euo pipefail
src=$(realpath "$1")
build=$(realpath "$2")
work="$build/consumers"
rm -rf "$work"
mkdir -p "$work"
export VKC_DEVICE=${VKC_DEVICE:-llvmpipe}
generator=(-G Ninja)

no_vulkan_symbols() { # the library must leave Vulkan's namespace to the loader and the engine's volk
  local found
  found=$(nm --defined-only "$@" 2>/dev/null | grep -E ' [A-Za-z] vk[A-Z]' || true)
  if [ -n "$found" ]; then echo "FAIL: $* defines Vulkan symbols:"; echo "$found" | head; exit 1; fi
  echo "ok: $(basename "${@: -1}") defines no vk* symbol"
}
run_engines() {
  for e in "$1"/engine_*; do
    [ -x "$e" ] || continue
    echo "-- $(basename "$e")"
    "$e"
  done
}

echo "== installed package"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
lib=$(find "$work/prefix" -name 'libvkcollectives.a' -o -name 'libvkcollectives.so' | head -1)
no_vulkan_symbols "$lib"
test -f "$work/prefix/share/vkcollectives/spirv/manifest.json"
test -f "$work/prefix/share/vkcollectives/glsl/vkc/workgroup_scan.glsl"
test -f "$work/prefix/share/vkcollectives/glsl/vkc/tile_io.glsl"
test -f "$work/prefix/share/vkcollectives/glsl/vkc/radix_rank.glsl"
test -f "$work/prefix/share/vkcollectives/glsl/vkc/radix_keys.glsl"
test -f "$work/prefix/include/vkc/vkc.h"           # the C API, and the handles both APIs declare
test -f "$work/prefix/include/vkc/vulkan_handles.h"
test ! -e "$work/prefix/share/vkcollectives/glsl/vkc/device" # kernel-private GLSL stays private
cmake -S "$src/tests/consumers" -B "$work/package" "${generator[@]}" -DVKC_CONSUME=package \
  -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/package.log"
cmake --build "$work/package" >> "$work/package.log"
run_engines "$work/package"

echo "== pkg-config"
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig:$work/prefix/lib/x86_64-linux-gnu/pkgconfig"
pkg-config --exists vkcollectives
c++ -std=c++20 -DENGINE_VOLK=0 -DVKC_FIRST=1 "$src/tests/consumers/engine.cpp" -o "$work/engine_pkgconfig" \
  $(pkg-config --cflags vkcollectives) $(pkg-config --libs --static vkcollectives) -lvulkan -pthread
echo "-- engine_pkgconfig"
"$work/engine_pkgconfig"

echo "== examples"
# examples/: an engine's own pipelines from the installed .spv and manifest.json, and its own shader
# that #includes the installed GLSL headers; neither links the library.
cmake -S "$src/examples" -B "$work/examples" "${generator[@]}" -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/examples.log"
cmake --build "$work/examples" >> "$work/examples.log"
echo "-- raw_spirv"
"$work/examples/raw_spirv" "$work/prefix/share/vkcollectives/spirv" | tee "$work/raw_spirv.out"
echo "-- glsl_include"
"$work/examples/glsl_include" | tee "$work/glsl_include.out"
# lavapipe has every subgroup operation the examples use: a module skipped there is a lost check.
if [ "$VKC_DEVICE" = llvmpipe ] && grep -q skipped "$work/raw_spirv.out" "$work/glsl_include.out"; then
  echo "FAIL: an example skipped a module on lavapipe"; exit 1
fi

echo "== add_subdirectory, shared library"
cmake -S "$src/tests/consumers" -B "$work/subdirectory" "${generator[@]}" -DVKC_CONSUME=subdirectory \
  -DVKC_SOURCE_DIR="$src" -DBUILD_SHARED_LIBS=ON -DCMAKE_BUILD_TYPE=Release > "$work/subdirectory.log"
cmake --build "$work/subdirectory" >> "$work/subdirectory.log"
so=$(find "$work/subdirectory" -name 'libvkcollectives.so.*.*.*' | head -1)
no_vulkan_symbols -D "$so"
soname=$(readelf -d "$so" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = "libvkcollectives.so.0.2" ] || { echo "FAIL: soname '$soname'"; exit 1; }
echo "ok: soname $soname"
# Hidden visibility: the runtime's internals (the device tables, the module code) are not exported.
if nm -D --defined-only "$so" | grep -qE 'vkc_spirv_|InstanceTable|DeviceTable'; then
  echo "FAIL: $so exports internal symbols"; exit 1
fi
echo "ok: only the public API is exported ($(nm -D --defined-only "$so" | wc -l) symbols)"
run_engines "$work/subdirectory"
echo "consumers: ok"
