// The C engine compiled as C++ with exceptions and RTTI off (tests/consumers/CMakeLists.txt): what a
// C++ engine built that way gets from include/vkc/vkc.h.
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#error "c_engine_nothrow.cpp must be compiled with -fno-exceptions"
#endif
#include "c_engine.c"
