// adapters/sim_serve/kube_scale: the Scale object, the merge-patch reader's errors
// (each naming its field) and the Status object, without a server.
#include <catch2/catch.hpp>

#include "adapters/sim_serve/kube_scale.hpp"

using namespace capstan::sim_serve;

TEST_CASE("scale_object has the autoscaling/v1 shape with desired in spec and current in status") {
  const auto s = scale_object("prod", "v1", 4, 3);
  CHECK(s["kind"] == "Scale");
  CHECK(s["apiVersion"] == "autoscaling/v1");
  CHECK(s["metadata"]["namespace"] == "prod");
  CHECK(s["spec"]["replicas"] == 4);
  CHECK(s["status"]["replicas"] == 3);
  CHECK(s["status"]["selector"] == variant_selector("v1"));
}

TEST_CASE("parse_scale_patch reads spec.replicas and names the field of every rejection") {
  ScalePatchError error;
  auto ok = parse_scale_patch(R"({"spec":{"replicas":0},"metadata":{"name":"x"}})", error);
  REQUIRE(ok.ok());
  CHECK(ok.value().replicas == 0);

  const std::vector<std::pair<std::string, std::string>> cases{
      {"{", "body"},
      {"[1]", "body"},
      {R"({"status":{}})", "spec"},
      {R"({"spec":{}})", "spec.replicas"},
      {R"({"spec":{"replicas":-2}})", "spec.replicas"},
      {R"({"spec":{"replicas":1.5}})", "spec.replicas"},
      {R"({"spec":{"replicas":null}})", "spec.replicas"},
      {R"({"spec":{"replicas":99999999999}})", "spec.replicas"},
  };
  for (const auto& [body, field] : cases) {
    INFO(body);
    ScalePatchError e;
    CHECK_FALSE(parse_scale_patch(body, e).ok());
    CHECK(e.field == field);
    CHECK_FALSE(e.message.empty());
  }
}

TEST_CASE("status_object carries code, reason and the offending field as a cause") {
  const auto s = status_object(400, "BadRequest", "spec.replicas must be ...", "v1", "spec.replicas");
  CHECK(s["kind"] == "Status");
  CHECK(s["status"] == "Failure");
  CHECK(s["code"] == 400);
  CHECK(s["details"]["name"] == "v1");
  CHECK(s["details"]["causes"][0]["field"] == "spec.replicas");
  CHECK_FALSE(status_object(404, "NotFound", "gone")["details"].contains("causes"));
}

TEST_CASE("merge and strategic-merge patches are accepted, JSON patch is not") {
  CHECK(is_merge_patch("application/merge-patch+json"));
  CHECK(is_merge_patch("application/merge-patch+json; charset=utf-8"));
  CHECK(is_merge_patch("application/strategic-merge-patch+json"));
  CHECK_FALSE(is_merge_patch("application/json-patch+json"));
  CHECK_FALSE(is_merge_patch(""));
}
