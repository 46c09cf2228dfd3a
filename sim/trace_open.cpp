// Trace format detection, opening and replay options; see trace_open.hpp.
#include "sim/trace_open.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <filesystem>

#include "domain/core/format.hpp"
#include "sim/azure_trace.hpp"
#include "sim/line_reader.hpp"
#include "sim/mooncake_trace.hpp"
#include "sim/native_trace.hpp"
#include "sim/servegen_trace.hpp"
#include "sim/trace_spread.hpp"

namespace capstan::sim {

namespace {

class Transformed : public TraceSource {
 public:
  Transformed(std::unique_ptr<TraceSource> inner, const TraceOptions& o)
      : inner_(std::move(inner)), o_(o), rng_(derive_seed(o.seed, 0x7261746573ULL)) {}

  Result<std::optional<Request>> next() override {
    while (copies_.empty()) {
      auto r = inner_->next();
      if (!r.ok() || !r.value()) return r;
      Request req = std::move(*r.value());
      if (req.arrival_s < o_.window_from_s) continue;
      if (req.arrival_s >= o_.window_to_s) return std::optional<Request>{};
      req.arrival_s = (req.arrival_s - o_.window_from_s) / o_.speedup;
      const double whole = std::floor(o_.rate_scale);
      int n = static_cast<int>(whole) + (rng_.bernoulli(o_.rate_scale - whole) ? 1 : 0);
      for (int i = 0; i < n; ++i) copies_.push_back(req);
    }
    Request out = std::move(copies_.front());
    copies_.pop_front();
    return std::optional<Request>{std::move(out)};
  }

 private:
  std::unique_ptr<TraceSource> inner_;
  TraceOptions o_;
  Rng rng_;
  std::deque<Request> copies_;
};

// Replays requests read ahead of the caller, then the rest of its source.
class Lookahead : public TraceSource {
 public:
  explicit Lookahead(std::unique_ptr<TraceSource> inner) : inner_(std::move(inner)) {}

  // Reads until `n` requests are ahead (fewer at the end of the source).
  std::optional<Error> fill(std::size_t n) {
    while (ahead_.size() < n && !done_) {
      auto r = inner_->next();
      if (!r.ok()) return r.error();
      if (!r.value()) done_ = true;
      else ahead_.push_back(std::move(*r.value()));
    }
    return std::nullopt;
  }
  const std::deque<Request>& ahead() const { return ahead_; }

  Result<std::optional<Request>> next() override {
    if (ahead_.empty()) return done_ ? std::optional<Request>{} : inner_->next();
    Request out = std::move(ahead_.front());
    ahead_.pop_front();
    return std::optional<Request>{std::move(out)};
  }

 private:
  std::unique_ptr<TraceSource> inner_;
  std::deque<Request> ahead_;
  bool done_ = false;
};

// How many requests the quantised-timestamp detection looks at.
constexpr std::size_t kDetectionRequests = 1000;

}  // namespace

const char* to_string(TraceFormat format) {
  switch (format) {
    case TraceFormat::kAuto: return "auto";
    case TraceFormat::kAzure: return "azure";
    case TraceFormat::kMooncake: return "mooncake";
    case TraceFormat::kServeGen: return "servegen";
    case TraceFormat::kNative: return "native";
  }
  return "unknown";
}

bool parse_trace_format(const std::string& text, TraceFormat& out) {
  for (auto f : {TraceFormat::kAuto, TraceFormat::kAzure, TraceFormat::kMooncake,
                 TraceFormat::kServeGen, TraceFormat::kNative}) {
    if (text == to_string(f)) {
      out = f;
      return true;
    }
  }
  return false;
}

Result<std::pair<double, double>> parse_window(const std::string& text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos) return invalid_argument("window must be FROM:TO in seconds, got '" + text + "'");
  std::pair<double, double> w{0, std::numeric_limits<double>::infinity()};
  const std::string from = text.substr(0, colon), to = text.substr(colon + 1);
  if (!from.empty() && (!parse_double(from, w.first) || w.first < 0))
    return invalid_argument("window FROM must be a number >= 0, got '" + from + "'");
  if (!to.empty() && !parse_double(to, w.second))
    return invalid_argument("window TO must be a number, got '" + to + "'");
  if (w.second <= w.first) return invalid_argument("window TO must be > FROM, got '" + text + "'");
  return w;
}

Result<TraceFormat> detect_trace_format(const std::string& path) {
  if (std::filesystem::is_directory(path)) return TraceFormat::kServeGen;
  LineReader in(path);
  if (!in.is_open()) return invalid_argument(path + ": cannot open file");
  const auto line = in.next();
  if (!line) return invalid_argument(path + ": empty trace, cannot detect its format");
  const auto first = line->find_first_not_of(" \t");
  if ((*line)[first] == '{') return TraceFormat::kMooncake;
  if (line->rfind("TIMESTAMP", 0) == 0) return TraceFormat::kAzure;
  if (line->rfind("arrival_s", 0) == 0) return TraceFormat::kNative;
  const auto f = split_fields(*line);
  if (f.size() == 6) return TraceFormat::kServeGen;
  double t = 0;
  if (f.size() == 3 && parse_azure_timestamp(f[0], t)) return TraceFormat::kAzure;
  if (f.size() == 3) return TraceFormat::kNative;
  return invalid_argument(path + ": line " + std::to_string(in.line_number()) +
                          ": unknown trace format (expected Azure CSV, Mooncake JSON lines, "
                          "ServeGen rate windows or arrival_s,input_tokens,output_tokens)");
}

