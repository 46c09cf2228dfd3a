// What the admin API serves, asked of whoever runs it (the daemon implements it in
// actors/daemon_status.hpp): the server knows HTTP, not actors. Every function is called
// on the server's thread, concurrently with the daemon's ticks, so an implementation
// answers from a snapshot it keeps thread-safe and never waits for a tick.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "domain/core/result.hpp"
#include "domain/core/types.hpp"

namespace capstan::admin {

struct Readiness {
  bool ready = false;
  std::vector<std::string> reasons;  // why not, one sentence each; empty when ready
};

// A page of stored events: from_seq on, at most limit, optionally one model, one type,
// from a time on.
struct EventQuery {
  std::uint64_t from_seq = 1;
  std::size_t limit = 100;
  std::optional<ModelKey> model;
  std::optional<std::string> type;
  std::optional<double> since_s;
};

// A person's word on a decision held in advisory mode.
struct Verdict {
  bool approve = false;
  std::string by;
  std::string reason;
};

// An answer that carries its status: 200 and a body, or an error status and why.
struct Reply {
  int status = 200;
  nlohmann::json body;
  std::string error;
};

// A page of /api/v1/models in (namespace, model_id) order: at most `limit` models
// (0: all) after `after`.
struct ModelPage {
  std::size_t limit = 0;
  std::optional<ModelKey> after;
};

class StateProvider {
 public:
  virtual ~StateProvider() = default;
  virtual Readiness readiness() const = 0;
  // The Prometheus text exposition (prometheus_text.hpp) of the daemon's own metrics.
  virtual std::string metrics() const = 0;
  // {"models": [summary, ...]} as JSON text, with "next_after": "ns/id" | null when paged:
  // the hot path of a dashboard polling every model, which an implementation serves
  // from text made once per tick.
  virtual std::string models(const ModelPage& page) const = 0;
  // One model's detail; nullopt when the daemon does not know it.
  virtual std::optional<nlohmann::json> model(const ModelKey& key) const = 0;
  // {"events": [export lines], "next_from_seq": n | null} as JSON text; an error when the
  // store cannot be read.
  virtual Result<std::string> events(const EventQuery& query) const = 0;
  // The effective configuration with the layer of every value (config/ to_json).
  virtual nlohmann::json config() const = 0;
  // Advisory mode: {"decisions": [{"id", "decision", ...}, ...]} awaiting approval, and a
  // verdict on one of them (404 when it does not await approval). Asked of whoever owns
  // the queue with a timeout (503 past it); 409 when the daemon is not advisory.
  virtual Reply pending_decisions(const std::optional<ModelKey>& model) const = 0;
  virtual Reply review_decision(std::uint64_t id, const Verdict& verdict) const = 0;
};

}  // namespace capstan::admin
