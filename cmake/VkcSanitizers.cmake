# Copies of the library built with sanitizers, for the tests: the same sources and the same embedded
# modules as vkcollectives (no second SPIR-V build), compiled with FLAGS, which their users inherit.
#
#   vkc_add_sanitized_library(<name> FLAGS <compile and link flags>...)
function(vkc_add_sanitized_library name)
  cmake_parse_arguments(ARG "" "" "FLAGS" ${ARGN})
  get_target_property(sources vkcollectives SOURCES)
  add_library(${name} STATIC ${sources})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/include
                             PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/shaders/include)
  target_link_libraries(${name} PUBLIC Vulkan::Headers ${CMAKE_DL_LIBS} PkgConfig::vkc_zstd)
  target_compile_definitions(${name} PRIVATE VK_NO_PROTOTYPES)
  target_compile_options(${name} PUBLIC ${ARG_FLAGS})
  target_link_options(${name} PUBLIC ${ARG_FLAGS})
endfunction()
