// Starts the built capstan binary as a child process for tests of long-running
// commands (`capstan sim serve`): its stdout is a pipe read line by line with a
// deadline, stderr goes to a file. terminate() sends SIGTERM and waits (bounded)
// for the exit status; the destructor kills a child that is still running, so a
// failing test never leaves a process behind.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace capstan::testing {

class SpawnedBinary {
 public:
  using Clock = std::chrono::steady_clock;

  explicit SpawnedBinary(std::vector<std::string> args)
      : stderr_path_("/tmp/capstan_spawned_stderr_" + std::to_string(::getpid()) + "_" + std::to_string(counter()++)) {
    int fds[2];
    if (::pipe(fds) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(fds[1], STDOUT_FILENO);
      const int err = ::open(stderr_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (err >= 0) ::dup2(err, STDERR_FILENO);
      ::close(fds[0]);
      ::close(fds[1]);
      args.insert(args.begin(), CAPSTAN_BINARY);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::close(fds[1]);
    out_fd_ = fds[0];
  }

  ~SpawnedBinary() {
    if (running()) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (out_fd_ >= 0) ::close(out_fd_);
    std::remove(stderr_path_.c_str());
  }
  SpawnedBinary(const SpawnedBinary&) = delete;
  SpawnedBinary& operator=(const SpawnedBinary&) = delete;

  bool started() const { return pid_ > 0; }

  // The next stdout line (without '\n'); empty if none came before the timeout.
  std::string read_line(std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      if (const auto nl = buffer_.find('\n'); nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return line;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0 || out_fd_ < 0) return {};
      pollfd p{out_fd_, POLLIN, 0};
      const int r = ::poll(&p, 1, static_cast<int>(left));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return {};
      char buf[4096];
      const ssize_t n = ::read(out_fd_, buf, sizeof buf);
      if (n <= 0) return {};
      buffer_.append(buf, static_cast<std::size_t>(n));
    }
  }

  // Waits (bounded) for the child to exit on its own; its exit status, -1 if it did not.
  int wait_exit(std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
      if (exit_status_ != -2) return exit_status_;
      int status = 0;
      const pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        return exit_status_;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return -1;
  }

  // SIGTERM, then the exit status (or -1 and SIGKILL if it did not exit in time).
  int terminate(std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    if (!running()) return exit_status_;
    ::kill(pid_, SIGTERM);
    const int status = wait_exit(timeout);
    if (status == -1 && running()) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      exit_status_ = -1;
    }
    return status;
  }

  // SIGKILL at once, as a crash or an OOM kill would stop it; what it wrote to stdout
  // before stays readable with read_line.
  void kill_now() {
    if (!running()) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    exit_status_ = -1;
  }

  std::string stderr_text() const {
    std::ifstream in(stderr_path_);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

 private:
  static int& counter() {
    static int n = 0;
    return n;
  }
  bool running() const { return pid_ > 0 && exit_status_ == -2; }

  std::string stderr_path_;
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int exit_status_ = -2;  // -2: still running (or not reaped yet)
  std::string buffer_;
};

}  // namespace capstan::testing
