#pragma once

// Internal to the CUDA profiler (cuda_probe.cu): error checks, and cuBLAS / cuBLASLt opened with dlopen so that
// binaries built with CUDA start (and the Debian package installs) on machines without it.

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <dlfcn.h>

#include <stdexcept>
#include <string>

namespace orrery::profile::gpu {

[[noreturn]] inline void fail(const char* call, const std::string& why)
{
    throw std::runtime_error(std::string("CUDA profiler: ") + call + " failed: " + why);
}

inline void check(cudaError_t e, const char* call)
{
    if (e != cudaSuccess)
        fail(call, cudaGetErrorString(e));
}
#define ORRERY_CUDA(call) check((call), #call)

// cuBLAS and cuBLASLt, opened with dlopen: the entry points this profiler calls.
struct Blas
{
    void* lib = nullptr;
    void* lt = nullptr;
    decltype(&cublasCreate_v2) create = nullptr;
    decltype(&cublasDestroy_v2) destroy = nullptr;
    decltype(&cublasSetStream_v2) setStream = nullptr;
    // cublas_api.h overloads cublasGemmEx for C++ (a cudaDataType compute type): name the C entry point.
    using GemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                                      const void*, cudaDataType, int, const void*, cudaDataType, int, const void*,
                                      void*, cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
    GemmEx gemmEx = nullptr;
    decltype(&cublasLtCreate) ltCreate = nullptr;
    decltype(&cublasLtDestroy) ltDestroy = nullptr;
    decltype(&cublasLtMatmulDescCreate) descCreate = nullptr;
    decltype(&cublasLtMatmulDescDestroy) descDestroy = nullptr;
    decltype(&cublasLtMatmulDescSetAttribute) descSet = nullptr;
    decltype(&cublasLtMatrixLayoutCreate) layoutCreate = nullptr;
    decltype(&cublasLtMatrixLayoutDestroy) layoutDestroy = nullptr;
    decltype(&cublasLtMatmulPreferenceCreate) prefCreate = nullptr;
    decltype(&cublasLtMatmulPreferenceDestroy) prefDestroy = nullptr;
    decltype(&cublasLtMatmulPreferenceSetAttribute) prefSet = nullptr;
    decltype(&cublasLtMatmulAlgoGetHeuristic) heuristic = nullptr;
    decltype(&cublasLtMatmul) matmul = nullptr;

    ~Blas()
    {
        if (lt)
            dlclose(lt);
        if (lib)
            dlclose(lib);
    }
};

inline void* openFirst(std::initializer_list<const char*> names, std::string& tried)
{
    for (const char* n : names) {
        if (void* h = dlopen(n, RTLD_NOW | RTLD_LOCAL))
            return h;
        tried += std::string(tried.empty() ? "" : ", ") + n;
    }
    return nullptr;
}

template <typename F> void bind(void* lib, const char* symbol, F& fn)
{
    fn = reinterpret_cast<F>(dlsym(lib, symbol));
    if (!fn)
        fail("dlsym", std::string("cuBLAS has no ") + symbol);
}

inline void openBlas(Blas& b)
{
    std::string tried;
    b.lib =
        openFirst({"libcublas.so.13", "libcublas.so.12", "libcublas.so", "/usr/local/cuda/lib64/libcublas.so"}, tried);
    b.lt = openFirst(
        {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so", "/usr/local/cuda/lib64/libcublasLt.so"}, tried);
    if (!b.lib || !b.lt)
        fail("dlopen", "cuBLAS not found (tried " + tried +
                           "); install the CUDA toolkit's cuBLAS or add its folder to LD_LIBRARY_PATH");
    bind(b.lib, "cublasCreate_v2", b.create);
    bind(b.lib, "cublasDestroy_v2", b.destroy);
    bind(b.lib, "cublasSetStream_v2", b.setStream);
    bind(b.lib, "cublasGemmEx", b.gemmEx);
    bind(b.lt, "cublasLtCreate", b.ltCreate);
    bind(b.lt, "cublasLtDestroy", b.ltDestroy);
    bind(b.lt, "cublasLtMatmulDescCreate", b.descCreate);
    bind(b.lt, "cublasLtMatmulDescDestroy", b.descDestroy);
    bind(b.lt, "cublasLtMatmulDescSetAttribute", b.descSet);
    bind(b.lt, "cublasLtMatrixLayoutCreate", b.layoutCreate);
    bind(b.lt, "cublasLtMatrixLayoutDestroy", b.layoutDestroy);
    bind(b.lt, "cublasLtMatmulPreferenceCreate", b.prefCreate);
    bind(b.lt, "cublasLtMatmulPreferenceDestroy", b.prefDestroy);
    bind(b.lt, "cublasLtMatmulPreferenceSetAttribute", b.prefSet);
    bind(b.lt, "cublasLtMatmulAlgoGetHeuristic", b.heuristic);
    bind(b.lt, "cublasLtMatmul", b.matmul);
}

inline void checkBlas(cublasStatus_t s, const char* call)
{
    if (s != CUBLAS_STATUS_SUCCESS)
        fail(call, "cuBLAS status " + std::to_string(int(s)));
}

} // namespace orrery::profile::gpu
