#pragma once

#include <CLI/CLI.hpp>

#include <nlohmann/json.hpp>

#include <initializer_list>
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
 * Each cmd_*.cpp registers its subcommands with ORRERY_CLI_COMMAND(order, fn, "name", ...), naming the top-level
 * commands fn adds; main() adds them in `order` (the order of `--help`). A command that does not work yet is simply
 * not registered: `orrery-cli --help` lists only what works.
 */
using RegisterFn = void (*)(CLI::App&);
struct CommandRegistration
{
    CommandRegistration(int order, RegisterFn fn, std::initializer_list<const char*> names);
};
/**
 * Calls the registered functions on `app`, in order: when the command line names a command (before any help or
 * version flag), only the function that adds it, since CLI11 builds every option of what is registered at start-up
 * (about 5 M instructions for all, a twentieth of a short `simulate`); otherwise all of them. A name missing from
 * its registration costs only that time; a wrong one fails that command (every command's `--help` is tested).
 */
void registerCommands(CLI::App& app, int argc, const char* const* argv);

#define ORRERY_CLI_CONCAT2(a, b) a##b
#define ORRERY_CLI_CONCAT(a, b) ORRERY_CLI_CONCAT2(a, b)
#define ORRERY_CLI_COMMAND(order, fn, ...)                                                                             \
    static const ::orrery::cli::CommandRegistration ORRERY_CLI_CONCAT(orreryCliCommand, __LINE__)(order, fn,           \
                                                                                                  {__VA_ARGS__})

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
