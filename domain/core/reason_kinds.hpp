// The reason kinds' table and the pattern language its sentences are written in,
// shared by the two halves of rendering: reason_text.cpp (the pattern language, and
// Reason's own functions) and reason_kinds.cpp (one line per kind). Internal to
// domain/core: everything else reads reasons through reason.hpp.
//
// A kind's text is a pattern whose `{name}` fields are filled from the reason's figures:
//   {name}     the figure: a count as an integer, a number by fmt_num, a name as is
//   {name:r}   a number rounded to an integer; {name:r1} to one decimal
//   {name:sp}  a name after a space, or nothing when the name is empty
//   {change}   "scale up 2 -> 3" / "scale down 3 -> 2" / "hold at 2", from the
//              figures `current` and `target`
//   {cause}    the text of the first reason this one wraps; {cause2} the second
// A few kinds whose sentence has optional parts are rendered by a function instead.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "domain/core/reason.hpp"

namespace capstan::reason_text {

using Renderer = std::string (*)(const Reason&);

struct Kind {
  std::string_view name;
  std::string_view pattern;  // used when render is null
  Renderer render = nullptr;
};

// Every kind, as listed in reason_kinds.cpp.
std::span<const Kind> kinds();
// The kind named `name`, or nullptr.
const Kind* find_kind(std::string_view name);

// `pattern` with its fields filled from `r`.
std::string fill(const Reason& r, std::string_view pattern);
// A figure as a number (a count converted), NaN when missing or a name.
double number(const Reason& r, std::string_view name);
// A figure as the pattern field `{name:spec}` writes it.
std::string format_value(const Figure::Value& v, std::string_view spec);
// What a sentence shows in place of something missing: "<kind: no what>".
std::string missing(const Reason& r, std::string_view what);

}  // namespace capstan::reason_text
