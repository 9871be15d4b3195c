// apsp/errors.hpp — the exceptions the library throws and the APSP_EXPECTS macro.
//
// Every error is an apsp::Error (a std::runtime_error) whose what() is one line a user can act on.
// The CLI prints it and exits non-zero with the exit code of its class; Python maps the classes to
// ValueError / apsp.NegativeCycleError / RuntimeError.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace apsp {

/// Base class of every apsp error. exit_code() is what the CLI returns for it.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg) : std::runtime_error(msg) {}
  virtual int exit_code() const { return 1; }
};

/// Bad command-line or API arguments.
class UsageError : public Error {
 public:
  using Error::Error;
  int exit_code() const override { return 2; }
};

/// Malformed or unreadable input. what() = "FILE: LOCATION: MESSAGE" (location e.g. "offset 8" or
/// "line 3").
class InputError : public Error {
 public:
  InputError(const std::string& file, const std::string& location, const std::string& msg)
      : Error(file + (location.empty() ? "" : ": " + location) + ": " + msg) {}
  int exit_code() const override { return 3; }
};

/// Not enough memory (host or device) for the problem; the message says how many bytes it needs.
class ResourceError : public Error {
 public:
  using Error::Error;
  int exit_code() const override { return 4; }
};

/// The graph has a negative cycle; cycle() lists its vertices in order (first != last; the edge
/// cycle().back() -> cycle().front() closes it).
class NegativeCycleError : public Error {
 public:
  NegativeCycleError(const std::string& msg, std::vector<std::int64_t> cycle)
      : Error(msg), cycle_(std::move(cycle)) {}
  const std::vector<std::int64_t>& cycle() const { return cycle_; }
  int exit_code() const override { return 5; }

 private:
  std::vector<std::int64_t> cycle_;
};

/// A backend that was asked for but is not built or has no device.
class BackendUnavailable : public Error {
 public:
  using Error::Error;
  int exit_code() const override { return 6; }
};

namespace detail {
[[noreturn]] void throw_expects(const char* cond, const std::string& msg, const char* file,
                                int line);
}  // namespace detail

}  // namespace apsp

/// Throws apsp::Error("MSG (COND at FILE:LINE)") when COND is false. For internal invariants.
#define APSP_EXPECTS(cond, msg)                                                   \
  do {                                                                            \
    if (!(cond)) ::apsp::detail::throw_expects(#cond, (msg), __FILE__, __LINE__); \
  } while (0)
