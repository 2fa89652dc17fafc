// spirv_pack <output.bin> <input1.spv> [input2.spv ...]
// spirv_pack --bytes <output.bin> <input>
// Build-time tool: packs the words of the given SPIR-V modules, concatenated in the order given, into
// one stream (src/packing/word_pack.hpp). With --bytes, a text file instead, one byte a word, so that
// the word matches find its repeats at any byte offset (manifest.json). It unpacks the stream again and compares before writing, so
// a build never embeds a stream that does not give back its modules. Exit code 0 on success, 1 on
// any error (reported on stderr).
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "packing/word_pack.hpp"

namespace {

// The modules' bytes are taken as words in host order, and SPIR-V files are little-endian in practice.
static_assert(std::endian::native == std::endian::little, "spirv_pack reads SPIR-V words on little-endian hosts");

constexpr uint32_t spirv_magic = 0x07230203;

bool read_file(const std::string& path, std::vector<char>& bytes) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return !in.bad();
}

// Appends the module's words to `words`; false, with a message, if it is not a SPIR-V module.
bool append_module(const std::string& path, std::vector<uint32_t>& words) {
    std::vector<char> bytes;
    if (!read_file(path, bytes)) {
        std::fprintf(stderr, "spirv_pack: cannot read %s\n", path.c_str());
        return false;
    }
    if (bytes.size() % 4 != 0 || bytes.size() < 4) {
        std::fprintf(stderr, "spirv_pack: %s: size %zu is not a positive multiple of 4\n", path.c_str(), bytes.size());
        return false;
    }
    size_t first = words.size();
    words.resize(first + bytes.size() / 4);
    std::memcpy(words.data() + first, bytes.data(), bytes.size());
    if (words[first] != spirv_magic) {
        std::fprintf(stderr, "spirv_pack: %s: not a SPIR-V module (first word 0x%08x)\n", path.c_str(), words[first]);
        return false;
    }
    return true;
}

// Writes through a temporary file and a rename, so a failed or interrupted run leaves no partial output.
bool write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
    const std::string temporary = path + ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
        out.close();
        if (!out) {
            std::fprintf(stderr, "spirv_pack: cannot write %s\n", temporary.c_str());
            std::remove(temporary.c_str());
            return false;
        }
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        std::fprintf(stderr, "spirv_pack: cannot rename %s to %s: %s\n", temporary.c_str(), path.c_str(),
                     std::strerror(errno));
        std::remove(temporary.c_str());
        return false;
    }
    return true;
}

// Appends the file's bytes to `words`, one a word.
bool append_bytes(const std::string& path, std::vector<uint32_t>& words) {
    std::vector<char> bytes;
    if (!read_file(path, bytes)) {
        std::fprintf(stderr, "spirv_pack: cannot read %s\n", path.c_str());
        return false;
    }
    for (char c : bytes) words.push_back(uint8_t(c));
    return true;
}

int run(int argc, char** argv) {
    bool as_bytes = argc > 1 && std::strcmp(argv[1], "--bytes") == 0;
    if (as_bytes) {
        --argc;
        ++argv;
    }
    if (argc < 3 || (as_bytes && argc != 3)) {
        std::fprintf(stderr, "usage: spirv_pack <output.bin> <input1.spv> [input2.spv ...]\n"
                             "       spirv_pack --bytes <output.bin> <input>\n");
        return 1;
    }
    std::vector<uint32_t> words;
    for (int i = 2; i < argc; ++i) {
        if (!(as_bytes ? append_bytes(argv[i], words) : append_module(argv[i], words))) return 1;
    }
    std::vector<uint8_t> packed = vkc::packing::pack_words(words);
    std::vector<uint32_t> unpacked(vkc::packing::packed_word_count(packed));
    if (unpacked.size() != words.size() || !vkc::packing::unpack_words(packed, unpacked) || unpacked != words) {
        std::fprintf(stderr, "spirv_pack: %s: the packed stream does not unpack to its input\n", argv[1]);
        return 1;
    }
    return write_file(argv[1], packed) ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "spirv_pack: %s\n", e.what());
        return 1;
    }
}
