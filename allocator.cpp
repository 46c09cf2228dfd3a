// The daemon's memory allocator: jemalloc (Debian's libjemalloc-dev), linked into every
// executable, with its defaults set here. Why not glibc's malloc: a tick's values are
// made on one CAF worker and freed on another (a model's plan, the journal's batch, the
// actuator's decisions), and glibc serialises those frees on its arena locks and
// consolidates its free lists under them; at 10,000 variants that was 60% of a tick's
// CPU (`perf record bench/daemon_bench 26 10000x1`), and the tick fell from 685 ms to
// 265 ms with jemalloc (README, "Performance"). One arena: each thread's cache serves the
// many small, short-lived allocations, and a single arena keeps the resident set at 1,000
// variants as small as glibc's (58 MiB against 54; jemalloc's default of four arenas per
// core held 93). An operator may still override any option with MALLOC_CONF.
extern "C" {
// Read by jemalloc when it initialises (its `malloc_conf` option source).
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables)
const char* malloc_conf = "narenas:1";
}
