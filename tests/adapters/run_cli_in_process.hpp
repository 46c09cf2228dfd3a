// Runs one `capstan analyze <sub>` registration in-process: builds a CLI::App with the
// subcommand, parses argv and returns what it printed. UsageError propagates, so a test
// can check the exception and its message; the real binary maps it to exit status 2.
#pragma once

#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace capstan::testing {

inline std::string run_cli(const std::function<void(CLI::App&)>& add_command,
                           std::vector<std::string> args) {
  CLI::App app{"test"};
  app.require_subcommand(1);
  add_command(app);
  args.insert(args.begin(), "capstan");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  std::ostringstream out;
  std::streambuf* old = std::cout.rdbuf(out.rdbuf());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (...) {
    std::cout.rdbuf(old);
    throw;
  }
  std::cout.rdbuf(old);
  return out.str();
}

}  // namespace capstan::testing
