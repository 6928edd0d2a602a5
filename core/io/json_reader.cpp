#include "io/json_reader.h"

#include "io/json_fast_parse.h"

#include "io/limits.h"
#include "util/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>

namespace orrery::io {

using nlohmann::json;

namespace {

// A char iterator that publishes how far the lexer has read: SAX callbacks carry no position, and a
// duplicate key has to be reported with the line of both occurrences.
struct TrackingIterator
{
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;

    const char* p = nullptr;
    const char** mark = nullptr;

    reference operator*() const { return *p; }
    TrackingIterator& operator++()
    {
        *mark = ++p;
        return *this;
    }
    TrackingIterator operator++(int)
    {
        TrackingIterator old = *this;
        ++*this;
        return old;
    }
    bool operator==(const TrackingIterator& o) const { return p == o.p; }
    bool operator!=(const TrackingIterator& o) const { return p != o.p; }
};

// nlohmann's own DOM builder, wrapped to keep the JSON path of the value being read and each
// object's keys with where they were read.
class StrictSax
{
public:
    StrictSax(json& root, std::string_view text, const std::string& file, const char** mark, KeepMember keep)
        : m_dom(root, true), m_text(text), m_file(file), m_mark(mark), m_keep(keep)
    {}

    bool null() { return value(m_skipping || m_dom.null()); }
    bool boolean(bool v) { return value(m_skipping || m_dom.boolean(v)); }
    bool number_integer(json::number_integer_t v) { return value(m_skipping || m_dom.number_integer(v)); }
    bool number_unsigned(json::number_unsigned_t v) { return value(m_skipping || m_dom.number_unsigned(v)); }
    bool number_float(json::number_float_t v, const json::string_t& s)
    {
        return value(m_skipping || m_dom.number_float(v, s));
    }
    bool string(json::string_t& v) { return value(m_skipping || m_dom.string(v)); }
    bool binary(json::binary_t& v) { return value(m_skipping || m_dom.binary(v)); }

    bool start_object(std::size_t n)
    {
        m_frames.push_back(Frame{true, {}, 0, {}});
        return m_skipping || m_dom.start_object(n);
    }
    bool key(json::string_t& k)
    {
        Frame& f = m_frames.back();
        const std::size_t here = offset();
        for (const auto& [name, at] : f.keys)
            if (name == k) {
                f.key = k;
                throw Error(m_file, path(),
                            fmt::format("duplicate key \"{}\" at {} (first at {}); each key may appear once",
                                        std::string(util::utf8Prefix(k, 60)), position(here), position(at)));
            }
        f.keys.emplace_back(k, here);
        f.key = k;
        if (m_skipping)
            return true;
        if (m_keep && !m_keep(objectDepth(), k)) {
            // The member's value is still lexed (syntax and duplicate keys checked) but not stored.
            m_skipping = true;
            m_skipFrom = m_frames.size();
            return true;
        }
        return m_dom.key(k);
    }
    bool end_object()
    {
        m_frames.pop_back();
        return value(m_skipping || m_dom.end_object());
    }
    bool start_array(std::size_t n)
    {
        m_frames.push_back(Frame{false, {}, 0, {}});
        return m_skipping || m_dom.start_array(n);
    }
    bool end_array()
    {
        m_frames.pop_back();
        return value(m_skipping || m_dom.end_array());
    }

    bool parse_error(std::size_t /*position*/, const std::string& lastToken, const nlohmann::detail::exception& ex)
    {
        const std::string what = ex.what();
        if (ex.id == 406) // out_of_range: a number beyond a double, e.g. 1e400
            throw Error(m_file, path(),
                        fmt::format("number out of range: {} at {} (numbers must fit a 64-bit float, about 1.8e308)",
                                    std::string(util::utf8Prefix(lastToken, 60)), position(offset())));
        if (what.find("UTF-8") != std::string::npos)
            throw Error(m_file, path(),
                        fmt::format("invalid UTF-8 at {}: JSON text must be UTF-8 (was the file saved as Latin-1?)",
                                    position(offset())));
        // "[json.exception.parse_error.101] parse error at line 3, column 5: ..." without the bracket.
        // The file-level form ("FILE: invalid JSON: parse error at line 3, ...") is kept, with the path after it.
        const auto pos = what.find("parse error");
        const std::string where = path();
        throw Error(m_file, "",
                    "invalid JSON: " + (pos == std::string::npos ? what : what.substr(pos)) +
                        (where.empty() ? "" : " (in " + where + ")"));
    }

private:
    struct Frame
    {
        bool object;
        std::string key;
        std::size_t index;
        std::vector<std::pair<std::string, std::size_t>> keys;
    };

