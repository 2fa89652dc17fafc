// vkcollectives: a host-side half (IEEE binary16) for buffers of half items.
#pragma once

#include "vkc/api.hpp"

#include <cstdint>

namespace vkc {
VKC_API_BEGIN


struct half {
    uint16_t bits = 0;
    half() = default;
    explicit half(float value);
    explicit operator float() const;
    static half from_bits(uint16_t b) {
        half h;
        h.bits = b;
        return h;
    }
};

VKC_API_END
} // namespace vkc
