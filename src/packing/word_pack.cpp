// Word pack: word-granular LZ77 with an adaptive binary range coder.
//
// SPIR-V is a sequence of 32-bit words, so the unit of everything here is the word: matching whole
// words finds the repeats (types, decorations, instruction sequences) at a quarter of the positions
// and lengths a byte coder would spend on them. The stream is a sequence of steps:
//   - a literal: one word, coded as its difference from the word at the last match distance. Sibling
//     modules (one kernel for another type or op) differ mostly by a constant shift of their ids, so
//     after a match into the sibling the same difference recurs; it is then coded as a single bit
//     ("same as the last literal's difference"), otherwise as a zigzag number;
//   - a match: copy `length` words from `distance` words back, where the distance is the last one
//     used (rep0), the one before it (rep1), or a new one coded in full.
// Each decision is a bit coded with an adaptive probability (LZMA-style: 11-bit probabilities that
// move 1/32 of the way at each bit), chosen by whether the last two steps were literals or matches.
// A number v >= 1 is coded as its bit length floor(log2 v) (a 6-bit binary tree), its two bits below
// the leading one (adaptive, they are skewed), then its other low bits as they are: those are close to
// random, so they go to a raw section outside the range coder, which would only add to them.
//
// Stream layout, integers little-endian:
//   bytes 0-3    magic "WPK1": format and version
//   bytes 4-7    word count
//   bytes 8-11   checksum of the words: catches a corruption that still decodes to a well-formed stream
//   bytes 12-15  size in bytes of the raw section
//   then the raw section (low bits of the numbers, least significant first, zero-padded to a byte),
//   then the range-coded section, to the end of the stream.
//
// The encoder parses greedily with one word of lookahead (lazy matching); candidate matches come from
// rep0, rep1 and hash chains over 3-word windows, each scored in estimated bits saved.
#include "packing/word_pack.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <new>
#include <stdexcept>
#include <utility>

