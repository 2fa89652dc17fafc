#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_memory_scope_semantics : require
// Device-wide select, unique and partition: the kernel template vkc/device_select.glsl with the
// predicates of vkc::SelectPredicate (src/select/).
#include "vkc/device_select.glsl"
