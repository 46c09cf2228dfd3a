// Runs the built capstan binary as a user would, from a shell, and returns its exit
// status and standard output (stderr is captured separately into a file when asked).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace capstan::testing {

struct BinaryRun {
  int exit_status = -1;
  std::string stdout_text;
  std::string stderr_text;
};

// args is a shell-quoted argument string. With timeout_s > 0 the binary is killed
// after that long (coreutils timeout) and the run's exit status is 124: a hang fails
// the test instead of stalling the suite.
inline BinaryRun run_binary(const std::string& args, int timeout_s = 0) {
  const std::string err_path = "/tmp/capstan_test_stderr_" + std::to_string(::getpid());
  const std::string limit = timeout_s > 0 ? "timeout " + std::to_string(timeout_s) + " " : "";
  const std::string cmd = limit + std::string(CAPSTAN_BINARY) + " " + args + " 2>" + err_path;
  BinaryRun run;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (pipe == nullptr) return run;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, pipe) != nullptr) run.stdout_text += buf;
  const int status = ::pclose(pipe);
  run.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream err(err_path);
  std::stringstream ss;
  ss << err.rdbuf();
  run.stderr_text = ss.str();
  std::remove(err_path.c_str());
  return run;
}

}  // namespace capstan::testing
