// The `inspect` overloads of the actors' messages (messages.hpp), CAF 0.17's way of
// making a type serializable. Each message is written as the MessagePack of its JSON
// codec (message_codec.hpp), the same versioned form the event store records, so no
// second serialisation of the domain's types exists. Included by messages.hpp only.
#pragma once

#include <string>

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "actors/message_codec.hpp"

namespace capstan::actors::detail {

template <class Inspector, class T>
typename Inspector::result_type inspect_encoded(Inspector& f, T& x, const char* name) {
  std::string bytes;
  auto save = caf::meta::save_callback([&]() -> caf::error {
    const std::vector<std::uint8_t> packed = nlohmann::json::to_msgpack(to_message_json(x));
    bytes.assign(packed.begin(), packed.end());
    return caf::none;
  });
  auto load = caf::meta::load_callback([&]() -> caf::error {
    auto decoded = from_message_json<T>(nlohmann::json::from_msgpack(bytes, true, false));
    if (!decoded.ok()) return caf::make_error(caf::sec::invalid_argument, std::string(name) + ": " + decoded.error().message);
    x = std::move(decoded).value();
    return caf::none;
  });
  return f(caf::meta::type_name(name), save, bytes, load);
}

}  // namespace capstan::actors::detail

#define CAPSTAN_INSPECT_ENCODED(ns, type, name)                                             \
  namespace ns {                                                                            \
  template <class Inspector>                                                                \
  typename Inspector::result_type inspect(Inspector& f, type& x) {                          \
    return ::capstan::actors::detail::inspect_encoded(f, x, name);                          \
  }                                                                                         \
  }

CAPSTAN_INSPECT_ENCODED(capstan, TickTime, "capstan.tick_time")
CAPSTAN_INSPECT_ENCODED(capstan, VariantMemory, "capstan.variant_memory")
CAPSTAN_INSPECT_ENCODED(capstan::fleet, Observed, "capstan.observed")
CAPSTAN_INSPECT_ENCODED(capstan::actors, LearnRequest, "capstan.learn_request")
CAPSTAN_INSPECT_ENCODED(capstan::actors, LearnReply, "capstan.learn_reply")
CAPSTAN_INSPECT_ENCODED(capstan::actors, PlanRequest, "capstan.plan_request")
CAPSTAN_INSPECT_ENCODED(capstan::actors, PlanReply, "capstan.plan_reply")
CAPSTAN_INSPECT_ENCODED(capstan::actors, SettleRequest, "capstan.settle_request")
CAPSTAN_INSPECT_ENCODED(capstan::actors, ModelSnapshot, "capstan.model_snapshot")
CAPSTAN_INSPECT_ENCODED(capstan::actors, JournalBatch, "capstan.journal_batch")
CAPSTAN_INSPECT_ENCODED(capstan::actors, JournalAck, "capstan.journal_ack")
CAPSTAN_INSPECT_ENCODED(capstan::actors, ActuationRequest, "capstan.actuation_request")
CAPSTAN_INSPECT_ENCODED(capstan::actors, ActuationReport, "capstan.actuation_report")
CAPSTAN_INSPECT_ENCODED(capstan::actors, ConfigUpdate, "capstan.config_update")
CAPSTAN_INSPECT_ENCODED(capstan::actors, TickSummary, "capstan.tick_summary")

#undef CAPSTAN_INSPECT_ENCODED

namespace capstan::storage {
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, Snapshot& x) {
  return f(caf::meta::type_name("capstan.snapshot"), x.scope, x.seq, x.time_s, x.bytes);
}
}  // namespace capstan::storage

namespace capstan::actors {
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ConfigRejection& x) {
  return f(caf::meta::type_name("capstan.config_rejection"), x.source, x.error);
}
}  // namespace capstan::actors

// The advisory queue's messages stay inside the daemon (admin thread <-> actuator).
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(capstan::actors::PendingDecisions)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(capstan::actors::ReviewRequest)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(capstan::actors::ReviewReply)
