#include "export/csv_export.h"

#include <QAbstractItemModel>
#include <QSaveFile>

namespace orrery::gui {

QString csvField(const QString& text)
{
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) && !text.contains(QLatin1Char('\n')) &&
        !text.contains(QLatin1Char('\r')))
        return text;
    QString quoted = text;
    quoted.replace(QStringLiteral("\""), QStringLiteral("\"\""));
    return QStringLiteral("\"%1\"").arg(quoted);
}

QString modelToCsv(const QAbstractItemModel& model)
{
    QString out;
    const int cols = model.columnCount();
    for (int c = 0; c < cols; ++c) {
        if (c)
            out += QLatin1Char(',');
        const QVariant name = model.headerData(c, Qt::Horizontal, kCsvRole);
        out += csvField(name.isValid() ? name.toString() : model.headerData(c, Qt::Horizontal).toString());
    }
    out += QStringLiteral("\r\n");
    for (int r = 0; r < model.rowCount(); ++r) {
        for (int c = 0; c < cols; ++c) {
            if (c)
                out += QLatin1Char(',');
            const QModelIndex i = model.index(r, c);
            QVariant value = model.data(i, kCsvRole);
            if (!value.isValid())
                value = model.data(i, Qt::UserRole);
            out += csvField(value.isValid() ? value.toString() : model.data(i).toString());
        }
        out += QStringLiteral("\r\n");
    }
    return out;
}

bool writeCsv(const QAbstractItemModel& model, const QString& path, QString* error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error)
            *error = file.errorString();
        return false;
    }
    file.write(modelToCsv(model).toUtf8());
    if (!file.commit()) {
        if (error)
            *error = file.errorString();
        return false;
    }
    return true;
}

} // namespace orrery::gui
