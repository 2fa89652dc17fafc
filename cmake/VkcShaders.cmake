# Expands shaders/variants.txt into SPIR-V modules (glslang -> spirv-val -> spirv-opt -> spirv-val),
# packs them into streams (tools/spirv_pack.cpp) and writes the C++ source that embeds the streams
# with the module table.
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
# spirv-opt's -O recipe (SPIRV-Tools 2023.1) without loop-unroll, for the kernels listed: their loops
# keep their [[unroll]] hints for the driver's compiler, and their SPIR-V builds in about half the time
# (unrolled loops made every later pass slower). Measured alike on NVIDIA; the other kernels keep -O,
# which select needs (docs/decisions.md, "spirv-opt without loop-unroll").
set(VKC_SPIRV_NO_UNROLL_KERNELS device_scan segmented)
set(VKC_SPIRV_OPT_NO_UNROLL
  --wrap-opkill --eliminate-dead-branches --merge-return --inline-entry-points-exhaustive
  --eliminate-dead-functions --eliminate-dead-code-aggressive --private-to-local
  --eliminate-local-single-block --eliminate-local-single-store --eliminate-dead-code-aggressive
  --scalar-replacement=100 --convert-local-access-chains --eliminate-local-single-block
  --eliminate-local-single-store --eliminate-dead-code-aggressive --ssa-rewrite
  --eliminate-dead-code-aggressive --ccp --eliminate-dead-code-aggressive --eliminate-dead-branches
  --redundancy-elimination --combine-access-chains --simplify-instructions --scalar-replacement=100
  --convert-local-access-chains --eliminate-local-single-block --eliminate-local-single-store
  --eliminate-dead-code-aggressive --ssa-rewrite --eliminate-dead-code-aggressive --vector-dce
  --eliminate-dead-inserts --eliminate-dead-branches --simplify-instructions --if-conversion
  --copy-propagate-arrays --reduce-load-size --eliminate-dead-code-aggressive --merge-blocks
  --redundancy-elimination --eliminate-dead-branches --merge-blocks --simplify-instructions)
# Shared scratch is sized for at most this many invocations (the default of specialization constant 6,
# see VKC_SCRATCH_CAPACITY in shaders/include/vkc/common.glsl); the runtime refuses larger work-groups.
set(VKC_MODULE_MAX_WORKGROUP_SIZE 1024)

# Every type and operator: include/vkc/types.def, one VKC_TYPE(...) or VKC_OP(...) line each (the
# columns are described there). For each type name (OpenCL's) this sets _vkc_<column>_<name>; for each
# operator _vkc_op_<column>_<name>; and the lists, in the file's order, _vkc_types, _vkc_ops,
# _vkc_types_<class> (float, integer, pair) and _vkc_ops_<class>.
set(VKC_TYPES_DEF "${CMAKE_CURRENT_LIST_DIR}/../include/vkc/types.def")
get_filename_component(VKC_TYPES_DEF "${VKC_TYPES_DEF}" ABSOLUTE)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${VKC_TYPES_DEF}")
set(_vkc_type_columns enum value name class opencl bytes glsl vec vec_width host features subgroup_features
    subgroup_compare_features)
