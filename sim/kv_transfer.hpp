// The KV-cache hand-off of a disaggregated (prefill/decode) fleet as one latency term:
// once the router has picked a decode replica for a prompt a prefill replica has
// computed, the prompt's KV cache arrives there after
//
//   transfer_s = fixed_ms / 1000 + input_tokens x bytes_per_token x 8 / (gbps x 1e9)
//
// and only then is the prefill replica's copy freed. Links are not shared: transfers
// do not slow each other down (no contention), which holds while the link is far from
// saturated (see sim/README.md, "Prefill/decode disaggregation").
#pragma once

namespace capstan::sim {

// Llama-2-70B's KV per token: K and V x 80 layers x 8 KV heads x 128 head dim x 2 bytes (fp16).
inline constexpr double kLlama2_70bKvBytesPerToken = 2.0 * 80 * 8 * 128 * 2;  // 327,680

struct KvTransferConfig {
  double fixed_ms = 5;       // per transfer: connection setup, block-table exchange, notification
  double gbps = 25;          // link bandwidth, gigabits per second (network convention)
  double bytes_per_token = kLlama2_70bKvBytesPerToken;
};

// Seconds to move the KV cache of `tokens` prompt tokens from a prefill to a decode replica.
double kv_transfer_s(const KvTransferConfig& config, int tokens);

}  // namespace capstan::sim
