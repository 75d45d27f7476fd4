#include "util/result.h"

#include <doctest/doctest.h>
#include <memory>
#include <string>

using namespace allocwatch;

namespace {
Result<std::unique_ptr<int>> made(bool ok) {
  if (!ok)
    return Error{"cannot make it"};
  return std::make_unique<int>(7);
}
} // namespace

TEST_CASE("value_or_throw: the value moved out, or FatalError with the message and exit status") {
  const std::unique_ptr<int> value = value_or_throw(made(true));
  REQUIRE(value != nullptr);
  CHECK(*value == 7);

  try {
    (void)value_or_throw(made(false), 2);
    FAIL("no FatalError");
  } catch (const FatalError& e) {
    CHECK(std::string(e.what()) == "cannot make it");
    CHECK(e.exit_code() == 2);
  }
  try {
    (void)value_or_throw(made(false));
    FAIL("no FatalError");
  } catch (const FatalError& e) {
    CHECK(e.exit_code() == 1);
  }
}

TEST_CASE("throw_on_error: nothing for Ok, FatalError with the message and exit status") {
  // A named Status: GCC 12's -O1 with the sanitizers warns of a temporary's
  // variant as maybe uninitialized.
  const Status ok = Ok{};
  CHECK_NOTHROW(throw_on_error(ok));
  try {
    throw_on_error(Status(Error{"cannot write out.json"}), 2);
    FAIL("no FatalError");
  } catch (const FatalError& e) {
    CHECK(std::string(e.what()) == "cannot write out.json");
    CHECK(e.exit_code() == 2);
  }
}
