// Aligned text table of simulate results; see simulate_table.hpp.
#include "adapters/cli/simulate_table.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace capstan::cli {

namespace {

std::string number(const nlohmann::json& v, int decimals) {
  if (!v.is_number()) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v.get<double>());
  return buf;
}

struct Column {
  const char* title;
  const char* field;
  int decimals;  // -1: text
};

const std::vector<Column> kColumns{
    {"policy", "policy", -1},          {"requests", "requests", 0},
    {"slo_att", "slo_attainment", 3},  {"failed", "failed", 0},
    {"ttft_p50_ms", "ttft_p50_ms", 0}, {"ttft_p99_ms", "ttft_p99_ms", 0},
    {"itl_p50_ms", "itl_p50_ms", 1},   {"itl_p99_ms", "itl_p99_ms", 1},
    {"gpu_hours", "gpu_hours", 2},     {"cost", "cost", 2},
    {"actions", "scale_actions", 0},   {"vs_oracle", "gpu_hours_vs_oracle", 2},
    {"vs_static", "vs_static", 2},     {"error", "error", -1},
};

std::string align(const std::vector<std::vector<std::string>>& rows);

}  // namespace

std::string median_worst_text(const nlohmann::json& figure, int decimals) {
  if (!figure.is_object()) return "-";
  return number(figure.value("median", nlohmann::json()), decimals) + " (" +
         number(figure.value("worst", nlohmann::json()), decimals) + ")";
}

std::string format_simulate_table(const nlohmann::json& summary) {
  std::vector<std::vector<std::string>> rows;
  rows.emplace_back();
  for (const Column& c : kColumns) rows.back().push_back(c.title);
  for (const auto& p : summary.at("policies")) {
    rows.emplace_back();
    for (const Column& c : kColumns) {
      const auto& v = p.contains(c.field) ? p.at(c.field) : nlohmann::json(nullptr);
      if (c.decimals >= 0) {
        rows.back().push_back(number(v, c.decimals));
      } else {
        rows.back().push_back(v.is_string() ? v.get<std::string>() : "");
      }
    }
  }
  return align(rows);
}

std::string format_seeds_table(const nlohmann::json& aggregate) {
  std::vector<std::vector<std::string>> rows;
  rows.emplace_back();
  for (const Column& c : kColumns) rows.back().push_back(c.field == std::string("error") ? "errors" : c.title);
  for (const auto& p : aggregate.at("policies")) {
    rows.emplace_back();
    for (const Column& c : kColumns) {
      if (c.field == std::string("policy")) rows.back().push_back(p.at("policy").get<std::string>());
      else if (c.field == std::string("error")) rows.back().push_back(std::to_string(p.value("errors", 0)));
      else rows.back().push_back(median_worst_text(p.value(c.field, nlohmann::json()), c.decimals));
    }
  }
  return align(rows);
}

namespace {

std::string align(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width(kColumns.size(), 0);
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const bool last = i + 1 == row.size();
      const std::string pad(width[i] - row[i].size(), ' ');
      if (kColumns[i].decimals < 0) {
        line += last ? row[i] : row[i] + pad;  // text left-aligned
      } else {
        line += pad + row[i];
      }
      if (!last) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace

}  // namespace capstan::cli
