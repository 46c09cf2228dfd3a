// The HTML report's charting library, uPlot 1.6.32 (MIT; sim/report/vendor/), embedded
// into the binary at build time by cmake/embed_assets.cmake, so that a report is one
// self-contained file that opens offline.
#pragma once

#include <string_view>

namespace capstan::sim {

std::string_view uplot_js();
std::string_view uplot_css();

}  // namespace capstan::sim
