// ASan's options for the test binaries that open forged trace.dat files:
// the unit tests and the trace_dat fuzz harness. Included by one file of
// each binary (it defines the hook); without ASan the hook is never called.
//
// DatInput reads a file in a child process first, where libtracecmd
// allocates what the file's header says: a forged chunk count asks for
// 21 GB. ASan would map it and write its shadow (2.6 GB, 10 to 15 s here)
// before anything stops it. With one allocation limited to 2 GB, ASan
// refuses it at once and the child dies of it, a refused file. (The
// largest the tests make themselves is a held store's 1 GiB, reserved and
// touched only as used; make fuzz's -malloc_limit_mb keeps its harnesses
// to 512 MB.)
#pragma once

extern "C" const char* __asan_default_options() {
  return "max_allocation_size_mb=2048";
}
