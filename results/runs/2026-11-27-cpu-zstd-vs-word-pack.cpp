// results/runs/2026-11-27-cpu-zstd-vs-word-pack.cpp: the word packer (src/packing/word_pack.cpp, as
// of 028f97e) against libzstd on a build's modules, for docs/decisions.md ("The embedded SPIR-V
// packed with zstd"). Builds against that commit's sources:
//   g++ -std=c++20 -O2 -Isrc results/runs/2026-11-27-cpu-zstd-vs-word-pack.cpp src/packing/word_pack.cpp -lzstd
//   ./a.out <build dir> [quick]      (reads <build dir>/vkc_modules.manifest and spirv/*.spv)
// The streams of cmake/VkcShaders.cmake (each kernel/type/path's modules concatenated in table order)
// packed whole per stream, a frame per module with the earlier modules as prefix, and each module on
// its own with a trained zstd dictionary. Sizes in bytes; times the minimum of 5 runs, in ms.
#include <zdict.h>
#include <zstd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "packing/word_pack.hpp"

using Clock = std::chrono::steady_clock;

struct Module {
    std::string name;
    std::vector<uint8_t> bytes;
};
struct Stream {
    std::string name;
    std::vector<size_t> modules; // indices
    std::vector<uint8_t> bytes;  // concatenated
    size_t first_bytes = 0;      // the first module's size
};

static std::vector<uint8_t> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "cannot read %s\n", path.c_str());
        std::exit(1);
    }
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

