// The worked custom operators of shaders/examples, chosen by -DCOLLECTIVE_OP_argmax or
// -DCOLLECTIVE_OP_segmented_add; ITEM_IDENTITY is the identity of ITEM_OP either way (the template
// undefines VKC_CUSTOM_IDENTITY after use, so kernels take it from here).
#if defined(ITEM_OP_argmax)
#include "../examples/argmax.glsl"
#define ITEM_IDENTITY vkc_example_argmax_identity()
#elif defined(ITEM_OP_segmented_add)
#include "../examples/segmented_add.glsl"
#define ITEM_IDENTITY vkc_example_segmented_add_identity()
#else
#define ITEM_IDENTITY VKC_PASTE(vkc_identity_, ITEM_OP)(ITEM_TYPE(0))
#endif
