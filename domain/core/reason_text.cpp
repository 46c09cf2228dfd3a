// The pattern language reason sentences are written in (reason_kinds.hpp), and Reason's
// own functions: its accessors, make_reason and render_reason, the one place a sentence
// is rendered. The sentences themselves, one line per kind, are in reason_kinds.cpp.
#include <cmath>
#include <utility>

#include "domain/core/decision.hpp"
#include "domain/core/format.hpp"
#include "domain/core/reason_kinds.hpp"

namespace capstan {
namespace reason_text {

std::string missing(const Reason& r, std::string_view what) {
  return "<" + r.kind() + ": no " + std::string(what) + ">";
}

double number(const Reason& r, std::string_view name) {
  const Figure::Value* v = find_figure(r, name);
  if (!v) return std::nan("");
  if (const auto* d = std::get_if<double>(v)) return *d;
  if (const auto* i = std::get_if<long long>(v)) return static_cast<double>(*i);
  return std::nan("");
}

static double significant(double d, int digits) {
  const double scale = std::pow(10.0, digits - 1 - std::floor(std::log10(std::abs(d))));
  return std::round(d * scale) / scale;
}

std::string format_value(const Figure::Value& v, std::string_view spec) {
  if (const auto* s = std::get_if<std::string>(&v)) return spec == "sp" && !s->empty() ? " " + *s : *s;
  if (const auto* i = std::get_if<long long>(&v)) {
    if (spec.empty()) return std::to_string(*i);
    return fmt_num(static_cast<double>(*i));
  }
  const double d = std::get<double>(v);
  // Rounded for reading, but a rate is never rounded to 0 ("8 per 0 req/s", issue 22):
  // below 0.5 it keeps two significant digits.
  if (spec == "r") return fmt_num(d != 0 && std::abs(d) < 0.5 ? significant(d, 2) : std::round(d));
  if (spec == "r1") return fmt_num(std::round(d * 10) / 10);
  return fmt_num(d);
}

std::string fill(const Reason& r, std::string_view pattern) {
  std::string out;
  out.reserve(pattern.size() + 32);
  std::size_t i = 0;
  while (i < pattern.size()) {
    const std::size_t open = pattern.find('{', i);
    if (open == std::string_view::npos) {
      out.append(pattern.substr(i));
      break;
    }
    out.append(pattern.substr(i, open - i));
    const std::size_t close = pattern.find('}', open);
    std::string_view field = pattern.substr(open + 1, close - open - 1);
    std::string_view spec;
    if (const std::size_t colon = field.find(':'); colon != std::string_view::npos) {
      spec = field.substr(colon + 1);
      field = field.substr(0, colon);
    }
    if (field == "change") {
      const Figure::Value* from = find_figure(r, "current");
      const Figure::Value* to = find_figure(r, "target");
      if (from && to && std::holds_alternative<long long>(*from) && std::holds_alternative<long long>(*to)) {
        out += describe_change(static_cast<int>(std::get<long long>(*from)), static_cast<int>(std::get<long long>(*to)));
      } else {
        out += missing(r, "current/target");
      }
    } else if (field == "cause" || field == "cause2") {
      const std::size_t k = field == "cause" ? 0 : 1;
      out += k < r.causes().size() ? r.causes()[k].text() : missing(r, field);
    } else if (const Figure::Value* v = find_figure(r, field)) {
      out += format_value(*v, spec);
    } else {
      out += missing(r, field);
    }
    i = close + 1;
  }
  return out;
}

}  // namespace reason_text

std::string Reason::text() const {
  if (given_text_) return *given_text_;
  return kind().empty() ? std::string() : render_reason(*this);
}

const std::string& Reason::kind() const {
  static const std::string kNone;
  return detail ? detail->kind : kNone;
}

const std::vector<Figure>& Reason::figures() const {
  static const std::vector<Figure> kNone;
  return detail ? detail->figures : kNone;
}

const std::vector<Reason>& Reason::causes() const {
  static const std::vector<Reason> kNone;
  return detail ? detail->causes : kNone;
}

bool Reason::operator==(const Reason& other) const {
  if (code != other.code) return false;
  if (detail != other.detail && (!detail || !other.detail || !(*detail == *other.detail))) return false;
  // Equal details render equal sentences: only a given text is compared.
  return (!given_text_ && !other.given_text_) || text() == other.text();
}

const Figure::Value* find_figure(const Reason& reason, std::string_view name) {
  for (const Figure& f : reason.figures()) {
    if (f.name == name) return &f.value;
  }
  return nullptr;
}

std::string render_reason(const Reason& reason) {
  if (reason.kind().empty()) return reason.text();
  const reason_text::Kind* kind = reason_text::find_kind(reason.kind());
  if (!kind) return "<unknown reason kind " + reason.kind() + ">";
  return kind->render ? kind->render(reason) : reason_text::fill(reason, kind->pattern);
}

Reason make_reason(ReasonCode code, std::string kind, std::vector<Figure> figures, std::vector<Reason> causes) {
  Reason r;
  r.code = code;
  r.detail = std::make_shared<const ReasonDetail>(ReasonDetail{std::move(kind), std::move(figures), std::move(causes)});
  return r;
}

std::vector<std::string_view> reason_kinds() {
  std::vector<std::string_view> out;
  for (const reason_text::Kind& k : reason_text::kinds()) out.push_back(k.name);
  return out;
}

}  // namespace capstan
