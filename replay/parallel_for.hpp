// Runs a tick's models on several threads (run_tick's ForEachModel): for drivers that
// replay many ticks of a large fleet offline (`replay verify`, the benches). The daemon
// needs none: its model actors already run at once on CAF's scheduler.
#pragma once

#include "domain/tick/tick_driver.hpp"

namespace capstan {

// Up to `threads` threads (the caller's among them; 0: one per hardware thread) take the
// models in small batches off a shared counter; the others are started once and kept
// while the returned function or a copy of it lives. An exception thrown by a model's
// body is rethrown on the caller's thread once every thread has stopped. Calls run one
// at a time; a body must not call the same function again.
ForEachModel parallel_for_each(unsigned threads = 0);

}  // namespace capstan
