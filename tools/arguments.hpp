// The options of a vkc subcommand, read one at a time. An unknown option, a missing value, or a value
// that is not a whole number in its range throws UsageError naming the option (vkc exits with 2), so
// that a typo on the command line is a one-line message and never a number wrapped into range.
#pragma once

#include <charconv>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace vkc::tool {

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Arguments {
public:
    Arguments(int argc, char** argv) : argc_(argc), argv_(argv) {}

    // Moves to the next option; false after the last.
    bool next() { return ++at_ < argc_; }
    const char* option() const { return argv_[at_]; }
    bool is(const char* name) const { return option() == std::string_view(name); }

    // The current option's value: the argument after it.
    std::string text() {
        if (at_ + 1 >= argc_) throw UsageError(std::string("option ") + option() + " needs a value");
        return argv_[++at_];
    }

    template <class T>
    T number(T lowest = std::numeric_limits<T>::min(), T highest = std::numeric_limits<T>::max()) {
        std::string name = option();
        return parse<T>(text(), name, lowest, highest);
    }

    // A comma-separated list of numbers, each in range.
    std::vector<uint32_t> numbers(uint32_t lowest, uint32_t highest) {
        std::string name = option(), list = text();
        std::vector<uint32_t> out;
        for (size_t begin = 0; begin <= list.size();) {
            size_t end = list.find(',', begin);
            if (end == std::string::npos) end = list.size();
            out.push_back(parse<uint32_t>(list.substr(begin, end - begin), name, lowest, highest));
            begin = end + 1;
        }
        return out;
    }

    [[noreturn]] void unknown() const { throw UsageError(std::string("unknown option ") + option()); }

private:
    template <class T>
    T parse(const std::string& text, const std::string& name, T lowest, T highest) const {
        T value{};
        auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc() || end != text.data() + text.size() || value < lowest || value > highest) {
            throw UsageError("option " + name + " takes a whole number from " + std::to_string(lowest) + " to " +
                             std::to_string(highest) + ", not '" + text + "'");
        }
        return value;
    }

    int argc_;
    char** argv_;
    int at_ = -1;
};

} // namespace vkc::tool
