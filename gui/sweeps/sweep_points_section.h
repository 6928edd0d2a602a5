#pragma once

#include "sweeps/sweep_draft.h"

#include <QGroupBox>
#include <QString>

#include <map>
#include <string>
#include <vector>

class QPushButton;
class QRadioButton;
class QTableWidget;

namespace orrery::gui {

/**
 * The sweep builder's points: the full grid, or explicit points in a table with one column per axis, each cell
 * one of the axis's values or "(base)" (not applied). The columns follow the form's axes (syncColumns); the
 * builder, which knows them, answers Add Point and Fill from Grid (addRequested, fillRequested).
 */
class SweepPointsSection : public QGroupBox
{
    Q_OBJECT
public:
    /** Most points Fill from Grid lists one by one. */
    static constexpr std::size_t kMaxListedPoints = 1000;

    explicit SweepPointsSection(QWidget* parent = nullptr);

    bool isExplicit() const;
    /** Chooses the grid or explicit points; the table and its buttons are enabled for explicit points. */
    void setExplicit(bool on);
    /** Makes the columns `axes`; each row keeps its values on the axes that remain. */
    void syncColumns(const std::vector<DraftAxis>& axes);
    /** Appends a row over the current columns: axis name -> a value's label; an axis left out is "(base)". */
    void appendPoint(const std::map<std::string, std::string>& point);
    /** Replaces the rows by every point of the grid of `axes`, first axis slowest; false with `error` when there
     *  are more than kMaxListedPoints. */
    bool fillFromGrid(const std::vector<DraftAxis>& axes, QString* error);

    /** Sets the draft's explicitPoints and, for explicit points, its points (the rows). */
    void writeTo(SweepDraft& draft) const;

    QTableWidget* table() const { return m_points; }

signals:
    void changed();
    /** The mode changed (by the user or setExplicit). */
    void explicitToggled(bool on);
    void addRequested();
    void fillRequested();

private:
    void setPointCombo(int row, int column, const DraftAxis& axis, const std::string& label);
    std::map<std::string, std::string> rowPoint(int row) const;

    QRadioButton* m_grid;
    QRadioButton* m_explicit;
    QTableWidget* m_points;
    QPushButton* m_addPoint;
    QPushButton* m_removePoint;
    QPushButton* m_fillPoints;
    std::vector<DraftAxis> m_axes; ///< the table's columns
};

} // namespace orrery::gui
