#pragma once

#include "sweep/sweep_spec.h"

#include <QLabel>
#include <QString>

#include <cstddef>
#include <optional>

namespace orrery::gui {

class JobRunner;

/**
 * The sweep builder's preview of its spec: the point count (at once when the grid's size is known without
 * resolving), then the points, scenarios and prepared workloads from resolving the spec against its base scenario
 * on a worker, then core's CPU estimate (sweep::estimateCpu, as `orrery-cli sweep show`) on another; or the error,
 * as the CLI names it. A newer spec drops what the workers of an older one bring back.
 */
class SweepPreview : public QLabel
{
    Q_OBJECT
public:
    explicit SweepPreview(JobRunner* runner, QWidget* parent = nullptr);

    /** Forgets the figures and the error of the previous spec; what its workers still bring back is dropped. */
    void reset();
    /** Shows `error` instead of the figures, until the next reset(). */
    void showError(const QString& error);
    /** Shows `planned` points (when known) and resolves and estimates `spec` on workers. */
    void start(const sweep::SweepSpec& spec, std::optional<std::size_t> planned);

    /** The resolved point count, or -1 while unknown or when the spec has an error. */
    int pointCount() const { return m_pointCount; }
    std::optional<double> estimatedCpuS() const { return m_estimateS; }
    /** The current error, empty when none. */
    QString errorText() const { return m_error; }

signals:
    /** The point count (or the error) is known for the current spec. */
    void previewUpdated();
    /** The CPU estimate is known for the current spec. */
    void estimateUpdated();

private:
    void refresh();

    JobRunner* m_runner;
    int m_pointCount = -1;
    std::optional<double> m_estimateS;
    QString m_error;
    QString m_countText;
    QString m_estimateText;
    quint64 m_generation = 0;
};

} // namespace orrery::gui
