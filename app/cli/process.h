#pragma once

#include <string>
#include <vector>

namespace orrery::cli {

struct ProcessResult
{
    int exitCode = -1;  ///< 127 when the program could not be started (not found)
    std::string output; ///< stdout and stderr together
};

/** Runs a program (looked up in PATH; no shell, so no argument is ever interpreted) and waits for it. */
ProcessResult runProcess(const std::vector<std::string>& argv);

/** Whether `program` is found in PATH (or is an executable path). */
bool programExists(const std::string& program);

} // namespace orrery::cli
