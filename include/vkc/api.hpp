// What the library exports. It is built with hidden visibility: only the declarations between
// VKC_API_BEGIN and VKC_API_END, in the public headers, are visible to programs that link it.
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define VKC_API_BEGIN _Pragma("GCC visibility push(default)")
#define VKC_API_END _Pragma("GCC visibility pop")
#else
#define VKC_API_BEGIN
#define VKC_API_END
#endif
