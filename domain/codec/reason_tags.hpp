// Frozen tag numbers for the names a reason is made of (domain/core/reason.hpp): its
// code, its kind and its figures' names, as the compact decision layout stores them
// (decision_msgpack.hpp). A hybrid decision names about twenty figures and a kind; as
// strings they were most of its 1.3 KB record, as tags they take a byte each.
//
// A tag is a name's index in its table below (reason_tags.cpp). The tables are part of
// the event format: append new names at the end, never reorder, rename or remove one (a
// stored tag must keep its meaning). A name not in a table is stored as its string, so a
// new kind or figure needs no table change to be recorded, only to be recorded small.
#pragma once

#include <optional>
#include <string_view>

#include "domain/core/reason.hpp"

namespace capstan::reason_tags {

// The tag of a name, or nullopt when the table does not hold it.
std::optional<int> code_tag(ReasonCode code);
std::optional<int> kind_tag(std::string_view kind);
std::optional<int> figure_tag(std::string_view figure_name);

// The name of a tag, or nullopt for a tag past the table's end (a record written by a
// newer build).
std::optional<ReasonCode> code_of(long long tag);
std::optional<std::string_view> kind_of(long long tag);
std::optional<std::string_view> figure_of(long long tag);

}  // namespace capstan::reason_tags
