#include "sched/allocation_operator.h"

#include <cmath>
#include <stdexcept>

namespace orrery::sched {

namespace {

/** In-place Cholesky of the n x n row-major SPD matrix a (lower triangle); false when not positive definite. */
bool cholesky(std::vector<double>& a, std::size_t n, std::size_t at = 0)
{
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t k = 0; k <= i; ++k) {
            double sum = a[at + i * n + k];
            for (std::size_t p = 0; p < k; ++p)
                sum -= a[at + i * n + p] * a[at + k * n + p];
            if (i == k) {
                if (!(sum > 0) || !std::isfinite(sum))
                    return false;
                a[at + i * n + i] = std::sqrt(sum);
            } else {
                a[at + i * n + k] = sum / a[at + k * n + k];
            }
        }
    }
    return true;
}

/** v := (L L')^-1 v for the factor left by cholesky(). */
void choleskySolve(const std::vector<double>& l, std::size_t n, double* v, std::size_t at = 0)
{
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t p = 0; p < i; ++p)
            v[i] -= l[at + i * n + p] * v[p];
        v[i] /= l[at + i * n + i];
    }
    for (std::size_t i = n; i-- > 0;) {
        for (std::size_t p = i + 1; p < n; ++p)
            v[i] -= l[at + p * n + i] * v[p];
        v[i] /= l[at + i * n + i];
    }
}

} // namespace

AllocationOperator::AllocationOperator(const AllocationInput& in, bool floors)
    : m_in(in), m_J(static_cast<std::size_t>(in.jobs)), m_T(static_cast<std::size_t>(in.types)), m_floors(floors)
{}

int AllocationOperator::columns() const
{
    return static_cast<int>(m_J * m_T);
}

int AllocationOperator::rows() const
{
    return static_cast<int>(m_J * m_T + m_T + (m_floors ? 2 : 1) * m_J);
}

void AllocationOperator::multiply(const std::vector<double>& x, std::vector<double>& out) const
{
    out.assign(static_cast<std::size_t>(rows()), 0.0);
    const std::size_t N = m_J * m_T;
    for (std::size_t j = 0; j < m_J; ++j)
        for (std::size_t t = 0; t < m_T; ++t) {
            const std::size_t k = j * m_T + t;
            out[k] = -x[k];
            out[N + t] += m_in.demand[k] * x[k];
            out[N + m_T + j] += x[k];
            if (m_floors)
                out[N + m_T + m_J + j] -= m_in.rate[k] * x[k];
        }
}

void AllocationOperator::multiplyTransposed(const std::vector<double>& z, std::vector<double>& out) const
{
    const std::size_t N = m_J * m_T;
    out.assign(N, 0.0);
    for (std::size_t j = 0; j < m_J; ++j)
        for (std::size_t t = 0; t < m_T; ++t) {
            const std::size_t k = j * m_T + t;
            out[k] = m_floors ? -z[k] + m_in.demand[k] * z[N + t] + z[N + m_T + j] - m_in.rate[k] * z[N + m_T + m_J + j]
                              : -z[k] + m_in.demand[k] * z[N + t] + z[N + m_T + j];
        }
}

void AllocationOperator::forEachEntry(const std::function<void(int, int, double)>& f) const
{
    const std::size_t N = m_J * m_T;
    for (std::size_t j = 0; j < m_J; ++j)
        for (std::size_t t = 0; t < m_T; ++t) {
            const std::size_t k = j * m_T + t;
            const int col = static_cast<int>(k);
            f(static_cast<int>(k), col, -1.0);
            if (m_in.demand[k] != 0)
                f(static_cast<int>(N + t), col, m_in.demand[k]);
            f(static_cast<int>(N + m_T + j), col, 1.0);
            if (m_floors && m_in.rate[k] != 0)
                f(static_cast<int>(N + m_T + m_J + j), col, -m_in.rate[k]);
        }
}

bool AllocationOperator::factor(const std::vector<double>& w)
{
    const std::size_t N = m_J * m_T, T = m_T;
    // B_j = diag(w_cells) + w_budget 1 1' + w_floor r r', factored per job.
    m_block.assign(m_J * T * T, 0.0);
    for (std::size_t j = 0; j < m_J; ++j) {
        const std::size_t at = j * T * T;
        const double wb = w[N + T + j];
        if (m_floors) {
            const double wf = w[N + T + m_J + j];
            for (std::size_t a = 0; a < T; ++a)
                for (std::size_t b = 0; b < T; ++b)
                    m_block[at + a * T + b] =
                        (a == b ? w[j * T + a] : 0.0) + wb + wf * m_in.rate[j * T + a] * m_in.rate[j * T + b];
        } else {
            for (std::size_t a = 0; a < T; ++a)
                for (std::size_t b = 0; b < T; ++b)
                    m_block[at + a * T + b] = (a == b ? w[j * T + a] : 0.0) + wb;
        }
        if (!cholesky(m_block, T, at))
            return false;
    }
    // Y = B^-1 U (U: the capacity rows' coefficients), S = Gamma^-1 + U' B^-1 U.
    m_y.assign(N * T, 0.0);
    m_schur.assign(T * T, 0.0);
    for (std::size_t t = 0; t < T; ++t)
        m_schur[t * T + t] = 1 / w[N + t];
    std::vector<double> col(T);
    for (std::size_t j = 0; j < m_J; ++j)
        for (std::size_t t = 0; t < T; ++t) {
            std::fill(col.begin(), col.end(), 0.0);
            col[t] = m_in.demand[j * T + t];
            choleskySolve(m_block, T, col.data(), j * T * T);
            for (std::size_t a = 0; a < T; ++a) {
                m_y[(j * T + a) * T + t] = col[a];
                m_schur[a * T + t] += m_in.demand[j * T + a] * col[a];
            }
        }
    return cholesky(m_schur, T);
}

