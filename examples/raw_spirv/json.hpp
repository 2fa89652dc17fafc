// A small JSON reader, enough for manifest.json: RFC 8259 values, numbers as double (every integer in
// the manifest, 0xffffffff included, is exact in a double), \uXXXX escapes encoded as UTF-8 (surrogate
// pairs are not joined: the manifest is ASCII). Errors throw std::runtime_error with the byte offset.
// An engine with a JSON library of its own uses that instead.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace json {

struct Value {
    enum class Kind { null, boolean, number, string, array, object };
    Kind kind = Kind::null;
    bool boolean = false;
    double number = 0;
    std::string string;
    std::vector<Value> items;      // array elements, or object values
    std::vector<std::string> keys; // object keys, parallel to items

    const Value* find(std::string_view key) const {
        for (size_t i = 0; i < keys.size(); ++i)
            if (keys[i] == key) return &items[i];
        return nullptr;
    }
    const Value& operator[](std::string_view key) const {
        const Value* v = find(key);
        if (!v) throw std::runtime_error("json: no key \"" + std::string(key) + "\"");
        return *v;
    }
    const std::vector<Value>& array() const { return expect(Kind::array, "an array").items; }
    const std::string& str() const { return expect(Kind::string, "a string").string; }
    double num() const { return expect(Kind::number, "a number").number; }
    uint32_t u32() const {
        double n = num();
        if (n < 0 || n > 4294967295.0 || n != double(uint32_t(n))) throw std::runtime_error("json: not a uint32");
        return uint32_t(n);
    }
    bool is_null() const { return kind == Kind::null; }

private:
    const Value& expect(Kind k, const char* what) const {
        if (kind != k) throw std::runtime_error(std::string("json: expected ") + what);
        return *this;
    }
};

class Parser {
public:
    explicit Parser(std::string_view text) : s_(text) {}

    Value document() {
        Value v = value();
        skip_space();
        if (i_ != s_.size()) error("trailing characters");
        return v;
    }

private:
    std::string_view s_;
    size_t i_ = 0;

    [[noreturn]] void error(const char* what) const {
        throw std::runtime_error("json: " + std::string(what) + " at byte " + std::to_string(i_));
    }
    void skip_space() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
    }
    bool take(char c) {
        skip_space();
        if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
        return false;
    }
    void need(char c) {
        if (!take(c)) error((std::string("expected '") + c + "'").c_str());
    }
    bool word(std::string_view w) {
        if (s_.substr(i_, w.size()) != w) return false;
        i_ += w.size();
        return true;
    }

    Value value() {
        skip_space();
        if (i_ >= s_.size()) error("unexpected end");
        Value v;
        char c = s_[i_];
        if (c == '{') {
            v.kind = Value::Kind::object;
            ++i_;
            if (take('}')) return v;
            do {
                skip_space();
                v.keys.push_back(string());
                need(':');
                v.items.push_back(value());
            } while (take(','));
            need('}');
        } else if (c == '[') {
            v.kind = Value::Kind::array;
            ++i_;
            if (take(']')) return v;
            do v.items.push_back(value());
            while (take(','));
            need(']');
        } else if (c == '"') {
            v.kind = Value::Kind::string;
            v.string = string();
        } else if (word("true")) {
            v.kind = Value::Kind::boolean;
            v.boolean = true;
        } else if (word("false")) {
            v.kind = Value::Kind::boolean;
        } else if (word("null")) {
            v.kind = Value::Kind::null;
        } else {
            // strtod accepts a superset of JSON numbers (hex, inf); the manifest holds none of those.
            std::string rest(s_.substr(i_, 64));
            char* end = nullptr;
            v.kind = Value::Kind::number;
            v.number = std::strtod(rest.c_str(), &end);
            if (end == rest.c_str()) error("unexpected character");
            i_ += size_t(end - rest.c_str());
        }
        return v;
    }

    std::string string() {
        if (i_ >= s_.size() || s_[i_] != '"') error("expected a string");
        std::string out;
        for (++i_; i_ < s_.size() && s_[i_] != '"'; ++i_) {
            if (s_[i_] != '\\') {
                out += s_[i_];
                continue;
            }
            if (++i_ >= s_.size()) break;
            switch (char e = s_[i_]) {
            case 'n': out += '\n'; break;
            case 't': out += '\t'; break;
            case 'r': out += '\r'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'u': {
                if (i_ + 4 >= s_.size()) error("short \\u escape");
                unsigned cp = unsigned(std::strtoul(std::string(s_.substr(i_ + 1, 4)).c_str(), nullptr, 16));
                i_ += 4;
                if (cp < 0x80) {
                    out += char(cp);
                } else if (cp < 0x800) {
                    out += char(0xc0 | cp >> 6), out += char(0x80 | (cp & 0x3f));
                } else {
                    out += char(0xe0 | cp >> 12), out += char(0x80 | (cp >> 6 & 0x3f)), out += char(0x80 | (cp & 0x3f));
                }
                break;
            }
            default: out += e; // \" \\ \/
            }
        }
        if (i_ >= s_.size()) error("unterminated string");
        ++i_;
        return out;
    }
};

inline Value parse(std::string_view text) { return Parser(text).document(); }

} // namespace json
