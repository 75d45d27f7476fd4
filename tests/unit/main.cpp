// The unit tests live beside the code they test (src/**/*_test.cpp).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "../support/asan_options.h"

#include <doctest/doctest.h>