void AllocationOperator::solve(std::vector<double>& v) const
{
    const std::size_t T = m_T;
    for (std::size_t j = 0; j < m_J; ++j)
        choleskySolve(m_block, T, v.data() + j * T, j * T * T);
    std::vector<double> q(T, 0.0);
    for (std::size_t k = 0; k < m_J * T; ++k)
        q[k % T] += m_in.demand[k] * v[k];
    choleskySolve(m_schur, T, q.data());
    for (std::size_t k = 0; k < m_J * T; ++k)
        for (std::size_t t = 0; t < T; ++t)
            v[k] -= m_y[k * T + t] * q[t];
}

ScaledFloorOperator::ScaledFloorOperator(const AllocationInput& in, std::vector<double> scale)
    : m_inner(in, true), m_scale(std::move(scale)), m_N(static_cast<std::size_t>(m_inner.columns())),
      m_R0(static_cast<std::size_t>(m_inner.rows()))
{
    if (m_scale.size() != static_cast<std::size_t>(in.jobs))
        throw std::invalid_argument("ScaledFloorOperator: one scale per job");
}

int ScaledFloorOperator::columns() const
{
    return static_cast<int>(m_N + 1);
}

int ScaledFloorOperator::rows() const
{
    return static_cast<int>(m_R0 + 2);
}

void ScaledFloorOperator::multiply(const std::vector<double>& x, std::vector<double>& out) const
{
    m_x.assign(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(m_N));
    m_inner.multiply(m_x, out);
    const double v = x[m_N];
    const std::size_t floors = m_R0 - m_scale.size();
    for (std::size_t j = 0; j < m_scale.size(); ++j)
        out[floors + j] += m_scale[j] * v;
    out.push_back(-v);
    out.push_back(v);
}

void ScaledFloorOperator::multiplyTransposed(const std::vector<double>& z, std::vector<double>& out) const
{
    m_inner.multiplyTransposed(z, out); // reads z's first m_R0 rows
    const std::size_t floors = m_R0 - m_scale.size();
    double v = -z[m_R0] + z[m_R0 + 1];
    for (std::size_t j = 0; j < m_scale.size(); ++j)
        v += m_scale[j] * z[floors + j];
    out.push_back(v);
}

void ScaledFloorOperator::forEachEntry(const std::function<void(int, int, double)>& f) const
{
    m_inner.forEachEntry(f);
    const int v = static_cast<int>(m_N);
    const std::size_t floors = m_R0 - m_scale.size();
    for (std::size_t j = 0; j < m_scale.size(); ++j)
        if (m_scale[j] != 0)
            f(static_cast<int>(floors + j), v, m_scale[j]);
    f(static_cast<int>(m_R0), v, -1.0);
    f(static_cast<int>(m_R0 + 1), v, 1.0);
}

bool ScaledFloorOperator::factor(const std::vector<double>& w)
{
    // K = [A b; b' d]: A the inner normal matrix, b = G0' W0 e (e: the scales in the floor rows), d = e' W0 e plus
    // v's own rows. K^-1 through A^-1 and the scalar d - b' A^-1 b.
    if (!m_inner.factor(w))
        return false;
    const std::size_t floors = m_R0 - m_scale.size();
    std::vector<double> we(m_R0, 0.0);
    double d = w[m_R0] + w[m_R0 + 1];
    for (std::size_t j = 0; j < m_scale.size(); ++j) {
        we[floors + j] = w[floors + j] * m_scale[j];
        d += m_scale[j] * we[floors + j];
    }
    m_inner.multiplyTransposed(we, m_b);
    m_y = m_b;
    m_inner.solve(m_y);
    double by = 0;
    for (std::size_t k = 0; k < m_N; ++k)
        by += m_b[k] * m_y[k];
    m_schur = d - by;
    return m_schur > 0 && std::isfinite(m_schur);
}

void ScaledFloorOperator::solve(std::vector<double>& v) const
{
    m_z.assign(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(m_N));
    m_inner.solve(m_z);
    double bz = 0;
    for (std::size_t k = 0; k < m_N; ++k)
        bz += m_b[k] * m_z[k];
    const double u = (v[m_N] - bz) / m_schur;
    for (std::size_t k = 0; k < m_N; ++k)
        v[k] = m_z[k] - m_y[k] * u;
    v[m_N] = u;
}

} // namespace orrery::sched
