# Expands shaders/variants.txt into SPIR-V modules (glslang -> spirv-val -> spirv-opt -> spirv-val)
# and one generated C++ source that embeds them with their module table.
#
#   vkc_add_shader_modules(<target> VARIANTS <file> KERNELS <dir> INCLUDE <dir>)
#
# adds the generated source to <target>. Nothing generated lands in the source tree.

find_program(GLSLANG_VALIDATOR glslangValidator REQUIRED)
find_program(SPIRV_VAL spirv-val REQUIRED)
find_program(SPIRV_OPT spirv-opt REQUIRED)

set(VKC_SPIRV_ENV vulkan1.1) # SPIR-V 1.3: runs on every Vulkan 1.1 device
# Shared scratch is sized at compile time for this many invocations (see VKC_SCRATCH_CAPACITY in
# shaders/include/vkc/common.glsl); the runtime refuses larger work-groups with a clear error.
set(VKC_MODULE_MAX_WORKGROUP_SIZE 1024)

# OpenCL type name -> GLSL type, C++ enum, bytes
set(_vkc_glsl_half float16_t)
set(_vkc_glsl_int int)
set(_vkc_glsl_uint uint)
set(_vkc_glsl_long int64_t)
set(_vkc_glsl_ulong uint64_t)
set(_vkc_glsl_float float)
set(_vkc_glsl_double double)
set(_vkc_enum_half f16)
set(_vkc_enum_int i32)
set(_vkc_enum_uint u32)
set(_vkc_enum_long i64)
set(_vkc_enum_ulong u64)
set(_vkc_enum_float f32)
set(_vkc_enum_double f64)

# What a module needs from the device beyond Vulkan 1.1 compute, as vkc::Feature names.
function(_vkc_required_features out kernel type path)
  set(features "")
  if(type STREQUAL "half")
    list(APPEND features shader_float16 storage_buffer_16bit)
  elseif(type MATCHES "^u?long$")
    list(APPEND features shader_int64)
  elseif(type STREQUAL "double")
    list(APPEND features shader_float64)
  endif()
  if(path STREQUAL "subgroup")
    list(APPEND features subgroup_basic)
    if(kernel STREQUAL "workgroup_vote")
      list(APPEND features subgroup_vote)
    elseif(kernel STREQUAL "subgroup_layout")
      # basic only
    else()
      list(APPEND features subgroup_arithmetic)
    endif()
    if(type MATCHES "^(half|long|ulong)$")
      list(APPEND features subgroup_extended_types)
    endif()
  endif()
  if(NOT features)
    set(features none)
  endif()
  list(TRANSFORM features PREPEND "Feature::")
  list(JOIN features "+" joined) # '|' separates the manifest's fields
  set(${out} "${joined}" PARENT_SCOPE)
endfunction()

function(vkc_add_shader_modules target)
  cmake_parse_arguments(ARG "" "VARIANTS;KERNELS;INCLUDE" "" ${ARGN})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${ARG_VARIANTS}")
  file(GLOB_RECURSE headers "${ARG_INCLUDE}/*.glsl" "${ARG_KERNELS}/*.glsl")
  file(STRINGS "${ARG_VARIANTS}" lines)
  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/spirv")
  file(MAKE_DIRECTORY "${out_dir}")
  set(spv_files "")
  set(table_rows "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^[ \t]*(#|$)")
      continue()
    endif()
    string(REGEX REPLACE "[ \t]+" ";" fields "${line}")
    list(LENGTH fields n)
    if(NOT n EQUAL 5)
      message(FATAL_ERROR "${ARG_VARIANTS}: expected 5 fields, got '${line}'")
    endif()
    list(GET fields 0 kernel)
    foreach(i 1 2 3 4)
      list(GET fields ${i} f)
      string(REPLACE "," ";" f "${f}")
      set(field${i} "${f}")
    endforeach()
    foreach(collective IN LISTS field1)
      foreach(type IN LISTS field2)
        foreach(op IN LISTS field3)
          foreach(path IN LISTS field4)
            set(name "${collective}")
            set(defines "-DCOLLECTIVE=${collective}" "-DVKC_SCRATCH_CAPACITY=${VKC_MODULE_MAX_WORKGROUP_SIZE}")
            set(type_enum u32) # the vote kernel reads uint predicates
            set(op_enum add)
            if(NOT op STREQUAL "-")
              string(APPEND name "_${op}")
              list(APPEND defines "-DITEM_OP=${op}")
              set(op_enum ${op})
            endif()
            if(NOT type STREQUAL "-")
              if(NOT DEFINED _vkc_glsl_${type})
                message(FATAL_ERROR "${ARG_VARIANTS}: unknown type '${type}'")
              endif()
              string(APPEND name "_${type}")
              list(APPEND defines "-DITEM_TYPE=${_vkc_glsl_${type}}")
              set(type_enum ${_vkc_enum_${type}})
            endif()
            if(path STREQUAL "subgroup")
              list(APPEND defines "-DVKC_SUBGROUP_ARITHMETIC=1")
              set(path_enum subgroup)
            else()
              list(APPEND defines "-DVKC_SUBGROUP_ARITHMETIC=0")
              set(path_enum shared_memory)
            endif()
            string(APPEND name "_${path}")
            set(src "${ARG_KERNELS}/${kernel}.comp")
            set(raw "${out_dir}/${name}.unopt.spv")
            set(spv "${out_dir}/${name}.spv")
            add_custom_command(
              OUTPUT "${spv}"
              COMMAND "${GLSLANG_VALIDATOR}" --quiet -V --target-env ${VKC_SPIRV_ENV} -I${ARG_INCLUDE}
                      ${defines} -o "${raw}" "${src}"
              COMMAND "${SPIRV_VAL}" --target-env ${VKC_SPIRV_ENV} "${raw}"
              COMMAND "${SPIRV_OPT}" -O --target-env=${VKC_SPIRV_ENV} "${raw}" -o "${spv}"
              COMMAND "${SPIRV_VAL}" --target-env ${VKC_SPIRV_ENV} "${spv}"
              DEPENDS "${src}" ${headers}
              COMMENT "SPIR-V ${name}"
              VERBATIM)
            list(APPEND spv_files "${spv}")
            _vkc_required_features(features ${kernel} ${type} ${path})
            # name|collective|type|op|path|features|max work-group size
            list(APPEND table_rows
                 "${name}|${collective}|${type_enum}|${op_enum}|${path_enum}|${features}|${VKC_MODULE_MAX_WORKGROUP_SIZE}")
          endforeach()
        endforeach()
      endforeach()
    endforeach()
  endforeach()

  set(manifest "${CMAKE_CURRENT_BINARY_DIR}/vkc_modules.manifest")
  string(REPLACE ";" "\n" manifest_text "${table_rows}")
  file(CONFIGURE OUTPUT "${manifest}" CONTENT "${manifest_text}\n")
  set(generated "${CMAKE_CURRENT_BINARY_DIR}/vkc_modules.cpp")
  add_custom_command(
    OUTPUT "${generated}"
    COMMAND "${CMAKE_COMMAND}" -DMANIFEST=${manifest} -DSPIRV_DIR=${out_dir} -DOUTPUT=${generated}
            -P "${PROJECT_SOURCE_DIR}/cmake/EmbedSpirv.cmake"
    DEPENDS ${spv_files} "${manifest}" "${PROJECT_SOURCE_DIR}/cmake/EmbedSpirv.cmake"
    COMMENT "Embedding ${CMAKE_CURRENT_BINARY_DIR}/spirv into vkc_modules.cpp"
    VERBATIM)
  target_sources(${target} PRIVATE "${generated}")
endfunction()
