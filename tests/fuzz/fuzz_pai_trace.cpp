// Alibaba PAI 2020 tables (workload/pai_trace.h). PAI keeps column names in `.header` files beside the
// headerless tables, so one input holds up to four texts separated by form feeds (a byte no sample holds):
// task table, task header, job table, job header. The machine table reader gets the first two.
#include "io/error.h"
#include "workload/pai_trace.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (parts.size() < 3) {
        const std::size_t end = input.find('\f', start);
        if (end == std::string_view::npos)
            break;
        parts.emplace_back(input.substr(start, end - start));
        start = end + 1;
    }
    parts.emplace_back(input.substr(start));
    const auto part = [&](std::size_t i) {
        return i < parts.size() ? std::optional<std::string>(parts[i]) : std::nullopt;
    };

    orrery::workload::PaiTables tables;
    tables.taskTable = parts[0];
    tables.taskLabel = "pai_task_table.csv";
    tables.taskHeader = part(1);
    tables.jobTable = part(2);
    tables.jobLabel = "pai_job_table.csv";
    tables.jobHeader = part(3);
    try {
        orrery::workload::parsePaiTrace(tables);
    } catch (const orrery::Error&) {
    }
    try {
        orrery::workload::parsePaiMachines(parts[0], "pai_machine_spec.csv", part(1));
    } catch (const orrery::Error&) {
    }
    return 0;
}
