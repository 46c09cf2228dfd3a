#include "sim/report/html_page.hpp"

#include "sim/report/html_escape.hpp"
#include "sim/report/report_assets.hpp"

namespace capstan::sim {

namespace {

const char* kStyle = R"CSS(
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
h1 { font-size: 20px; } h2 { font-size: 17px; margin-top: 32px; }
code, pre { background: #f4f4f4; padding: 2px 4px; }
pre { white-space: pre-wrap; }
table.summary { border-collapse: collapse; }
table.summary th, table.summary td { border-bottom: 1px solid #ddd; padding: 3px 8px; text-align: right; }
table.summary th:first-child, table.summary td:first-child { text-align: left; }
.panel { border: 1px solid #ccc; border-radius: 6px; padding: 12px; margin: 16px 0; }
.charts { display: flex; flex-wrap: wrap; gap: 12px; }
.error { color: #b00; }
details { margin-top: 8px; }
)CSS";

}  // namespace

std::string script_safe(std::string text) {
  for (std::size_t at = text.find("</"); at != std::string::npos; at = text.find("</", at + 3))
    text.replace(at, 2, "<\\/");
  return text;
}

std::string chart_page_head(const std::string& title) {
  std::string html = "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += "<title>" + html_escape(title) + "</title>\n<style>";
  html += uplot_css();
  html += "</style>\n<style>";
  html += kStyle;
  html += "</style>\n<script>";
  html += uplot_js();
  html += "</script>\n</head>\n<body>\n";
  return html;
}

std::string chart_page_tail() { return "<p>Charts: uPlot 1.6.32 (MIT), embedded.</p>\n</body>\n</html>\n"; }

std::string json_script(const std::string& id, const nlohmann::json& data) {
  return "<script type=\"application/json\" id=\"" + id + "\">" +
         script_safe(data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) + "</script>\n";
}

}  // namespace capstan::sim
