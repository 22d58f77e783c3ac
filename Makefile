# numalab - one non-recursive Makefile. `make V=1` shows the commands.
#   make run     install what is missing, build, start the dashboard
#   make test    install what is missing, build, run every test
#   make bench   side-by-side figures (never asserted by tests; QUICK=1: under 2 minutes)
#   SAN=address,undefined or SAN=thread builds under build-SAN/
#   COV=1 builds under build-cov/ with coverage counters (make test-coverage)

BUILD ?= build
CC ?= cc
PKGS = libmicrohttpd gnutls jansson hwloc sqlite3 libcurl
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

CFLAGS ?= -O2 -g
CFLAGS_USER := $(CFLAGS)
# snprintf truncating a long message is intended, not a bug
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Wno-format-truncation -pthread -MMD -MP
# every folder of C code is on the include path: a file includes a header
# by its name, wherever its part of the code lives
SRC_DIRS = lib kernels/harness kernels/experiments server/doc server/http \
	server/store server/runs server/stream server/api cli cli/fleet
INCLUDES = $(addprefix -I,$(SRC_DIRS))
CFLAGS += $(INCLUDES)
CFLAGS += -DNUMALAB_VERSION='"$(VERSION)"'
CFLAGS += -DNUMALAB_CFLAGS='"$(CFLAGS_USER)"'
LDLIBS += -lnuma -lm -pthread

ifdef SAN
BUILD = build-$(subst $(comma),-,$(SAN))
CFLAGS += -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=$(SAN)
endif
comma := ,

# COV=1 builds under build-cov/ with gcov's counters (the coverage lane)
ifdef COV
BUILD = build-cov
CFLAGS += -O0 --coverage
LDFLAGS += --coverage
endif

ifeq ($(V),1)
Q =
else
Q = @
endif

# The parts, lowest first (docs/layout.md): lib/, the experiments' harness
# (kernels/harness/) and the experiments (kernels/experiments/, one file
# each plus registry.c), the run document shared by the worker and the
# server (server/doc/), the server proper (server/http, store, runs,
# stream, api), and the command line with the fleet client (cli/, cli/fleet/;
# cli/main.c dispatches). Every .c of these folders is linked in.
LIB_SRCS = $(sort $(wildcard lib/*.c))
KERNEL_SRCS = $(sort $(wildcard kernels/harness/*.c kernels/experiments/*.c))
SERVER_SRCS = $(sort $(wildcard server/*/*.c))
CLI_SRCS = $(filter-out cli/main.c,$(sort $(wildcard cli/*.c cli/fleet/*.c)))
KERNEL_OBJS = $(LIB_SRCS:%.c=$(BUILD)/%.o) $(KERNEL_SRCS:%.c=$(BUILD)/%.o)
SERVER_OBJS = $(SERVER_SRCS:%.c=$(BUILD)/%.o)
CLI_OBJS = $(CLI_SRCS:%.c=$(BUILD)/%.o)
# everything but main(): what the unit tests link with
LIB_OBJS = $(KERNEL_OBJS) $(SERVER_OBJS) $(CLI_OBJS)

PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

all: $(BUILD)/numalab web/vendor/.stamp

# variable_layout loads these with dlopen from the binary's folder: TLS in a
# shared object, once with a small block and once with a 1 MiB one. Built
# without the sanitizers (nothing in them to check) and with their own flags.
TLS_DSOS = $(BUILD)/libnumalab_tls.so $(BUILD)/libnumalab_tls_big.so
TLS_DSO_FLAGS = -O2 -g -fPIC -shared -Wall -Wextra -Werror

$(BUILD)/libnumalab_tls.so: kernels/experiments/dso/tls_module.c
	@mkdir -p $(dir $@)
	@echo "  CCSO    $@"
	$(Q)$(CC) $(TLS_DSO_FLAGS) -o $@ $<

$(BUILD)/libnumalab_tls_big.so: kernels/experiments/dso/tls_module.c
	@mkdir -p $(dir $@)
	@echo "  CCSO    $@"
	$(Q)$(CC) $(TLS_DSO_FLAGS) -DTLS_MODULE_PAD=1048576 -o $@ $<

$(BUILD)/numalab: $(BUILD)/cli/main.o $(LIB_OBJS) | $(TLS_DSOS)
	@echo "  LINK    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(LDLIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(PKG_CFLAGS) -c -o $@ $<

# openapi.c embeds openapi.json with .incbin, which -MMD cannot see
$(BUILD)/server/doc/openapi.o: server/doc/openapi.json

# Chart.js and its plugins, from npm (pinned by package-lock.json), copied
# next to the page so the server serves them itself.
web/vendor/.stamp: package-lock.json scripts/vendor.sh
	$(Q)scripts/vendor.sh

deps:
	$(Q)scripts/deps.sh run

test-deps:
	$(Q)scripts/deps.sh test

run: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(BUILD)/numalab serve $(ARGS)

include tests/tests.mk

# the unit tests find the shared objects two folders up from build/tests/unit/
$(UNIT_BINS): | $(TLS_DSOS)

# wrk and likwid-bench come from Debian (scripts/deps.sh bench)
bench-deps:
	$(Q)scripts/deps.sh bench

# QUICK=1: fewer rows and pairs, under 2 minutes (a look before a commit)
bench: bench-deps all
	$(Q)BUILD=$(BUILD) MAKE="$(MAKE)" BENCH_QUICK=$(QUICK) scripts/bench.sh

# every C file of ours; wildcard skips a folder that is not there
FORMAT_SRCS = $(sort $(wildcard $(addsuffix /*.[ch],$(SRC_DIRS) kernels/experiments/dso) tests/*/*.[ch]))

format:
	$(Q)clang-format -i $(FORMAT_SRCS)

clean:
	rm -rf build build-* web/vendor

.PHONY: all deps test-deps run test bench bench-deps format clean fuzz

-include $(LIB_OBJS:.o=.d) $(BUILD)/cli/main.d
