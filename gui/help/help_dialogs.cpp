#include "help/help_dialogs.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QHeaderView>
#include <QMenu>
#include <QMenuBar>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

// The resources live in the static orrery_gui library: registered here too, so that the guide is there in any
// program that links the library (tests included), not only in the one whose main() registers them.
static void registerGuideResource()
{
    Q_INIT_RESOURCE(orrery);
}

namespace orrery::gui {

namespace {

QDialog* dialogWith(QWidget* content, const QString& title, QSize size, QWidget* parent)
{
    auto* dialog = new QDialog(parent);
    dialog->setWindowTitle(title);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    auto* layout = new QVBoxLayout(dialog);
    layout->addWidget(content);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    layout->addWidget(buttons);
    dialog->resize(size);
    return dialog;
}

QString plain(QString menuText)
{
    return menuText.remove(QLatin1Char('&')).remove(QStringLiteral("..."));
}

void collect(const QMenu* menu, const QString& path, QTableWidget* table)
{
    for (const QAction* action : menu->actions()) {
        if (action->isSeparator())
            continue;
        if (action->menu()) {
            collect(action->menu(), path + QStringLiteral(" > ") + plain(action->text()), table);
            continue;
        }
        QStringList keys;
        for (const QKeySequence& k : action->shortcuts())
            keys << k.toString(QKeySequence::NativeText);
        if (keys.isEmpty())
            continue;
        const int row = table->rowCount();
        table->insertRow(row);
        table->setItem(row, 0, new QTableWidgetItem(path + QStringLiteral(" > ") + plain(action->text())));
        table->setItem(row, 1, new QTableWidgetItem(keys.join(QStringLiteral(", "))));
    }
}

} // namespace

QDialog* createUserGuideDialog(QWidget* parent)
{
    registerGuideResource();
    auto* browser = new QTextBrowser;
    browser->setObjectName(QStringLiteral("UserGuide"));
    browser->setOpenExternalLinks(true);
    QFile guide(QStringLiteral(":/docs/gui.md"));
    if (guide.open(QIODevice::ReadOnly | QIODevice::Text))
        browser->setMarkdown(QString::fromUtf8(guide.readAll()));
    else
        browser->setPlainText(QObject::tr("The user guide is missing from this build (:/docs/gui.md)."));
    return dialogWith(browser, QObject::tr("Orrery user guide"), QSize(900, 700), parent);
}

QDialog* createShortcutsDialog(const QMenuBar* menus, QWidget* parent)
{
    auto* table = new QTableWidget(0, 2);
    table->setObjectName(QStringLiteral("Shortcuts"));
    table->setHorizontalHeaderLabels({QObject::tr("Action"), QObject::tr("Shortcut")});
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->verticalHeader()->hide();
    for (const QAction* top : menus->actions())
        if (top->menu())
            collect(top->menu(), plain(top->text()), table);
    table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    return dialogWith(table, QObject::tr("Keyboard shortcuts"), QSize(560, 520), parent);
}

} // namespace orrery::gui
