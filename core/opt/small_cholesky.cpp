#include "opt/small_cholesky.h"

#include <cmath>

namespace orrery::opt {

bool choleskyFactor(double* a, std::size_t n)
{
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t k = 0; k <= i; ++k) {
            double sum = a[i * n + k];
            for (std::size_t p = 0; p < k; ++p)
                sum -= a[i * n + p] * a[k * n + p];
            if (i == k) {
                if (!(sum > 0) || !std::isfinite(sum))
                    return false;
                a[i * n + i] = std::sqrt(sum);
            } else {
                a[i * n + k] = sum / a[k * n + k];
            }
        }
    }
    return true;
}

void choleskySolve(const double* l, std::size_t n, double* v)
{
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t p = 0; p < i; ++p)
            v[i] -= l[i * n + p] * v[p];
        v[i] /= l[i * n + i];
    }
    for (std::size_t i = n; i-- > 0;) {
        for (std::size_t p = i + 1; p < n; ++p)
            v[i] -= l[p * n + i] * v[p];
        v[i] /= l[i * n + i];
    }
}

} // namespace orrery::opt
