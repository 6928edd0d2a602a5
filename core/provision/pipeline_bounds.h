#pragma once

#include "provision/pipeline_model.h"

#include <vector>

namespace orrery::provision {

/**
 * Valid lower bounds on the 1F1B iteration time (iterationTimeS) of any
 * order and layer split of a multiset of stage types, for one (d, k). They
 * rest on three facts of the schedule, with W_j = f_j + b_j of stage j for
 * one micro-batch, w_j its all-reduce, p the point-to-point time of one
 * boundary crossing and n_j = min(k - j, m) <= m the forwards stage j runs
 * before its first backward:
 *   (1) T >= W_{<j} + 2 j p + m W_j  (micro-batch 0 reaches j, j runs 2m
 *       passes, the last backward flows back to stage 0);
 *   (2) T >= F_{<j} + j p + m W_j + w_j  (j syncs after its last backward);
 *   (3) T >= sum_i W_i + 2 (k - 1) p + (m - 1) b_j  (j idles until micro-batch
 *       0 returns from the later stages, having run at most n_j - 1 forwards);
 *       at j = 0 the sync follows as well: + w_0.
 * A convex combination of (1) over the stages (weights (c/m)(1 - 1/m)^(k-1-j))
 * gives T >= c_k sum_j W_j + (weighted hops) p with c_k = 1 / (1 - (1 - 1/m)^k),
 * independent of the order. Splits enter only through the least total work
 * any split can have (each stage holds 1 .. its most layers at any position)
 * and fractional water-filling, so the bounds never exceed the time of any
 * order or split of the multiset. Embedding and head compute only add to T
 * and are left out.
 */
class PipelineBounds
{
public:
    PipelineBounds(const PipelineModel& model, int k);

    /** Most layers `counts` (stages per pool type) can hold, each stage at its best position. */
    int capacity(const std::vector<int>& counts) const;
    /** Least sum of per-layer f + b over `stages` stages of `counts` holding `layers`; +inf when impossible. */
    double minWorkS(int layers, const std::vector<int>& counts, int stages) const;
    /** Least possible largest b among `counts` holding `layers` (fractional water-filling). */
    double maxBackwardLowerS(int layers, const std::vector<int>& counts) const;
    /** Lower bound for the whole multiset (k stages, all layers); +inf when it cannot hold the model. */
    double lowerIterS(const std::vector<int>& counts) const;
    /**
     * Lower bound for a pipeline whose first stages are placed (their f sum prefixForwardS,
     * f + b sum prefixWorkS, largest b prefixMaxBackwardS) and whose `stages` remaining stages,
     * of `counts`, must hold `layers`.
     */
    double restLowerS(double prefixForwardS, double prefixWorkS, double prefixMaxBackwardS, int layers,
                      const std::vector<int>& counts, int stages) const;

private:
    int m_k;
    int m_m;
    int m_layers;
    std::vector<double> m_work;     // f + b of one layer, per type
    std::vector<double> m_backward; // b of one layer
    std::vector<double> m_sync;     // all-reduce of one layer
    std::vector<int> m_cap;         // most layers at any position of k
    std::vector<int> m_byWork;      // types, fastest layer first
    std::vector<double> m_sync0;    // all-reduce of the embedding (stage 0 without layers)
    std::vector<double> m_fill;     // c_j for j = 0 .. k
    std::vector<double> m_fillHops; // the same weights on 2 x position, for the last j stages
    double m_p2p = 0;
};

} // namespace orrery::provision
