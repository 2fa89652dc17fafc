# Install rules: the library, its public headers, the GLSL headers, the SPIR-V modules with their
# manifest, a CMake package (find_package(vkcollectives CONFIG)) and a pkg-config file. Components, for
# `cmake --install --component` and packagers: Runtime (the shared library), Development (headers,
# static library, CMake and pkg-config files), GLSL, SPIRV (the .spv files and manifest.json, for
# engines that do not link the library: it embeds them) and Tools (vkc).
include(CMakePackageConfigHelpers)

install(TARGETS vkcollectives EXPORT vkcollectivesTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Development
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Runtime NAMELINK_COMPONENT Development
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT Runtime)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/vkc DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT Development
  FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h" PATTERN "*.def") # types.def: the table types.hpp includes

# GLSL an engine #includes in its own shaders: -I <prefix>/share/vkcollectives/glsl, then
# #include "vkc/workgroup_scan.glsl".
# (The kernels' private parts live beside them in shaders/kernels/, not here.)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/shaders/include/vkc
  DESTINATION ${CMAKE_INSTALL_DATADIR}/vkcollectives/glsl COMPONENT GLSL
  FILES_MATCHING PATTERN "*.glsl" PATTERN "*.h")

# The modules this build made, and manifest.json (written by the build, see VkcShaders.cmake).
get_target_property(_vkc_spirv vkcollectives VKC_SPIRV_FILES)
get_target_property(_vkc_manifest vkcollectives VKC_MANIFEST)
install(FILES ${_vkc_spirv} ${_vkc_manifest} DESTINATION ${CMAKE_INSTALL_DATADIR}/vkcollectives/spirv
  COMPONENT SPIRV)

set(VKC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/vkcollectives)
# A static library's users link its dependencies too: libzstd (the Config file finds it, the .pc
# file requires it).
get_target_property(_vkc_library_type vkcollectives TYPE)
if(_vkc_library_type STREQUAL "STATIC_LIBRARY")
  set(VKC_STATIC_LIBRARY TRUE)
  set(VKC_PC_REQUIRES_PRIVATE "vulkan libzstd")
  set(VKC_PC_LIBS_PRIVATE "-lstdc++ -ldl")
else()
  set(VKC_STATIC_LIBRARY FALSE)
  set(VKC_PC_REQUIRES_PRIVATE "vulkan")
  set(VKC_PC_LIBS_PRIVATE "")
endif()
install(EXPORT vkcollectivesTargets NAMESPACE vkcollectives:: DESTINATION ${VKC_CMAKE_DIR} COMPONENT Development)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/vkcollectivesConfig.cmake.in
  ${PROJECT_BINARY_DIR}/vkcollectivesConfig.cmake INSTALL_DESTINATION ${VKC_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_DATADIR)
# 0.x: only the same minor version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/vkcollectivesConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/vkcollectivesConfig.cmake ${PROJECT_BINARY_DIR}/vkcollectivesConfigVersion.cmake
  DESTINATION ${VKC_CMAKE_DIR} COMPONENT Development)

# pkg-config: the static library needs libdl (it opens the loader at run time), libzstd and Vulkan's
# headers (VKC_PC_REQUIRES_PRIVATE and VKC_PC_LIBS_PRIVATE, above).
# Relocatable: the prefix is found from the .pc file's own place, so `cmake --install --prefix` works.
file(RELATIVE_PATH VKC_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
configure_file(${PROJECT_SOURCE_DIR}/cmake/vkcollectives.pc.in ${PROJECT_BINARY_DIR}/vkcollectives.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/vkcollectives.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT Development)
