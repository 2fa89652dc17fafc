// Items a kernel moves in one vector load: the vec_width column of include/vkc/types.def, which the
// tiles of the block scan and the device-wide scan are sized by. Not installed.
#pragma once

#include <cstdint>

#include "vkc/types.hpp"

namespace vkc {

// clang-format off
inline uint32_t vector_width(Type t) {
    switch (t) {
#define VKC_TYPE(enumerator, value, name, type_class, opencl, bytes, glsl, glsl_vec, vec_width, ...) \
    case Type::enumerator: return vec_width;
#include "vkc/types.def"
    }
    return 1;
}
// clang-format on

} // namespace vkc
