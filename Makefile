# numalab - one non-recursive Makefile. `make V=1` shows the commands.
#   make run     install what is missing, build, start the dashboard
#   make test    install what is missing, build, run every test
#   make install PREFIX=/usr/local DESTDIR=  (make uninstall: the same files)
#   make bench   side-by-side figures (never asserted by tests; QUICK=1: under 2 minutes)
#   SAN=address,undefined or SAN=thread builds under build-SAN/
#   COV=1 builds under build-cov/ with coverage counters (make test-coverage)

BUILD ?= build
CC ?= cc
PKGS = libmicrohttpd gnutls jansson hwloc sqlite3 libcurl zlib
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

CFLAGS ?= -O2 -g
CFLAGS_USER := $(CFLAGS)
# snprintf truncating a long message is intended, not a bug
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Wno-format-truncation -pthread -MMD -MP
# every folder of C code is on the include path: a file includes a header
# by its name, wherever its part of the code lives
SRC_DIRS = lib kernels/harness kernels/experiments server/rundoc server/http \
	server/store server/runs server/stream server/api cli cli/fleet
INCLUDES = $(addprefix -I,$(SRC_DIRS))
CFLAGS += $(INCLUDES)
CFLAGS += -DNUMALAB_CFLAGS='"$(CFLAGS_USER)"'
LDLIBS += -lnuma -lm -pthread

ifdef SAN
BUILD = build-$(subst $(comma),-,$(SAN))
CFLAGS += -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=$(SAN)
FLAVOR = -fsanitize=$(SAN)
endif
comma := ,

# COV=1 builds under build-cov/ with gcov's counters (the coverage lane)
ifdef COV
BUILD = build-cov
CFLAGS += -O0 --coverage
LDFLAGS += --coverage
FLAVOR = --coverage
endif
# an instrumented build says so in its rates' fingerprint: a cached rate
# applies only to a build that runs the kernels as fast
ifdef FLAVOR
CFLAGS += -DNUMALAB_FLAVOR='"$(FLAVOR)"'
endif

ifeq ($(V),1)
Q =
else
Q = @
endif

# The parts, lowest first (docs/layout.md): lib/, the experiments' harness
# (kernels/harness/) and the experiments (kernels/experiments/, one file
# each plus registry.c), the run document shared by the worker and the
# server (server/rundoc/), the server proper (server/http, store, runs,
# stream, api), and the command line with the fleet client (cli/, cli/fleet/;
# cli/main.c dispatches). Every .c of these folders is linked in.
LIB_SRCS = $(sort $(wildcard lib/*.c))
# an experiment of several parts is a folder, a file a part (dso/ and
# template/ are not experiments of the program)
KERNEL_SRCS = $(sort $(wildcard kernels/harness/*.c kernels/experiments/*.c) \
	$(filter-out kernels/experiments/dso/% kernels/experiments/template/%,\
		$(wildcard kernels/experiments/*/*.c)))
