// What the compact event layouts (decision_msgpack.hpp, sizing_msgpack.hpp) share: a
// payload is a MessagePack array whose first element is its schema and whose other
// elements are the fields in a frozen order, with no member names, and with the model
// and type left to the store's envelope. These helpers read such an array through the
// JSON tree under the fields' own names, so that an error names the field
// ("payload.reason.figures must ..."), and write a double so that equal bytes mean
// equal doubles.
#pragma once

#include <cstddef>

#include <nlohmann/json.hpp>

#include "domain/codec/field_reader.hpp"

namespace capstan::compact_layout {

// A double as a tree value: every NaN as the one quiet NaN (MsgpackWriter::float_exact
// writes the same bytes).
nlohmann::json float_exact(double v);
// A double as MsgpackWriter::whole_or_float_exact writes it: a whole one (not -0) as an
// integer, else as float_exact.
nlohmann::json whole_or_float_exact(double v);

// Element `i` of the array `array`, named `name` in errors.
FieldReader element(const FieldReader& array, std::size_t i, const char* name);

// The array's schema (its first element) must be `schema` ("payload.schema 3 is not a
// <what> layout this build reads (1 or 2)"), and it must hold `size` elements, listed
// in `fields` for the error.
void expect_layout(const FieldReader& payload, int schema, const char* what, std::size_t size, const char* fields);

}  // namespace capstan::compact_layout
