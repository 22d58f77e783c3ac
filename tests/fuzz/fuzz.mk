# tests/fuzz/fuzz.mk - libFuzzer targets (clang): `make fuzz` runs each for a
# minute; the test lane runs each for a fixed number of inputs.
FUZZ_BUILD = build-fuzz
FUZZ_CC = clang
FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer-no-link,address,undefined -Wno-unused-command-line-argument
FUZZ_TARGETS = fuzz_import fuzz_jsonlimit fuzz_list fuzz_params fuzz_request
# The longest input each target is given: 1024 bytes unless it says more.
# Real run documents are tens of KB (atomic_increment's is about 47 KB).
FUZZ_MAX_LEN_fuzz_import = 131072
fuzz_max_len = $(or $(FUZZ_MAX_LEN_$(1)),1024)
FUZZ_LENS = $(foreach t,$(FUZZ_TARGETS),$(t):$(call fuzz_max_len,$(t)))
FUZZ_SRCS = $(LIB_SRCS) $(KERNEL_SRCS) $(SERVER_SRCS) $(CLI_SRCS)
FUZZ_OBJS = $(FUZZ_SRCS:%.c=$(FUZZ_BUILD)/%.o)
FUZZ_RUNS ?= 20000
# undefined behaviour stops a target like a crash does (it is reported once
# and forgotten otherwise), with the stack that led to it
FUZZ_ENV = ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  FUZZCC  $<"
	$(Q)$(FUZZ_CC) -std=gnu11 -pthread $(INCLUDES) $(FUZZ_FLAGS) $(PKG_CFLAGS) -DNUMALAB_CFLAGS='"fuzz"' -c -o $@ $<

$(FUZZ_BUILD)/%: tests/fuzz/%.c $(FUZZ_OBJS)
	@echo "  FUZZLD  $@"
	$(Q)$(FUZZ_CC) -std=gnu11 -pthread $(INCLUDES) $(FUZZ_FLAGS) -fsanitize=fuzzer $(PKG_CFLAGS) -o $@ $< $(FUZZ_OBJS) $(PKG_LIBS) $(LDLIBS)

fuzz-build: $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/%)
# kept, so that building one target after another does not compile them again
.SECONDARY: $(FUZZ_OBJS)

# Each target over its seed corpus plus FUZZ_RUNS new inputs; a crash or
# undefined behaviour fails.
# New inputs go to a folder under the build (the first corpus libFuzzer is
# given) and a crashing input to the build folder, so the lane never writes
# into the source tree.
test-fuzz: fuzz-build
	$(Q)for tl in $(FUZZ_LENS); do \
		t=$${tl%%:*}; len=$${tl#*:}; \
		c=tests/fuzz/corpus/$${t#fuzz_}; \
		new=$(FUZZ_BUILD)/corpus-new/$${t#fuzz_}; mkdir -p $$new; \
		echo "  FUZZ    $$t ($(FUZZ_RUNS) runs)"; \
		$(FUZZ_ENV) $(FUZZ_BUILD)/$$t -runs=$(FUZZ_RUNS) -max_len=$$len \
		  -artifact_prefix=$(FUZZ_BUILD)/ $$new $$c >$(FUZZ_BUILD)/$$t.log 2>&1 \
		  || { tail -30 $(FUZZ_BUILD)/$$t.log; exit 1; }; \
	done

fuzz: fuzz-build
	$(Q)for tl in $(FUZZ_LENS); do \
		t=$${tl%%:*}; len=$${tl#*:}; \
		$(FUZZ_ENV) $(FUZZ_BUILD)/$$t -max_total_time=60 -max_len=$$len tests/fuzz/corpus/$${t#fuzz_} || exit 1; \
	done

TEST_LANES += test-fuzz
.PHONY: fuzz fuzz-build test-fuzz