SERVER_SRCS = $(sort $(wildcard server/*/*.c))
CLI_SRCS = $(filter-out cli/main.c cli/worker_main.c,$(sort $(wildcard cli/*.c cli/fleet/*.c)))
KERNEL_OBJS = $(LIB_SRCS:%.c=$(BUILD)/%.o) $(KERNEL_SRCS:%.c=$(BUILD)/%.o)
SERVER_OBJS = $(SERVER_SRCS:%.c=$(BUILD)/%.o)
CLI_OBJS = $(CLI_SRCS:%.c=$(BUILD)/%.o)
# everything but main(): what the unit tests link with
LIB_OBJS = $(KERNEL_OBJS) $(SERVER_OBJS) $(CLI_OBJS)

PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

all: $(BUILD)/numalab $(BUILD)/numalab-worker web/vendor/.stamp

# variable_layout loads these with dlopen from the binary's folder: TLS in a
# shared object, once with a small block and once with a 1 MiB one. Built
# without the sanitizers (nothing in them to check) and with their own flags.
TLS_DSOS = $(BUILD)/libnumalab_tls.so $(BUILD)/libnumalab_tls_big.so
TLS_DSO_FLAGS = -O2 -g -fPIC -shared -Wall -Wextra -Werror -Wl,--no-as-needed -lc

$(BUILD)/libnumalab_tls.so: kernels/experiments/dso/tls_module.c
	@mkdir -p $(dir $@)
	@echo "  CCSO    $@"
	$(Q)$(CC) $(TLS_DSO_FLAGS) -o $@ $<

$(BUILD)/libnumalab_tls_big.so: kernels/experiments/dso/tls_module.c
	@mkdir -p $(dir $@)
	@echo "  CCSO    $@"
	$(Q)$(CC) $(TLS_DSO_FLAGS) -DTLS_MODULE_PAD=1048576 -o $@ $<

# the server execs numalab-worker for each run: built with numalab, so
# whatever starts a server from $(BUILD)/ finds it beside the binary
$(BUILD)/numalab: $(BUILD)/cli/main.o $(LIB_OBJS) | $(TLS_DSOS) $(BUILD)/numalab-worker
	@echo "  LINK    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(PKG_LIBS) $(LDLIBS)

# numalab-worker: `numalab run` alone (cli/worker_main.c), linked from an
# archive of every object so the linker takes only what `run` reaches, and
# with only the libraries those need (--as-needed drops the rest): its
# start, paid by every run the server starts, loads 5 libraries, not 40.
# tests/cli/test_worker.py checks that no server library comes back.
WORKER_PKGS = jansson hwloc
WORKER_LIBS = $(shell pkg-config --libs $(WORKER_PKGS) 2>/dev/null)

$(BUILD)/libnumalab.a: $(LIB_OBJS)
	@echo "  AR      $@"
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/numalab-worker: $(BUILD)/cli/worker_main.o $(BUILD)/libnumalab.a | $(TLS_DSOS)
	@echo "  LINK    $@"
	$(Q)$(CC) $(LDFLAGS) -Wl,--as-needed -o $@ $^ $(WORKER_LIBS) $(LDLIBS)

# A kernel's inner loop starts a 64-byte line: on some cores (seen on an
# AMD EPYC guest) a one-increment loop ran 2x slower when a change
# elsewhere in the program moved it by 16 bytes, so a figure depended on
# the build rather than on the machine (docs/guide/measurement.md).
$(KERNEL_SRCS:%.c=$(BUILD)/%.o): CFLAGS += -falign-loops=64

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(PKG_CFLAGS) -c -o $@ $<

# The version is compiled into lib/version.o alone, rebuilt when it changes:
# the stamp is written only then, so a commit rebuilds one file, and a run
# never records the version of the commit its objects were last built at.
$(BUILD)/lib/version.o: CFLAGS += -DNUMALAB_VERSION='"$(VERSION)"'
$(BUILD)/lib/version.o: $(BUILD)/version.stamp
$(BUILD)/version.stamp: FORCE
	@mkdir -p $(dir $@)
	$(Q)echo '$(VERSION)' | cmp -s - $@ 2>/dev/null || echo '$(VERSION)' > $@
FORCE:
.PHONY: FORCE

# openapi.c embeds openapi.json with .incbin, which -MMD cannot see
$(BUILD)/server/rundoc/openapi.o: server/rundoc/openapi.json

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

# make install: the binary, the worker the server starts for each run
# and the shared objects variable_layout loads (both in lib/numalab/), the
# page, the man pages and the bash completion. The binary finds the page,
# the worker and the objects from its own folder (../share/numalab/web,
# ../lib/numalab/), so the tree works wherever it is put whole: a DESTDIR
# staging tree, a package. `make uninstall` removes exactly these files.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
INSTALL ?= install

WEB_FILES = $(sort $(wildcard web/*.html web/*.js web/*.css))
VENDOR_FILES = chart.umd.min.js chartjs-chart-matrix.min.js \
	chartjs-chart-error-bars.min.js LICENSE.chart.js.md \
	LICENSE.chartjs-chart-matrix LICENSE.chartjs-chart-error-bars
MAN_PAGES = numalab numalab-serve numalab-run numalab-list numalab-topology \
	numalab-rates numalab-estimate numalab-fleet

# the man pages say what the binary's --help says (scripts/manpages.sh)
man: $(BUILD)/man/.stamp

$(BUILD)/man/.stamp: $(BUILD)/numalab scripts/manpages.sh scripts/help2roff.awk
	@echo "  MAN     $(BUILD)/man"
	$(Q)rm -rf $(BUILD)/man && scripts/manpages.sh $(BUILD)/numalab $(BUILD)/man
	$(Q)for p in $(MAN_PAGES); do test -s $(BUILD)/man/$$p.1 || \
		{ echo "manpages.sh wrote no $$p.1: MAN_PAGES and numalab --help differ" >&2; exit 1; }; done
	$(Q)touch $@

install: all man
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/numalab \
		$(DESTDIR)$(DATADIR)/numalab/web/vendor $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(BASHCOMPDIR)
	$(INSTALL) -m 755 $(BUILD)/numalab $(DESTDIR)$(BINDIR)/numalab
	$(INSTALL) -m 755 $(BUILD)/numalab-worker $(DESTDIR)$(LIBDIR)/numalab/numalab-worker
	$(INSTALL) -m 644 $(TLS_DSOS) $(DESTDIR)$(LIBDIR)/numalab/
	$(INSTALL) -m 644 $(WEB_FILES) $(DESTDIR)$(DATADIR)/numalab/web/
	$(INSTALL) -m 644 $(addprefix web/vendor/,$(VENDOR_FILES)) $(DESTDIR)$(DATADIR)/numalab/web/vendor/
	$(INSTALL) -m 644 $(MAN_PAGES:%=$(BUILD)/man/%.1) $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 644 dist/numalab.bash $(DESTDIR)$(BASHCOMPDIR)/numalab

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/numalab $(DESTDIR)$(BASHCOMPDIR)/numalab
	rm -f $(patsubst %,$(DESTDIR)$(LIBDIR)/numalab/%,$(notdir $(TLS_DSOS)) numalab-worker)
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/numalab/web/,$(notdir $(WEB_FILES)))
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/numalab/web/vendor/,$(VENDOR_FILES))
	rm -f $(MAN_PAGES:%=$(DESTDIR)$(MANDIR)/man1/%.1)
	-rmdir $(DESTDIR)$(DATADIR)/numalab/web/vendor $(DESTDIR)$(DATADIR)/numalab/web \
		$(DESTDIR)$(DATADIR)/numalab $(DESTDIR)$(LIBDIR)/numalab 2>/dev/null

include tests/tests.mk

# the unit tests find the shared objects two folders up from build/tests/unit/
$(UNIT_BINS): | $(TLS_DSOS)

# wrk and likwid-bench come from Debian (scripts/deps.sh bench)
bench-deps:
	$(Q)scripts/deps.sh bench

# QUICK=1: fewer rows and pairs, under 2 minutes (a look before a commit)
bench: bench-deps all
	$(Q)BUILD=$(BUILD) MAKE="$(MAKE)" BENCH_QUICK=$(QUICK) scripts/bench.sh

# the bench's own check: QUICK=1 beside a process spinning on the first CPU;
# fails when a bandwidth row reads above 1.15x likwid-bench or a row was
# skipped by a budget
bench-check: bench-deps all
	$(Q)BUILD=$(BUILD) MAKE="$(MAKE)" BENCH_QUICK=1 scripts/bench.sh --check

# every C file of ours; wildcard skips a folder that is not there
FORMAT_SRCS = $(sort $(wildcard $(addsuffix /*.[ch],$(SRC_DIRS)) kernels/experiments/*/*.[ch] tests/*/*.[ch]))

format:
	$(Q)clang-format -i $(FORMAT_SRCS)

clean:
	rm -rf build build-* web/vendor

.PHONY: all deps test-deps run test bench bench-check bench-deps format clean fuzz man install uninstall

-include $(LIB_OBJS:.o=.d) $(BUILD)/cli/main.d $(BUILD)/cli/worker_main.d
