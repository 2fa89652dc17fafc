// spirv_pack <output.bin> <input1.spv> [input2.spv ...]
// spirv_pack --bytes <output.bin> <input>
// Build-time tool: packs the given SPIR-V modules, in the order given, into one stream of zstd frames,
// a frame a module, each with the modules before it as its prefix (src/packing/frames.hpp). With
// --bytes, any one file as one frame (manifest.json). It unpacks the stream again and compares before
// writing, so a build never embeds a stream that does not give back its modules. Exit code 0 on
// success, 1 on any error (reported on stderr).
#include <cerrno>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <exception>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "packing/frames.hpp"

namespace {

// The library reads the modules' bytes as words in host order, and SPIR-V files are little-endian in
// practice; the magic number is checked as such.
constexpr uint32_t spirv_magic = 0x07230203;
// zstd's level: higher ones (--ultra) give no fewer bytes, since every stream fits level 19's 8 MiB
// window (docs/decisions.md).
constexpr int level = 19;

bool read_file(const std::string& path, std::vector<char>& bytes) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return !in.bad();
}

// Appends the module's bytes to `content`; false, with a message, if it is not a SPIR-V module.
bool append_module(const std::string& path, std::vector<uint8_t>& content, std::vector<size_t>& parts) {
    std::vector<char> bytes;
    if (!read_file(path, bytes)) {
        std::fprintf(stderr, "spirv_pack: cannot read %s\n", path.c_str());
        return false;
    }
    if (bytes.size() % 4 != 0 || bytes.size() < 4) {
        std::fprintf(stderr, "spirv_pack: %s: size %zu is not a positive multiple of 4\n", path.c_str(), bytes.size());
        return false;
    }
    uint32_t first = 0;
    for (int i = 3; i >= 0; --i) first = first << 8 | uint8_t(bytes[size_t(i)]);
    if (first != spirv_magic) {
        std::fprintf(stderr, "spirv_pack: %s: not a little-endian SPIR-V module (first word 0x%08x)\n", path.c_str(),
                     first);
        return false;
    }
    content.insert(content.end(), bytes.begin(), bytes.end());
    parts.push_back(bytes.size());
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
    std::vector<uint8_t> content;
    std::vector<size_t> parts;
    if (as_bytes) {
        std::vector<char> bytes;
        if (!read_file(argv[2], bytes) || bytes.empty()) {
            std::fprintf(stderr, "spirv_pack: cannot read %s, or it is empty\n", argv[2]);
            return 1;
        }
        content.assign(bytes.begin(), bytes.end());
        parts.push_back(content.size());
    } else {
        for (int i = 2; i < argc; ++i) {
            if (!append_module(argv[i], content, parts)) return 1;
        }
    }
    std::vector<uint8_t> packed = vkc::packing::pack_frames(content, parts, level);
    std::vector<uint8_t> unpacked(content.size());
    vkc::packing::FrameCursor at;
    if (vkc::packing::unpack_frames(packed, unpacked, at, unpacked.size()) != vkc::packing::Unpacked::ok ||
        at.packed != packed.size() || unpacked != content) {
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
