// The live CUDA profiler (docs/models/profiler.md). The CUDA runtime is linked statically and cuBLAS is
// opened at run time, so the same binary (and the Debian package) runs on machines with no CUDA at all:
// there it reports why it cannot profile instead of failing to start.
#include "profile/device_probe.h"

#include "profile/cuda_blas.cuh"
#include "profile/gemm_grid.h"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace orrery::profile {

namespace {

using namespace gpu;
using detail::gemmGrid;
using detail::Shape;

// Deterministic values in [-1, 1): random-looking data keeps the tensor cores at the power they draw in
// training (all-zero operands run measurably faster).
__device__ float noise(std::uint64_t i)
{
    std::uint64_t x = i * 0x9E3779B97F4A7C15ull;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return float(x >> 40) / float(1ull << 23) - 1.0f;
}

template <typename T> __global__ void fillKernel(T* p, std::size_t n)
{
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        p[i] = T(noise(i));
}

__global__ void copyKernel(const float4* __restrict__ in, float4* __restrict__ out, std::size_t n)
{
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = in[i];
}

__global__ void triadKernel(float4* __restrict__ a, const float4* __restrict__ b, const float4* __restrict__ c, float s,
                            std::size_t n)
{
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const float4 x = b[i], y = c[i];
        a[i] = make_float4(x.x + s * y.x, x.y + s * y.y, x.z + s * y.z, x.w + s * y.w);
    }
}

// The shape of an element-wise training kernel (scale, bias add, activation): one read, one write.
__global__ void axpbKernel(float* x, float a, float b, std::size_t n)
{
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        x[i] = x[i] * a + b;
}

struct Events
{
    cudaEvent_t start{}, stop{};
    Events()
    {
        ORRERY_CUDA(cudaEventCreate(&start));
        ORRERY_CUDA(cudaEventCreate(&stop));
    }
    ~Events()
    {
        cudaEventDestroy(start);
        cudaEventDestroy(stop);
    }
    Events(const Events&) = delete;
    Events& operator=(const Events&) = delete;
};

