#pragma once

#include "io/scenario.h"

#include <string>
#include <string_view>
#include <vector>

namespace orrery::sim {

/** What changed when a job's allocation changes, for the pause it pays. */
struct SwitchEvent
{
    bool firstStart = false;
    int oldGpus = 0; ///< GPUs before (0 on a first start or a resume from the queue)
    int newGpus = 0; ///< GPUs after
    bool planChanged = false;
    std::string_view model;       ///< the job's model (library name), for by_model
    std::string_view application; ///< a goodput job's application (cifar10, ...), for sia
};

/**
 * The pause without progress a job pays when it starts or its allocation changes
 * (docs/simulator.md, "Switch costs"). `options.restart_model` picks the form:
 *  - constant: options.restart_penalty_s per change (Orrery's default, 30 s; Themis' measured 45 s);
 *  - chronus: 30 (1 + log2 g) s for g GPUs after the change (Chronus, SoCC'21: resumes x (0.1 + 0.4) min x
 *    (1 + log2 g); ../shared/specs/gao-thesis.md);
 *  - unisched: 16 + 1.5 log2 g s (the thesis' UniSched: suspend 4 s + resume 12 + 1.5 log2 g s);
 *  - by_model: options.restart_s_by_model[model], else restart_penalty_s (Sia's per-application values).
 *  - sia: Sia's simulator's checkpoint-restore time of a goodput job's application (applications.py: cifar10 50,
 *    deepspeech2 25, bert 120, yolov3 80, imagenet 250, ncf 15 s; restart_penalty_s for any other job), paid on
 *    the first start too, as Sia's and Pollux's simulators pay it on every placement.
 * A first start costs options.load_time_s (default 0) under every other form.
 */
class SwitchCost
{
public:
    explicit SwitchCost(const io::ScenarioOptions& options) : m_options(&options) {}

    double pauseS(const SwitchEvent& e) const;

private:
    const io::ScenarioOptions* m_options;
};

/** The forms options.restart_model accepts, in documentation order. */
const std::vector<std::string>& restartModels();

} // namespace orrery::sim
