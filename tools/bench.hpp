// vkc bench: throughput of our kernels against a compute-shader copy and CUB.
#pragma once

namespace vkc::tool {
extern const char* bench_usage;
int bench(int argc, char** argv); // arguments after "bench"
} // namespace vkc::tool
