#pragma once

#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <rapidcheck.h>

#include <functional>
#include <string>

// Defined in AddressSanitizer builds, where some tests run fewer or smaller cases on the same code paths. GCC
// says so with __SANITIZE_ADDRESS__, clang (the fuzz preset CI uses) only through __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define ORRERY_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ORRERY_TEST_ASAN 1
#endif
#endif

namespace orrery::test {

/**
 * How long a GUI test waits for a worker thread's signal. A bound, not a duration: the wait ends when the
 * signal comes. Generous because CI and developers' machines may be loaded (a 20 s bound failed on a real
 * trace's import preview at load 7).
 */
inline constexpr int kWorkerWaitMs = 180000;

/** ORRERY_TEST_ASAN as a value, for sizes chosen in code rather than by the preprocessor. */
#ifdef ORRERY_TEST_ASAN
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

/** A test class with a temporary directory of its own, removed with it; `path(name)` names a file in it. */
class TempDirTest : public QObject
{
protected:
    std::string path(const std::string& name) const
    {
        return m_dir.filePath(QString::fromStdString(name)).toStdString();
    }

    QTemporaryDir m_dir;
};

/** Path of a file under the repository (e.g. `data/gpus.json`). */
std::string sourcePath(const std::string& relative);
/** Path of a file under ../shared/data; empty when the shared data is absent. */
std::string sharedDataPath(const std::string& relative);
/** Non-blank line count of a shared data file as ../shared/data/MANIFEST.tsv gives it (header included); -1 when
 * absent. */
int manifestLines(const std::string& relative);
/** The built orrery-cli. */
std::string cliPath();

/** Runs a RapidCheck property; fails the current Qt test when it does not hold. */
bool checkProperty(const std::string& description, const std::function<void()>& property);

/** Result of running a command: exit status and captured streams. */
struct CommandResult
{
    int exitCode = -1;
    std::string out;
    std::string err;
};
/** The orrery::Error message `f` throws, or "(no error)": input errors are compared as the user reads them. */
std::string errorOf(const std::function<void()>& f);

CommandResult runCommand(const std::vector<std::string>& argv, const std::string& stdinText = {});

} // namespace orrery::test

#define ORRERY_CHECK_PROPERTY(desc, ...) QVERIFY(orrery::test::checkProperty(desc, __VA_ARGS__))
