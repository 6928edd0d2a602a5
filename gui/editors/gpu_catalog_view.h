#pragma once

#include <QWidget>

class QLabel;
class QTableView;

namespace orrery::hardware {
struct GpuType;
}

namespace orrery::gui {

class GpuCatalogModel;
class ScenarioDocument;

/** The GPU catalog with its figures; custom types (italic) can be added, edited and removed. */
class GpuCatalogView : public QWidget
{
    Q_OBJECT
public:
    explicit GpuCatalogView(ScenarioDocument* document, QWidget* parent = nullptr);
    GpuCatalogModel* model() const { return m_model; }

    /** Adds or replaces a custom type through an undo command; returns the refusal, if any. */
    QString addOrReplaceCustom(const hardware::GpuType& type);

private:
    void addType();
    void editType();
    void removeType();

    ScenarioDocument* m_document;
    GpuCatalogModel* m_model;
    QTableView* m_view;
    QLabel* m_message;
};

} // namespace orrery::gui
