// orrery-cli: Orrery's headless front end for scripts, sweeps and tests.
#include "cli.h"

#include "io/error.h"
#include "profile/calibration.h"
#include "version.h"

#include <iostream>

#if defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#endif

namespace {

#if defined(__GLIBC__)
/**
 * First touches of fresh heap pages were most of what remained of the process's kernel time: about 2,000 page
 * faults for one `simulate --json` of Gavel's 1,000-job trace on 4 KiB pages, each a trip into the kernel that
 * this VM makes expensive (15-20 us a fault). The next kHeapBytes of heap are advised as transparent-huge-page
 * memory (madvise(MADV_HUGEPAGE), honoured where the kernel's THP mode is "always" or "madvise", as this VM's is), so
 * that they fault in 2 MiB at a time (docs/performance.md, fourth and seventh passes). The block is taken from the
 * heap's top and given back at once; with the trim threshold that keepFreedMemoryForReuse() sets, it stays there as
 * the free top chunk that the run's allocations are then carved from.
 *
 * Only whole 2 MiB-aligned pages can be huge, and the heap starts at a random address: the top chunk's stretch up to
 * the first 2 MiB boundary (1 MiB on average) would still fault 4 KiB at a time, and it is the stretch a run's first
 * allocations (the files read, the parsers' buffers) land in: about 280 of fifo's 460 faults on that trace. So that
 * stretch is held by one filler block that is never freed nor touched beyond its header (address space, no memory),
 * and the top chunk starts on the boundary. Where the allocator does not hand the filler out of the top chunk (an
 * interposed malloc, as under ASan), the filler is given back and only the aligned part is advised, as before.
 * Nothing is committed until touched (a touched 2 MiB page is committed whole: peak RSS 6-8 MiB higher on that run).
 * Where THP is unavailable the advice is refused or ignored and nothing changes.
 */
void adviseHugePagesForTheHeap(std::size_t trimThreshold)
{
    constexpr std::size_t kHugePage = std::size_t{2} << 20, kHeapBytes = std::size_t{32} << 20;
    // A filler under this size could be served from a free list rather than from the top chunk.
    constexpr std::size_t kMinFiller = std::size_t{64} << 10, kChunkHeader = 2 * sizeof(std::size_t);
    static_assert(kHeapBytes > 4 * kHugePage);
    if (kHeapBytes >= trimThreshold)
        return; // freed at once, the block would go back to the kernel with its advice
    void* block = std::malloc(kHeapBytes);
    if (!block)
        return;
    auto begin = reinterpret_cast<std::uintptr_t>(block);
    std::uintptr_t from = (begin + kHugePage - 1) & ~(kHugePage - 1);
    if (from - begin < kMinFiller + kChunkHeader)
        from += kHugePage;
    std::free(block);
    static void* filler = nullptr; // held for the process's life, so that leak checkers see it reachable
    filler = std::malloc(from - begin - kChunkHeader);
    if (filler != block) {
        std::free(filler);
        filler = nullptr;
    }
    block = std::malloc(kHeapBytes);
    if (!block)
        return;
    begin = reinterpret_cast<std::uintptr_t>(block);
    from = (begin + kHugePage - 1) & ~(kHugePage - 1);
    const std::uintptr_t to = (begin + kHeapBytes) & ~(kHugePage - 1);
    madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE); // advice: a refusal changes nothing
    std::free(block);
}
#endif

/**
 * A run's growing arrays (rate segments, job records, the throughput series, the JSON text's pieces) pass 128 KiB,
 * where glibc serves each block by its own mmap and unmaps it when freed, so every regrowth faulted fresh pages in
 * (4,000 page faults for one `simulate` of Gavel's 1,000-job trace, a third of its CPU in the kernel on this VM).
 * Serving them from the heap and keeping up to 64 MiB of it free (as core/opt's MILP helper does for CBC) lets freed
 * blocks be reused: 22% fewer faults, about 20% less CPU for that process (docs/performance.md).
 */
void keepFreedMemoryForReuse()
{
#if defined(__GLIBC__)
    constexpr int kSlackBytes = 64 << 20;
    mallopt(M_MMAP_THRESHOLD, kSlackBytes);
    mallopt(M_TRIM_THRESHOLD, kSlackBytes);
    adviseHugePagesForTheHeap(kSlackBytes);
#endif
}

} // namespace

int main(int argc, char** argv)
{
    keepFreedMemoryForReuse();
    CLI::App app{"Orrery: plan, provision and simulate deep-learning training on heterogeneous GPU clusters.\n"
                 "Exit status: 0 success, 1 failure, 2 bad input."};
    app.set_version_flag("--version", std::string("orrery-cli ") + orrery::kVersion);
    app.require_subcommand(1);
    app.fallthrough(false);
    // Calibrations apply before any subcommand runs: CLI11 runs the main app's option callbacks first.
    app.add_option_function<std::vector<std::string>>(
           "--calibration", orrery::profile::applyCalibrations,
           "Calibration file(s) from `orrery-cli profile`: measured curves replace the catalog defaults of "
           "that GPU type (also $ORRERY_CALIBRATION, colon-separated). Give it before the command.")
        ->type_name("FILE");
    orrery::cli::registerCommands(app, argc, argv);

    try {
        orrery::profile::applyCalibrations(orrery::profile::calibrationFilesFromEnvironment());
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return orrery::cli::BadInput;
    } catch (const orrery::cli::ExitRequest& e) {
        return e.code;
    } catch (const orrery::Error& e) {
        std::cerr << "orrery-cli: " << e.what() << '\n';
        return orrery::cli::BadInput;
    } catch (const std::exception& e) {
        std::cerr << "orrery-cli: error: " << e.what() << '\n';
        return orrery::cli::Failure;
    }
    return orrery::cli::Ok;
}
