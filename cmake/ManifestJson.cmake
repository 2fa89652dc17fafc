# manifest.json's pieces, for EmbedSpirv.cmake. The interface written here is the one the kernels
# declare (shaders/kernels/params.glsl, include/vkc/modules.hpp); test_manifest builds pipelines
# from it alone.

# Vulkan names of what a module needs, from the vkc::Feature names of the module table.
set(_feature_shader_int64 "VkPhysicalDeviceFeatures::shaderInt64")
set(_feature_shader_float64 "VkPhysicalDeviceFeatures::shaderFloat64")
set(_feature_shader_int16 "VkPhysicalDeviceFeatures::shaderInt16")
set(_feature_shader_float16 "VkPhysicalDeviceShaderFloat16Int8Features::shaderFloat16")
set(_feature_shader_int8 "VkPhysicalDeviceShaderFloat16Int8Features::shaderInt8")
set(_feature_storage_buffer_16bit "VkPhysicalDevice16BitStorageFeatures::storageBuffer16BitAccess")
set(_feature_storage_buffer_8bit "VkPhysicalDevice8BitStorageFeatures::storageBuffer8BitAccess")
set(_feature_subgroup_extended_types
    "VkPhysicalDeviceShaderSubgroupExtendedTypesFeatures::shaderSubgroupExtendedTypes")
set(_extension_shader_float16 "VK_KHR_shader_float16_int8")
set(_extension_shader_int8 "VK_KHR_shader_float16_int8")
set(_extension_storage_buffer_8bit "VK_KHR_8bit_storage")
set(_extension_subgroup_extended_types "VK_KHR_shader_subgroup_extended_types")
set(_subgroup_subgroup_basic "VK_SUBGROUP_FEATURE_BASIC_BIT")
set(_subgroup_subgroup_vote "VK_SUBGROUP_FEATURE_VOTE_BIT")
set(_subgroup_subgroup_arithmetic "VK_SUBGROUP_FEATURE_ARITHMETIC_BIT")
set(_subgroup_subgroup_shuffle "VK_SUBGROUP_FEATURE_SHUFFLE_BIT")
set(_subgroup_subgroup_shuffle_relative "VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT")
set(_subgroup_subgroup_ballot "VK_SUBGROUP_FEATURE_BALLOT_BIT")

# The specialization-constant ids, from the contract the kernels and the runtime share.
file(STRINGS "${CMAKE_CURRENT_LIST_DIR}/../shaders/include/vkc/contract.h" _contract_ids
     REGEX "^#define VKC_SPEC_[A-Z_]+ [0-9]+")
foreach(_line IN LISTS _contract_ids)
  string(REGEX MATCH "^#define (VKC_SPEC_[A-Z_]+) ([0-9]+)" _ "${_line}")
  set(${CMAKE_MATCH_1} ${CMAKE_MATCH_2})
endforeach()

set(VKC_MANIFEST_COMMON [=[  "spirv_version": "1.3",
  "vulkan_version": "1.1",
  "entry_point": "main",
  "stage": "VK_SHADER_STAGE_COMPUTE_BIT",
  "notes": "Every module uses descriptor set 0 with storage buffers at bindings 0..5 (each module's own are listed) and 32 bytes of push constants, so one VkDescriptorSetLayout (6 storage buffers) and one VkPipelineLayout serve them all. Work-group k of a work-group collective holds items [k*size, (k+1)*size) with size = x*y*z; dispatch group_count work-groups. Extensions are needed on Vulkan 1.1 devices only: Vulkan 1.2 made them core. Subgroup operations are VkPhysicalDeviceSubgroupProperties::supportedOperations bits, in supportedStages compute."]=])

set(_wg_push [=[{"size": 32, "fields": [
        {"offset": 0, "size": 4, "name": "count", "meaning": "live items: the last work-group is short when count is not a multiple of its size"},
        {"offset": 4, "size": 4, "name": "group_count", "meaning": "work-groups holding items, ceil(count / size): extra work-groups of the dispatch exit at once"},
        {"offset": 8, "size": 4, "name": "source_dims", "meaning": "broadcast: 1, 2 or 3 coordinates in source. Others: 0"},
        {"offset": 12, "size": 4, "name": "reserved", "meaning": "0"},
        {"offset": 16, "size": 16, "name": "source", "meaning": "broadcast: uint[4], the local id (x, y, z) of the source invocation. Others: 0"}]}]=])