std::unique_ptr<TraceSource> transform_trace(std::unique_ptr<TraceSource> source,
                                             const TraceOptions& options) {
  return std::make_unique<Transformed>(std::move(source), options);
}

std::optional<Error> validate(const TraceOptions& o) {
  if (!(o.speedup >= kMinSpeedup && o.speedup <= kMaxSpeedup))
    return invalid_argument("speedup must be in " + fmt_num(kMinSpeedup) + ".." + fmt_num(kMaxSpeedup) + ", got " +
                            fmt_num(o.speedup));
  if (!(o.rate_scale > 0 && o.rate_scale <= kMaxRateScale))
    return invalid_argument("rate scale must be > 0 and <= " + fmt_num(kMaxRateScale) + ", got " +
                            fmt_num(o.rate_scale));
  if (!(o.spread_buckets_s >= 0 && o.spread_buckets_s <= kMaxSpreadBucketsS))
    return invalid_argument("spread of same-timestamp requests must be in 0.." + fmt_num(kMaxSpreadBucketsS) +
                            " s, got " + fmt_num(o.spread_buckets_s));
  if (!(o.window_from_s >= 0 && std::isfinite(o.window_from_s) && o.window_to_s > o.window_from_s))
    return invalid_argument("window must have 0 <= FROM < TO, got " + fmt_num(o.window_from_s) + ":" +
                            fmt_num(o.window_to_s));
  if (!(o.servegen_window_s > 0 && std::isfinite(o.servegen_window_s)))
    return invalid_argument("ServeGen window must be > 0 s, got " + fmt_num(o.servegen_window_s));
  return std::nullopt;
}

Result<std::unique_ptr<TraceSource>> open_trace(const std::string& path, const TraceOptions& options) {
  if (auto e = validate(options)) return *e;
  TraceFormat format = options.format;
  if (format == TraceFormat::kAuto) {
    auto detected = detect_trace_format(path);
    if (!detected.ok()) return detected.error();
    format = detected.value();
  }
  const bool spread = options.spread_buckets_s > 0;
  std::unique_ptr<TraceSource> source;
  switch (format) {
    case TraceFormat::kAzure: source = std::make_unique<AzureTrace>(path); break;
    case TraceFormat::kMooncake:
      // Spreading over whole buckets replaces the reader's own spread within a millisecond.
      source = std::make_unique<MooncakeTrace>(path, spread ? 0.0 : options.mooncake_bucket_ms);
      break;
    case TraceFormat::kNative: source = std::make_unique<NativeTrace>(path); break;
    case TraceFormat::kServeGen: {
      std::vector<std::string> clients;
      if (std::filesystem::is_directory(path)) {
        for (const auto& e : std::filesystem::directory_iterator(path)) {
          const auto name = e.path().filename().string();
          if (name.rfind("chunk-", 0) == 0 && name.size() > 10 &&
              name.substr(name.size() - 10) == "-trace.csv")
            clients.push_back(e.path().string());
        }
        std::sort(clients.begin(), clients.end());
        if (clients.empty()) return invalid_argument(path + ": no chunk-*-trace.csv files");
      } else {
        clients.push_back(path);
      }
      auto lengths = options.servegen_lengths ? options.servegen_lengths : fixed_lengths(1024, 256);
      // The reader seeks to the window itself (servegen_trace.hpp).
      source = std::make_unique<ServeGenTrace>(clients, lengths, options.seed, options.servegen_window_s,
                                               options.window_from_s);
      break;
    }
    case TraceFormat::kAuto: break;
  }
  if (spread) {
    source = spread_buckets(std::move(source), options.spread_buckets_s);
  } else if (options.on_warning && format != TraceFormat::kServeGen) {  // generated arrivals: never quantised
    auto raw = std::make_unique<Lookahead>(std::move(source));
    if (auto e = raw->fill(kDetectionRequests)) return *e;
    const std::vector<Request> first(raw->ahead().begin(), raw->ahead().end());
    if (auto q = detect_quantised(first)) options.on_warning(quantised_warning(path, first.size(), *q));
    source = std::move(raw);
  }
  auto replay = std::make_unique<Lookahead>(transform_trace(std::move(source), options));
  if (auto e = replay->fill(1)) return *e;
  if (replay->ahead().empty()) {
    if (options.window_from_s > 0 || std::isfinite(options.window_to_s))
      return invalid_argument(path + ": no requests in the window " + fmt_num(options.window_from_s) + ":" +
                              fmt_num(options.window_to_s) + " s");
    return invalid_argument(path + ": empty trace: no requests");
  }
  return std::unique_ptr<TraceSource>(std::move(replay));
}

}  // namespace capstan::sim
