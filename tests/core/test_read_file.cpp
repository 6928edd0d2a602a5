// util::readFile reads a file into one buffer of its size (docs/performance.md, "Gavel's LP policies, whole
// process", fourth pass): whatever the file holds, every byte comes back, and the errors stay what they were.
#include "test_support.h"

#include "io/error.h"
#include "util/text.h"

#include <filesystem>
#include <fstream>

using namespace orrery;

class TestReadFile : public test::TempDirTest
{
    Q_OBJECT

    std::string written(const std::string& name, const std::string& bytes) const
    {
        const std::string p = path(name);
        std::ofstream(p, std::ios::binary) << bytes;
        return p;
    }

private slots:
    void returnsEveryByteProperty()
    {
        ORRERY_CHECK_PROPERTY("readFile gives back the bytes written, NULs and sizes past a page included", [this] {
            const auto size = *rc::gen::inRange<std::size_t>(0, 300'000);
            std::string bytes(size, '\0');
            const auto seed = *rc::gen::arbitrary<unsigned>();
            for (std::size_t i = 0; i < size; ++i)
                bytes[i] = static_cast<char>((seed + i * 2654435761u) >> 13);
            RC_ASSERT(util::readFile(written("property.bin", bytes)) == bytes);
        });
    }

    void emptyFileIsEmpty() { QCOMPARE(util::readFile(written("empty.txt", "")), std::string()); }

    void directoriesAndMissingFilesAreNamedErrors()
    {
        std::filesystem::create_directory(path("dir"));
        try {
            util::readFile(path("dir"));
            QFAIL("a directory was read");
        } catch (const Error& e) {
            QVERIFY(std::string(e.what()).find("is a directory") != std::string::npos);
        }
        try {
            util::readFile(path("missing.json"));
            QFAIL("a missing file was read");
        } catch (const Error& e) {
            QVERIFY(std::string(e.what()).find("cannot open file") != std::string::npos);
            QVERIFY(std::string(e.what()).find("missing.json") != std::string::npos);
        }
    }
};

QTEST_GUILESS_MAIN(TestReadFile)
#include "test_read_file.moc"
