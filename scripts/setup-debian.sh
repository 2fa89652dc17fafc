#!/usr/bin/env bash
# Installs what vkcollectives needs on Debian 12, from Debian's own packages. Idempotent.
set -euo pipefail
packages=(
  cmake ninja-build g++ pkg-config            # build (pkg-config: finds libzstd; the consumer test of vkcollectives.pc)
  libvulkan-dev libvulkan-volk-dev            # Vulkan headers and loader, volk (compiled into the library)
  glslang-tools glslang-dev spirv-tools       # GLSL -> SPIR-V, validation, optimisation
  libzstd-dev                                 # packs the embedded SPIR-V at build time, unpacks it at run time
  doctest-dev                                 # tests
  mesa-vulkan-drivers vulkan-validationlayers # lavapipe (the GPU-less device) and validation layers
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
