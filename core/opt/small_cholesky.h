#pragma once

#include <cstddef>

namespace orrery::opt {

/**
 * Dense Cholesky for the small symmetric positive definite systems of structured interior-point steps (a job's
 * T x T block, a T x T Schur complement; T is the number of GPU types). Row-major n x n; the factor overwrites
 * the lower triangle. False when the matrix is not numerically positive definite.
 */
bool choleskyFactor(double* a, std::size_t n);
/** v := (L L')^-1 v for a factor left by choleskyFactor(). */
void choleskySolve(const double* l, std::size_t n, double* v);

} // namespace orrery::opt