set(_vkc_op_columns enum value name classes opencl compares)
function(_vkc_read_types_def)
  file(STRINGS "${VKC_TYPES_DEF}" def_lines REGEX "^VKC_(TYPE|OP)\\(")
  set(types "")
  set(ops "")
  foreach(line IN LISTS def_lines)
    if(NOT line MATCHES "^VKC_(TYPE|OP)\\(([^()]*)\\)[ \t]*$")
      message(FATAL_ERROR "${VKC_TYPES_DEF}: cannot read '${line}'")
    endif()
    set(kind ${CMAKE_MATCH_1})
    string(REGEX REPLACE "[ \t]" "" row "${CMAKE_MATCH_2}")
    string(REPLACE "," ";" row "${row}")
    if(kind STREQUAL "TYPE")
      set(columns ${_vkc_type_columns})
      set(prefix _vkc_)
    else()
      set(columns ${_vkc_op_columns})
      set(prefix _vkc_op_)
    endif()
    list(LENGTH row n)
    list(LENGTH columns want)
    if(NOT n EQUAL want)
      message(FATAL_ERROR "${VKC_TYPES_DEF}: expected ${want} columns, got '${line}'")
    endif()
    list(GET row 2 name)
    foreach(column IN LISTS columns)
      list(FIND columns ${column} i)
      list(GET row ${i} value)
      string(REPLACE "|" ";" value "${value}")
      set(${prefix}${column}_${name} "${value}" PARENT_SCOPE)
    endforeach()
    if(kind STREQUAL "TYPE")
      list(APPEND types ${name})
      list(GET row 3 class)
      list(APPEND types_${class} ${name})
      set(_vkc_types_${class} ${types_${class}} PARENT_SCOPE)
    else()
      list(APPEND ops ${name})
      list(GET row 3 classes)
      string(REPLACE "|" ";" classes "${classes}")
      foreach(class IN LISTS classes)
        list(APPEND ops_${class} ${name})
        set(_vkc_ops_${class} ${ops_${class}} PARENT_SCOPE)
      endforeach()
    endif()
  endforeach()
  set(_vkc_types ${types} PARENT_SCOPE)
  set(_vkc_ops ${ops} PARENT_SCOPE)
endfunction()
_vkc_read_types_def()

# What a module needs from the device beyond Vulkan 1.1 compute, as vkc::Feature names: the type's
# features, and on the subgroup path subgroup_basic and what the kernel or the type's scans need.
function(_vkc_required_features out kernel type op path)
  set(features "")
  if(NOT type STREQUAL "-")
    list(APPEND features ${_vkc_features_${type}})
  endif()
  if(kernel STREQUAL "select" OR kernel STREQUAL "segmented" OR kernel STREQUAL "radix_sort")
    # 8- and 16-bit items are only loaded and stored (the segmented kernel combines them as 32-bit
    # integers or floats): storage access alone
    list(REMOVE_ITEM features shader_int8 shader_int16 shader_float16)
  endif()
  if(kernel STREQUAL "radix_sort" AND type STREQUAL "uchar")
    # the sort's narrow module moves 8- and 16-bit keys and values alike
    list(APPEND features storage_buffer_16bit)
  endif()
  if(path STREQUAL "subgroup")
    list(APPEND features subgroup_basic)
    if(kernel STREQUAL "workgroup_vote")
      list(APPEND features subgroup_vote)
    elseif(kernel STREQUAL "radix_sort")
      # ranks a subgroup's keys by ballots of their digit bits, the leader's count shuffled to its peers
      list(APPEND features ${_vkc_subgroup_features_uint} subgroup_ballot subgroup_shuffle)
    elseif(kernel STREQUAL "segmented")
      # (heads, value) pairs scanned through subgroup shuffles (vkc/block_segmented.glsl); exact
      # double min/max compare the bits as 64-bit integers
      list(APPEND features subgroup_shuffle subgroup_shuffle_relative)
      if(_vkc_op_compares_${op})
        list(APPEND features ${_vkc_subgroup_compare_features_${type}})
      endif()
    elseif(kernel STREQUAL "select")
      # the tile's mask from a ballot a register, the kept counts scanned with subgroup arithmetic
      # (on uint, whatever the items)
      list(APPEND features ${_vkc_subgroup_features_uint} subgroup_ballot)
    elseif(NOT type STREQUAL "-")
      # e.g. subgroup arithmetic, with exclusive scans from inclusive ones by subgroupShuffleUp
      # (VKC_SUBGROUP_SHUFFLE_RELATIVE); the custom operators scan through shuffles
      list(APPEND features ${_vkc_subgroup_features_${type}})
      # e.g. exact double min/max scan the bits as 64-bit integers (shaders/include/vkc/common.glsl)
      if(NOT op STREQUAL "-" AND _vkc_op_compares_${op})
        list(APPEND features ${_vkc_subgroup_compare_features_${type}})
        # The device-wide scan combines them as integer keys only (ITEM_KEYED, device_scan.comp).
        if(kernel STREQUAL "device_scan" AND _vkc_class_${type} STREQUAL "float" AND _vkc_bytes_${type} EQUAL 8)
          list(REMOVE_ITEM features ${_vkc_features_${type}})
        endif()
      endif()
    endif()
  endif()
  list(REMOVE_ITEM features none)
  if(NOT features)
    set(features none)
  endif()
  list(TRANSFORM features PREPEND "Feature::")
  list(JOIN features "+" joined) # '|' separates the manifest's fields
  set(${out} "${joined}" PARENT_SCOPE)
