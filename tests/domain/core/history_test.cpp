#include "domain/core/history.hpp"

#include <deque>
#include <map>
#include <string>
#include <utility>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "domain/forecast/demand_memory.hpp"

using namespace capstan;

TEST_CASE("a history drops its oldest entry first and keeps the rest in order") {
  History<double> h{1, 2, 3};
  h.pop_front();
  CHECK(h == History<double>{2, 3});
  h.push_back(4);
  h.pop_front();
  h.pop_front();
  CHECK(h == History<double>{4});
  CHECK(h != History<double>{3});
}

TEST_CASE("a moved-from history holds nothing, and a copy holds no more room than its entries") {
  History<double> h;
  for (int i = 0; i < 10; ++i) h.push_back(i);
  const History<double> copy = h;
  CHECK(copy.capacity() == copy.size());
  History<double> moved = std::move(h);
  CHECK(moved.size() == 10);
  CHECK(h.capacity() == 0);  // NOLINT(bugprone-use-after-move): what a move leaves is the point
}

TEST_CASE("a history serialises as the array a std::deque of the same entries did") {
  const std::deque<std::pair<double, double>> deque{{0, 1.5}, {30, 2.5}};
  const History<std::pair<double, double>> history(deque.begin(), deque.end());
  const std::map<std::string, History<double>> by_name{{"a", {1, 2}}, {"b", {}}};
  const std::map<std::string, std::deque<double>> deques{{"a", {1, 2}}, {"b", {}}};
  CHECK(nlohmann::json(history) == nlohmann::json(deque));
  CHECK(nlohmann::json::to_msgpack(nlohmann::json(by_name)) == nlohmann::json::to_msgpack(nlohmann::json(deques)));
  CHECK(nlohmann::json(deque).get<History<std::pair<double, double>>>() == history);
  CHECK(nlohmann::json(deques).get<std::map<std::string, History<double>>>() == by_name);
}

TEST_CASE("remembered capacity figures keep the newest ten, and a full history does not grow its room") {
  History<double> h;
  for (int i = 0; i < 10; ++i) remember_capacity(h, i);
  const std::size_t room = h.capacity();
  for (int i = 10; i < 25; ++i) remember_capacity(h, i);
  REQUIRE(h.size() == kCapacityWindow);
  CHECK(h.front() == 15);
  CHECK(h.back() == 24);
  CHECK(h.capacity() == room);
}
