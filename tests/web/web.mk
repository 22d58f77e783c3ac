# tests/web/web.mk - the page's pure modules (formatting, the time left,
# heatmap classes, the topology tree, compare's tables, the reading of a
# run document) under `node --test`,
# with no browser: every tests/web/*.test.mjs is picked up.
TEST_LANES += test-web

test-web:
	$(Q)if ! command -v node >/dev/null 2>&1; then \
		echo "SKIP test-web: node is not installed (apt-get install nodejs npm)"; exit 1; \
	fi; node --test $(sort $(wildcard tests/web/*.test.mjs))

.PHONY: test-web