static double ms_min(int runs, const std::function<void()>& f) {
    double best = 1e30;
    for (int i = 0; i < runs; ++i) {
        auto t0 = Clock::now();
        f();
        best = std::min(best, std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    return best;
}

static void check(size_t r, const char* what) {
    if (ZSTD_isError(r)) {
        std::fprintf(stderr, "%s: %s\n", what, ZSTD_getErrorName(r));
        std::exit(1);
    }
}

struct Figures {
    std::string name;
    size_t bytes = 0;
    double pack_s = 0;
    double all_ms = 0;        // every stream (or module) unpacked
    double max_stream_ms = 0; // the slowest single stream
    double sum_first_ms = 0;  // the first module of every stream, each in a new decoder
    double max_first_ms = 0;
};

static void print(const Figures& f) {
    std::printf("%-34s %10zu B  pack %6.1f s  all %7.1f ms  slowest stream %6.2f ms  first module: sum %7.1f ms, max %6.2f ms\n",
                f.name.c_str(), f.bytes, f.pack_s, f.all_ms, f.max_stream_ms, f.sum_first_ms, f.max_first_ms);
    std::fflush(stdout);
}

static std::vector<uint32_t> as_words(const std::vector<uint8_t>& b) {
    std::vector<uint32_t> w(b.size() / 4);
    std::memcpy(w.data(), b.data(), w.size() * 4);
    return w;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: pack_compare <build dir> [quick]\n");
        return 1;
    }
    std::string build = argv[1];
    bool quick = argc > 2 && std::string(argv[2]) == "quick";
    const int runs = 5;
    std::vector<Module> modules;
    std::vector<Stream> streams;
    std::map<std::string, size_t> stream_index;
    {
        std::ifstream in(build + "/vkc_modules.manifest");
        std::string line;
        while (std::getline(in, line)) {
            std::vector<std::string> f;
            std::stringstream ss(line);
            std::string x;
            while (std::getline(ss, x, '|')) f.push_back(x);
            if (f.size() != 13 || f[0] != f[11]) continue;
            auto [it, fresh] = stream_index.try_emplace(f[12], streams.size());
            if (fresh) streams.push_back({f[12], {}, {}, 0});
            Stream& s = streams[it->second];
            modules.push_back({f[0], read_file(build + "/spirv/" + f[0] + ".spv")});
            if (s.modules.empty()) s.first_bytes = modules.back().bytes.size();
            s.modules.push_back(modules.size() - 1);
            s.bytes.insert(s.bytes.end(), modules.back().bytes.begin(), modules.back().bytes.end());
        }
    }
    size_t raw = 0, largest = 0;
    for (const Stream& s : streams) raw += s.bytes.size(), largest = std::max(largest, s.bytes.size());
    std::vector<uint8_t> manifest = read_file(build + "/spirv/manifest.json");
    std::printf("%zu modules built, %zu streams, %zu B of SPIR-V (largest stream %zu B); manifest.json %zu B\n",
                modules.size(), streams.size(), raw, largest, manifest.size());
    std::fflush(stdout);

    // ---- the word packer ----
    {
        Figures f{"word_pack (ours)"};
        std::vector<std::vector<uint8_t>> packed(streams.size());
        auto t0 = Clock::now();
        for (size_t i = 0; i < streams.size(); ++i) {
            packed[i] = vkc::packing::pack_words(as_words(streams[i].bytes));
            f.bytes += packed[i].size();
        }
        f.pack_s = std::chrono::duration<double>(Clock::now() - t0).count();
        std::vector<uint32_t> out;
        for (size_t i = 0; i < streams.size(); ++i) {
            out.assign(streams[i].bytes.size() / 4, 0);
            double whole = ms_min(runs, [&] {
                if (!vkc::packing::unpack_words(packed[i], out)) std::exit(2);
            });
            if (std::memcmp(out.data(), streams[i].bytes.data(), streams[i].bytes.size()) != 0) std::exit(3);
            double first = ms_min(runs, [&] {
                auto u = vkc::packing::start_unpacking(packed[i], out);
                if (!u || !u->unpack_until(streams[i].first_bytes / 4)) std::exit(2);
            });
            f.all_ms += whole;
            f.max_stream_ms = std::max(f.max_stream_ms, whole);
            f.sum_first_ms += first;
            f.max_first_ms = std::max(f.max_first_ms, first);
        }
        print(f);
        std::vector<uint32_t> mw(manifest.begin(), manifest.end());
        std::printf("  manifest.json one byte a word: %zu B\n", vkc::packing::pack_words(mw).size());
    }

    // ---- zstd, one frame per stream ----
    struct Setting {
        std::string name;
        int level;
        bool long_mode;
    };
    std::vector<Setting> settings = {{"zstd -19", 19, false}, {"zstd -22 --ultra", 22, false},
                                     {"zstd -22 --ultra --long", 22, true}};
    if (quick) settings = {{"zstd -19", 19, false}};
    ZSTD_DCtx* dctx = ZSTD_createDCtx();
    for (const Setting& st : settings) {
        Figures f{st.name};
        std::vector<std::vector<uint8_t>> packed(streams.size());
        ZSTD_CCtx* cctx = ZSTD_createCCtx();
        auto t0 = Clock::now();
        for (size_t i = 0; i < streams.size(); ++i) {
            ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
            check(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, st.level), "level");
            check(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1), "checksum");
            if (st.long_mode) {
                check(ZSTD_CCtx_setParameter(cctx, ZSTD_c_enableLongDistanceMatching, 1), "long");
                check(ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, 27), "window");
            }
            packed[i].resize(ZSTD_compressBound(streams[i].bytes.size()));
            size_t n = ZSTD_compress2(cctx, packed[i].data(), packed[i].size(), streams[i].bytes.data(),
                                      streams[i].bytes.size());
            check(n, "compress");
            packed[i].resize(n);
            f.bytes += n;
        }
        f.pack_s = std::chrono::duration<double>(Clock::now() - t0).count();
        ZSTD_freeCCtx(cctx);
        std::vector<uint8_t> out;
        for (size_t i = 0; i < streams.size(); ++i) {
            out.assign(streams[i].bytes.size(), 0);
            // one shot, a fresh context each time (as on first use)
            double whole = ms_min(runs, [&] {
                ZSTD_DCtx* d = ZSTD_createDCtx();
                size_t r = ZSTD_decompressDCtx(d, out.data(), out.size(), packed[i].data(), packed[i].size());
                ZSTD_freeDCtx(d);
                if (r != out.size()) std::exit(4);
            });
            if (out != streams[i].bytes) std::exit(5);
            // streamed, front to back, until the first module is out (input fed 4 KB at a time)
            double first = ms_min(runs, [&] {
                ZSTD_DCtx* d = ZSTD_createDCtx();
                ZSTD_outBuffer ob{out.data(), out.size(), 0};
                ZSTD_inBuffer ib{packed[i].data(), 0, 0};
                while (ob.pos < streams[i].first_bytes) {
                    ib.size = std::min(packed[i].size(), ib.size + 4096);
                    check(ZSTD_decompressStream(d, &ob, &ib), "stream");
                }
                ZSTD_freeDCtx(d);
            });
            f.all_ms += whole;
            f.max_stream_ms = std::max(f.max_stream_ms, whole);
            f.sum_first_ms += first;
            f.max_first_ms = std::max(f.max_first_ms, first);
        }
        print(f);
        std::vector<uint8_t> mp(ZSTD_compressBound(manifest.size()));
        std::printf("  manifest.json: %zu B\n",
                    ZSTD_compress(mp.data(), mp.size(), manifest.data(), manifest.size(), st.level));
        std::fflush(stdout);
    }

    // ---- zstd, each module its own frame, the stream's earlier modules its prefix ----
    for (int level : quick ? std::vector<int>{19} : std::vector<int>{19, 22}) {
        Figures f{"zstd -" + std::to_string(level) + ", frame per module"};
        std::vector<std::vector<uint8_t>> packed(streams.size());
        ZSTD_CCtx* cctx = ZSTD_createCCtx();
        auto t0 = Clock::now();
        for (size_t i = 0; i < streams.size(); ++i) {
            size_t offset = 0;
            for (size_t m : streams[i].modules) {
                const std::vector<uint8_t>& b = modules[m].bytes;
                ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
                check(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level), "level");
                check(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1), "checksum");
                if (offset) check(ZSTD_CCtx_refPrefix(cctx, streams[i].bytes.data(), offset), "prefix");
                size_t at = packed[i].size();
                packed[i].resize(at + ZSTD_compressBound(b.size()));
                size_t n = ZSTD_compress2(cctx, packed[i].data() + at, packed[i].size() - at, b.data(), b.size());
                check(n, "compress");
                packed[i].resize(at + n);
                offset += b.size();
            }
            f.bytes += packed[i].size();
        }
        f.pack_s = std::chrono::duration<double>(Clock::now() - t0).count();
        ZSTD_freeCCtx(cctx);
        std::vector<uint8_t> out;
        auto decode = [&](size_t i, size_t until) {
            ZSTD_DCtx* d = ZSTD_createDCtx();
            size_t in = 0, pos = 0;
            while (pos < until) {
                size_t fs = ZSTD_findFrameCompressedSize(packed[i].data() + in, packed[i].size() - in);
                check(fs, "frame size");
                unsigned long long cs = ZSTD_getFrameContentSize(packed[i].data() + in, fs);
                if (pos) check(ZSTD_DCtx_refPrefix(d, out.data(), pos), "prefix");
                size_t r = ZSTD_decompressDCtx(d, out.data() + pos, size_t(cs), packed[i].data() + in, fs);
                check(r, "decompress");
                in += fs;
                pos += r;
            }
            ZSTD_freeDCtx(d);
        };
        for (size_t i = 0; i < streams.size(); ++i) {
            out.assign(streams[i].bytes.size(), 0);
            double whole = ms_min(runs, [&] { decode(i, out.size()); });
            if (out != streams[i].bytes) std::exit(8);
            double first = ms_min(runs, [&] { decode(i, streams[i].first_bytes); });
            f.all_ms += whole;
            f.max_stream_ms = std::max(f.max_stream_ms, whole);
            f.sum_first_ms += first;
            f.max_first_ms = std::max(f.max_first_ms, first);
        }
        print(f);
    }

    // ---- zstd, each module its own frame, with a trained dictionary ----
    std::vector<size_t> dict_sizes = {112640, 1 << 20, 4 << 20};
    if (quick) dict_sizes = {112640};
    std::vector<uint8_t> samples;
    std::vector<size_t> sample_sizes;
    for (const Module& m : modules) {
        samples.insert(samples.end(), m.bytes.begin(), m.bytes.end());
        sample_sizes.push_back(m.bytes.size());
    }
    for (size_t dict_size : dict_sizes) {
        for (int level : {19}) {
            Figures f{"dict " + std::to_string(dict_size / 1024) + " KiB, -" + std::to_string(level)};
            std::vector<uint8_t> dict(dict_size);
            auto t0 = Clock::now();
            size_t n = ZDICT_trainFromBuffer(dict.data(), dict.size(), samples.data(), sample_sizes.data(),
                                             unsigned(sample_sizes.size()));
            if (ZDICT_isError(n)) {
                std::printf("%s: training failed: %s\n", f.name.c_str(), ZDICT_getErrorName(n));
                continue;
            }
            dict.resize(n);
            double train_s = std::chrono::duration<double>(Clock::now() - t0).count();
            ZSTD_CDict* cdict = ZSTD_createCDict(dict.data(), dict.size(), level);
            ZSTD_CCtx* cctx = ZSTD_createCCtx();
            std::vector<std::vector<uint8_t>> packed(modules.size());
            f.bytes = dict.size();
            for (size_t i = 0; i < modules.size(); ++i) {
                packed[i].resize(ZSTD_compressBound(modules[i].bytes.size()));
                size_t r = ZSTD_compress_usingCDict(cctx, packed[i].data(), packed[i].size(), modules[i].bytes.data(),
                                                    modules[i].bytes.size(), cdict);
                check(r, "compress dict");
                packed[i].resize(r);
                f.bytes += r;
            }
            f.pack_s = std::chrono::duration<double>(Clock::now() - t0).count();
            ZSTD_freeCCtx(cctx);
            ZSTD_freeCDict(cdict);
            double ddict_ms = ms_min(runs, [&] { ZSTD_freeDDict(ZSTD_createDDict(dict.data(), dict.size())); });
            ZSTD_DDict* ddict = ZSTD_createDDict(dict.data(), dict.size());
            std::vector<uint8_t> out;
            double all = 0, max_one = 0;
            for (size_t i = 0; i < modules.size(); ++i) {
                out.assign(modules[i].bytes.size(), 0);
                double t = ms_min(runs, [&] {
                    size_t r = ZSTD_decompress_usingDDict(dctx, out.data(), out.size(), packed[i].data(),
                                                          packed[i].size(), ddict);
                    if (r != out.size()) std::exit(6);
                });
                if (out != modules[i].bytes) std::exit(7);
                all += t;
                max_one = std::max(max_one, t);
            }
            ZSTD_freeDDict(ddict);
            f.all_ms = all + ddict_ms;
            f.sum_first_ms = 0;
            std::printf("%-34s %10zu B  (dictionary %zu B, trained in %.1f s)  pack %6.1f s  dictionary load %.2f ms  "
                        "one module: mean %.3f ms, max %.3f ms  all %.1f ms\n",
                        f.name.c_str(), f.bytes, dict.size(), train_s, f.pack_s, ddict_ms, all / modules.size(),
                        max_one, f.all_ms);
            std::fflush(stdout);
        }
    }
    ZSTD_freeDCtx(dctx);
    return 0;
}
