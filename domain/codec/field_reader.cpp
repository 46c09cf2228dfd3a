#include "domain/codec/field_reader.hpp"

#include <cmath>
#include <limits>

namespace capstan {
namespace {

std::string shown(const nlohmann::json& j) {
  std::string text = j.dump();
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return text;
}

}  // namespace

nlohmann::json encode_number(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return value;
}

nlohmann::json encode_numbers(const std::vector<double>& values) {
  nlohmann::json out = nlohmann::json::array();
  for (double v : values) out.push_back(encode_number(v));
  return out;
}

nlohmann::json encode_optional(const std::optional<double>& value) {
  return value ? encode_number(*value) : nlohmann::json();
}

nlohmann::json encode_optional(const std::optional<int>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json();
}

bool is_whole_number(double v) { return v == std::floor(v) && std::abs(v) < 0x1p53 && !(v == 0 && std::signbit(v)); }

nlohmann::json non_finite_as_tokens(nlohmann::json j) {
  if (j.is_number_float()) {
    const double v = j.get<double>();
    if (!std::isfinite(v)) return encode_number(v);
    if (is_whole_number(v)) return static_cast<std::int64_t>(v);
    return j;
  }
  if (j.is_structured()) {
    for (auto& v : j) v = non_finite_as_tokens(std::move(v));
  }
  return j;
}

nlohmann::json non_finite_from_tokens(nlohmann::json j) {
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (s == "nan" || s == "inf" || s == "-inf") return FieldReader(j, "").number();
  }
  if (j.is_structured()) {
    for (auto& v : j) v = non_finite_from_tokens(std::move(v));
  }
  return j;
}

void FieldReader::fail(const std::string& what) const {
  throw CodecError((path_.empty() ? std::string("the document") : path_) + " " + what + ", got " + shown(*json_));
}

FieldReader FieldReader::at(const std::string& key) const {
  if (!json_->is_object()) fail("must be an object");
  auto it = json_->find(key);
  const std::string child = path_.empty() ? key : path_ + "." + key;
  if (it == json_->end()) throw CodecError(child + " is missing");
  return FieldReader(*it, child);
}

bool FieldReader::has(const std::string& key) const { return json_->is_object() && json_->contains(key); }

FieldReader FieldReader::at(std::size_t i) const {
  if (!json_->is_array()) fail("must be an array");
  const std::string child = path_ + "[" + std::to_string(i) + "]";
  if (i >= json_->size()) throw CodecError(child + " is missing");
  return FieldReader((*json_)[i], child);
}

std::size_t FieldReader::size() const {
  if (!json_->is_array()) fail("must be an array");
  return json_->size();
}

std::vector<std::string> FieldReader::keys() const {
  if (!json_->is_object()) fail("must be an object");
  std::vector<std::string> out;
  for (const auto& [k, v] : json_->items()) out.push_back(k);
  return out;
}

double FieldReader::number() const {
  if (json_->is_number()) return json_->get<double>();
  if (json_->is_string()) {
    const auto& s = json_->get_ref<const std::string&>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
  }
  fail("must be a number");
}

double FieldReader::finite_number() const {
  const double v = number();
  if (!std::isfinite(v)) fail("must be a finite number");
  return v;
}

long long FieldReader::integer() const {
  if (json_->is_number_integer()) return json_->get<long long>();
  if (json_->is_number_float()) {
    const double d = json_->get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::abs(d) < 9.0e15) return static_cast<long long>(d);
  }
  fail("must be an integer");
}

int FieldReader::int32() const {
  const long long v = integer();
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) fail("must fit a 32-bit integer");
  return static_cast<int>(v);
}

std::uint64_t FieldReader::unsigned64() const {
  if (json_->is_number_unsigned()) return json_->get<std::uint64_t>();
  const long long v = integer();
  if (v < 0) fail("must be an integer >= 0");
  return static_cast<std::uint64_t>(v);
}

bool FieldReader::boolean() const {
  if (!json_->is_boolean()) fail("must be true or false");
  return json_->get<bool>();
}

std::string FieldReader::string() const {
  if (!json_->is_string()) fail("must be a string");
  return json_->get<std::string>();
}

std::optional<double> FieldReader::optional_number() const {
  if (json_->is_null()) return std::nullopt;
  return number();
}

std::optional<int> FieldReader::optional_int32() const {
  if (json_->is_null()) return std::nullopt;
  return int32();
}

std::vector<double> FieldReader::numbers() const {
  std::vector<double> out(size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = at(i).number();
  return out;
}

void expect_schema(const FieldReader& record, int expected) {
  const FieldReader schema = record.at("schema");
  const long long version = schema.integer();
  if (version != expected) {
    throw CodecError(schema.path() + " " + std::to_string(version) + " is not a version this build reads (" +
                     std::to_string(expected) + ")");
  }
}

}  // namespace capstan
