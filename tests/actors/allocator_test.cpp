// Every capstan executable (the daemon, the benches, these tests) links jemalloc with the
// options allocator.cpp sets; a build that loses either (the object library dropped, the
// `malloc_conf` symbol not exported to the shared jemalloc) would run the daemon on
// glibc's malloc, 2.5x slower at 10,000 variants, with nothing failing.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include <catch2/catch.hpp>
#include <jemalloc/jemalloc.h>

TEST_CASE("the executables allocate with jemalloc, one arena as allocator.cpp sets", "[allocator]") {
  unsigned arenas = 0;
  std::size_t size = sizeof(arenas);
  REQUIRE(mallctl("opt.narenas", &arenas, &size, nullptr, 0) == 0);
  CHECK(arenas == 1);

  // And malloc itself is jemalloc's: this thread's allocated bytes grow by what it asks.
  auto allocated = [] {
    std::uint64_t bytes = 0;
    std::size_t n = sizeof(bytes);
    REQUIRE(mallctl("thread.allocated", &bytes, &n, nullptr, 0) == 0);
    return bytes;
  };
  const std::uint64_t before = allocated();
  void* volatile p = std::malloc(4096);
  REQUIRE(p != nullptr);
  CHECK(allocated() - before >= 4096);
  std::free(p);
}
