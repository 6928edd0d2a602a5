// The heavy third-party and standard headers every core and CLI test parses, precompiled once
// (tests/CMakeLists.txt). Only headers that never change with our code belong here: a core header in the
// precompiled header would rebuild every test whenever it changed.
#pragma once

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest/QtTest>
#include <rapidcheck.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>
