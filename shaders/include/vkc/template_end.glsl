// Ends a (type, op) template instance: undefines its parameters and helpers, so the next instance
// can define them again. Included by workgroup_scan.glsl and block_scan.glsl; no include guard.
#undef VKC_SCRATCH
#undef VKC_OP_COMBINE
#undef VKC_OP_IDENTITY
#undef VKC_OP_PREPARE
#undef VKC_OP_SUBGROUP_INCLUSIVE
#undef VKC_OP_SUBGROUP_EXCLUSIVE
#undef VKC_OP_CHUNK_TOTAL
#undef VKC_TYPE
#undef VKC_OP
#undef VKC_CUSTOM_COMBINE
#undef VKC_CUSTOM_IDENTITY
