// Numbers in human-readable messages and reasons: shortest form that reads back exactly
// enough for a person (up to 6 significant digits), "nan"/"inf" spelt out.
#pragma once

#include <string>

namespace capstan {

std::string fmt_num(double v);

}  // namespace capstan
