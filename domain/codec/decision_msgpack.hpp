// A decision event's payload in its compact layout, schema 2 (issue 21: a tick's bytes).
// Schema 1 (event_codec.hpp) stored a decision as a JSON object: member names, the
// model again (the store's envelope already holds it), the reason's rendered sentence,
// and each cause's sentence inside it again, and every figure as {"n": name, "x": value}:
// 1,310 bytes for a hybrid decision, half of a tick's bytes. Schema 2 stores what the
// sentence is rendered from, positionally:
//
//   payload  [2, variant, current_replicas, target_replicas, reason]
//   reason   [code, kind, figures, causes]   a reason with a kind
//            [code, text]                    a reason given as text only
//   code     tag (reason_tags.hpp) | name
//   kind     tag | name
//   figures  [name, value, name, value, ...]: name a tag or a string; value an integer
//            (a count), a float (a number; NaN as the one quiet NaN) or a string (a name)
//   causes   [reason, ...]
//
// The model is the envelope's (storage/records.hpp), the type the envelope's "type".
// A reason with a kind is read back through make_reason, so its text is rendered by the
// reading build (reason.hpp: the sentence is rendered from the figures, at the edge);
// figures, codes and kinds read back exactly, doubles bit for bit.
//
// Two writers give the same bytes (the JSON tree's to_msgpack, the reference, and the
// direct MsgpackWriter); two readers take them: the direct one for the layout as written,
// throwing MsgpackMismatch at anything else, and the tree's, which names the field at
// fault ("payload.reason.figures[3] must be ...").
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "domain/core/decision.hpp"

namespace capstan {

class FieldReader;
class MsgpackWriter;
class MsgpackReader;

inline constexpr int kDecisionLayoutSchema = 2;

// The payload as a JSON tree (an array), the model left out.
nlohmann::json encode_decision_compact(const Decision& decision);
// The payload read from the tree, for `model`; throws CodecError naming the field, or for
// a schema other than 2.
Decision read_decision_compact(const FieldReader& payload, const ModelKey& model);

// The same bytes written straight, and read straight (throws MsgpackMismatch).
void write_decision_msgpack(MsgpackWriter& w, const Decision& decision);
Decision read_decision_msgpack(MsgpackReader& r, const ModelKey& model);

}  // namespace capstan
