#pragma once

#include "provision/provision_types.h"

#include <QWidget>

#include <vector>

namespace orrery::gui {

/** A provisioning plan's pipeline: one box per stage (GPU type x dp, layer range), in order, with arrows. */
class StageDiagram : public QWidget
{
    Q_OBJECT
public:
    struct Box
    {
        QString gpu;
        int gpus = 0;
        int firstLayer = 0;
        int lastLayer = 0; ///< inclusive
        bool embedding = false;
        bool head = false;
    };

    explicit StageDiagram(QWidget* parent = nullptr);
    void setPlan(const provision::ProvisionPlan& plan, const std::vector<provision::PoolGpu>& pool);
    void clear(const QString& message);
    const std::vector<Box>& boxes() const { return m_boxes; }
    QSize sizeHint() const override { return {600, 130}; }
    QSize minimumSizeHint() const override { return {200, 110}; }

    /** Contiguous layer ranges of the stages (layers counted from 0). */
    static std::vector<Box> boxesOf(const provision::ProvisionPlan& plan, const std::vector<provision::PoolGpu>& pool);

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::vector<Box> m_boxes;
    QString m_message;
};

} // namespace orrery::gui