namespace vkc::packing {
namespace {

constexpr uint32_t format_magic = 0x314B5057; // "WPK1" in little-endian bytes
constexpr size_t header_bytes = 16;
constexpr size_t range_coder_min_bytes = 5; // what the range encoder's flush writes at least
// Keeps the raw section (under 30 bits a word) within its 32-bit size field; hash chains hold int32_t.
constexpr size_t max_words = (size_t(1) << 30) - 1;

uint32_t load_u32(const uint8_t* p) {
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

void append_u32(std::vector<uint8_t>& out, uint32_t v) {
    for (int shift = 0; shift < 32; shift += 8) out.push_back(uint8_t(v >> shift));
}

// Each step is a bijection of the running value, so changing any one word always changes the result.
uint32_t checksum(std::span<const uint32_t> words) {
    uint32_t h = 0x811C9DC5u;
    for (uint32_t w : words) h = std::rotl(h ^ w, 5) * 0x9E3779B1u;
    return h;
}

// Zigzag: small differences of either sign become small numbers.
uint32_t zigzag(uint32_t delta) { return (delta << 1) ^ uint32_t(int32_t(delta) >> 31); }
uint32_t unzigzag(uint32_t z) { return (z >> 1) ^ (0u - (z & 1)); }

int floor_log2(uint64_t v) { return std::bit_width(v) - 1; }

// ---- The adaptive model, shared by encoder and decoder ----

using Probability = uint16_t; // of a 0 bit, in units of 2^-probability_bits
constexpr int probability_bits = 11;
constexpr int adaptation_shift = 5;
constexpr Probability even_odds = 1 << (probability_bits - 1);

// Coded numbers are below 2^33 (a literal's zigzag difference + 1), so bit lengths are 0..32.
constexpr int bit_length_tree_bits = 6;
constexpr int max_bit_length = 32;
constexpr int adaptive_mantissa_bits = 2;

struct NumberModel {
    std::array<Probability, 1 << bit_length_tree_bits> bit_length; // binary tree, root at node 1
    std::array<std::array<Probability, 1 << adaptive_mantissa_bits>, max_bit_length + 1> mantissa;

    void reset() {
        bit_length.fill(even_odds);
        for (auto& tree : mantissa) tree.fill(even_odds);
    }
};

// Contexts: the kinds of the last two steps, bit set for a match.
constexpr unsigned context_count = 4;
unsigned next_context(unsigned context, bool match) { return ((context << 1) | unsigned(match)) & (context_count - 1); }

struct Model {
    std::array<Probability, context_count> is_match, same_delta, is_rep0, is_rep1;
    NumberModel literal, distance, length, rep_length;

    Model() {
        for (auto* probabilities : {&is_match, &same_delta, &is_rep0, &is_rep1}) probabilities->fill(even_odds);
        for (NumberModel* numbers : {&literal, &distance, &length, &rep_length}) numbers->reset();
    }
};

// What both sides track between steps.
struct StepState {
    uint32_t rep0 = 1, rep1 = 1; // the last two match distances
    uint32_t last_delta = 0;     // the last literal's difference from its prediction
    unsigned context = 0;
};

// A literal's prediction: the word at the last match distance.
uint32_t predicted_word(std::span<const uint32_t> words, size_t pos, uint32_t rep0) {
    return pos >= rep0 ? words[pos - rep0] : 0;
}

// ---- Encoder ----

class RangeEncoder {
public:
    void encode_bit(Probability& p, unsigned bit) {
        uint32_t bound = (range_ >> probability_bits) * p;
        if (bit == 0) {
            range_ = bound;
            p += ((1u << probability_bits) - p) >> adaptation_shift;
        } else {
            low_ += bound;
            range_ -= bound;
            p -= p >> adaptation_shift;
        }
        // Probabilities stay within [31, 2017] of 2048, so one shift restores range_ >= 2^24.
        if (range_ < (1u << 24)) {
            range_ <<= 8;
            shift_low();
        }
    }

    std::vector<uint8_t> finish() {
        for (size_t i = 0; i < range_coder_min_bytes; ++i) shift_low();
        return std::move(bytes_);
    }

private:
    // Emits the top byte of low_, holding back a run of 0xFF bytes while a carry may still reach them.
    void shift_low() {
        if (uint32_t(low_) < 0xFF000000u || (low_ >> 32) != 0) {
            auto carry = uint8_t(low_ >> 32);
            bytes_.push_back(uint8_t(cache_ + carry));
            for (; pending_ff_ > 0; --pending_ff_) bytes_.push_back(uint8_t(0xFF + carry));
            cache_ = uint8_t(low_ >> 24);
        } else {
            ++pending_ff_;
        }
        low_ = (low_ & 0x00FFFFFFu) << 8;
    }

    uint64_t low_ = 0;
    uint32_t range_ = 0xFFFFFFFFu;
    uint8_t cache_ = 0;
    size_t pending_ff_ = 0;
    std::vector<uint8_t> bytes_;
};

class RawBitWriter {
public:
    void write(uint64_t bits, int count) {
        buffer_ |= bits << buffered_;
        buffered_ += count;
        for (; buffered_ >= 8; buffered_ -= 8, buffer_ >>= 8) bytes_.push_back(uint8_t(buffer_));
    }

    std::vector<uint8_t> finish() {
        if (buffered_ > 0) bytes_.push_back(uint8_t(buffer_));
        return std::move(bytes_);
    }

private:
    uint64_t buffer_ = 0;
    int buffered_ = 0; // < 8 between writes, so a write of up to 56 bits fits
    std::vector<uint8_t> bytes_;
};

enum class MatchKind { rep0, rep1, new_distance };

struct Match {
    size_t length = 0; // 0: no match worth coding
    uint32_t distance = 0;
    MatchKind kind = MatchKind::new_distance;
    int64_t score = 0; // estimated bits saved over coding the words as literals
};

class StepEncoder {
public:
    void literal(std::span<const uint32_t> words, size_t pos) {
        encode_bit(model_.is_match[state_.context], 0);
        uint32_t delta = words[pos] - predicted_word(words, pos, state_.rep0);
        bool same = delta == state_.last_delta;
        encode_bit(model_.same_delta[state_.context], same);
        if (!same) encode_number(model_.literal, uint64_t(zigzag(delta)) + 1);
        state_.last_delta = delta;
        state_.context = next_context(state_.context, false);
    }

    void match(const Match& m) {
        encode_bit(model_.is_match[state_.context], 1);
        encode_bit(model_.is_rep0[state_.context], m.kind == MatchKind::rep0);
        if (m.kind != MatchKind::rep0) encode_bit(model_.is_rep1[state_.context], m.kind == MatchKind::rep1);
        if (m.kind == MatchKind::new_distance) {
            encode_number(model_.distance, m.distance);
            encode_number(model_.length, m.length);
            state_.rep1 = std::exchange(state_.rep0, m.distance);
        } else {
            encode_number(model_.rep_length, m.length);
            if (m.kind == MatchKind::rep1) std::swap(state_.rep0, state_.rep1);
        }
        state_.context = next_context(state_.context, true);
    }

    const StepState& state() const { return state_; }

    // The raw section and the range-coded section.
    std::pair<std::vector<uint8_t>, std::vector<uint8_t>> finish() { return {raw_.finish(), range_.finish()}; }

private:
    void encode_bit(Probability& p, bool bit) { range_.encode_bit(p, bit); }

    void encode_number(NumberModel& m, uint64_t value) {
        const int length = floor_log2(value);
        unsigned node = 1;
        for (int i = bit_length_tree_bits - 1; i >= 0; --i) {
            unsigned bit = (length >> i) & 1;
            range_.encode_bit(m.bit_length[node], bit);
            node = node * 2 + bit;
        }
        const int adaptive = std::min(length, adaptive_mantissa_bits), raw = length - adaptive;
        node = 1;
        for (int i = length - 1; i >= raw; --i) {
            unsigned bit = (value >> i) & 1;
            range_.encode_bit(m.mantissa[length][node], bit);
            node = node * 2 + bit;
        }
        if (raw > 0) raw_.write(value & ((uint64_t(1) << raw) - 1), raw);
    }

    Model model_;
    StepState state_;
    RangeEncoder range_;
    RawBitWriter raw_;
};

// ---- Match finding and parsing ----

constexpr int64_t literal_cost_bits = 12; // the parse's estimate of a literal's cost
constexpr size_t min_new_match_words = 2;
constexpr int hash_words = 3;
constexpr int hash_bits = 20;
constexpr int max_chain_steps = 64;

// Rough cost in bits of coding a match, for comparing candidates.
int64_t match_cost_bits(MatchKind kind, size_t length, uint32_t distance) {
    int64_t length_bits = 2 * floor_log2(length);
    switch (kind) {
    case MatchKind::rep0: return 2 + length_bits;
    case MatchKind::rep1: return 4 + length_bits;
    case MatchKind::new_distance: return 6 + length_bits + 2 * floor_log2(distance);
    }
    return 0;
}

class MatchFinder {
public:
    explicit MatchFinder(std::span<const uint32_t> words)
        : words_(words), hashable_(words.size() >= hash_words ? words.size() - hash_words + 1 : 0),
          chain_head_(size_t(1) << hash_bits, -1), chain_next_(hashable_, -1) {}

    // The best-scoring match at `pos`, from rep0, rep1 and the hash chain; length 0 if none saves bits.
    Match best_match(size_t pos, uint32_t rep0, uint32_t rep1) {
        insert_before(pos);
        Match best;
        if (pos >= rep0) consider(best, MatchKind::rep0, match_length(pos, pos - rep0), rep0);
        if (pos >= rep1 && rep1 != rep0) consider(best, MatchKind::rep1, match_length(pos, pos - rep1), rep1);
        if (pos < hashable_) search_chain(best, pos);
        return best;
    }

private:
    // Nearest candidates first; only a longer match than those seen can score better.
    void search_chain(Match& best, size_t pos) const {
        size_t longest = 0;
        int32_t candidate = chain_head_[hash_at(pos)];
        for (int step = 0; candidate >= 0 && step < max_chain_steps; ++step, candidate = chain_next_[candidate]) {
            size_t length = match_length(pos, size_t(candidate));
            if (length > longest) {
                longest = length;
                consider(best, MatchKind::new_distance, length, uint32_t(pos - size_t(candidate)));
            }
        }
    }

    static void consider(Match& best, MatchKind kind, size_t length, uint32_t distance) {
        if (length == 0 || (kind == MatchKind::new_distance && length < min_new_match_words)) return;
        int64_t score = int64_t(length) * literal_cost_bits - match_cost_bits(kind, length, distance);
        if (score > best.score) best = {length, distance, kind, score};
    }

    // Adds every position before `pos` to the hash chains, so candidates are earlier positions only.
    void insert_before(size_t pos) {
        for (; next_insert_ < std::min(pos, hashable_); ++next_insert_) {
            int32_t& head = chain_head_[hash_at(next_insert_)];
            chain_next_[next_insert_] = head;
            head = int32_t(next_insert_);
        }
    }

    uint32_t hash_at(size_t pos) const {
        uint32_t h = words_[pos] * 2654435761u;
        for (int i = 1; i < hash_words; ++i) h = (h ^ (h >> 15)) * 2246822519u + words_[pos + i] * 2654435761u;
        return (h ^ (h >> 13)) >> (32 - hash_bits);
    }

    // Overlapping matches (candidate + length > pos) are fine: they repeat a run.
    size_t match_length(size_t pos, size_t candidate) const {
        size_t length = 0;
        while (pos + length < words_.size() && words_[pos + length] == words_[candidate + length]) ++length;
        return length;
    }

    std::span<const uint32_t> words_;
    size_t hashable_; // positions with hash_words words from them on
    size_t next_insert_ = 0;
    std::vector<int32_t> chain_head_, chain_next_; // -1 ends a chain
};

// Codes every word as a literal or as part of a match.
void encode_steps(std::span<const uint32_t> words, StepEncoder& encoder) {
    MatchFinder finder(words);
    size_t pos = 0;
    while (pos < words.size()) {
        const StepState& state = encoder.state();
        Match m = finder.best_match(pos, state.rep0, state.rep1);
        // Lazy matching: a literal now pays off if the match from the next word saves more than it costs.
        if (m.length > 0 && m.kind == MatchKind::new_distance && pos + 1 < words.size()) {
            Match next = finder.best_match(pos + 1, state.rep0, state.rep1);
            if (next.score > m.score + literal_cost_bits) m.length = 0;
        }
        if (m.length == 0) {
            encoder.literal(words, pos);
            pos += 1;
        } else {
            encoder.match(m);
            pos += m.length;
        }
    }
}

// ---- Decoder ----

// Past the end of its bytes it reads zeros and records the overrun, which fails the stream.
class RangeDecoder {
public:
    explicit RangeDecoder(std::span<const uint8_t> bytes) : bytes_(bytes) {
        // The encoder's first byte is always 0: it takes the carry out of the initial interval [0, 2^32),
        // which the intervals nested in it never reach.
        first_byte_valid_ = next_byte() == 0;
        for (int i = 0; i < 4; ++i) code_ = (code_ << 8) | next_byte();
    }

    unsigned decode_bit(Probability& p) {
        uint32_t bound = (range_ >> probability_bits) * p;
        unsigned bit;
        if (code_ < bound) {
            range_ = bound;
            p += ((1u << probability_bits) - p) >> adaptation_shift;
            bit = 0;
        } else {
            code_ -= bound;
            range_ -= bound;
            p -= p >> adaptation_shift;
            bit = 1;
        }
        if (range_ < (1u << 24)) {
            range_ <<= 8;
            code_ = (code_ << 8) | next_byte();
        }
        return bit;
    }

    bool intact() const { return first_byte_valid_ && !overrun_; }

    // The encoder flushes low exactly, so a faithful decode ends with code 0 after reading every byte.
    bool finished() const { return intact() && pos_ == bytes_.size() && code_ == 0; }

private:
    uint8_t next_byte() {
        if (pos_ < bytes_.size()) return bytes_[pos_++];
        overrun_ = true;
        return 0;
    }

    std::span<const uint8_t> bytes_;
    size_t pos_ = 0;
    uint32_t range_ = 0xFFFFFFFFu, code_ = 0;
    bool first_byte_valid_ = false, overrun_ = false;
};

class RawBitReader {
public:
    explicit RawBitReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

    uint64_t read(int count) { // count <= 56
        while (buffered_ < count) {
            uint64_t byte = 0;
            if (pos_ < bytes_.size()) byte = bytes_[pos_++];
            else overrun_ = true;
            buffer_ |= byte << buffered_;
            buffered_ += 8;
        }
        uint64_t bits = buffer_ & ((uint64_t(1) << count) - 1);
        buffer_ >>= count;
        buffered_ -= count;
        return bits;
    }

    bool intact() const { return !overrun_; }

    // Every byte read, and the padding of the last one zero.
    bool finished() const { return !overrun_ && pos_ == bytes_.size() && buffer_ == 0; }

private:
    std::span<const uint8_t> bytes_;
    size_t pos_ = 0;
    uint64_t buffer_ = 0;
    int buffered_ = 0;
    bool overrun_ = false;
};

class StepDecoder {
public:
    StepDecoder(std::span<const uint8_t> raw, std::span<const uint8_t> coded) : raw_(raw), range_(coded) {}

    // Decodes into `out` until at least `until` words are written (a match may go past it), going
    // on from where the last call stopped; false on damaged data. Once every word is written, true
    // only if both sections were used exactly.
    bool decode(std::span<uint32_t> out, size_t until) {
        until = std::min(until, out.size());
        while (pos_ < until) {
            if (!range_.intact() || !raw_.intact()) return false;
            size_t words = range_.decode_bit(model_.is_match[state_.context]) ? match(out, pos_) : literal(out, pos_);
            if (words == 0) return false;
            pos_ += words;
        }
        return pos_ < out.size() || (range_.finished() && raw_.finished());
    }

    size_t decoded() const { return pos_; }

private:
    // Returns the words written: 1, or 0 for an invalid difference.
    size_t literal(std::span<uint32_t> out, size_t pos) {
        if (!range_.decode_bit(model_.same_delta[state_.context])) {
            uint64_t coded = decode_number(model_.literal); // zigzag difference + 1
            if (coded == 0 || coded > (uint64_t(1) << 32)) return 0;
            state_.last_delta = unzigzag(uint32_t(coded - 1));
        }
        out[pos] = predicted_word(out, pos, state_.rep0) + state_.last_delta;
        state_.context = next_context(state_.context, false);
        return 1;
    }

    // Returns the words written, or 0 for a match reaching outside `out` (or an invalid number).
    size_t match(std::span<uint32_t> out, size_t pos) {
        uint64_t length;
        if (range_.decode_bit(model_.is_rep0[state_.context])) {
            length = decode_number(model_.rep_length);
        } else if (range_.decode_bit(model_.is_rep1[state_.context])) {
            std::swap(state_.rep0, state_.rep1);
            length = decode_number(model_.rep_length);
        } else {
            uint64_t distance = decode_number(model_.distance);
            length = decode_number(model_.length);
            if (distance == 0 || distance > pos) return 0;
            state_.rep1 = std::exchange(state_.rep0, uint32_t(distance));
        }
        if (state_.rep0 > pos || length == 0 || length > out.size() - pos) return 0;
        // Word by word, front to back: an overlapping match repeats the words it has just written.
        for (size_t i = pos; i < pos + length; ++i) out[i] = out[i - state_.rep0];
        state_.context = next_context(state_.context, true);
        return size_t(length);
    }

    // Returns the number (>= 1), or 0 for an invalid bit length.
    uint64_t decode_number(NumberModel& m) {
        unsigned node = 1;
        for (int i = 0; i < bit_length_tree_bits; ++i) node = node * 2 + range_.decode_bit(m.bit_length[node]);
        const int length = int(node) - (1 << bit_length_tree_bits);
        if (length > max_bit_length) return 0;
        const int adaptive = std::min(length, adaptive_mantissa_bits), raw = length - adaptive;
        uint64_t value = 1;
        node = 1;
        for (int i = 0; i < adaptive; ++i) {
            unsigned bit = range_.decode_bit(m.mantissa[length][node]);
            node = node * 2 + bit;
            value = value * 2 + bit;
        }
        return raw > 0 ? (value << raw) | raw_.read(raw) : value;
    }

    Model model_;
    StepState state_;
    RawBitReader raw_;
    RangeDecoder range_;
    size_t pos_ = 0;
};

struct Header {
    uint32_t word_count = 0, checksum = 0;
    std::span<const uint8_t> raw, coded; // the two sections
};

bool parse_header(std::span<const uint8_t> packed, Header& header) {
    if (packed.size() < header_bytes + range_coder_min_bytes || load_u32(packed.data()) != format_magic) return false;
    header.word_count = load_u32(packed.data() + 4);
    header.checksum = load_u32(packed.data() + 8);
    size_t raw_bytes = load_u32(packed.data() + 12);
    std::span<const uint8_t> body = packed.subspan(header_bytes);
    if (raw_bytes > body.size() - range_coder_min_bytes) return false;
    header.raw = body.first(raw_bytes);
    header.coded = body.subspan(raw_bytes);
    return true;
}

} // namespace

std::vector<uint8_t> pack_words(std::span<const uint32_t> words) {
    if (words.size() > max_words) throw std::length_error("pack_words: 2^30 words or more");
    StepEncoder encoder;
    encode_steps(words, encoder);
    auto [raw, coded] = encoder.finish();
    std::vector<uint8_t> packed;
    packed.reserve(header_bytes + raw.size() + coded.size());
    append_u32(packed, format_magic);
    append_u32(packed, uint32_t(words.size()));
    append_u32(packed, checksum(words));
    append_u32(packed, uint32_t(raw.size()));
    packed.insert(packed.end(), raw.begin(), raw.end());
    packed.insert(packed.end(), coded.begin(), coded.end());
    return packed;
}

size_t packed_word_count(std::span<const uint8_t> packed) noexcept {
    Header header;
    return parse_header(packed, header) ? header.word_count : 0;
}

bool unpack_words(std::span<const uint8_t> packed, std::span<uint32_t> out) noexcept {
    Header header;
    if (!parse_header(packed, header) || header.word_count != out.size()) return false;
    StepDecoder decoder(header.raw, header.coded);
    return decoder.decode(out, out.size()) && checksum(out) == header.checksum;
}

namespace {

class StreamUnpacker final : public Unpacker {
public:
    StreamUnpacker(const Header& header, std::span<uint32_t> out)
        : decoder_(header.raw, header.coded), out_(out), checksum_(header.checksum) {}

    bool unpack_until(size_t words) noexcept override {
        if (failed_) return false;
        bool complete_before = decoder_.decoded() == out_.size();
        failed_ = !decoder_.decode(out_, words) ||
                  (!complete_before && decoder_.decoded() == out_.size() && checksum(out_) != checksum_);
        return !failed_;
    }

    size_t unpacked_words() const noexcept override { return failed_ ? 0 : decoder_.decoded(); }

private:
    StepDecoder decoder_;
    std::span<uint32_t> out_;
    uint32_t checksum_;
    bool failed_ = false;
};

} // namespace

std::unique_ptr<Unpacker> start_unpacking(std::span<const uint8_t> packed, std::span<uint32_t> out) noexcept {
    Header header;
    if (!parse_header(packed, header) || header.word_count != out.size()) return nullptr;
    return std::unique_ptr<Unpacker>(new (std::nothrow) StreamUnpacker(header, out));
}

} // namespace vkc::packing
