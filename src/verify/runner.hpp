// vkcollectives: what runs a verifier case: its outcome, the validation messages it caused, and the
// guard that turns what the device cannot do into a skip.
#pragma once

#include <exception>
#include <string>

#include "verify/verify.hpp"

namespace vkc::verify::detail {

// ---- Running ------------------------------------------------------------------------------------

struct Runner {
    Context& ctx;
    Outcome outcome;
    uint64_t validation_before;

    explicit Runner(Context& c) : ctx(c), validation_before(c.validation_messages()) {}

    bool fail(const std::string& why) {
        outcome.status = Status::fail;
        outcome.detail = why;
        return false;
    }
    bool validation_clean() {
        if (ctx.validation_messages() != validation_before) {
            return fail("validation layer: " + ctx.last_validation_message());
        }
        return true;
    }
};

template <class Body>
Outcome guarded(Context& ctx, Collective c, Type t, Op op, Body&& body) {
    Runner r(ctx);
    try {
        r.outcome.module = ctx.device().select_module(c, t, op).name;
        body(r);
    } catch (const UnsupportedError& e) {
        r.outcome.status = Status::skip;
        r.outcome.detail = e.what();
    } catch (const std::exception& e) {
        r.fail(e.what());
    }
    return r.outcome;
}

} // namespace vkc::verify::detail
