// vkcollectives: what vkc/look_back.glsl and a caller's status layout share: the status flags and the
// look-back's settings. Included by look_back.glsl; include it first where the status layout's
// functions come before look_back.glsl.
#ifndef VKC_LOOK_BACK_TYPES_GLSL
#define VKC_LOOK_BACK_TYPES_GLSL

// A chunk's status: nothing posted yet, its aggregate, or its inclusive prefix.
const uint VKC_STATUS_NONE = 0u, VKC_STATUS_AGGREGATE = 1u, VKC_STATUS_PREFIX = 2u;
const uint VKC_STATUS_UNREAD = 3u; // the look-back's own: past a round's reach (never posted)

// window: predecessors a round reads; spin_limit: polls of a silent predecessor before the fallback;
// force_fallback: never trust chunk - 1's status (a test setting); in_place: a chunk's input is
// overwritten once it has posted.
struct VkcLookBackConfig {
    uint window;
    uint spin_limit;
    bool force_fallback;
    bool in_place;
};

#endif
