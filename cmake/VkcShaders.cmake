# Expands shaders/variants.txt into SPIR-V modules (glslang -> spirv-val -> spirv-opt -> spirv-val)
# and one generated C++ source that embeds them with their module table.
#
#   vkc_add_shader_modules(<target> VARIANTS <file> KERNELS <dir> INCLUDE <dir>
#                          [TYPES <list>|all] [OPS <list>|all] [ONLY_KERNELS <list>|all])
#
# adds the generated source to <target>. TYPES, OPS and ONLY_KERNELS keep the variants that match
# (the internal kernels copy, read and subgroup_layout are always built: the runtime needs them).
# Sets on <target> the properties VKC_SPIRV_FILES (the .spv files) and VKC_MANIFEST (manifest.json).
# Nothing generated lands in the source tree.

find_program(GLSLANG_VALIDATOR glslangValidator REQUIRED)
find_program(SPIRV_VAL spirv-val REQUIRED)
find_program(SPIRV_OPT spirv-opt REQUIRED)

set(VKC_SPIRV_ENV vulkan1.1) # SPIR-V 1.3: runs on every Vulkan 1.1 device
# Shared scratch is sized for at most this many invocations (the default of specialization constant 6,
# see VKC_SCRATCH_CAPACITY in shaders/include/vkc/common.glsl); the runtime refuses larger work-groups.
set(VKC_MODULE_MAX_WORKGROUP_SIZE 1024)

# OpenCL type name -> GLSL type and C++ enum (vkc::Type). uvec2 carries the custom operators' pairs.
set(_vkc_glsl_char int8_t)
set(_vkc_glsl_uchar uint8_t)
set(_vkc_glsl_short int16_t)
set(_vkc_glsl_ushort uint16_t)
set(_vkc_glsl_uvec2 uvec2)
set(_vkc_enum_char i8)
set(_vkc_enum_uchar u8)
set(_vkc_enum_short i16)
set(_vkc_enum_ushort u16)
set(_vkc_enum_uvec2 u32x2)
set(_vkc_bytes_char 1)
set(_vkc_bytes_uchar 1)
set(_vkc_bytes_short 2)
set(_vkc_bytes_ushort 2)
set(_vkc_bytes_half 2)
set(_vkc_bytes_int 4)
set(_vkc_bytes_uint 4)
set(_vkc_bytes_float 4)
set(_vkc_bytes_long 8)
set(_vkc_bytes_ulong 8)
set(_vkc_bytes_double 8)
set(_vkc_bytes_uvec2 8)
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

# Vectors of items for wide loads (device_scan): 16 bytes where the type allows, else 4 items.
set(_vkc_vec_char i8vec4)
set(_vkc_vec_uchar u8vec4)
set(_vkc_vec_short i16vec4)
set(_vkc_vec_ushort u16vec4)
set(_vkc_vec_half f16vec4)
set(_vkc_vec_int ivec4)
set(_vkc_vec_uint uvec4)
set(_vkc_vec_float vec4)
set(_vkc_vec_long i64vec2)
set(_vkc_vec_ulong u64vec2)
set(_vkc_vec_double dvec2)
set(_vkc_vec_uvec2 uvec2) # one item a vector: the pairs load as they are

# What a module needs from the device beyond Vulkan 1.1 compute, as vkc::Feature names.
# Operator name in the variants list (OpenCL's) -> vkc::Op enum.
set(_vkc_op_enum_and bit_and)
set(_vkc_op_enum_or bit_or)
set(_vkc_op_enum_xor bit_xor)

