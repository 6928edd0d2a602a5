#pragma once

#include "provision/provision_types.h"

#include <QRectF>
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
    QSize sizeHint() const override { return {600, heightFor(static_cast<int>(m_boxes.size()), 600)}; }
    QSize minimumSizeHint() const override { return {200, 110}; }
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override { return heightFor(static_cast<int>(m_boxes.size()), width); }

    /** Contiguous layer ranges of the stages (layers counted from 0). */
    static std::vector<Box> boxesOf(const provision::ProvisionPlan& plan, const std::vector<provision::PoolGpu>& pool);

    /** Narrowest box: "RTX 3090 x 16" and "layers 10-19 (10)" stay readable. */
    static constexpr int kMinBoxWidth = 118;
    /**
     * Where the boxes of `n` stages go in a `width` x `height` widget: one row while every box gets at
     * least kMinBoxWidth, else as many rows as needed (6-9 stages in a narrow panel would otherwise squeeze
     * their text out of the boxes). Every box lies inside the widget when height >= heightFor(n, width).
     */
    static std::vector<QRectF> boxRects(int n, int width, int height);
    /** The height the rows of `n` stages need at `width`. */
    static int heightFor(int n, int width);
    /** Boxes per row at `width`. */
    static int perRow(int n, int width);

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::vector<Box> m_boxes;
    QString m_message;
};

} // namespace orrery::gui
