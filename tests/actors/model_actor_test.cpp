// actors/model_actor: a model's snapshot comes back encoded by the model's own actor, as
// the store keeps it and a restart reads it.
#include "actors/model_actor.hpp"

#include <catch2/catch.hpp>

#include "actors/message_codec.hpp"
#include "domain/policies/hybrid_policy.hpp"

namespace capstan {
namespace {

TEST_CASE("a model's actor replies to a snapshot request with the store's snapshot of its state, encoded") {
  actors::ModelSnapshot restored;
  restored.policy = "hybrid";
  restored.model = {"prod", "llama-70b"};
  restored.variants["h100"] = VariantMemory{};
  caf::actor_system_config cfg;
  caf::actor_system system{cfg};
  auto model = system.spawn(actors::model_behavior, hybrid_policy(), restored, 5.0);
  caf::scoped_actor self{system};
  storage::Snapshot got;
  self->request(model, caf::infinite, actors::snapshot_atom::value)
      .receive([&got](storage::Snapshot& s) { got = std::move(s); }, [](caf::error& err) { FAIL(caf::to_string(err)); });
  self->send_exit(model, caf::exit_reason::user_shutdown);
  CHECK(got.scope == "prod/llama-70b");
  CHECK(got.seq == 0);  // the journal stamps it with the batch's last event
  CHECK(got.bytes == actors::model_snapshot_bytes(restored));
  const auto back = actors::from_message_json<actors::ModelSnapshot>(nlohmann::json::from_msgpack(got.bytes));
  REQUIRE(back.ok());
  CHECK(back.value().model == restored.model);
  CHECK(back.value().variants.count("h100") == 1);
}

}  // namespace
}  // namespace capstan
