#pragma once

class QDialog;
class QMenuBar;
class QWidget;

namespace orrery::gui {

/** Help > User guide: docs/gui.md, bundled with the application, in a browsable window. */
QDialog* createUserGuideDialog(QWidget* parent);

/** Help > Keyboard shortcuts: every menu action that has a shortcut, by menu, read from `menus` so the list is
 * never out of date. */
QDialog* createShortcutsDialog(const QMenuBar* menus, QWidget* parent);

} // namespace orrery::gui
