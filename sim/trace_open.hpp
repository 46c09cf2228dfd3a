// Opens a trace file of any supported format, detected from its content (or forced),
// and applies the replay options: spread of same-timestamp requests (trace_spread.hpp),
// a window FROM:TO (seconds of the original trace, shifted to start at 0), speedup
// (time compression) and rate scale (seeded thinning below 1, duplication above 1:
// each request is kept floor(s) times plus once more with probability frac(s)). The
// order is: spread, window, speedup, rate scale. Opening reads the first requests: a
// trace (or window) without any is an error at once, before anything is sized on it,
// and a trace whose timestamps look quantised is reported through on_warning.
#pragma once

#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "domain/core/result.hpp"
#include "sim/length_source.hpp"
#include "sim/trace_source.hpp"

namespace capstan::sim {

enum class TraceFormat { kAuto, kAzure, kMooncake, kServeGen, kNative };

const char* to_string(TraceFormat format);
bool parse_trace_format(const std::string& text, TraceFormat& out);

// Bounds of the replay options: beyond them a replay would overflow or take days.
inline constexpr double kMinSpeedup = 1e-3, kMaxSpeedup = 1e6;
inline constexpr double kMaxRateScale = 1000;
inline constexpr double kMaxSpreadBucketsS = 3600;

struct TraceOptions {
  TraceFormat format = TraceFormat::kAuto;
  double speedup = 1.0;
  double rate_scale = 1.0;
  double spread_buckets_s = 0;  // > 0: spread same-timestamp requests over this many seconds
  double window_from_s = 0;
  double window_to_s = std::numeric_limits<double>::infinity();
  std::uint64_t seed = 1;
  double mooncake_bucket_ms = 1.0;
  double servegen_window_s = 600;
  std::shared_ptr<LengthSource> servegen_lengths;  // default: fixed 1024 in / 256 out
  std::function<void(const std::string&)> on_warning;  // e.g. quantised timestamps; may be empty
};

// "FROM:TO" in seconds; either side may be empty ("300:" = from 300 to the end).
Result<std::pair<double, double>> parse_window(const std::string& text);

// Detects the format of a file from its first non-blank line.
Result<TraceFormat> detect_trace_format(const std::string& path);

// The options' ranges: speedup, rate scale, spread and window, each error naming its option.
std::optional<Error> validate(const TraceOptions& options);

// A ServeGen path may be a directory: every chunk-*-trace.csv in it is one client.
// Errors: bad options, an unreadable or malformed start, no request (in the window).
Result<std::unique_ptr<TraceSource>> open_trace(const std::string& path, const TraceOptions& options);

// Wraps any source with the window / speedup / rate-scale options.
std::unique_ptr<TraceSource> transform_trace(std::unique_ptr<TraceSource> source,
                                             const TraceOptions& options);

}  // namespace capstan::sim