set(_block_push [=[{"size": 32, "fields": [
        {"offset": 0, "size": 4, "name": "count", "meaning": "valid items"},
        {"offset": 4, "size": 4, "name": "tiles_per_group", "meaning": "tiles (size x items_per_invocation items) each work-group scans in turn"},
        {"offset": 8, "size": 4, "name": "flags", "meaning": "1 seeded, 2 running prefix across tiles, 4 write the per-tile record to binding 2, 8 running prefix by callback"},
        {"offset": 12, "size": 4, "name": "reserved", "meaning": "0"},
        {"offset": 16, "size": 16, "name": "seed", "meaning": "uint[4]: the seed's bits, low word first"}]}]=])
set(_device_push [=[{"size": 32, "fields": [
        {"offset": 0, "size": 32, "name": "DeviceScanParams", "meaning": "see include/vkc/modules.hpp: the device-wide scan's protocol (scratch layout, passes, barriers) is driven by the C++ runtime only"}]}]=])

set(_spec_size [=[{"id": @VKC_SPEC_WORKGROUP_SIZE_X@, "name": "workgroup_size_x", "type": "uint32", "default": 1, "meaning": "work-group size x"},
        {"id": @VKC_SPEC_WORKGROUP_SIZE_Y@, "name": "workgroup_size_y", "type": "uint32", "default": 1, "meaning": "work-group size y"},
        {"id": @VKC_SPEC_WORKGROUP_SIZE_Z@, "name": "workgroup_size_z", "type": "uint32", "default": 1, "meaning": "work-group size z"}]=])
set(_spec_packed [=[{"id": @VKC_SPEC_SUBGROUPS_PACKED@, "name": "subgroups_packed", "type": "bool", "default": true, "meaning": "the device packs this shape's invocations into subgroups in local-index order (subgroup s holds local indices [s*S, (s+1)*S)). Set false where it does not, or when unsure: the module then joins through shared memory only"}]=])
set(_spec_capacity [=[{"id": @VKC_SPEC_SCRATCH_CAPACITY@, "name": "scratch_capacity", "type": "uint32", "default": @MAX@, "meaning": "invocations the shared scratch is sized for: at least x*y*z, at most @MAX@"}]=])
set(_spec_block [=[{"id": @VKC_SPEC_ITEMS_PER_INVOCATION@, "name": "items_per_invocation", "type": "uint32", "default": 1, "meaning": "items per invocation, 1 to 16"},
        {"id": @VKC_SPEC_STAGED@, "name": "staged", "type": "bool", "default": false, "meaning": "stage tiles through shared memory for coalesced loads"},
        {"id": @VKC_SPEC_STAGE_ITEMS@, "name": "stage_items", "type": "uint32", "default": "16384 / item bytes", "meaning": "items the stage holds: size x items_per_invocation when staged"},
        {"id": @VKC_SPEC_KERNEL@, "name": "compiled_flags", "type": "uint32", "default": 4294967295, "meaning": "flags compiled in (bits 0-3 as the push constant's, bits 8-11 tiles loaded together); 0xffffffff reads them from the push constants"}]=])

set(_spec_value_words [=[{"id": @VKC_SPEC_KERNEL@, "name": "sort_shape", "type": "uint32", "default": 0, "meaning": "32-bit words of a value (0 sorts keys only; 1, 2 or 4) | (32-bit words of a key - 1) << 4"}]=])
set(_spec_select_shape [=[{"id": @VKC_SPEC_KERNEL@, "name": "select_shape", "type": "uint32", "default": 1, "meaning": "32-bit words of an item (1 or 2; select_uchar and select_ushort move 8- and 16-bit items whatever it says) | what is kept << 4 (0 flagged, 1 predicate, 2 unique) | partition << 8 | the item's order << 12 (0 unsigned, 1 signed, 2 float) | the predicate << 16 (0 less, 1 less_equal, 2 greater, 3 greater_equal, 4 equal, 5 not_equal, 6 inside, 7 outside, 8 bits_all, 9 bits_any)"}]=])
set(_spec_segmented_shape [=[{"id": @VKC_SPEC_KERNEL@, "name": "segmented_shape", "type": "uint32", "default": 16, "meaning": "the segments (0 head flags, 1 keys, 2 offsets) | 32-bit words of a key (1 or 2) << 4 | the key's order << 8 (0 uint, 1 int, 2 float) | the output << 12 (0 inclusive scan, 1 exclusive scan, 2 reduce, 3 run lengths)"}]=])
set(_spec_histogram_shape [=[{"id": @VKC_SPEC_KERNEL@, "name": "histogram_shape", "type": "uint32", "default": 69633, "meaning": "bytes of a sample (1, 2 or 4) | its kind << 4 (0 uint, 1 int, 2 float, 3 half) | binning << 8 (0 even, 1 range) | channels << 12 | active channels << 16 | device atomics << 20 | narrow even integer bins << 21 | bins of a power of two values << 22 | staged levels << 26 | a table of 8-bit values' bins << 27 | whole bytes (8-bit samples, bins a power of two over all 256 values) << 28"}]=])

