#include "domain/forecast/predictor.hpp"

#include <type_traits>

namespace capstan {

// kind_of() relies on the variant listing its alternatives in PredictorKind order.
namespace {
using Model = decltype(PredictorState::model);
}  // namespace
static_assert(std::is_same_v<std::variant_alternative_t<0, Model>, ConstantState>);
static_assert(std::is_same_v<std::variant_alternative_t<1, Model>, HoltState>);
static_assert(std::is_same_v<std::variant_alternative_t<2, Model>, KalmanState>);
static_assert(std::is_same_v<std::variant_alternative_t<3, Model>, ArimaState>);
static_assert(std::is_same_v<std::variant_alternative_t<4, Model>, SeasonalState>);

const char* to_string(PredictorKind kind) {
  switch (kind) {
    case PredictorKind::kConstant: return "constant";
    case PredictorKind::kHolt: return "holt";
    case PredictorKind::kKalman: return "kalman";
    case PredictorKind::kArima: return "arima";
    case PredictorKind::kSeasonal: return "seasonal";
  }
  return "unknown";
}

bool parse_predictor_kind(const std::string& text, PredictorKind& out) {
  for (PredictorKind k : all_predictor_kinds()) {
    if (text == to_string(k)) {
      out = k;
      return true;
    }
  }
  return false;
}

std::string predictor_names() {
  std::string out;
  for (PredictorKind k : all_predictor_kinds()) out += (out.empty() ? "" : ", ") + std::string(to_string(k));
  return out;
}

Result<PredictorState> make_predictor(PredictorKind kind, const PredictorConfig& config) {
  auto wrap = [](auto made) -> Result<PredictorState> {
    if (!made) return made.error();
    return PredictorState{std::move(made).value()};
  };
  switch (kind) {
    case PredictorKind::kConstant: return PredictorState{ConstantState{}};
    case PredictorKind::kHolt: return wrap(make_holt_state(config.holt));
    case PredictorKind::kKalman: return wrap(make_kalman_state(config.kalman));
    case PredictorKind::kArima: return wrap(make_arima_state(config.arima));
    case PredictorKind::kSeasonal: return wrap(make_seasonal_state(config.seasonal));
  }
  return invalid_argument("unknown predictor kind");
}

PredictorKind kind_of(const PredictorState& state) {
  // The variant's alternatives are listed in PredictorKind order.
  return static_cast<PredictorKind>(state.model.index());
}

PredictorState observe(const PredictorState& state, double value) {
  return std::visit([&](const auto& s) { return PredictorState{observe(s, value)}; }, state.model);
}

double forecast(const PredictorState& state, double horizon_steps) {
  return std::visit([&](const auto& s) { return forecast(s, horizon_steps); }, state.model);
}

std::int64_t observation_count(const PredictorState& state) {
  return std::visit(
      [](const auto& s) -> std::int64_t {
        using S = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<S, ConstantState> || std::is_same_v<S, HoltState>) {
          return s.count;
        } else {
          return s.fallback.count;
        }
      },
      state.model);
}

void to_json(nlohmann::json& j, const PredictorState& s) {
  j = nlohmann::json::object();
  j["kind"] = to_string(kind_of(s));
  std::visit([&](const auto& m) { j["state"] = m; }, s.model);
}

void from_json(const nlohmann::json& j, PredictorState& s) {
  PredictorKind kind{};
  if (!parse_predictor_kind(j.at("kind").get<std::string>(), kind)) {
    throw nlohmann::json::other_error::create(
        501, "unknown predictor kind " + j.at("kind").dump(), &j);
  }
  const nlohmann::json& state = j.at("state");
  switch (kind) {
    case PredictorKind::kConstant: s.model = state.get<ConstantState>(); break;
    case PredictorKind::kHolt: s.model = state.get<HoltState>(); break;
    case PredictorKind::kKalman: s.model = state.get<KalmanState>(); break;
    case PredictorKind::kArima: s.model = state.get<ArimaState>(); break;
    case PredictorKind::kSeasonal: s.model = state.get<SeasonalState>(); break;
  }
}

Result<PredictorState> predictor_from_json(const nlohmann::json& j) {
  try {
    return j.get<PredictorState>();
  } catch (const nlohmann::json::exception& e) {
    return invalid_argument(std::string("predictor state: ") + e.what());
  }
}

}  // namespace capstan