struct DeviceBuffer
{
    void* p = nullptr;
    std::size_t bytes = 0;
    explicit DeviceBuffer(std::size_t n) : bytes(n) { ORRERY_CUDA(cudaMalloc(&p, n)); }
    ~DeviceBuffer() { cudaFree(p); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

/**
 * Seconds per call of `launch`: one untimed call, then repetitions until about `targetS` has passed
 * (at least `minReps`), timed with events around the whole batch. The batch's mean is what a kernel
 * costs back to back, as in a training step.
 */
template <typename Launch>
double timeBatch(cudaStream_t stream, Events& ev, Launch launch, double targetS, int minReps, int maxReps)
{
    launch();
    ORRERY_CUDA(cudaEventRecord(ev.start, stream));
    launch();
    ORRERY_CUDA(cudaEventRecord(ev.stop, stream));
    ORRERY_CUDA(cudaEventSynchronize(ev.stop));
    float ms = 0;
    ORRERY_CUDA(cudaEventElapsedTime(&ms, ev.start, ev.stop));
    const double once = std::max(1e-7, ms * 1e-3);
    const int reps = std::clamp(int(std::ceil(targetS / once)), minReps, maxReps);
    ORRERY_CUDA(cudaEventRecord(ev.start, stream));
    for (int i = 0; i < reps; ++i)
        launch();
    ORRERY_CUDA(cudaEventRecord(ev.stop, stream));
    ORRERY_CUDA(cudaEventSynchronize(ev.stop));
    ORRERY_CUDA(cudaGetLastError());
    ORRERY_CUDA(cudaEventElapsedTime(&ms, ev.start, ev.stop));
    return ms * 1e-3 / reps;
}

int gridFor(std::size_t n, int sms)
{
    return int(std::max<std::size_t>(1, std::min<std::size_t>((n + 255) / 256, std::size_t(sms) * 16)));
}

std::string driverVersion()
{
    std::ifstream f("/proc/driver/nvidia/version");
    std::string word;
    while (f >> word)
        if (!word.empty() && std::isdigit(static_cast<unsigned char>(word[0])) && word.find('.') != std::string::npos)
            return word;
    return {};
}

std::string utcNow()
{
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::string hostName()
{
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0)
        return {};
    return buf;
}

class Profiler
{
public:
    Profiler(const ProbeOptions& options, Measurements& out) : m_options(options), m_out(out) {}

    void run()
    {
        DeviceInfo& d = m_out.device;
        ORRERY_CUDA(cudaGetDeviceCount(&d.deviceCount));
        if (m_options.device < 0 || m_options.device >= d.deviceCount)
            fail("cudaSetDevice", "no device " + std::to_string(m_options.device) + " (this machine has " +
                                      std::to_string(d.deviceCount) + ")");
        ORRERY_CUDA(cudaSetDevice(m_options.device));
        ORRERY_CUDA(cudaFree(nullptr)); // creates the context
        std::size_t freeB = 0, totalB = 0;
        ORRERY_CUDA(cudaMemGetInfo(&freeB, &totalB));
        cudaDeviceProp prop{};
        ORRERY_CUDA(cudaGetDeviceProperties(&prop, m_options.device));
        d.name = prop.name;
        d.ccMajor = prop.major;
        d.ccMinor = prop.minor;
        d.sms = prop.multiProcessorCount;
        d.l2Bytes = prop.l2CacheSize;
        d.totalBytes = double(totalB);
        d.freeBytes = double(freeB);
        d.contextBytes = double(totalB - freeB);
        ORRERY_CUDA(cudaDriverGetVersion(&d.cudaDriver));
        ORRERY_CUDA(cudaRuntimeGetVersion(&d.cudaRuntime));
        d.driver = driverVersion();
        m_out.measuredAt = utcNow();
        m_out.host = hostName();
        m_out.quick = m_options.quick;

        openBlas(m_blas);
        ORRERY_CUDA(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking));
        checkBlas(m_blas.create(&m_handle), "cublasCreate");
        checkBlas(m_blas.setStream(m_handle, m_stream), "cublasSetStream");
        checkBlas(m_blas.ltCreate(&m_lt), "cublasLtCreate");

        const bool fp8 = d.ccMajor * 10 + d.ccMinor >= 89;
        if (!fp8)
            m_out.skipped.push_back("fp8: needs compute capability 8.9 or newer (this GPU has " +
                                    std::to_string(d.ccMajor) + "." + std::to_string(d.ccMinor) + ")");
        const std::vector<Shape> shapes = gemmGrid(m_options.quick, fp8);
        const std::vector<double> streamSizes =
            m_options.quick
                ? std::vector<double>{4 << 20, 64 << 20, 1 << 30}
                : std::vector<double>{1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20, 1 << 30, 2.0 * (1 << 30)};
        const std::vector<double> launchSizes =
            m_options.quick ? std::vector<double>{1, 1024, 65536, 1 << 20, 16 << 20}
                            : std::vector<double>{1, 32, 1024, 16384, 262144, 1 << 20, 4 << 20, 16 << 20, 64 << 20};
        m_steps = double(shapes.size() + 3 * streamSizes.size() + launchSizes.size() + 2);
        try {
            measureGemms(shapes);
            measureStreams(streamSizes);
            measureLaunches(launchSizes);
            measurePeers();
            measureUsable();
        } catch (...) {
            release();
            throw;
        }
        release();
    }

private:
    void step(const std::string& what)
    {
        if (m_options.progress && !m_options.progress(std::min(1.0, m_done / m_steps), what))
            throw orrery::Cancelled();
        m_done += 1;
    }

    void release()
    {
        if (m_lt)
            m_blas.ltDestroy(m_lt);
        if (m_handle)
            m_blas.destroy(m_handle);
        if (m_stream)
            cudaStreamDestroy(m_stream);
        m_lt = nullptr;
        m_handle = nullptr;
        m_stream = nullptr;
    }

    template <typename T> void fill(void* p, std::size_t bytes)
    {
        const std::size_t n = bytes / sizeof(T);
        fillKernel<T><<<gridFor(n, m_out.device.sms), 256, 0, m_stream>>>(static_cast<T*>(p), n);
        ORRERY_CUDA(cudaGetLastError());
    }

    void fillAs(const std::string& precision, void* p, std::size_t bytes)
    {
        if (precision == "bf16")
            fill<__nv_bfloat16>(p, bytes);
        else if (precision == "fp16")
            fill<__half>(p, bytes);
        else if (precision == "fp8")
            fill<__nv_fp8_e4m3>(p, bytes);
        else
            fill<float>(p, bytes);
    }

    static double elementBytes(const std::string& precision)
    {
        if (precision == "fp8")
            return 1;
        if (precision == "bf16" || precision == "fp16")
            return 2;
        return 4;
    }

    void measureGemms(const std::vector<Shape>& shapes)
    {
        // One set of operand buffers for the whole grid, sized for the largest operand (capped by what
        // the device has free), refilled whenever the precision changes.
        double need = 0;
        for (const Shape& s : shapes) {
            const double e = elementBytes(s.precision);
            need = std::max({need, e * s.m * s.k, e * s.k * s.n, 4 * s.m * s.n});
        }
        const double cap = std::max(64.0 * (1 << 20), m_out.device.freeBytes / 6);
        const std::size_t bytes = std::size_t(std::min(need, cap));
        DeviceBuffer a(bytes), b(bytes), c(bytes), workspace(32 << 20);
        Events ev;
        std::string filled;
        for (const Shape& s : shapes) {
            step(std::string("GEMM ") + s.precision);
            const double e = elementBytes(s.precision);
            if (e * s.m * s.k > double(bytes) || e * s.k * s.n > double(bytes) || 4 * s.m * s.n > double(bytes)) {
                m_out.skipped.push_back(std::string("GEMM ") + s.precision + " " + shapeText(s) +
                                        ": operands exceed the free memory");
                continue;
            }
            if (filled != s.precision) {
                fillAs(s.precision, a.p, bytes);
                fillAs(s.precision, b.p, bytes);
                filled = s.precision;
            }
            GemmSample g{s.precision, s.m, s.n, s.k, 0};
            try {
                g.seconds = s.precision == std::string("fp8") ? timeFp8(s, a.p, b.p, c.p, workspace, ev)
                                                              : timeGemmEx(s, a.p, b.p, c.p, ev);
            } catch (const std::runtime_error& e) {
                // A precision or shape the library refuses on this device is a gap in the curve, not
                // the end of the profile.
                m_out.skipped.push_back(std::string("GEMM ") + s.precision + " " + shapeText(s) + ": " + e.what());
                ORRERY_CUDA(cudaStreamSynchronize(m_stream));
                continue;
            }
            m_out.gemm.push_back(g);
        }
    }

    static std::string shapeText(const Shape& s)
    {
        std::ostringstream o;
        o << s.m << "x" << s.n << "x" << s.k;
        return o.str();
    }

    double timeGemmEx(const Shape& s, void* a, void* b, void* c, Events& ev)
    {
        const std::string p = s.precision;
        cudaDataType_t in = CUDA_R_32F, out = CUDA_R_32F;
        cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
        if (p == "bf16")
            in = out = CUDA_R_16BF;
        else if (p == "fp16")
            in = out = CUDA_R_16F;
        else if (p == "tf32")
            compute = CUBLAS_COMPUTE_32F_FAST_TF32;
        const float alpha = 1, beta = 0;
        const int m = int(s.m), n = int(s.n), k = int(s.k);
        return timeBatch(
            m_stream, ev,
            [&] {
                checkBlas(m_blas.gemmEx(m_handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, a, in, m, b, in, k, &beta,
                                        c, out, m, compute, CUBLAS_GEMM_DEFAULT),
                          "cublasGemmEx");
            },
            m_options.quick ? 0.01 : 0.03, 3, 500);
    }

    double timeFp8(const Shape& s, void* a, void* b, void* c, DeviceBuffer& workspace, Events& ev)
    {
        // FP8 GEMMs exist only in cuBLASLt, in the "TN" layout (A transposed), with a bf16 result: the
        // form Transformer Engine runs.
        const std::uint64_t m = std::uint64_t(s.m), n = std::uint64_t(s.n), k = std::uint64_t(s.k);
        cublasLtMatmulDesc_t op = nullptr;
        cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
        cublasLtMatmulPreference_t pref = nullptr;
        const auto cleanup = [&] {
            if (pref)
                m_blas.prefDestroy(pref);
            if (lc)
                m_blas.layoutDestroy(lc);
            if (lb)
                m_blas.layoutDestroy(lb);
            if (la)
                m_blas.layoutDestroy(la);
            if (op)
                m_blas.descDestroy(op);
        };
        try {
            checkBlas(m_blas.descCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
            const cublasOperation_t transA = CUBLAS_OP_T, transB = CUBLAS_OP_N;
            checkBlas(m_blas.descSet(op, CUBLASLT_MATMUL_DESC_TRANSA, &transA, sizeof transA), "TRANSA");
            checkBlas(m_blas.descSet(op, CUBLASLT_MATMUL_DESC_TRANSB, &transB, sizeof transB), "TRANSB");
            checkBlas(m_blas.layoutCreate(&la, CUDA_R_8F_E4M3, k, m, std::int64_t(k)), "layout A");
            checkBlas(m_blas.layoutCreate(&lb, CUDA_R_8F_E4M3, k, n, std::int64_t(k)), "layout B");
            checkBlas(m_blas.layoutCreate(&lc, CUDA_R_16BF, m, n, std::int64_t(m)), "layout C");
            checkBlas(m_blas.prefCreate(&pref), "cublasLtMatmulPreferenceCreate");
            const std::size_t ws = workspace.bytes;
            checkBlas(m_blas.prefSet(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws), "workspace");
            cublasLtMatmulHeuristicResult_t result{};
            int found = 0;
            checkBlas(m_blas.heuristic(m_lt, op, la, lb, lc, lc, pref, 1, &result, &found),
                      "cublasLtMatmulAlgoGetHeuristic");
            if (found < 1)
                fail("cublasLtMatmulAlgoGetHeuristic", "no FP8 algorithm for this shape");
            const float alpha = 1, beta = 0;
            const double t = timeBatch(
                m_stream, ev,
                [&] {
                    checkBlas(m_blas.matmul(m_lt, op, &alpha, a, la, b, lb, &beta, c, lc, c, lc, &result.algo,
                                            workspace.p, ws, m_stream),
                              "cublasLtMatmul");
                },
                m_options.quick ? 0.01 : 0.03, 3, 500);
            cleanup();
            return t;
        } catch (...) {
            cleanup();
            throw;
        }
    }

    void measureStreams(const std::vector<double>& sizes)
    {
        const double largest = *std::max_element(sizes.begin(), sizes.end());
        const std::size_t cap = std::size_t(std::min(largest, std::max(16.0 * (1 << 20), m_out.device.freeBytes / 8)));
        DeviceBuffer x(cap), y(cap), z(cap);
        fill<float>(x.p, cap);
        fill<float>(y.p, cap);
        fill<float>(z.p, cap);
        Events ev;
        const int sms = m_out.device.sms;
        for (double size : sizes) {
            const std::size_t bytes = std::size_t(std::min(size, double(cap)));
            const std::size_t n4 = bytes / sizeof(float4);
            const auto* in = static_cast<const float4*>(x.p);
            auto* out = static_cast<float4*>(y.p);
            step("memory bandwidth");
            const double copy = timeBatch(
                m_stream, ev, [&] { copyKernel<<<gridFor(n4, sms), 256, 0, m_stream>>>(in, out, n4); }, 0.02, 5, 2000);
            m_out.stream.push_back({"copy", 2.0 * double(bytes), copy});
            step("memory bandwidth");
            const double triad = timeBatch(
                m_stream, ev,
                [&] {
                    triadKernel<<<gridFor(n4, sms), 256, 0, m_stream>>>(out, in, static_cast<const float4*>(z.p), 0.5f,
                                                                        n4);
                },
                0.02, 5, 2000);
            m_out.stream.push_back({"triad", 3.0 * double(bytes), triad});
            step("memory bandwidth");
            const double memcpy = timeBatch(
                m_stream, ev,
                [&] { ORRERY_CUDA(cudaMemcpyAsync(y.p, x.p, bytes, cudaMemcpyDeviceToDevice, m_stream)); }, 0.02, 5,
                2000);
            m_out.stream.push_back({"memcpy", 2.0 * double(bytes), memcpy});
        }
    }

    void measureLaunches(const std::vector<double>& sizes)
    {
        const double largest = *std::max_element(sizes.begin(), sizes.end());
        DeviceBuffer x(std::size_t(largest) * sizeof(float));
        fill<float>(x.p, x.bytes);
        Events ev;
        for (double size : sizes) {
            step("element-wise kernels");
            const std::size_t n = std::size_t(size);
            auto* p = static_cast<float*>(x.p);
            const double t = timeBatch(
                m_stream, ev,
                [&] { axpbKernel<<<gridFor(n, m_out.device.sms), 256, 0, m_stream>>>(p, 1.0001f, 0.0f, n); }, 0.01, 200,
                20000);
            m_out.elementwise.push_back({size, t});
        }
    }

    void measurePeers()
    {
        step("peer-to-peer copies");
        const int count = m_out.device.deviceCount;
        if (count < 2) {
            m_out.skipped.push_back("peer-to-peer: one GPU on this machine");
            return;
        }
        const std::size_t bytes = m_options.quick ? (64 << 20) : (256 << 20);
        const int self = m_options.device;
        for (int other = 0; other < std::min(count, 8); ++other) {
            if (other == self)
                continue;
            int can = 0;
            ORRERY_CUDA(cudaDeviceCanAccessPeer(&can, self, other));
            if (!can) {
                m_out.skipped.push_back("peer-to-peer " + std::to_string(self) + " -> " + std::to_string(other) +
                                        ": no peer access (copies go through the host)");
                continue;
            }
            const cudaError_t enabled = cudaDeviceEnablePeerAccess(other, 0);
            if (enabled != cudaSuccess && enabled != cudaErrorPeerAccessAlreadyEnabled)
                check(enabled, "cudaDeviceEnablePeerAccess");
            cudaGetLastError();
            DeviceBuffer src(bytes);
            void* dst = nullptr;
            ORRERY_CUDA(cudaSetDevice(other));
            ORRERY_CUDA(cudaMalloc(&dst, bytes));
            ORRERY_CUDA(cudaSetDevice(self));
            Events ev;
            double t = 0;
            try {
                t = timeBatch(
                    m_stream, ev, [&] { ORRERY_CUDA(cudaMemcpyPeerAsync(dst, other, src.p, self, bytes, m_stream)); },
                    0.05, 3, 200);
            } catch (...) {
                cudaFree(dst);
                throw;
            }
            cudaFree(dst);
            m_out.peers.push_back({self, other, double(bytes), t});
        }
    }

    void measureUsable()
    {
        step("usable memory");
        ORRERY_CUDA(cudaStreamSynchronize(m_stream));
        std::size_t freeB = 0, totalB = 0;
        ORRERY_CUDA(cudaMemGetInfo(&freeB, &totalB));
        // The largest block one allocation gets: what a framework's caching allocator can reserve.
        const std::size_t step = 64 << 20;
        for (std::size_t want = freeB; want > step; want -= step) {
            void* p = nullptr;
            if (cudaMalloc(&p, want) == cudaSuccess) {
                cudaFree(p);
                m_out.device.usableBytes = double(want);
                return;
            }
            cudaGetLastError();
        }
    }

    const ProbeOptions& m_options;
    Measurements& m_out;
    Blas m_blas;
    cudaStream_t m_stream = nullptr;
    cublasHandle_t m_handle = nullptr;
    cublasLtHandle_t m_lt = nullptr;
    double m_steps = 1, m_done = 0;
};

} // namespace

Availability availability()
{
    Availability a;
    a.compiledWithCuda = true;
    const cudaError_t e = cudaGetDeviceCount(&a.devices);
    if (e != cudaSuccess) {
        a.devices = 0;
        if (e == cudaErrorInsufficientDriver)
            a.reason = "no GPU can be profiled: no NVIDIA driver was found (or it is older than CUDA " +
                       std::to_string(CUDART_VERSION / 1000) + ", which this build needs)";
        else if (e == cudaErrorNoDevice)
            a.reason = "no GPU can be profiled: the NVIDIA driver sees no CUDA-capable device";
        else
            a.reason = std::string("no GPU can be profiled: ") + cudaGetErrorString(e);
        cudaGetLastError();
    } else if (a.devices == 0) {
        a.reason = "no GPU can be profiled: the CUDA runtime sees no device";
    }
    return a;
}

Measurements measureDevice(const ProbeOptions& options)
{
    const Availability a = availability();
    if (!a.usable())
        throw std::runtime_error(a.reason);
    Measurements out;
    Profiler(options, out).run();
    return out;
}

} // namespace orrery::profile
