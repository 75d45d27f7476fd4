// <trace-cmd/trace-cmd.h> for C++: it includes <tracefs.h>, which needs
// ring/libtracefs.h's overload first, and has extern "C" of its own.
#pragma once

#include "ring/libtracefs.h"

#include <trace-cmd/trace-cmd.h>
