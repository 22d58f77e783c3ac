# tests/browser/browser.mk - the page in headless Chromium, against a real server on loopback
TEST_LANES += test-browser

CHROMIUM ?= /usr/bin/chromium

test-browser: $(BUILD)/numalab web/vendor/.stamp
	$(Q)if ! command -v node >/dev/null 2>&1; then \
		echo "SKIP test-browser: node is not installed (apt-get install nodejs npm)"; \
	else \
		node tests/browser/run.mjs --numalab $(BUILD)/numalab --chromium $(CHROMIUM) \
			--web web --screenshots build/screenshots && \
		node tests/browser/lab.mjs --numalab $(BUILD)/numalab --chromium $(CHROMIUM) \
			--web web --screenshots build/screenshots && \
		node tests/browser/topology.mjs --numalab $(BUILD)/numalab --chromium $(CHROMIUM) \
			--web web --screenshots build/screenshots && \
		node tests/browser/trust.mjs --numalab $(BUILD)/numalab --chromium $(CHROMIUM) \
			--web web && \
		node tests/browser/size.mjs --numalab $(BUILD)/numalab --chromium $(CHROMIUM) \
			--web web --screenshots build/screenshots; \
	fi

.PHONY: test-browser
