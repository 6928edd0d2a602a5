// The Qt Widgets, Charts and test headers every GUI test parses, on top of the core tests' set, precompiled once
// for the GUI tests (tests/CMakeLists.txt). As in test_pch.h, only headers that never change with our code.
#pragma once

#include "test_pch.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtCharts/QtCharts>
#include <QtWidgets/QtWidgets>