endfunction()

# A field of shaders/variants.txt: names, or the table's classes: <class>_types (float_types,
# integer_types, pair_types), scalar_types (float and integer), all_types; type_ops, the operators of
# the type being expanded.
function(_vkc_expand_field out field type)
  set(result "")
  string(REPLACE "," ";" items "${field}")
  foreach(item IN LISTS items)
    if(item STREQUAL "all_types")
      list(APPEND result ${_vkc_types})
    elseif(item STREQUAL "scalar_types")
      foreach(t IN LISTS _vkc_types)
        if(NOT _vkc_class_${t} STREQUAL "pair")
          list(APPEND result ${t})
        endif()
      endforeach()
    elseif(item MATCHES "^(.*)_types$")
      if(NOT DEFINED _vkc_types_${CMAKE_MATCH_1})
        message(FATAL_ERROR "variants: no type of class '${CMAKE_MATCH_1}' in ${VKC_TYPES_DEF}")
      endif()
      list(APPEND result ${_vkc_types_${CMAKE_MATCH_1}})
    elseif(item STREQUAL "type_ops")
      list(APPEND result ${_vkc_ops_${_vkc_class_${type}}})
    else()
      list(APPEND result ${item})
    endif()
  endforeach()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

# A signed integer type's module for an operator that does not compare (add, mul, the bitwise and the
# logical ones) computes the same bits as the unsigned type's of its width: two's complement wraps
# alike, and items keep their type from load to store. Such a module is not built; its table row uses
# the unsigned twin's SPIR-V (OpenCL names it "u" + the signed name) where the twin is built too.
function(_vkc_shared_code out type op keep_types)
  set(${out} "" PARENT_SCOPE)
  if(type STREQUAL "-" OR op STREQUAL "-" OR NOT _vkc_class_${type} STREQUAL "integer"
     OR _vkc_op_compares_${op} OR NOT DEFINED _vkc_class_u${type})
    return()
  endif()
  if(keep_types STREQUAL "all" OR "u${type}" IN_LIST keep_types)
    set(${out} "u${type}" PARENT_SCOPE)
  endif()
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
  file(STRINGS "${ARG_VARIANTS}" lines)
  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/spirv")
  file(MAKE_DIRECTORY "${out_dir}")
  set(spv_files "")
  set(table_rows "")
  set(streams "")
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
    list(GET fields 1 field1)
    list(GET fields 2 field2)
    list(GET fields 4 field4)
    string(REPLACE "," ";" field1 "${field1}")
    _vkc_expand_field(field2 "${field2}" -)
    string(REPLACE "," ";" field4 "${field4}")
    foreach(collective IN LISTS field1)
      foreach(type IN LISTS field2)
        if(NOT type STREQUAL "-" AND NOT keep_TYPES STREQUAL "all" AND NOT type IN_LIST keep_TYPES)
          continue()
        endif()
        list(GET fields 3 field3)
        _vkc_expand_field(field3 "${field3}" "${type}")
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
              if(NOT DEFINED _vkc_op_enum_${op})
                message(FATAL_ERROR "${ARG_VARIANTS}: unknown operator '${op}' (not in ${VKC_TYPES_DEF})")
              endif()
              set(op_enum ${_vkc_op_enum_${op}})
            endif()
            if(NOT type STREQUAL "-")
              if(NOT DEFINED _vkc_glsl_${type})
                message(FATAL_ERROR "${ARG_VARIANTS}: unknown type '${type}' (not in ${VKC_TYPES_DEF})")
              endif()
              string(APPEND name "_${type}")
              set(is_float 0)
              if(_vkc_class_${type} STREQUAL "float")
                set(is_float 1)
              endif()
              set(is_signed 0) # a signed integer: OpenCL names its unsigned twin "u" + its name
              if(_vkc_class_${type} STREQUAL "integer" AND DEFINED _vkc_class_u${type})
                set(is_signed 1)
              endif()
              list(APPEND defines "-DITEM_TYPE=${_vkc_glsl_${type}}" "-DITEM_BYTES=${_vkc_bytes_${type}}"
                                  "-DITEM_VEC=${_vkc_vec_${type}}" "-DITEM_VEC_WIDTH=${_vkc_vec_width_${type}}"
                                  "-DITEM_FLOAT=${is_float}" "-DITEM_SIGNED=${is_signed}")
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
            _vkc_shared_code(twin "${type}" "${op}" "${keep_TYPES}")
            set(code_name "${name}")
            set(code_type "${type}")
            if(twin)
              string(REGEX REPLACE "_${type}_${path}$" "_${twin}_${path}" code_name "${name}")
              set(code_type "${twin}")
            endif()
            # Packed with its kernel's other modules of the same type and path: they differ little.
            string(REPLACE "-" "any" stream "${kernel}_${code_type}_${path}")
            set(src "${ARG_KERNELS}/${kernel}.comp")
            set(raw "${out_dir}/${name}.unopt.spv")
            set(spv "${out_dir}/${name}.spv")
            if(NOT twin)
              set(opt_passes -O)
              if(kernel IN_LIST VKC_SPIRV_NO_UNROLL_KERNELS)
                set(opt_passes ${VKC_SPIRV_OPT_NO_UNROLL})
              endif()
              # glslang's depfile lists the headers the module includes, so that a header rebuilds
              # only its modules. It names the unoptimised file, hence that file as the first output.
              add_custom_command(
                OUTPUT "${raw}" "${spv}"
                COMMAND "${GLSLANG_VALIDATOR}" --quiet -V --target-env ${VKC_SPIRV_ENV} -I${ARG_INCLUDE}
                        ${defines} --depfile "${raw}.d" -o "${raw}" "${src}"
                COMMAND "${SPIRV_VAL}" --target-env ${VKC_SPIRV_ENV} "${raw}"
                COMMAND "${SPIRV_OPT}" ${opt_passes} --target-env=${VKC_SPIRV_ENV} "${raw}" -o "${spv}"
                COMMAND "${SPIRV_VAL}" --target-env ${VKC_SPIRV_ENV} "${spv}"
                DEPENDS "${src}"
                DEPFILE "${raw}.d"
                COMMENT "SPIR-V ${name}"
                VERBATIM)
              list(APPEND spv_files "${spv}")
              if(NOT stream IN_LIST streams)
                list(APPEND streams "${stream}")
              endif()
              list(APPEND stream_files_${stream} "${spv}")
            endif()
            _vkc_required_features(features ${kernel} ${type} ${op} ${path})
            set(bindings 2)
            if(kernel STREQUAL "block_scan")
              set(bindings 3)
            elseif(kernel STREQUAL "device_scan")
              set(bindings 4)
            elseif(kernel STREQUAL "radix_sort")
              set(bindings 6)
            elseif(kernel STREQUAL "select")
              set(bindings 7)
            elseif(kernel STREQUAL "histogram")
              set(bindings 5)
            elseif(kernel STREQUAL "segmented")
              set(bindings 7)
            endif()
            # name|collective|type|op|path|features|max work-group size|bindings|kernel|type name|op name|
            # the module whose SPIR-V it runs|that module's packed stream
            list(APPEND table_rows
                 "${name}|${collective}|${type_enum}|${op_enum}|${path_enum}|${features}|${VKC_MODULE_MAX_WORKGROUP_SIZE}|${bindings}|${kernel}|${type}|${op}|${code_name}|${stream}")
          endforeach()
        endforeach()
      endforeach()
    endforeach()
  endforeach()

  # Each stream packed by tools/spirv_pack.cpp, its modules in table order (EmbedSpirv.cmake counts
  # their offsets in that order).
  # It runs on the build machine: a cross build names a native build of it in VKC_SPIRV_PACK.
  if(VKC_SPIRV_PACK)
    set(packer "${VKC_SPIRV_PACK}")
  else()
    if(CMAKE_CROSSCOMPILING)
      message(FATAL_ERROR "Cross-compiling: set VKC_SPIRV_PACK to a native build of tools/spirv_pack.cpp "
                          "(c++ -std=c++20 -O2 -Isrc tools/spirv_pack.cpp src/packing/frames.cpp "
                          "src/packing/pack_frames.cpp -lzstd)")
    endif()
    if(NOT TARGET vkc_spirv_pack)
      add_executable(vkc_spirv_pack "${PROJECT_SOURCE_DIR}/tools/spirv_pack.cpp"
                                    "${PROJECT_SOURCE_DIR}/src/packing/frames.cpp"
                                    "${PROJECT_SOURCE_DIR}/src/packing/pack_frames.cpp")
      target_include_directories(vkc_spirv_pack PRIVATE "${PROJECT_SOURCE_DIR}/src")
      target_link_libraries(vkc_spirv_pack PRIVATE PkgConfig::vkc_zstd) # the top level's pkg_check_modules
    endif()
    set(packer vkc_spirv_pack)
  endif()
  set(packed_dir "${CMAKE_CURRENT_BINARY_DIR}/spirv_packed")
  file(MAKE_DIRECTORY "${packed_dir}")
  set(packed_files "")
  foreach(stream IN LISTS streams)
    set(packed "${packed_dir}/${stream}.bin")
    add_custom_command(
      OUTPUT "${packed}"
      COMMAND ${packer} "${packed}" ${stream_files_${stream}}
      DEPENDS ${packer} ${stream_files_${stream}}
      COMMENT "Packing ${stream}"
      VERBATIM)
    list(APPEND packed_files "${packed}")
  endforeach()

  set(manifest "${CMAKE_CURRENT_BINARY_DIR}/vkc_modules.manifest")
  string(REPLACE ";" "\n" manifest_text "${table_rows}")
  file(CONFIGURE OUTPUT "${manifest}" CONTENT "${manifest_text}\n")
  # The table goes in a C++ source, the packed streams in an assembler source that .incbin's them: a
  # 10 MB array initialiser would take the compiler minutes. manifest.json is packed as one frame.
  if(NOT spv_files)
    message(FATAL_ERROR "vkc_add_shader_modules: no module matches TYPES=${ARG_TYPES} OPS=${ARG_OPS}")
  endif()
  set(generated "${CMAKE_CURRENT_BINARY_DIR}/vkc_modules.cpp")
  set(generated_asm "${CMAKE_CURRENT_BINARY_DIR}/vkc_modules.S")
  set(generated_json "${out_dir}/manifest.json")
  add_custom_command(
    OUTPUT "${generated}" "${generated_asm}" "${generated_json}" "${packed_dir}/manifest.json.bin"
    COMMAND "${CMAKE_COMMAND}" -DMANIFEST=${manifest} -DSPIRV_DIR=${out_dir} -DPACKED_DIR=${packed_dir}
            -DOUTPUT=${generated}
            -DOUTPUT_ASM=${generated_asm} -DOUTPUT_JSON=${generated_json} -DVERSION=${PROJECT_VERSION}
            -P "${PROJECT_SOURCE_DIR}/cmake/EmbedSpirv.cmake"
    COMMAND ${packer} --bytes "${packed_dir}/manifest.json.bin" "${generated_json}"
    DEPENDS ${spv_files} ${packed_files} ${packer} "${manifest}" "${PROJECT_SOURCE_DIR}/cmake/EmbedSpirv.cmake"
            "${PROJECT_SOURCE_DIR}/cmake/ManifestJson.cmake"
            "${PROJECT_SOURCE_DIR}/shaders/include/vkc/contract.h"
    COMMENT "Embedding ${CMAKE_CURRENT_BINARY_DIR}/spirv into vkc_modules.cpp"
    VERBATIM)
  target_sources(${target} PRIVATE "${generated}" "${generated_asm}")
  set_target_properties(${target} PROPERTIES VKC_SPIRV_FILES "${spv_files}" VKC_MANIFEST "${generated_json}")
endfunction()