# entry: one module's JSON object; file: the .spv it runs (a signed type's module may share its
# unsigned twin's, see VkcShaders.cmake).
function(vkc_manifest_entry out name file kernel collective type op path bytes raw_features max_size)
  set(bindings [=[{"set": 0, "binding": 0, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "read", "contents": "input items"},
        {"set": 0, "binding": 1, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "write", "contents": "output items (written only where an item is live)"}]=])
  set(push "${_wg_push}")
  set(specs "${_spec_size}")
  set(protocol "direct")
  if(kernel STREQUAL "workgroup_scan")
    string(APPEND specs ",\n        ${_spec_packed},\n        ${_spec_capacity}")
  elseif(kernel STREQUAL "block_scan")
    string(APPEND bindings [=[,
        {"set": 0, "binding": 2, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "write", "contents": "per-tile record (flags & 4): 2 x size items a tile, the aggregate then the running prefix"}]=])
    set(push "${_block_push}")
    string(APPEND specs ",\n        ${_spec_packed},\n        ${_spec_capacity},\n        ${_spec_block}")
  elseif(kernel STREQUAL "device_scan")
    string(APPEND bindings [=[,
        {"set": 0, "binding": 2, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "read_write", "contents": "scratch: tile status words and chunk totals"},
        {"set": 0, "binding": 3, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "read", "contents": "IndirectCount: the item count a plan reads on the device"}]=])
    set(push "${_device_push}")
    set(protocol "cpp_only")
  elseif(kernel STREQUAL "radix_sort")
    set(bindings [=[{"set": 0, "binding": 0, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "read", "contents": "keys in (a pass's)"},
        {"set": 0, "binding": 1, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "write", "contents": "keys out (a pass's)"},
        {"set": 0, "binding": 2, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "read_write", "contents": "scratch: tickets, digit counts, tile status words"},
        {"set": 0, "binding": 3, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "read", "contents": "IndirectCount: the key count a plan reads on the device"},
        {"set": 0, "binding": 4, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "read", "contents": "values in (a pass's)"},
        {"set": 0, "binding": 5, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "write", "contents": "values out (a pass's)"}]=])
    set(push [=[{"size": 32, "fields": [
        {"offset": 0, "size": 32, "name": "SortParams", "meaning": "see src/sort/plan.cpp: the sort's passes, scratch and barriers are driven by the C++ runtime only"}]}]=])
    string(APPEND specs ",\n        ${_spec_packed},\n        ${_spec_value_words}")
    set(protocol "cpp_only")
  elseif(kernel STREQUAL "select")
    set(bindings [=[{"set": 0, "binding": 0, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "read", "contents": "items in"},
        {"set": 0, "binding": 1, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "write", "contents": "items out: the kept ones first (may be binding 0's memory, without partition)"},
        {"set": 0, "binding": 2, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "read_write", "contents": "scratch: the tile ticket and a status slot (32 bytes) a tile, zeroed before each dispatch"},
        {"set": 0, "binding": 3, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "read", "contents": "IndirectCount: the item count a plan reads on the device"},
        {"set": 0, "binding": 4, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "read", "contents": "flags: a uint an item (flagged selection)"},
        {"set": 0, "binding": 5, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "write", "contents": "the number kept"},
        {"set": 0, "binding": 6, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "write", "contents": "an indirect dispatch or draw command built from the number kept"}]=])
    set(push [=[{"size": 32, "fields": [
        {"offset": 0, "size": 32, "name": "SelectParams", "meaning": "see src/select/plan.cpp and vkc/device_select.glsl: driven by the C++ runtime"}]}]=])
    string(APPEND specs ",\n        ${_spec_packed},\n        ${_spec_select_shape}")
    set(protocol "cpp_only")
  elseif(kernel STREQUAL "histogram")
    set(bindings [=[{"set": 0, "binding": 0, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "read", "contents": "samples, interleaved channels, read as 32-bit words"},
        {"set": 0, "binding": 1, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "read_write", "contents": "the histogram: each active channel's uint counts, added to atomically"},
        {"set": 0, "binding": 2, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "read", "contents": "scratch: the bins' parameters, written before each dispatch"},
        {"set": 0, "binding": 3, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "read", "contents": "IndirectCount: the pixel count a plan reads on the device"},
        {"set": 0, "binding": 4, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "read", "contents": "levels: the boundaries of range bins"}]=])
    set(push [=[{"size": 32, "fields": [
        {"offset": 0, "size": 32, "name": "HistogramParams", "meaning": "see src/histogram/plan.cpp and shaders/kernels/histogram.comp: driven by the C++ runtime"}]}]=])
    string(APPEND specs ",\n        ${_spec_histogram_shape}")
    set(protocol "cpp_only")
  elseif(kernel STREQUAL "segmented")
    set(bindings [=[{"set": 0, "binding": 0, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "read", "contents": "values"},
        {"set": 0, "binding": 1, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "write", "contents": "output: scanned values, or a total (run length) a segment (scans may name binding 0's memory)"},
        {"set": 0, "binding": 2, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "read_write", "contents": "scratch: the tile ticket and a status slot a tile, zeroed before each dispatch"},
        {"set": 0, "binding": 3, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "read", "contents": "IndirectCount: the item count a plan reads on the device"},
        {"set": 0, "binding": 4, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "read", "contents": "head flags (a uint an item), keys, or segment_count + 1 offsets"},
        {"set": 0, "binding": 5, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "write", "contents": "unique keys: each segment's first key"},
        {"set": 0, "binding": 6, "type": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", "access": "write", "contents": "the number of segments"}]=])
    set(push [=[{"size": 32, "fields": [
        {"offset": 0, "size": 32, "name": "SegmentedParams", "meaning": "see src/segmented/plan.cpp and shaders/kernels/segmented.comp: driven by the C++ runtime"}]}]=])
    string(APPEND specs ",\n        ${_spec_packed},\n        ${_spec_segmented_shape}")
    set(protocol "cpp_only")
  elseif(kernel MATCHES "^(copy|read|subgroup_layout)$")
    set(protocol "internal")
  endif()
  string(REPLACE "@MAX@" "${max_size}" specs "${specs}")
  string(CONFIGURE "${specs}" specs @ONLY)

  string(REPLACE "Feature::" "" raw_features "${raw_features}")
  string(REPLACE "+" ";" raw_features "${raw_features}")
  set(features "")
  set(extensions "")
  set(subgroup_ops "")
  foreach(f IN LISTS raw_features)
    if(DEFINED _feature_${f})
      list(APPEND features "\"${_feature_${f}}\"")
    endif()
    if(DEFINED _extension_${f})
      list(APPEND extensions "\"${_extension_${f}}\"")
    endif()
    if(DEFINED _subgroup_${f})
      list(APPEND subgroup_ops "\"${_subgroup_${f}}\"")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES extensions)
  list(JOIN features ", " features)
  list(JOIN extensions ", " extensions)
  list(JOIN subgroup_ops ", " subgroup_ops)
  set(type_json "\"${type}\"")
  if(type STREQUAL "-")
    set(type_json "null")
  endif()
  set(op_json "\"${op}\"")
  if(op STREQUAL "-")
    set(op_json "null")
  endif()
  set(${out} "    {\"name\": \"${name}\", \"file\": \"${file}\", \"entry_point\": \"main\", \"bytes\": ${bytes},
      \"kernel\": \"${kernel}\", \"collective\": \"${collective}\", \"type\": ${type_json}, \"op\": ${op_json}, \"path\": \"${path}\",
      \"host_protocol\": \"${protocol}\",
      \"max_workgroup_size\": ${max_size},
      \"features\": [${features}],
      \"extensions\": [${extensions}],
      \"subgroup_operations\": [${subgroup_ops}],
      \"bindings\": [
        ${bindings}],
      \"push_constants\": ${push},
      \"specialization_constants\": [
        ${specs}]}" PARENT_SCOPE)
endfunction()