    // After a complete value inside an array, the next element has the next index.
    bool value(bool ok)
    {
        if (!m_frames.empty() && !m_frames.back().object)
            ++m_frames.back().index;
        // A skipped member ends with its value, back in the object that holds it.
        if (m_skipping && m_frames.size() == m_skipFrom)
            m_skipping = false;
        return ok;
    }

    int objectDepth() const
    {
        return static_cast<int>(
            std::count_if(m_frames.begin(), m_frames.end(), [](const Frame& f) { return f.object; }));
    }

    std::size_t offset() const { return static_cast<std::size_t>(*m_mark - m_text.data()); }

    std::string position(std::size_t at) const
    {
        const std::string_view before = m_text.substr(0, at);
        const auto line = std::count(before.begin(), before.end(), '\n') + 1;
        const auto lastNewline = before.rfind('\n');
        const std::size_t column = lastNewline == std::string_view::npos ? at : at - lastNewline - 1;
        return fmt::format("line {}, column {}", line, column);
    }

    std::string path() const
    {
        std::string out;
        for (const auto& f : m_frames) {
            if (f.object) {
                if (!f.key.empty() || !f.keys.empty())
                    out += (out.empty() ? "" : ".") + std::string(util::utf8Prefix(f.key, 60));
            } else {
                out += fmt::format("[{}]", f.index);
            }
        }
        return out;
    }

