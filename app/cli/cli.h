#pragma once

#include <CLI/CLI.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace orrery::cli {

/** Exit statuses shared by every subcommand. */
enum Exit : int { Ok = 0, Failure = 1, BadInput = 2 };

/** Thrown by a subcommand to end with a given status after printing its own output. */
struct ExitRequest
{
    int code;
};

/**
 * Each subcommand registers itself on the root app. A command whose issue is not
 * done is simply not registered: `orrery-cli --help` lists only what works.
 */
void registerScenarioCommands(CLI::App& app);
void registerCatalogCommands(CLI::App& app);

/** Prints JSON to stdout, pretty. */
void printJson(const nlohmann::json& doc);

/** A plain text table: header row, then rows, columns padded; numbers right-aligned. */
class Table
{
public:
    explicit Table(std::vector<std::string> header);
    void add(std::vector<std::string> row);
    std::string render() const;

private:
    std::vector<std::string> m_header;
    std::vector<std::vector<std::string>> m_rows;
};

} // namespace orrery::cli
