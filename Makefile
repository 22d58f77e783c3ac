# numalab - one non-recursive Makefile. `make V=1` shows the commands.
#   make run     install what is missing, build, start the dashboard
#   make test    install what is missing, build, run every test
#   make bench   side-by-side figures (never asserted by tests)
#   SAN=address,undefined or SAN=thread builds under build-SAN/
#   COV=1 builds under build-cov/ with coverage counters (make test-coverage)

BUILD ?= build
CC ?= cc
PKGS = libmicrohttpd jansson hwloc sqlite3 libcurl
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

CFLAGS ?= -O2 -g
CFLAGS_USER := $(CFLAGS)
# snprintf truncating a long message is intended, not a bug
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Wno-format-truncation -pthread -MMD -MP
CFLAGS += -Ilib -Ikernels -Iserver -Icli
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

# Every kernels/*.c is linked in: an experiment is one new file there
# plus one line in kernels/registry.c. server/ is the dashboard and API,
# cli/ the command-line front end (cli/main.c dispatches to both).
LIB_SRCS = $(sort $(wildcard lib/*.c))
KERNEL_SRCS = $(sort $(wildcard kernels/*.c))
SERVER_SRCS = $(sort $(wildcard server/*.c))
CLI_SRCS = $(filter-out cli/main.c,$(sort $(wildcard cli/*.c)))
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

$(BUILD)/libnumalab_tls.so: kernels/dso/tls_module.c
	@mkdir -p $(dir $@)
	@echo "  CCSO    $@"
	$(Q)$(CC) $(TLS_DSO_FLAGS) -o $@ $<

$(BUILD)/libnumalab_tls_big.so: kernels/dso/tls_module.c
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
$(BUILD)/server/openapi.o: server/openapi.json

# Chart.js and its plugins, from npm (pinned by package-lock.json), copied
# next to the page so the server serves them itself.
web/vendor/.stamp: package-lock.json scripts/vendor.sh
	$(Q)scripts/vendor.sh

deps:
	$(Q)scripts/deps.sh run

test-deps:
	$(Q)scripts/deps.sh test

run: deps all
	$(Q)$(BUILD)/numalab serve $(ARGS)

include tests/tests.mk

# the unit tests find the shared objects two folders up from build/tests/unit/
$(UNIT_BINS): | $(TLS_DSOS)

# wrk and likwid-bench come from Debian (scripts/deps.sh bench)
bench-deps:
	$(Q)scripts/deps.sh bench

bench: bench-deps all
	$(Q)BUILD=$(BUILD) MAKE="$(MAKE)" scripts/bench.sh

# every C file of ours; wildcard skips a folder that is not there
FORMAT_SRCS = $(sort $(wildcard $(addsuffix /*.[ch],lib kernels server cli) tests/*/*.[ch]))

format:
	$(Q)clang-format -i $(FORMAT_SRCS)

clean:
	rm -rf build build-* web/vendor

.PHONY: all deps test-deps run test bench bench-deps format clean fuzz

-include $(LIB_OBJS:.o=.d) $(BUILD)/cli/main.d
