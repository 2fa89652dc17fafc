// Items to and from raw bits (low word first; narrower types in the low bits of .x), so that push
// constants and the uint words of a state buffer can carry any item type.
float16_t from_bits(uvec2 b, float16_t t) { return unpackFloat2x16(b.x).x; }
int8_t from_bits(uvec2 b, int8_t t) { return int8_t(b.x); }
uint8_t from_bits(uvec2 b, uint8_t t) { return uint8_t(b.x); }
int16_t from_bits(uvec2 b, int16_t t) { return int16_t(b.x); }
uint16_t from_bits(uvec2 b, uint16_t t) { return uint16_t(b.x); }
int from_bits(uvec2 b, int t) { return int(b.x); }
uint from_bits(uvec2 b, uint t) { return b.x; }
int64_t from_bits(uvec2 b, int64_t t) { return int64_t(packUint2x32(b)); }
uint64_t from_bits(uvec2 b, uint64_t t) { return packUint2x32(b); }
float from_bits(uvec2 b, float t) { return uintBitsToFloat(b.x); }
double from_bits(uvec2 b, double t) { return packDouble2x32(b); }
uvec2 from_bits(uvec2 b, uvec2 t) { return b; }

uvec2 to_bits(float16_t x) { return uvec2(packFloat2x16(f16vec2(x, float16_t(0))), 0u); }
uvec2 to_bits(int8_t x) { return uvec2(uint(uint8_t(x)), 0u); }
uvec2 to_bits(uint8_t x) { return uvec2(uint(x), 0u); }
uvec2 to_bits(int16_t x) { return uvec2(uint(uint16_t(x)), 0u); }
uvec2 to_bits(uint16_t x) { return uvec2(uint(x), 0u); }
uvec2 to_bits(int x) { return uvec2(uint(x), 0u); }
uvec2 to_bits(uint x) { return uvec2(x, 0u); }
uvec2 to_bits(int64_t x) { return unpackUint2x32(uint64_t(x)); }
uvec2 to_bits(uint64_t x) { return unpackUint2x32(x); }
uvec2 to_bits(float x) { return uvec2(floatBitsToUint(x), 0u); }
uvec2 to_bits(double x) { return unpackDouble2x32(x); }
uvec2 to_bits(uvec2 x) { return x; }
