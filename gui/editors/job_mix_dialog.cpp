#include "editors/job_mix_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QVBoxLayout>

namespace orrery::gui {

static QSpinBox* intSpin(int min, int max, int value)
{
    auto* s = new QSpinBox;
    s->setRange(min, max);
    s->setValue(value);
    return s;
}

JobMixDialog::JobMixDialog(const workload::ModelLibrary& library, QWidget* parent) : QDialog(parent), m_library(library)
{
    setWindowTitle(tr("Add a job mix"));
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    layout->addLayout(form);
    m_model = new QComboBox;
    for (const auto& m : library.models())
        m_model->addItem(QStringLiteral("%1 (%2)").arg(
                             QString::fromStdString(m.name),
                             QString::fromStdString(workload::formatParams(static_cast<double>(m.paramCount())))),
                         QString::fromStdString(m.name));
    form->addRow(tr("Model"), m_model);

    m_custom = new QGroupBox(tr("Custom hyper-parameters instead (GPT-style decoder)"));
    m_custom->setCheckable(true);
    m_custom->setChecked(false);
    auto* cf = new QFormLayout(m_custom);
    m_customName = new QLineEdit(QStringLiteral("my-model"));
    m_hidden = intSpin(64, 65536, 2048);
    m_layers = intSpin(1, 512, 24);
    m_heads = intSpin(1, 512, 16);
    m_vocab = intSpin(1, 1000000, 50257);
    m_seq = intSpin(16, 1048576, 2048);
    cf->addRow(tr("Name"), m_customName);
    cf->addRow(tr("Hidden size"), m_hidden);
    cf->addRow(tr("Layers"), m_layers);
    cf->addRow(tr("Attention heads"), m_heads);
    cf->addRow(tr("Vocabulary"), m_vocab);
    cf->addRow(tr("Sequence length"), m_seq);
    layout->addWidget(m_custom);

    auto* form2 = new QFormLayout;
    layout->addLayout(form2);
    m_batch = intSpin(1, 65536, 8);
    m_count = intSpin(1, 100000, 10);
    m_iterations = new QDoubleSpinBox;
    m_iterations->setRange(1, 1e9);
    m_iterations->setDecimals(0);
    m_iterations->setValue(5000);
    m_arrival = new QComboBox;
    m_arrival->addItem(tr("Poisson (random gaps)"), static_cast<int>(JobMix::Arrival::Poisson));
    m_arrival->addItem(tr("Evenly spaced"), static_cast<int>(JobMix::Arrival::Uniform));
    m_arrival->addItem(tr("All at the start"), static_cast<int>(JobMix::Arrival::AllAtStart));
    m_rate = new QDoubleSpinBox;
    m_rate->setRange(0.01, 1e6);
    m_rate->setValue(30);
    m_rate->setSuffix(tr(" jobs/h"));
    m_start = new QDoubleSpinBox;
    m_start->setRange(0, 1e9);
    m_start->setSuffix(tr(" s"));
    m_user = new QLineEdit;
    m_user->setPlaceholderText(tr("optional"));
    m_seed = intSpin(0, 1 << 30, 1);
    form2->addRow(tr("Global batch"), m_batch);
    form2->addRow(tr("Jobs"), m_count);
    form2->addRow(tr("Iterations per job"), m_iterations);
    form2->addRow(tr("Arrivals"), m_arrival);
    form2->addRow(tr("Rate"), m_rate);
    form2->addRow(tr("First arrival"), m_start);
    form2->addRow(tr("User"), m_user);
    form2->addRow(tr("Random seed"), m_seed);
    m_info = new QLabel;
    m_info->setWordWrap(true);
    layout->addWidget(m_info);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_arrival, &QComboBox::currentIndexChanged, this, [this] {
        m_rate->setEnabled(m_arrival->currentData().toInt() != static_cast<int>(JobMix::Arrival::AllAtStart));
        updateInfo();
    });
    connect(m_model, &QComboBox::currentIndexChanged, this, &JobMixDialog::updateInfo);
    connect(m_custom, &QGroupBox::toggled, this, [this](bool on) {
        m_model->setEnabled(!on);
        updateInfo();
    });
    for (auto* s : {m_hidden, m_layers, m_heads, m_count})
        connect(s, &QSpinBox::valueChanged, this, &JobMixDialog::updateInfo);
    connect(m_rate, &QDoubleSpinBox::valueChanged, this, &JobMixDialog::updateInfo);
    updateInfo();
}

void JobMixDialog::updateInfo()
{
    QString text;
    const JobMix m = mix();
    if (m.customModel) {
        if (m_hidden->value() % m_heads->value() != 0)
            text = tr("<span style='color:#b00020'>Hidden size must be a multiple of the head count.</span> ");
        else
            text = tr("Custom model: %1 parameters. ")
                       .arg(QString::fromStdString(
                           workload::formatParams(static_cast<double>(m.customModel->paramCount()))));
    }
    if (m.arrival != JobMix::Arrival::AllAtStart)
        text += tr("The last of %1 jobs arrives after about %2 h.")
                    .arg(m.count)
                    .arg((m.count - 1) / m.ratePerHour, 0, 'f', 1);
    m_info->setText(text);
}

JobMix JobMixDialog::mix() const
{
    JobMix m;
    m.model = m_model->currentData().toString().toStdString();
    if (m_custom->isChecked()) {
        workload::ModelSpec s;
        s.name = m_customName->text().trimmed().toStdString();
        s.family = "gpt2";
        s.hidden = m_hidden->value();
        s.layers = m_layers->value();
        s.heads = m_heads->value();
        s.kvHeads = s.heads;
        s.ffnHidden = 4 * s.hidden;
        s.vocab = m_vocab->value();
        s.seq = m_seq->value();
        s.positions = s.seq;
        s.source = "custom (job-mix dialog)";
        m.customModel = s;
    }
    m.batch = m_batch->value();
    m.count = m_count->value();
    m.iterations = m_iterations->value();
    m.arrival = static_cast<JobMix::Arrival>(m_arrival->currentData().toInt());
    m.ratePerHour = m_rate->value();
    m.startS = m_start->value();
    m.user = m_user->text().trimmed().toStdString();
    m.seed = static_cast<std::uint64_t>(m_seed->value());
    return m;
}

void JobMixDialog::setMix(const JobMix& m)
{
    m_model->setCurrentIndex(std::max(0, m_model->findData(QString::fromStdString(m.model))));
    m_batch->setValue(m.batch);
    m_count->setValue(m.count);
    m_iterations->setValue(m.iterations);
    m_arrival->setCurrentIndex(m_arrival->findData(static_cast<int>(m.arrival)));
    m_rate->setValue(m.ratePerHour);
    m_start->setValue(m.startS);
    m_user->setText(QString::fromStdString(m.user));
}

} // namespace orrery::gui
