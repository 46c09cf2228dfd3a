// Why a variant's target is what it is, as figures (DESIGN.md "The tick, as data"): a
// stable code a program matches on, the shape of the sentence (`kind`, e.g.
// "load.cooldown"), the named figures it is rendered from, and the reasons it wraps (a
// stage that changed a policy's target keeps the policy's reason as its cause). The
// sentence a person reads is rendered from those by one function, `render_reason`
// (reason_text.cpp); the maths fills figures and never writes prose.
//
// Kind and figure names are part of the event format: add new ones, never rename.
#pragma once

#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "domain/core/result.hpp"

namespace capstan {

enum class ReasonCode {
  kHold,            // nothing to change
  kScaleUp,
  kScaleDown,
  kScaleToZero,     // model idle for the retention period
  kScaleFromZero,   // requests waiting for a model with no replicas
  kMinReplicas,     // raised to the variant's lower bound
  kMaxReplicas,     // capped at the variant's upper bound
  kKeepOneReplica,  // scale to zero is off: one replica kept on the cheapest variant
  kBudgetLimited,   // a scale-up cut short by the GPU budget
  kCooldown,        // a scale-down held inside the cooldown / stabilization window
  kPendingGuard,    // the variant's previous action is still in flight
  kTransitioning,   // the model has a variant in transition: no scaling at all
  kMetricsMissing,  // no pod reported what the policy needs
  kNoCapacityData,  // nothing known about a variant's per-replica capacity
  kPdBand,          // raised to keep the model's prefill:decode ratio within its band
};

// Stable snake_case name ("scale_up", "budget_limited", ...).
const char* to_string(ReasonCode code);
// Errors (kInvalidArgument) with the offending text for an unknown name.
Result<ReasonCode> parse_reason_code(std::string_view name);

// One named figure of a reason: a count, a measured or computed number, or a name.
struct Figure {
  using Value = std::variant<long long, double, std::string>;
  std::string name;
  Value value;

  Figure(std::string n, int v) : name(std::move(n)), value(static_cast<long long>(v)) {}
  Figure(std::string n, long v) : name(std::move(n)), value(static_cast<long long>(v)) {}
  Figure(std::string n, long long v) : name(std::move(n)), value(v) {}
  Figure(std::string n, unsigned long v) : name(std::move(n)), value(static_cast<long long>(v)) {}
  Figure(std::string n, double v) : name(std::move(n)), value(v) {}
  Figure(std::string n, std::string v) : name(std::move(n)), value(std::move(v)) {}
  Figure(std::string n, const char* v) : name(std::move(n)), value(std::string(v)) {}
  Figure(std::string n, bool v) : name(std::move(n)), value(static_cast<long long>(v)) {}
  Figure(std::string n, Value v) : name(std::move(n)), value(std::move(v)) {}

  bool operator==(const Figure&) const = default;
};

struct ReasonDetail;

struct Reason {
  Reason() = default;
  // A reason given as text, e.g. read from a record written before figures (a reader of
  // a record that stored figures and text as well sets detail after: the text read
  // back is the one recorded, not today's rendering of its figures).
  Reason(ReasonCode c, std::string t) : code(c), given_text_(std::move(t)) {}

  ReasonCode code = ReasonCode::kHold;
  // Kind, figures and causes, immutable once made (make_reason) and shared between
  // copies: a reason travels through every stage and copy of a decision, and copying
  // its figures each time cost more than the sizing. Null for a reason given as text.
  std::shared_ptr<const ReasonDetail> detail;

  // The sentence: the text given, else rendered from kind, figures and causes
  // (render_reason) each time it is asked for. Not kept: a tick makes a reason for every
  // variant at every stage and most are never read (a compact decision event stores
  // none), and rendering them all was a sixteenth of `replay verify`.
  std::string text() const;
  const std::string& kind() const;            // "" for a reason given as text only
  const std::vector<Figure>& figures() const;
  const std::vector<Reason>& causes() const;  // the reasons this one wraps, innermost last

  bool operator==(const Reason& other) const;

 private:
  std::optional<std::string> given_text_;
};

struct ReasonDetail {
  std::string kind;
  std::vector<Figure> figures;
  std::vector<Reason> causes;

  bool operator==(const ReasonDetail&) const = default;
};

// A reason of figures, its text rendered when read. Kinds are listed in reason_kinds.cpp;
// an unknown kind or a missing figure renders as "<kind: ...>" so that a programming slip
// shows in the sentence instead of crashing a tick (a test renders every kind).
Reason make_reason(ReasonCode code, std::string kind, std::vector<Figure> figures,
                   std::vector<Reason> causes = {});

// The one place a sentence is written: the text of `kind` filled from the figures (a
// given text is not looked at unless the reason has no kind).
std::string render_reason(const Reason& reason);

// Every kind render_reason knows, for tests and codecs.
std::vector<std::string_view> reason_kinds();

// The figure named `name`, or nullptr.
const Figure::Value* find_figure(const Reason& reason, std::string_view name);

}  // namespace capstan
