// vkcollectives: the CPU reference and the case runner shared by `vkc selftest` and the doctest suites.
//
// A case runs one collective on one device at one work-group shape over `groups` full work-groups
// plus, optionally, a short last group, and checks every item against the CPU reference. Groups are
// filled with patterns (random data over the type's range, a whole group of one value, the type's
// extremes, a NaN or an odd predicate at the first item, the last item and a subgroup boundary), so
// one dispatch covers them all.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vkc/context.hpp"

namespace vkc::verify {

struct Case {
    Collective collective = Collective::reduce;
    Type type = Type::u32;
    Op op = Op::add;
    WorkgroupShape shape;
    uint32_t groups = 16;     // full work-groups
    bool short_tail = true;   // add a short last group (when the shape has more than one item)
    uint64_t seed = 1;
    // Block collectives only: items per invocation, tiles each work-group scans (the last group's
    // last tiles are partial and empty when short_tail is set), the prefix mode and the path.
    uint32_t items_per_invocation = 1;
    uint32_t tiles_per_group = 3;
    // running: the running forms; callback: the same carry through a prefix callback
    enum class Prefix { none, seeded, running, callback } prefix = Prefix::none;
    Path path = Path::subgroup; // shared_memory: the raking scan
    std::string label() const; // "scan_inclusive add uint 32x4x1"
};

enum class Status { pass, fail, skip };

struct Outcome {
    Status status = Status::pass;
    std::string detail; // why it failed or was skipped; empty on pass
    std::string module; // the module that ran
};

// A device-wide scan or reduce (Context::scan / reduce / plans) of `count` random items, checked
// item by item against the CPU reference; float min/max inputs carry NaNs at the first, a middle and
// the last item. Float min and max must return one of the items bit for bit (-0 orders below +0).
struct DeviceCase {
    Type type = Type::u32;
    Op op = Op::add;
    uint64_t count = 0;
    bool reduce = false;
    ScanOptions options;     // exclusive, reproducible, force_fallback, tile, segment_items, stream_bytes
    bool in_place = false;   // scan: output is the input buffer
    // How it runs: on the Context's buffers, from host arrays (streamed), or as a plan recorded into
    // a command buffer of our own at non-zero offsets, checking that nothing outside the output changed.
    enum class Api { buffers, host, recorded } api = Api::buffers;
    // Recorded only: > 0 makes the plan with an IndirectCount of this bound (>= count), whose buffer
    // holds indirect_written (0: count). Buffers and scratch are sized for the bound; nothing past
    // the count may change. A written count past the bound with count == bound: the bound is kept.
    uint64_t indirect_max = 0;
    uint32_t indirect_written = 0;
    uint32_t runs = 1;       // > 1: the outputs of every run must be bit-identical
    // Float min/max: the items are denormals of both signs, signed zeros, a few infinities and NaNs.
    bool denormals = false;
    uint64_t seed = 1;
    std::string label() const; // "device scan_inclusive add uint n=1000 in place"
};

// Runs the case and checks it. Never throws for what the device cannot do: that is a skip with its
// reason. A validation message during the case is a failure.
Outcome run_case(Context& context, const Case& c);
Outcome run_device_case(Context& context, const DeviceCase& c);

// The work-group shapes of the test matrix: 1D sizes 1 ... 1024 and 2D/3D shapes (1xSx1 uses the
// device subgroup size S). Shapes past the device limits are kept: they run as skips naming the limit.
std::vector<WorkgroupShape> standard_shapes(const DeviceInfo& device);

} // namespace vkc::verify