function(_vkc_required_features out kernel type op path)
  set(features "")
  if(type MATCHES "^u?char$")
    list(APPEND features shader_int8 storage_buffer_8bit)
  elseif(type MATCHES "^u?short$")
    list(APPEND features shader_int16 storage_buffer_16bit)
  elseif(type STREQUAL "half")
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
    elseif(type STREQUAL "uvec2") # custom operators scan through shuffles
      list(APPEND features subgroup_shuffle subgroup_shuffle_relative)
    else()
      # exclusive scans from inclusive ones by subgroupShuffleUp (VKC_SUBGROUP_SHUFFLE_RELATIVE)
      list(APPEND features subgroup_arithmetic subgroup_shuffle_relative)
    endif()
    if(type MATCHES "^(half|char|uchar|short|ushort|long|ulong)$")
      list(APPEND features subgroup_extended_types)
    endif()
    # Exact double min/max scan the bits as 64-bit integers (shaders/include/vkc/common.glsl).
    if(type STREQUAL "double" AND op MATCHES "^(min|max)$")
      list(APPEND features shader_int64 subgroup_extended_types)
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
  # TYPES, OPS and ONLY_KERNELS are lists (uint;float or uint,float)
  cmake_parse_arguments(ARG "" "VARIANTS;KERNELS;INCLUDE" "TYPES;OPS;ONLY_KERNELS" ${ARGN})
  foreach(filter TYPES OPS ONLY_KERNELS)
    if(NOT ARG_${filter} OR ARG_${filter} STREQUAL "all")
      set(keep_${filter} all)
    else()
      string(REPLACE "," ";" keep_${filter} "${ARG_${filter}}")
    endif()
  endforeach()
  set(internal_kernels copy read subgroup_layout)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${ARG_VARIANTS}")
  file(GLOB_RECURSE headers "${ARG_INCLUDE}/*.glsl" "${ARG_INCLUDE}/*.h" "${ARG_KERNELS}/*.glsl")
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
    if(NOT keep_ONLY_KERNELS STREQUAL "all" AND NOT kernel IN_LIST keep_ONLY_KERNELS
       AND NOT kernel IN_LIST internal_kernels)
      continue()
    endif()
    foreach(i 1 2 3 4)
      list(GET fields ${i} f)
      string(REPLACE "," ";" f "${f}")
      set(field${i} "${f}")
    endforeach()
    foreach(collective IN LISTS field1)
      foreach(type IN LISTS field2)
        if(NOT type STREQUAL "-" AND NOT keep_TYPES STREQUAL "all" AND NOT type IN_LIST keep_TYPES)
          continue()
        endif()
        foreach(op IN LISTS field3)
          if(NOT op STREQUAL "-" AND NOT keep_OPS STREQUAL "all" AND NOT op IN_LIST keep_OPS)
            continue()
          endif()
          foreach(path IN LISTS field4)
            set(name "${collective}")
            set(defines "-DCOLLECTIVE=${collective}" "-DCOLLECTIVE_${collective}=1"
                        "-DVKC_MODULE_CAPACITY=${VKC_MODULE_MAX_WORKGROUP_SIZE}u")
            set(type_enum u32) # the vote kernel reads uint predicates
            set(op_enum add)
            if(NOT op STREQUAL "-")
              string(APPEND name "_${op}")
              list(APPEND defines "-DITEM_OP=${op}" "-DITEM_OP_${op}=1")
              set(op_enum ${op})
              if(DEFINED _vkc_op_enum_${op})
                set(op_enum ${_vkc_op_enum_${op}})
              endif()
            endif()
            if(NOT type STREQUAL "-")
              if(NOT DEFINED _vkc_glsl_${type})
                message(FATAL_ERROR "${ARG_VARIANTS}: unknown type '${type}'")
              endif()
              string(APPEND name "_${type}")
              set(vec_width 4)
              if(_vkc_bytes_${type} EQUAL 8)
                set(vec_width 2)
              endif()
              if(type STREQUAL "uvec2")
                set(vec_width 1)
              endif()
              set(is_float 0)
              if(type MATCHES "^(half|float|double)$")
                set(is_float 1)
              endif()
              list(APPEND defines "-DITEM_TYPE=${_vkc_glsl_${type}}" "-DITEM_BYTES=${_vkc_bytes_${type}}"
                                  "-DITEM_VEC=${_vkc_vec_${type}}" "-DITEM_VEC_WIDTH=${vec_width}"
                                  "-DITEM_FLOAT=${is_float}")
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
            _vkc_required_features(features ${kernel} ${type} ${op} ${path})
            set(bindings 2)
            if(kernel STREQUAL "block_scan" OR kernel STREQUAL "device_scan")
              set(bindings 3)
            endif()
            # name|collective|type|op|path|features|max work-group size|bindings|kernel|type name|op name
            list(APPEND table_rows
                 "${name}|${collective}|${type_enum}|${op_enum}|${path_enum}|${features}|${VKC_MODULE_MAX_WORKGROUP_SIZE}|${bindings}|${kernel}|${type}|${op}")
          endforeach()
        endforeach()
      endforeach()
    endforeach()
  endforeach()

  set(manifest "${CMAKE_CURRENT_BINARY_DIR}/vkc_modules.manifest")
  string(REPLACE ";" "\n" manifest_text "${table_rows}")
  file(CONFIGURE OUTPUT "${manifest}" CONTENT "${manifest_text}\n")
  # The table goes in a C++ source, the SPIR-V words in an assembler source that .incbin's the files:
  # a 5 MB array initialiser would take the compiler minutes.
  if(NOT spv_files)
    message(FATAL_ERROR "vkc_add_shader_modules: no module matches TYPES=${ARG_TYPES} OPS=${ARG_OPS}")
  endif()
  set(generated "${CMAKE_CURRENT_BINARY_DIR}/vkc_modules.cpp")
  set(generated_asm "${CMAKE_CURRENT_BINARY_DIR}/vkc_modules.S")
  set(generated_json "${out_dir}/manifest.json")
  add_custom_command(
    OUTPUT "${generated}" "${generated_asm}" "${generated_json}"
    COMMAND "${CMAKE_COMMAND}" -DMANIFEST=${manifest} -DSPIRV_DIR=${out_dir} -DOUTPUT=${generated}
            -DOUTPUT_ASM=${generated_asm} -DOUTPUT_JSON=${generated_json} -DVERSION=${PROJECT_VERSION}
            -P "${PROJECT_SOURCE_DIR}/cmake/EmbedSpirv.cmake"
    DEPENDS ${spv_files} "${manifest}" "${PROJECT_SOURCE_DIR}/cmake/EmbedSpirv.cmake"
            "${PROJECT_SOURCE_DIR}/cmake/ManifestJson.cmake"
    COMMENT "Embedding ${CMAKE_CURRENT_BINARY_DIR}/spirv into vkc_modules.cpp"
    VERBATIM)
  target_sources(${target} PRIVATE "${generated}" "${generated_asm}")
  set_target_properties(${target} PROPERTIES VKC_SPIRV_FILES "${spv_files}" VKC_MANIFEST "${generated_json}")
endfunction()
