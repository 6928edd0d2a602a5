#include "test_support.h"

#include "io/error.h"
#include "workload/model_library.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

using namespace orrery;
using namespace orrery::workload;

class TestModels : public QObject
{
    Q_OBJECT
private slots:
    void libraryHasRequiredModels()
    {
        const auto& lib = ModelLibrary::builtin();
        for (const char* name :
             {"gpt2-124m", "gpt2-350m", "gpt2-774m", "gpt2-1.5b", "gpt2-7b", "bert-base", "bert-large", "gpt3-1.3b",
              "gpt3-2.7b", "gpt3-6.7b", "gpt3-13b", "gpt3-175b", "llama2-7b", "llama2-13b", "llama2-70b", "llama3-8b",
              "llama3-70b", "openllama-3b", "vit-h14"})
            QVERIFY2(lib.find(name), name);
    }

    void paramCountsWithinTwoPercentOfPublished()
    {
        for (const auto& m : ModelLibrary::builtin().models()) {
            QVERIFY2(m.publishedParams > 0, m.name.c_str());
            const double rel = std::abs(double(m.paramCount()) / m.publishedParams - 1.0);
            QVERIFY2(rel < 0.02, (m.name + ": " + std::to_string(m.paramCount())).c_str());
        }
    }

    void exactCountsByHand()
    {
        const auto& lib = ModelLibrary::builtin();
        // GPT-2 small: 50257*768 + 1024*768 + 12*(12*768^2 + 13*768) + 2*768 = 124,439,808 (HF reports 124,439,808).
        QCOMPARE(lib.at("gpt2-124m").paramCount(), std::int64_t(124439808));
        // LLaMA-2 7B: 2*32000*4096 + 32*(4*4096^2 + 3*4096*11008 + 2*4096) + 4096 = 6,738,415,616 (HF).
        QCOMPARE(lib.at("llama2-7b").paramCount(), std::int64_t(6738415616));
        // GQA: LLaMA-3 8B has 8 KV heads: 8,030,261,248 (HF).
        QCOMPARE(lib.at("llama3-8b").paramCount(), std::int64_t(8030261248));
    }

    void lookupIsCaseInsensitiveAndSuggests()
    {
        QVERIFY(ModelLibrary::builtin().find("GPT2-350M"));
        try {
            ModelLibrary::builtin().at("llama2-7");
            QFAIL("expected an error");
        } catch (const Error& e) {
            QVERIFY(std::string(e.what()).find("did you mean \"llama2-7b\"") != std::string::npos);
        }
    }

    void modelFromFileNamesBadKey()
    {
        const QString path = QDir::temp().filePath("orrery_test_model.json");
        {
            std::ofstream out(path.toStdString());
            out << R"({"vocab": 32000, "hidden": 4096, "layers": 0, "heads": 32})";
        }
        try {
            resolveModel(path.toStdString());
            QFAIL("expected an error");
        } catch (const Error& e) {
            QCOMPARE(std::string(e.what()), path.toStdString() + ": layers: expected a positive integer, got 0");
        }
        {
            std::ofstream out(path.toStdString());
            out << R"({"vocab": 32000, "hidden": 4096, "layers": 2, "heads": 32, "gated_mlp": true, "ffn_hidden": 11008, "tied_embeddings": false})";
        }
        const ModelSpec m = resolveModel(path.toStdString());
        QCOMPARE(m.name, std::string("orrery_test_model"));
        QCOMPARE(m.layers, 2);
        QVERIFY(!m.bias); // gated MLPs default to the LLaMA style
        QFile::remove(path);
    }

    void paramsMonotoneInShape()
    {
        ORRERY_CHECK_PROPERTY("params grow with layers and hidden", [] {
            ModelSpec m;
            m.vocab = *rc::gen::inRange(100, 200000);
            m.heads = *rc::gen::inRange(1, 64);
            m.kvHeads = m.heads;
            m.hidden = m.heads * *rc::gen::inRange(1, 256);
            m.ffnHidden = 4 * m.hidden;
            m.layers = *rc::gen::inRange(1, 100);
            m.gatedMlp = *rc::gen::arbitrary<bool>();
            ModelSpec deeper = m;
            deeper.layers += 1;
            RC_ASSERT(deeper.paramCount() > m.paramCount());
            ModelSpec wider = m;
            wider.hidden += m.heads;
            wider.ffnHidden = 4 * wider.hidden;
            RC_ASSERT(wider.paramCount() > m.paramCount());
        });
    }
};

QTEST_GUILESS_MAIN(TestModels)
#include "test_models.moc"
