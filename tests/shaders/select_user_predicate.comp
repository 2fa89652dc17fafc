#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_memory_scope_semantics : require
// An engine's own predicate compiled into vkc/device_select.glsl (tests/test_select.cpp runs it through
// vkc::SelectOptions::kernel): keep the items whose low word has an odd number of bits set, and every
// fifth item whatever it holds. Built with VKC_SUBGROUP_ARITHMETIC 1 and 0.
#define VKC_SELECT_USER_PREDICATE odd_parity_or_fifth
#include "vkc/device_select.glsl"

bool odd_parity_or_fifth(uvec2 item, uint index) { return (bitCount(item.x) & 1) == 1 || index % 5u == 0u; }
