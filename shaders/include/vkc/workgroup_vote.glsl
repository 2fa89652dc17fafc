// vkcollectives: work-group all and any of a predicate (OpenCL C work_group_all/any).
//
//   bool vkc_workgroup_all(bool predicate);  // true when the predicate holds in every invocation
//   bool vkc_workgroup_any(bool predicate);  // true when it holds in at least one
//
// Every invocation must call them in uniform control flow. Uses one uint of shared memory. With
// VKC_SUBGROUP_ARITHMETIC (the default) a subgroup vote comes first, so only one lane per subgroup
// touches shared memory; with 0 they need no subgroup support at all.
#ifndef VKC_WORKGROUP_VOTE_GLSL
#define VKC_WORKGROUP_VOTE_GLSL

#include "common.glsl"

shared uint vkc_vote_flag;

// True when some invocation's `raised` is true.
bool vkc_workgroup_raised(bool raised) {
    if (gl_LocalInvocationIndex == 0u) {
        vkc_vote_flag = 0u;
    }
    barrier();
#if VKC_SUBGROUP_ARITHMETIC
    if (subgroupAny(raised) && subgroupElect()) {
        atomicOr(vkc_vote_flag, 1u);
    }
#else
    if (raised) {
        atomicOr(vkc_vote_flag, 1u);
    }
#endif
    barrier();
    bool result = vkc_vote_flag != 0u;
    barrier(); // the next vote resets the flag only after everyone has read it
    return result;
}

bool vkc_workgroup_any(bool predicate) { return vkc_workgroup_raised(predicate); }
bool vkc_workgroup_all(bool predicate) { return !vkc_workgroup_raised(!predicate); }

#endif // VKC_WORKGROUP_VOTE_GLSL
