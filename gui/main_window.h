#pragma once

#include "io/scenario.h"

#include <QMainWindow>

class QTreeWidget;

namespace orrery::gui {

/** The top-level window: one scenario document, panels around it. */
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);

    /** Shows `scenario` (already validated) as the current document. */
    void setScenario(io::Scenario scenario, const QString& path);
    const io::Scenario& scenario() const { return m_scenario; }

public slots:
    void openFile();
    bool openPath(const QString& path);

private:
    void createActions();
    void refresh();

    io::Scenario m_scenario;
    QString m_path;
    QTreeWidget* m_overview = nullptr;
};

} // namespace orrery::gui
