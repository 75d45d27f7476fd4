# allocwatch — see README.md. `make test` and `make run` install what they need.
#
#   make              build build/allocwatch
#   make test         install missing Debian packages, build, run every test
#   make test SAN=1   the same under ASan + UBSan (in build-san/)
#   make run T=134us  trace this machine with the default profile (root)
#   make bench        replay generated traces of every shape, print MB/s, lines/s, RSS
#   make bench-live   allocwatch's CPU and memory live under memcg reclaim, raw and text beside cat
#                     (BENCH_THRESHOLDS="50us 1s": a stream at each)
#                     (root; a stream of LINES=200000 lines by default; BASELINE=path
#                     runs an earlier build beside it on the same stream)
#   make e2e          graph mode on Debian's stock kernels under qemu
#                     (KERNELS="5.10 6.1 6.12 7.2" by default; KERNELS=6.1 for one)
#   make fuzz         each libFuzzer harness in tests/fuzz/ for FUZZ_SECONDS (clang)
#   make soak         --watch under memcg reclaim and task churn for SOAK_SECONDS=600 s;
#                     fails if RSS, descriptors, series or a table still grow after
#                     warm-up (root; not in make test; CI runs SOAK_SECONDS=300, and
#                     SOAK_SECONDS=1200 is the long soak: a day of churn, compressed)
#   make deb          the Debian package, in build/deb/ (debhelper), checked by lintian
#   make deb-test     make deb, then install, run and remove it on this machine (root; CI)
#   make install      PREFIX=/usr/local DESTDIR= (the binary, profiles, man pages, the
#                     systemd unit and, unless one is there, /etc/default/allocwatch)

PREFIX ?= /usr/local
DESTDIR ?=
# systemd looks for units in /usr/local/lib/systemd/system too; Debian's
# package puts them in /lib/systemd/system (debian/rules).
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
ENVFILE ?= /etc/default/allocwatch
CXX ?= g++
PKGS := libtracefs libtraceevent libtracecmd yaml-cpp libsystemd

ifeq ($(SAN),1)
BUILD := build-san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
OPT := -O1
else
BUILD := build
SANFLAGS :=
OPT := -O2
endif

SHAREDIR := $(PREFIX)/share/allocwatch
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CPPFLAGS += -Isrc -DALLOCWATCH_SHAREDIR='"$(SHAREDIR)"' -MMD -MP
CXXFLAGS += -std=c++20 $(OPT) -g -Wall -Wextra -Wpedantic -Werror $(SANFLAGS) $(PKG_CFLAGS)
LDFLAGS += $(SANFLAGS)
LDLIBS += $(PKG_LIBS)

# Every .cpp under src/ is part of the program; *_test.cpp files are its unit
# tests and src/cli/main.cpp is the entry point. New files need no Makefile edit.
ALL_SRCS := $(shell find src -name '*.cpp' | sort)
TEST_SRCS := $(filter %_test.cpp,$(ALL_SRCS))
MAIN_SRC := src/cli/main.cpp
LIB_SRCS := $(filter-out $(TEST_SRCS) $(MAIN_SRC),$(ALL_SRCS))
obj = $(patsubst %.cpp,$(BUILD)/%.o,$(1))