    nlohmann::detail::json_sax_dom_parser<json> m_dom;
    std::string_view m_text;
    const std::string& m_file;
    const char** m_mark;
    KeepMember m_keep;
    std::vector<Frame> m_frames;
    bool m_skipping = false;
    std::size_t m_skipFrom = 0;
};

} // namespace

json parseJson(std::string_view text, const std::string& fileLabel, KeepMember keep)
{
    // nlohmann's lexer reads about 15 MB/s here, so a megabyte-sized throughput table took 15-20 ms
    // of a 30 ms simulation. simdjson validates and parses at GB/s: a text it accepts, without
    // duplicate keys, is read through it. Anything else goes to the strict parser below, which is
    // the authority: it accepts what it accepts (an integer beyond 64 bits becomes a double) and
    // names the line, column and JSON path of what it refuses.
    if (auto fast = fastParse(text, keep))
        return std::move(*fast);
    json root;
    const char* mark = text.data();
    StrictSax sax(root, text, fileLabel, &mark, keep);
    TrackingIterator first{text.data(), &mark}, last{text.data() + text.size(), &mark};
    json::sax_parse(first, last, &sax);
    return root;
}

json parseJson(std::string_view text, const std::string& fileLabel)
{
    return parseJson(text, fileLabel, nullptr);
}

std::string describeJson(const json& value)
{
    switch (value.type()) {
    case json::value_t::null:
        return "null";
    case json::value_t::object:
        return "an object";
    case json::value_t::array:
        return "an array";
    case json::value_t::string: {
        std::string s = value.get<std::string>();
        if (s.size() > 40)
            s = std::string(util::utf8Prefix(s, 37)) + "...";
        return "\"" + s + "\"";
    }
    default:
        return value.dump();
    }
}

static std::size_t editDistance(const std::string& a, const std::string& b)
{
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t sub = prev[j - 1] + (std::tolower(a[i - 1]) == std::tolower(b[j - 1]) ? 0 : 1);
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
        }
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

std::string closestMatch(const std::string& word, const std::vector<std::string>& candidates)
{
    // The edit distance costs |word| x |candidate|: a megabyte-long unknown name took seconds per
    // candidate. No candidate (a field, policy or GPU name) is near that long, so such a word has no
    // plausible match, and a candidate whose length differs by the allowed distance or more cannot match.
    constexpr std::size_t kLongestWord = 128;
    if (word.size() > kLongestWord)
        return {};
    std::string best;
    std::size_t bestDistance = std::max<std::size_t>(2, word.size() / 3) + 1;
    for (const auto& c : candidates) {
        const std::size_t lengthGap = c.size() > word.size() ? c.size() - word.size() : word.size() - c.size();
        if (lengthGap >= bestDistance)
            continue;
        const std::size_t d = editDistance(word, c);
        if (d < bestDistance) {
            bestDistance = d;
            best = c;
        }
    }
    return best;
}

std::string indexPath(const std::string& path, std::size_t index)
{
    return fmt::format("{}[{}]", path, index);
}

JsonObject::JsonObject(const json& value, std::string path) : m_value(value), m_path(std::move(path))
{
    if (!m_value.is_object())
        failHere("expected an object, got " + describeJson(m_value));
}

std::string JsonObject::childPath(const std::string& key) const
{
    return m_path.empty() ? key : m_path + "." + key;
}

bool JsonObject::has(const std::string& key) const
{
    const auto it = m_value.find(key);
    return it != m_value.end() && !it->is_null();
}

void JsonObject::know(std::string_view key)
{
    if (m_known.empty())
        m_known.reserve(24);
    m_known.emplace_back(key);
}

void JsonObject::allow(std::initializer_list<const char*> keys)
{
    for (const char* k : keys)
        know(k);
}

void JsonObject::fail(const std::string& key, const std::string& message) const
{
    throw Error("", childPath(key), message);
}

void JsonObject::failHere(const std::string& message) const
{
    throw Error("", m_path.empty() ? std::string("(top level)") : m_path, message);
}

const json& JsonObject::require(const std::string& key)
{
    know(key);
    if (!m_value.contains(key)) {
        // `"clusterr": {...}` otherwise reads as a missing "cluster" with no word of the key that is there.
        for (auto it = m_value.begin(); it != m_value.end(); ++it)
            if (it.key() != key && closestMatch(it.key(), {key}) == key)
                fail(key, fmt::format("missing required field (there is an unknown field \"{}\" at {}: did you "
                                      "mean \"{}\"?)",
                                      std::string(util::utf8Prefix(it.key(), 60)), childPath(it.key()), key));
        fail(key, "missing required field");
    }
    return m_value.at(key);
}

const json* JsonObject::member(const std::string& key)
{
    know(key);
    auto it = m_value.find(key);
    if (it == m_value.end() || it->is_null())
        return nullptr;
    return &*it;
}

std::string JsonObject::string(const std::string& key)
{
    const json& v = require(key);
    if (!v.is_string())
        fail(key, "expected a string, got " + describeJson(v));
    return v.get<std::string>();
}

std::string JsonObject::string(const std::string& key, const std::string& fallback)
{
    return has(key) ? string(key) : (know(key), fallback);
}

double JsonObject::number(const std::string& key)
{
    const json& v = require(key);
    if (!v.is_number())
        fail(key, "expected a number, got " + describeJson(v));
    const double d = v.get<double>();
    if (!std::isfinite(d))
        fail(key, "expected a finite number");
    return d;
}

double JsonObject::number(const std::string& key, double fallback)
{
    return has(key) ? number(key) : (know(key), fallback);
}

double JsonObject::positiveNumber(const std::string& key)
{
    const json& v = require(key);
    if (!v.is_number() || !(v.get<double>() > 0))
        fail(key, "expected a positive number, got " + describeJson(v));
    return v.get<double>();
}

double JsonObject::positiveNumber(const std::string& key, double fallback)
{
    return has(key) ? positiveNumber(key) : (know(key), fallback);
}

double JsonObject::nonNegativeNumber(const std::string& key)
{
    const json& v = require(key);
    if (!v.is_number() || !(v.get<double>() >= 0))
        fail(key, "expected a non-negative number, got " + describeJson(v));
    return v.get<double>();
}

double JsonObject::nonNegativeNumber(const std::string& key, double fallback)
{
    return has(key) ? nonNegativeNumber(key) : (know(key), fallback);
}

long long JsonObject::integer(const std::string& key, long long minimum, long long maximum)
{
    const json& v = require(key);
    const char* what = minimum == 1 ? "a positive integer" : minimum == 0 ? "a non-negative integer" : "an integer";
    const bool integral =
        v.is_number_integer() || (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>());
    if (!integral)
        fail(key, fmt::format("expected {}, got {}", what, describeJson(v)));
    // Compared before narrowing: 2^32 + 1 must not become 1, nor 2^64 - 1 become -1.
    bool below = false, above = false;
    long long n = 0;
    if (v.is_number_unsigned()) {
        const auto u = v.get<json::number_unsigned_t>();
        above = u > static_cast<json::number_unsigned_t>(maximum);
        n = above ? 0 : static_cast<long long>(u);
    } else if (v.is_number_integer()) {
        n = v.get<long long>();
    } else {
        const double d = v.get<double>();
        below = d < static_cast<double>(minimum);
        above = d > static_cast<double>(maximum);
        n = below || above ? 0 : static_cast<long long>(d);
    }
    below = below || (!above && n < minimum);
    above = above || (!below && n > maximum);
    if (below)
        fail(key, minimum <= 1 ? fmt::format("expected {}, got {}", what, v.dump())
                               : fmt::format("expected an integer >= {}, got {}", minimum, v.dump()));
    if (above)
        fail(key, fmt::format("expected {} up to {}, got {}", what, maximum, v.dump()));
    return n;
}

long long JsonObject::integer(const std::string& key, long long fallback, long long minimum, long long maximum)
{
    return has(key) ? integer(key, minimum, maximum) : (know(key), fallback);
}

bool JsonObject::boolean(const std::string& key, bool fallback)
{
    if (!has(key)) {
        know(key);
        return fallback;
    }
    const json& v = require(key);
    if (!v.is_boolean())
        fail(key, "expected true or false, got " + describeJson(v));
    return v.get<bool>();
}

std::optional<double> JsonObject::optionalNumber(const std::string& key, double minimum)
{
    if (!has(key)) {
        know(key);
        return std::nullopt;
    }
    const double d = number(key);
    if (d < minimum)
        fail(key, fmt::format("expected a number >= {}, got {}", minimum, describeJson(m_value.at(key))));
    return d;
}

std::vector<std::string> JsonObject::stringList(const std::string& key)
{
    std::vector<std::string> out;
    const json* v = member(key);
    if (!v)
        return out;
    if (!v->is_array())
        fail(key, "expected an array of strings, got " + describeJson(*v));
    for (std::size_t i = 0; i < v->size(); ++i) {
        if (!(*v)[i].is_string())
            throw Error("", indexPath(childPath(key), i), "expected a string, got " + describeJson((*v)[i]));
        out.push_back((*v)[i].get<std::string>());
    }
    return out;
}

std::string JsonObject::choice(const std::string& key, const std::vector<std::string>& choices,
                               const std::string& fallback)
{
    if (!has(key)) {
        know(key);
        return fallback;
    }
    const std::string s = string(key);
    if (std::find(choices.begin(), choices.end(), s) != choices.end())
        return s;
    std::string msg = fmt::format("expected one of {}, got \"{}\"", fmt::join(choices, ", "), s);
    const std::string near = closestMatch(s, choices);
    if (!near.empty())
        msg += fmt::format(" (did you mean \"{}\"?)", near);
    fail(key, msg);
}

JsonObject JsonObject::object(const std::string& key)
{
    return JsonObject(require(key), childPath(key));
}

const json& JsonObject::array(const std::string& key)
{
    const json& v = require(key);
    if (!v.is_array())
        fail(key, "expected an array, got " + describeJson(v));
    return v;
}

void JsonObject::finish() const
{
    for (auto it = m_value.begin(); it != m_value.end(); ++it) {
        if (std::find(m_known.begin(), m_known.end(), it.key()) != m_known.end())
            continue;
        std::string msg = "unknown field";
        // Sorted and unique, as the set this list replaced gave them: ties resolve as before.
        std::vector<std::string> candidates = m_known;
        std::sort(candidates.begin(), candidates.end());
        candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
        const std::string near = closestMatch(it.key(), candidates);
        if (!near.empty())
            msg += fmt::format(" (did you mean \"{}\"?)", near);
        // A runaway key (a megabyte of text) is shown by its start, as values are.
        const std::string shown = it.key().size() > 60 ? std::string(util::utf8Prefix(it.key(), 57)) + "..." : it.key();
        fail(shown, msg);
    }
}

} // namespace orrery::io
