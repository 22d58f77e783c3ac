# tests/format/format.mk - the format lane: fails when a C file (FORMAT_SRCS,
# in the Makefile) is not as clang-format and the committed .clang-format say,
# or when an include points up the folders' order (tests/format/layers.py),
# or when files include or call each other in a circle (tests/format/cycles.py),
# or when a file is over 600 lines (an experiment or a part of one aside) or a
# function over 100, each named (tests/format/lengths.py).
test-format:
	$(Q)python3 tests/format/layers.py
	$(Q)python3 tests/format/cycles.py
	$(Q)python3 tests/format/lengths.py
	$(Q)python3 tests/format/test_checks.py
	$(Q)command -v clang-format >/dev/null 2>&1 || { \
		echo "test-format: 'clang-format' is not installed (make test-deps installs it)" >&2; exit 1; }
	$(Q)bad=""; for f in $(FORMAT_SRCS); do \
		clang-format --style=file "$$f" | cmp -s "$$f" - || bad="$$bad $$f"; \
	done; \
	[ -z "$$bad" ] && exit 0; \
	echo "$$(echo $$bad | wc -w) files are not formatted as .clang-format says; run 'make format' and commit:" >&2; \
	for f in $$bad; do echo "  $$f" >&2; done; \
	exit 1

TEST_LANES += test-format
.PHONY: test-format

# The length check alone, to see the offenders while splitting.
lengths:
	$(Q)python3 tests/format/lengths.py

.PHONY: lengths