BIN := $(BUILD)/allocwatch
UNIT := $(BUILD)/unit-tests
# tests/gentrace/*.cpp: traces with the output allocwatch must print for
# them; it links nothing of src/ (an independent oracle).
GENTRACE := $(BUILD)/gentrace
GENTRACE_SRCS := $(sort $(wildcard tests/gentrace/*.cpp))
# tests/fuzz/*.cpp are libFuzzer harnesses (but replay_main.cpp); make test
# runs each, built with $(CXX), over its seeds and past findings.
FUZZ_HARNESSES := $(filter-out replay_main,$(basename $(notdir $(wildcard tests/fuzz/*.cpp))))
FUZZ_REPLAYS := $(addprefix $(BUILD)/fuzz-replay-,$(FUZZ_HARNESSES))
# tests/kshark/kshark_records.c: a trace.dat as KernelShark's library reads
# it, which the live and VM tests set beside trace-cmd report's reading (an
# independent reader, none of src/; built without the sanitizers).
KSHARK := $(BUILD)/kshark-records
LIB := $(BUILD)/liballocwatch.a

.PHONY: all deps test check run bench e2e soak deb deb-test install clean fuzz
.PHONY: bench-live
all: $(BIN)

# The share directory is compiled in (the profile search path): a change of
# PREFIX must rebuild what uses it, so it is kept in a file that only changes
# when PREFIX does.
SHAREDIR_STAMP := $(BUILD)/sharedir.stamp
$(shell mkdir -p $(BUILD); [ "$$(cat $(SHAREDIR_STAMP) 2>/dev/null)" = "$(SHAREDIR)" ] || echo "$(SHAREDIR)" > $(SHAREDIR_STAMP))
$(BUILD)/src/profile/search.o: $(SHAREDIR_STAMP)

$(BUILD)/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(CPPFLAGS) $(CXXFLAGS) -c $< -o $@

# Test support (the fake tracefs) is for the unit tests and the fuzz
# harnesses only; the program's own sources cannot include it.
TEST_SUPPORT := -Itests/support
$(call obj,$(TEST_SRCS)) $(BUILD)/tests/fuzz/%.o: CPPFLAGS += $(TEST_SUPPORT)

$(LIB): $(call obj,$(LIB_SRCS))
	@rm -f $@
	ar rcs $@ $^

$(BIN): $(call obj,$(MAIN_SRC)) $(LIB)
	$(CXX) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(UNIT): $(call obj,$(TEST_SRCS) tests/unit/main.cpp) $(LIB)
	$(CXX) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(GENTRACE): $(call obj,$(GENTRACE_SRCS))
	$(CXX) $(LDFLAGS) $^ -o $@

$(KSHARK): tests/kshark/kshark_records.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror $(shell pkg-config --cflags libkshark 2>/dev/null) \
	  $< $(shell pkg-config --libs libkshark 2>/dev/null) -o $@

deps:
	@scripts/install-deps.sh build

# The sub-make re-reads this file after deps, so pkg-config sees new packages.
# The fleet set: Prometheus, node_exporter, debhelper for tests/fleet, tests/deb;
# the check set: KernelShark's library for tests/kshark.
test: deps
	@scripts/install-deps.sh fleet check
	@$(MAKE) --no-print-directory -j$$(nproc) $(BIN) $(UNIT) $(GENTRACE) $(FUZZ_REPLAYS) $(KSHARK)
	@$(MAKE) --no-print-directory check

check: $(BIN) $(UNIT) $(GENTRACE) $(FUZZ_REPLAYS) $(KSHARK)
	@tests/run-all.sh $(BUILD)

T ?=
P ?= default
# Only allocwatch writes to stdout, so that `make run T=134us > out.dat` holds
# the trace and nothing of make's.
run: deps
	@$(MAKE) --no-print-directory $(BIN) >&2
	@echo "$(BIN) -p $(P) $(if $(T),-t $(T))" >&2
	@$(BIN) -p $(P) $(if $(T),-t $(T))

bench: deps
	@$(MAKE) --no-print-directory $(BIN) $(GENTRACE)
	@scripts/bench.sh $(BUILD)

# Live: takes /tmp/allocwatch-live.lock itself. One stream per threshold:
# at 50us most records print, at 1s none do.
LINES ?= 200000
BENCH_THRESHOLDS ?= 50us 1s
bench-live: deps
	@$(MAKE) --no-print-directory $(BIN)
	@for t in $(BENCH_THRESHOLDS); do THRESHOLD=$$t scripts/bench-live.sh $(BUILD) $(LINES) || exit 1; echo; done

KERNELS ?= 5.10 6.1 6.12 7.2
e2e: deps
	@scripts/install-deps.sh e2e check
	@$(MAKE) --no-print-directory $(BIN) $(KSHARK)
	@scripts/vm-e2e.sh $(BIN) $(KERNELS)

# Live: takes /tmp/allocwatch-live.lock itself, for the whole run.
SOAK_SECONDS ?= 600
soak: deps
	@$(MAKE) --no-print-directory $(BIN)
	@SOAK_SECONDS=$(SOAK_SECONDS) scripts/soak.sh $(BIN)

deb: deps
	@scripts/install-deps.sh fleet
	@scripts/make-deb.sh build/deb

# make test has run the unit tests: the package build skips them here.
deb-test: deps
	@scripts/install-deps.sh fleet
	@DEB_BUILD_OPTIONS=nocheck scripts/make-deb.sh build/deb >/dev/null
	@scripts/deb-test.sh build/deb/allocwatch_*.deb

install: $(BIN)
	install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/sbin/allocwatch
	install -D -m 0644 man/allocwatch.8 $(DESTDIR)$(PREFIX)/share/man/man8/allocwatch.8
	install -D -m 0644 man/allocwatch-profile.5 $(DESTDIR)$(PREFIX)/share/man/man5/allocwatch-profile.5
	install -d $(DESTDIR)$(SHAREDIR)/profiles
	install -m 0644 configs/*.yaml $(DESTDIR)$(SHAREDIR)/profiles/
	# The unit names the binary and the settings where this install puts them.
	sed -e 's|@SBINDIR@|$(PREFIX)/sbin|g' -e 's|@ENVFILE@|$(ENVFILE)|g' \
	  systemd/allocwatch.service.in > $(BUILD)/allocwatch.service
	install -D -m 0644 $(BUILD)/allocwatch.service $(DESTDIR)$(SYSTEMDUNITDIR)/allocwatch.service
	# The settings are the operator's: a file already there is kept.
	[ -e $(DESTDIR)$(ENVFILE) ] || install -D -m 0644 systemd/allocwatch.default $(DESTDIR)$(ENVFILE)

$(BUILD)/fuzz-replay-%: $(call obj,tests/fuzz/%.cpp tests/fuzz/replay_main.cpp) $(LIB)
	$(CXX) $(LDFLAGS) $^ $(LDLIBS) -o $@

# make fuzz FUZZ_SECONDS=N [FUZZ_TARGETS="parse_line pipeline"]: each harness
# under libFuzzer with ASan+UBSan for N seconds, built with clang in
# build-fuzz/; fails on any finding (tests/fuzz/run-fuzzers.sh).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= $(FUZZ_HARNESSES)
FUZZ_DIR := build-fuzz
FUZZ_CXXFLAGS := -std=c++20 -O1 -g -Wall -Wextra -Werror -fno-omit-frame-pointer \
  -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
FUZZ_LINKFLAGS := -fsanitize=fuzzer,address,undefined
FUZZ_LIB := $(FUZZ_DIR)/liballocwatch.a
fuzz_obj = $(patsubst %.cpp,$(FUZZ_DIR)/%.o,$(1))

$(FUZZ_DIR)/%.o: %.cpp
	@mkdir -p $(dir $@)
	clang++ -Isrc $(TEST_SUPPORT) -DALLOCWATCH_SHAREDIR='"$(SHAREDIR)"' -MMD -MP $(FUZZ_CXXFLAGS) $(PKG_CFLAGS) -c $< -o $@

$(FUZZ_LIB): $(call fuzz_obj,$(LIB_SRCS))
	@rm -f $@
	ar rcs $@ $^

$(FUZZ_DIR)/fuzz-%: $(FUZZ_DIR)/tests/fuzz/%.o $(FUZZ_LIB)
	clang++ $(FUZZ_LINKFLAGS) $^ $(LDLIBS) -o $@

fuzz: deps
	@scripts/install-deps.sh fuzz
	@$(MAKE) --no-print-directory -j$$(nproc) $(addprefix $(FUZZ_DIR)/fuzz-,$(FUZZ_TARGETS))
	@tests/fuzz/run-fuzzers.sh $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

clean:
	rm -rf build build-san build-fuzz

# Not build/deb's: that is a copy of the tree, built by its own make.
-include $(shell find $(BUILD) -path $(BUILD)/deb -prune -o -name '*.d' -print 2>/dev/null)
-include $(shell find $(FUZZ_DIR) -name '*.d' 2>/dev/null)
