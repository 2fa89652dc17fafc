// vkcollectives: keys of a radix sort, as unsigned numbers of the same order. int: the sign bit
// flipped; float (its bits): negatives flipped whole, so that larger magnitudes come first, and
// positives with the sign bit set above them. -0 sorts just before +0; NaNs with the sign bit set come
// first and the others last, as CUB places them. Each has its inverse.
//
//   vkc_radix_key_int(-1) == 0x7fffffff, vkc_radix_key_int(0) == 0x80000000
//   vkc_radix_key_float(floatBitsToUint(-0.0)) == 0x7fffffff, (+0.0) == 0x80000000
#ifndef VKC_RADIX_KEYS_GLSL
#define VKC_RADIX_KEYS_GLSL

uint vkc_radix_key_int(int x) { return uint(x) ^ 0x80000000u; }
int vkc_radix_int_of_key(uint k) { return int(k ^ 0x80000000u); }
uint vkc_radix_key_float(uint bits) { return (bits & 0x80000000u) != 0u ? ~bits : bits | 0x80000000u; }
uint vkc_radix_float_of_key(uint k) { return (k & 0x80000000u) != 0u ? k & 0x7fffffffu : ~k; }

#endif // VKC_RADIX_KEYS_GLSL
