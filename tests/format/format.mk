# tests/format/format.mk - the format lane: fails when a C file (FORMAT_SRCS,
# in the Makefile) is not as clang-format and the committed .clang-format say,
# or when an include points up the folders' order (tests/format/layers.py),
# or when files include or call each other in a circle (tests/format/cycles.py).
test-format:
	$(Q)python3 tests/format/layers.py
	$(Q)python3 tests/format/cycles.py
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

# Files over 600 lines (an experiment or a part of one aside) and functions
# over 100, each named (tests/format/lengths.py). Not a lane yet: some files
# and functions are still over, and `make lengths` says which.
lengths:
	$(Q)python3 tests/format/lengths.py

.PHONY: lengths
