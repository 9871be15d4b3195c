// apsp/config.hpp — every APSP_* environment variable, declared once (config.cpp's table).
//
// Each knob has a name, a type, a default and a one-line doc. A value is parsed and validated
// when first asked for, and again only when the variable's text changes (a test's setenv takes
// effect); a bad value is a UsageError naming the variable, the value and what is accepted.
// Unset and empty are the same: the default. `apsp info --config` prints the table, and
// docs/configuration.md is its markdown form. Public for the CLI (`apsp info --config`, its
// progress delay) and for callers that check settings up front; plain C++17, so nvcc-compiled
// files include it (through core/config.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace apsp::config {

/// One entry per APSP_* variable (the order of the table and of `apsp info --config`).
enum class Knob {
  HostMemory,
  ProgressDelay,
  Trace,
  DetachExit,
  CpuIsa,
  CpuNext,
  CpuNextTrace,
  CudaInt16,
  CudaInt16Paths,
  CudaGraph,
  NdBatch,
  SnStream,
  Grid,
  MgProfile,
  MpiGpu,
  GatherStripe,
  WriteThreads,
  WritePreallocate,
  WriteMethod,
  WritePrefill,
  WritePrefillThreads,
  WritePrefillLimit,
  BenchPython,
  BenchScipyScript,
  kCount
};

/// bool: 1/0/true/false/on/off/yes/no. Switch: a bool or auto (unset: auto). Int, Double:
/// numbers with a lower bound (Int: also auto where that is the default). Choice: one of listed
/// words. Text: any string. Shape: RxC (two positive integers).
enum class Type { Bool, Switch, Int, Double, Choice, Text, Shape };

/// A grid shape, rows x cols.
struct Shape {
  int rows = 1, cols = 1;
};

/// Bool knobs.
bool get_bool(Knob k);
/// Switch knobs: nullopt = auto.
std::optional<bool> get_switch(Knob k);
/// Int knobs: nullopt = auto.
std::optional<std::int64_t> get_int(Knob k);
/// Double knobs.
double get_double(Knob k);
/// Choice knobs: the word chosen (lower case), or the default word.
std::string get_choice(Knob k);
/// Text knobs: the text, or the default ("" where the default is the caller's own).
std::string get_text(Knob k);
/// Shape knobs: nullopt = auto.
std::optional<Shape> get_shape(Knob k);

/// The variable's name, e.g. "APSP_CUDA_INT16".
const char* name(Knob k);
/// Whether the variable is set to a non-empty value.
bool is_set(Knob k);
/// Parses every knob; throws the first UsageError (the CLI calls this before any work).
void check_all();

/// `apsp info --config`: one line per knob: name, value (from env or default), type, doc; an
/// invalid value is shown as such. With markdown: docs/configuration.md (name, type, default,
/// doc; nothing from the environment).
std::string describe(bool markdown);

}  // namespace apsp::config
