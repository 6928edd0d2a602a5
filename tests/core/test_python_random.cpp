// util::PythonRandom against draws printed by CPython 3.11 (`random.Random(seed)`), so that
// gavel_compat reproduces Gavel's random choices draw for draw.
#include "test_support.h"

#include "util/python_random.h"

#include <vector>

using namespace orrery;

class TestPythonRandom : public QObject
{
    Q_OBJECT
private slots:
    void getrandbitsMatchesCPython()
    {
        // random.Random(0).getrandbits(32), twice
        util::PythonRandom r(0);
        QCOMPARE(r.next32(), 3626764237U);
        QCOMPARE(r.next32(), 1654615998U);
    }

    void randrangeMatchesCPython()
    {
        const auto draws = [](std::uint64_t seed, std::uint32_t n, int count) {
            util::PythonRandom r(seed);
            std::vector<std::uint32_t> out;
            for (int i = 0; i < count; ++i)
                out.push_back(r.below(n));
            return out;
        };
        // [random.Random(s).randrange(n) for _ in range(count)]
        QCOMPARE(draws(0, 3, 12), (std::vector<std::uint32_t>{1, 1, 0, 1, 2, 1, 1, 1, 1, 1, 2, 0}));
        QCOMPARE(draws(12345, 5, 8), (std::vector<std::uint32_t>{3, 0, 2, 2, 1, 2, 4, 3}));
        // A seed above 2^32 is two key words.
        QCOMPARE(draws((1ULL << 40) + 7, 7, 6), (std::vector<std::uint32_t>{4, 5, 6, 5, 4, 5}));
    }

    void randrangeOfOneStillDraws()
    {
        // CPython draws getrandbits(1) for randrange(1) until it gets 0: the stream advances.
        // r = random.Random(0); r.randrange(1), r.getrandbits(32) -> 0, 3255389356
        util::PythonRandom r(0);
        QCOMPARE(r.below(1), 0U);
        QCOMPARE(r.next32(), 3255389356U);
    }

    void shuffleMatchesCPython()
    {
        // r = random.Random(5); three shuffles of ['a', 'b', 'c'], each from the original order
        util::PythonRandom r(5);
        const std::vector<std::vector<char>> expected = {{'a', 'b', 'c'}, {'a', 'b', 'c'}, {'b', 'a', 'c'}};
        for (const auto& e : expected) {
            std::vector<char> x = {'a', 'b', 'c'};
            r.shuffle(x);
            QCOMPARE(x, e);
        }
        // r = random.Random(7); x = list(range(10)); r.shuffle(x)
        util::PythonRandom s(7);
        std::vector<int> x = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
        s.shuffle(x);
        QCOMPARE(x, (std::vector<int>{8, 3, 1, 4, 7, 0, 9, 6, 2, 5}));
    }

    void badRangesAreRefused()
    {
        util::PythonRandom r(1);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, r.below(0));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, r.bits(33));
    }
};

QTEST_GUILESS_MAIN(TestPythonRandom)
#include "test_python_random.moc"
