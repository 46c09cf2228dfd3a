// The frame the HTML reports with charts share (`capstan simulate --report`, `capstan
// replay report`): one self-contained page with uPlot 1.6.32 (report_assets.hpp) and the
// common style inlined, and data handed to the page's script as JSON blocks.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace capstan::sim {

// "<!doctype html> ... <body>\n" with the title escaped, uPlot and the style inlined.
std::string chart_page_head(const std::string& title);
// The credit line and the closing tags.
std::string chart_page_tail();
// <script type="application/json" id="ID">...</script>, safe inside a page.
std::string json_script(const std::string& id, const nlohmann::json& data);
// Inside <script>, "</" would end the element early.
std::string script_safe(std::string text);

}  // namespace capstan::sim
