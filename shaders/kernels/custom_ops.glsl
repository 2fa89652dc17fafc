// The worked custom operators of shaders/examples, chosen by -DITEM_OP_argmax or
// -DITEM_OP_segmented_add, and the operator of ITEM_OP for kernel code outside the templates (which
// undefine their helpers at the end): ITEM_IDENTITY, ITEM_COMBINE(a, b), ITEM_PREPARE(x),
// ITEM_SUBGROUP_INCLUSIVE(x), ITEM_SUBGROUP_EXCLUSIVE(x) (lane 0: the identity), ITEM_SUBGROUP_TOTAL(x)
// (subgroup paths) and ITEM_COMMUTATIVE (1 where combine(a, b) ==
// combine(b, a), so items may be combined in any arrangement).
#if defined(ITEM_OP_argmax)
#include "../examples/argmax.glsl"
#define ITEM_IDENTITY vkc_example_argmax_identity()
#define ITEM_COMBINE(a, b) vkc_example_argmax(a, b)
#define ITEM_COMMUTATIVE 1
#elif defined(ITEM_OP_segmented_add)
#include "../examples/segmented_add.glsl"
#define ITEM_IDENTITY vkc_example_segmented_add_identity()
#define ITEM_COMBINE(a, b) vkc_example_segmented_add(a, b)
#define ITEM_COMMUTATIVE 0
#else
#define ITEM_IDENTITY VKC_PASTE(vkc_identity_, ITEM_OP)(ITEM_TYPE(0))
#define ITEM_COMBINE(a, b) VKC_PASTE(vkc_combine_, ITEM_OP)(a, b)
#define ITEM_PREPARE(x) VKC_PASTE(vkc_prepare_, ITEM_OP)(x)
#define ITEM_SUBGROUP_INCLUSIVE(x) VKC_PASTE(vkc_subgroup_inclusive_, ITEM_OP)(x)
#define ITEM_SUBGROUP_EXCLUSIVE(x) VKC_PASTE(vkc_subgroup_exclusive_, ITEM_OP)(x)
#define ITEM_SUBGROUP_TOTAL(x) VKC_PASTE(vkc_subgroup_reduce_, ITEM_OP)(x)
#define ITEM_COMMUTATIVE 1
#endif
#ifndef ITEM_PREPARE
#define ITEM_PREPARE(x) (x)
// from workgroup_scan.glsl: scans over subgroupShuffleUp
#define ITEM_SUBGROUP_INCLUSIVE(x) VKC_PASTE(vkc_shuffle_inclusive_, ITEM_OP)(x)
#define ITEM_SUBGROUP_EXCLUSIVE(x) VKC_PASTE(vkc_shuffle_exclusive_, ITEM_OP)(x)
#define ITEM_SUBGROUP_TOTAL(x) subgroupShuffle(ITEM_SUBGROUP_INCLUSIVE(x), gl_SubgroupSize - 1u)
#endif
