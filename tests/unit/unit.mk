# tests/unit/unit.mk - C unit tests (cmocka): every tests/unit/test_*.c is
# one test program, linked with all of kernels/ and server/ but main.c.
UNIT_SRCS = $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS = $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/unit/%)

$(BUILD)/tests/unit/%: tests/unit/%.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	@echo "  CCLD    $@"
	$(Q)$(CC) $(CFLAGS) $(PKG_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(LIB_OBJS) $(PKG_LIBS) -lcmocka $(LDLIBS)

# Runs each test program; synthetic and captured topologies live in tests/data/.
# The page's pure modules are tested in the web lane (tests/web/*.test.mjs).

test-unit: $(UNIT_BINS)
	$(Q)fail=0; for t in $(UNIT_BINS); do echo "  UNIT    $$t"; $$t || fail=1; done; exit $$fail

TEST_LANES += test-unit
.PHONY: test-unit

# The same unit tests built with AddressSanitizer + UndefinedBehaviorSanitizer.
test-unit-san:
	$(Q)$(MAKE) --no-print-directory SAN=address,undefined test-unit

TEST_LANES += test-unit-san
.PHONY: test-unit-san
